"""``fairdeal witness``: run a witness, or print its key."""

import argparse
import logging
import sys
from pathlib import Path
from typing import Any

from fairdeal.errors import FairdealError
from fairdeal.note import NoteError, NoteVerifier

from ..http import logs
from .app import create_witness_app
from .keyfile import DEFAULT_NAME, KeyNameError, load_cosigner
from .store import StoreBusyError

USAGE_ERROR = 2
DEFAULT_PORT = 8100
log = logging.getLogger("fairdeal.witness")


def add_command(commands: Any, port: Any) -> None:
    """The ``witness`` subcommand; ``port`` parses a TCP port as ``serve`` does."""
    witness = commands.add_parser(
        "witness",
        help="run a C2SP tlog-witness that cosigns a log's checkpoints",
        description="Run a witness (c2sp.org/tlog-witness): it cosigns each checkpoint of the "
        "logs named by --log that extends the last one it cosigned for that log, at POST "
        "/add-checkpoint, and shows what it cosigned at GET /. Its key and its SQLite file are "
        "kept in the state folder, made private (0700) on first start with the key in it.",
    )
    witness.add_argument(
        "--state",
        type=Path,
        default=Path("witness"),
        metavar="DIR",
        help="the witness's state folder: its key and database (default: ./witness)",
    )
    witness.add_argument(
        "--name",
        help="the witness's key name, used when its key is first made; later it must be the "
        f"key's name (default: {DEFAULT_NAME}, or the name of the key already made)",
    )
    witness.add_argument(
        "--log",
        action="append",
        type=_log_key,
        default=[],
        metavar="VKEY",
        help="a log to witness: its verifier key name+keyid+base64 (as GET /v1/keys gives in "
        "log.verifier_key), or a file holding it; repeat for more logs; required unless "
        "--print-key",
    )
    witness.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1)"
    )
    witness.add_argument(
        "--port",
        type=port,
        default=DEFAULT_PORT,
        help=f"TCP port, 1 to 65535 (default: {DEFAULT_PORT})",
    )
    witness.add_argument(
        "--print-key",
        action="store_true",
        help="print the witness's verifier key (made if missing) for auditors to pin, and exit "
        "(default: run the witness)",
    )
    witness.set_defaults(run=run_witness)


def _log_key(text: str) -> NoteVerifier:
    path = Path(text)
    try:
        key = path.read_text(encoding="utf-8").strip() if path.is_file() else text
        return NoteVerifier.from_key_string(key)
    except (OSError, UnicodeDecodeError, NoteError) as e:
        raise argparse.ArgumentTypeError(f"not a log's verifier key or a file of one: {e}") from e


def run_witness(args: argparse.Namespace) -> int:
    if not (args.log or args.print_key):
        return _usage_error("name at least one log to witness with --log")
    logs.configure("text")
    try:
        if args.print_key:
            print(load_cosigner(args.state, args.name).verifier_key())
            return 0
        app = create_witness_app(args.state, args.log, name=args.name)
    except KeyNameError as e:
        return _usage_error(f"--name: {e}")
    except (FairdealError, OSError, StoreBusyError) as e:
        raise SystemExit(f"fairdeal witness: error: {e}") from None
    cosigner = app.extensions["witness"].cosigner
    log.info("witness key %s", cosigner.verifier_key())
    for verifier in args.log:
        log.info("witnessing %s", verifier.key_string())
    try:
        from ..http import serving  # gunicorn, as fairdeal serve
    except ModuleNotFoundError as e:  # on Windows
        raise SystemExit(f"fairdeal witness: error: {e}") from None
    # One process: its threads take turns at the SQLite file's write lock anyway. Connections
    # are kept alive between requests (C2SP tlog-witness: a witness SHOULD).
    options = serving.ServerOptions(args.host, args.port, workers=1)

    def ready() -> None:  # said once the port is bound: a reader of the log may send at once
        log.info("witness on http://%s/add-checkpoint", options.bind)

    serving.run(lambda: app, options, ready=ready)
    return 0


def _usage_error(message: str) -> int:
    print(f"fairdeal witness: error: {message}", file=sys.stderr)
    return USAGE_ERROR
