"""``fairdeal keygen``, ``sign`` and ``commit``: a seat's key and statements for a client
with no key library of its own (curl, a quick script); ``keygen`` and ``vkey`` for
the operator's signing key too. They need the core alone.

``sign`` prints the JSON body to send, the command's data with ``signed`` {n, after,
signature} beside them, as each route takes it: a seed or commitment (POST
/v1/rounds/R/seeds), the creator's decision on a joiner (POST
/v1/tables/T/seats/S/decision), any other command as an action (POST /v1/rounds/R/actions
in a round, /v1/tables/T/actions outside one).
"""

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from fairdeal import randomness, statements
from fairdeal.errors import FairdealError
from fairdeal.keys import load_private_key, private_key_pem
from fairdeal.note import NoteVerifier
from fairdeal.protocol import (
    CLIENT_SEED,
    JOINER_ACCEPTED,
    JOINER_REJECTED,
    SEED_COMMITMENT,
    is_hex64,
)

from ..storage.private_files import FILE_MODE

USAGE_ERROR = 2
SEED_BODIES = (CLIENT_SEED, SEED_COMMITMENT)
DECISIONS = (JOINER_ACCEPTED, JOINER_REJECTED)


def add_commands(commands: Any) -> None:
    keygen = commands.add_parser(
        "keygen",
        help="make an Ed25519 key (a seat's or the operator's)",
        description="Write a new Ed25519 private key (PEM, mode 0600), and print its public "
        "key as 64 hex digits. For a seat, send them as `key` when taking the seat; for the "
        "operator, point FAIRDEAL_KEY_FILE at the file and print the log's verifier key with "
        "`fairdeal vkey`.",
    )
    keygen.add_argument(
        "--out", required=True, type=Path, help="the key file to write, new; required"
    )
    keygen.set_defaults(run=run_keygen)
    verifier_key = commands.add_parser(
        "vkey",
        help="print the log's verifier key for the operator's signing key",
        description="Print the verifier key (C2SP signed-note form, ORIGIN+keyid+base64) of "
        "the log that KEY signs under ORIGIN: what auditors pass to fairdeal-verify --key and "
        "what a witness takes with fairdeal witness --log. An encrypted key is opened with "
        "FAIRDEAL_KEY_PASSPHRASE, as the service opens it.",
    )
    verifier_key.add_argument(
        "--key", required=True, type=Path, help="the operator's signing key (PEM); required"
    )
    verifier_key.add_argument(
        "--origin",
        required=True,
        help="the log's origin, as FAIRDEAL_LOG_ORIGIN sets it (e.g. play.example.com/log); "
        "required",
    )
    verifier_key.set_defaults(run=run_verifier_key)
    sign = commands.add_parser(
        "sign",
        help="print a seat's command, signed, as the JSON body to send",
        description="Sign a keyed seat's command (SPEC 6.7) and print the body to POST: the "
        "command's data with `signed` {n, after, signature}. n must be above every n the seat "
        "signed before (1 for its first command). The statement is made after the table's "
        "head as the seat last looked at it: the `head` {seq, hash} of GET /v1/tables/T, read "
        "just before (a table at rest takes only its latest head; 409 signature_stale: look "
        "again and sign again, with the same n).",
    )
    sign.add_argument("--key", required=True, type=Path, help="the seat's key file; required")
    sign.add_argument("--table", required=True, help="the table's id; required")
    sign.add_argument(
        "--round",
        default=None,
        help="the round's id, for a command sent to a round (default: none, a table's command)",
    )
    sign.add_argument("--seat", required=True, type=_natural, help="the seat's number; required")
    sign.add_argument(
        "--n", required=True, type=_positive, help="the statement's number, from 1; required"
    )
    sign.add_argument(
        "--after-seq",
        required=True,
        metavar="SEQ",
        type=_natural,
        help="the seq of the table's head the seat saw (head.seq of GET /v1/tables/T); required",
    )
    sign.add_argument(
        "--after-hash",
        required=True,
        metavar="HASH",
        type=_hex64,
        help="that head's hash, 64 lowercase hex (head.hash); required",
    )
    sign.add_argument(
        "--type",
        required=True,
        dest="kind",
        help="the command: stand, hit, bet, client_seed, seed_commitment, joiner_accepted, "
        "... ; required",
    )
    sign.add_argument(
        "data",
        nargs="?",
        default="{}",
        type=_json_object,
        help='the command\'s data as a JSON object (default: {}; a seed: {"seed": "..."}, '
        'a decision: {"seat": 1})',
    )
    sign.set_defaults(run=run_sign)
    commit = commands.add_parser(
        "commit",
        help="print a seat's commitment to its client seed",
        description="Print the commitment to SEED for a round and seat (SPEC 3.9), the 64 hex "
        'digits to send as {"commitment": ...} before revealing {"seed": SEED}.',
    )
    commit.add_argument("--round", required=True, help="the round's id; required")
    commit.add_argument("--seat", required=True, type=_natural, help="the seat's number; required")
    commit.add_argument("seed", help="the client seed, printable ASCII")
    commit.set_defaults(run=run_commit)


def run_keygen(args: argparse.Namespace) -> int:
    key = Ed25519PrivateKey.generate()
    try:
        descriptor = os.open(args.out, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    except OSError as e:
        return _fail(f"--out {args.out}: {e.strerror} (a key file is never overwritten)")
    with os.fdopen(descriptor, "wb") as sink:
        sink.write(private_key_pem(key))
    print(statements.public_key_hex(key))
    return 0


def run_verifier_key(args: argparse.Namespace) -> int:
    passphrase = os.environ.get("FAIRDEAL_KEY_PASSPHRASE", "").encode() or None
    try:
        key = load_private_key(args.key.read_bytes(), passphrase)
        print(NoteVerifier(args.origin, key.public_key()).key_string())
    except (OSError, FairdealError, ValueError) as e:
        return _fail(f"--key {args.key} --origin {args.origin!r}: {e}")
    return 0


def run_sign(args: argparse.Namespace) -> int:
    try:
        key = load_private_key(args.key.read_bytes())
    except (OSError, FairdealError) as e:
        return _fail(f"--key {args.key}: {e}")
    after = {"seq": args.after_seq, "hash": args.after_hash}
    sent = statements.signed_data(
        key,
        args.table,
        args.round,
        args.seat,
        n=args.n,
        after=after,
        kind=args.kind,
        data=args.data,
    )
    print(json.dumps(body(args.kind, sent)))
    return 0


def body(kind: str, sent: dict[str, Any]) -> dict[str, Any]:
    """The body of the route that takes ``kind``, from the data a seat sends."""
    if kind in SEED_BODIES:
        return sent
    signed = sent.pop(statements.SIGNATURE)
    if kind in DECISIONS:
        return {"accept": kind == JOINER_ACCEPTED, statements.SIGNATURE: signed}
    return {"type": kind, "data": sent, statements.SIGNATURE: signed}


def run_commit(args: argparse.Namespace) -> int:
    try:
        randomness.check_client_seed(args.seed)
    except FairdealError as e:
        return _fail(f"SEED: {e}")
    print(randomness.client_seed_commitment(args.round, args.seat, args.seed).hex())
    return 0


def _fail(message: str) -> int:
    print(f"fairdeal: error: {message}", file=sys.stderr)
    return USAGE_ERROR


def _natural(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("not an integer") from None
    if value < 0:
        raise argparse.ArgumentTypeError("must be 0 or more")
    return value


def _positive(text: str) -> int:
    value = _natural(text)
    if not 0 < value <= statements.MAX_N:
        raise argparse.ArgumentTypeError(f"must be 1 to {statements.MAX_N}")
    return value


def _hex64(text: str) -> str:
    if not is_hex64(text):
        raise argparse.ArgumentTypeError("not 64 lowercase hex digits")
    return text


def _json_object(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except ValueError:
        raise argparse.ArgumentTypeError("not JSON") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError("not a JSON object")
    return value
