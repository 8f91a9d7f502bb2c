"""The keys the verifier trusts: given on the command line, never taken from the input.

A key is a PEM public key file or a C2SP verifier key string
("<name>+<key id>+<base64(0x01 || public key)>"). The operator signs events and
checkpoints with the same Ed25519 key, so either form pins both: events by the
key id derived from the public key, checkpoints by the note key under the log's name.
A witness's key (C2SP tlog-cosignature) is its verifier key string
("<name>+<key id>+<base64(0x04 || public key)>"), or a file holding one.
"""

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from fairdeal.cosignature import CosignatureVerifier
from fairdeal.errors import FairdealError
from fairdeal.keys import KeySet, load_public_key, raw_public_key
from fairdeal.note import NoteVerifier

from .inputs import LIMITS, InputError, open_input, read_small, text_of


@dataclass(frozen=True)
class Trust:
    """Pinned public keys, and the note names pinned with them (None: any log name); the
    witnesses whose cosignatures a checkpoint needs, ``quorum`` of them (step 18)."""

    public_keys: tuple[Ed25519PublicKey, ...]
    note_names: tuple[str | None, ...]
    origin: str | None = None
    witnesses: tuple[CosignatureVerifier, ...] = ()
    quorum: int = 0

    @cached_property
    def key_set(self) -> KeySet:
        """The pinned keys by key id: made once, not for every bundle of an export."""
        return KeySet(self.public_keys)

    def note_verifiers(self, origin: str) -> list[NoteVerifier]:
        """Verifiers for a checkpoint of ``origin``: PEM keys take the log's own name."""
        seen: set[bytes] = set()
        verifiers = []
        for key, name in zip(self.public_keys, self.note_names, strict=True):
            raw = raw_public_key(key)
            if raw in seen or (name is not None and name != origin):
                continue
            seen.add(raw)
            verifiers.append(NoteVerifier(origin, key))
        return verifiers


_SEAT_KEY = re.compile(r"[0-9a-fA-F]{64}")


def load_trust(
    specs: Sequence[str],
    origin: str | None = None,
    witnesses: Sequence[str] = (),
    quorum: int | None = None,
) -> Trust:
    """Parse each --key and --witness; InputError (exit 2) for anything that is not a
    usable key. ``quorum`` defaults to every witness given."""
    if not specs:
        raise InputError("input.wrong_format", "no trusted key: pass --key (PEM file or C2SP key)")
    if max(len(specs), len(witnesses)) > LIMITS.max_keys:
        raise InputError("input.too_large", f"more than {LIMITS.max_keys} keys")
    keys, names = [], []
    for spec in specs:
        key, name = _one_key(spec)
        keys.append(key)
        names.append(name)
    cosigners = _witnesses(witnesses)
    needed = len(cosigners) if quorum is None else quorum
    if not (1 if cosigners else 0) <= needed <= len(cosigners):
        raise ValueError(f"a quorum of {needed} of {len(cosigners)} witnesses")
    return Trust(tuple(keys), tuple(names), origin, cosigners, needed)


def _one_key(spec: str) -> tuple[Ed25519PublicKey, str | None]:
    """A file if one of that name exists (a PEM key, or a C2SP key string in it); else
    the key string itself if it has two "+" at least (a seat's 64 hex digits are refused
    with a hint); else a file that cannot be read (input.unreadable)."""
    if not os.path.exists(spec) and _SEAT_KEY.fullmatch(spec.strip()):
        reason = (
            f"{spec.strip()[:16]}… is 64 hex digits, a seat's public key as fairdeal keygen "
            "prints it: --key takes the operator's key, its PEM file or its "
            "name+keyid+base64 string (GET /v1/keys)"
        )
        raise InputError("input.wrong_format", reason)
    if not os.path.exists(spec) and spec.count("+") >= 2:
        try:
            verifier = NoteVerifier.from_key_string(spec.strip())
        except (FairdealError, ValueError) as e:
            raise InputError("input.wrong_format", f"bad verifier key string: {e}") from None
        return verifier.public_key, verifier.name
    with open_input(spec) as stream:
        pem = read_small(stream, f"key file {spec}")
    text = text_of(pem, f"key file {spec}").strip()
    if text.count("+") >= 2 and "BEGIN" not in text:
        return _one_key_string(text)
    try:
        return load_public_key(pem), None
    except FairdealError as e:
        raise InputError("input.wrong_format", f"{spec}: {e}") from None


def _one_key_string(text: str) -> tuple[Ed25519PublicKey, str | None]:
    try:
        verifier = NoteVerifier.from_key_string(text)
    except (FairdealError, ValueError) as e:
        raise InputError("input.wrong_format", f"bad verifier key string: {e}") from None
    return verifier.public_key, verifier.name


def _witnesses(specs: Sequence[str]) -> tuple[CosignatureVerifier, ...]:
    """Each --witness; one key per witness name, for a quorum counts witnesses."""
    witnesses = tuple(map(_one_witness, specs))
    names = [w.name for w in witnesses]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        reason = f"one key per witness name: {', '.join(twice)} given twice"
        raise InputError("input.wrong_format", reason)
    return witnesses


def _one_witness(spec: str) -> CosignatureVerifier:
    """As a --key: a file if one of that name exists, else the key string itself if it
    has two "+" at least, else a file that cannot be read (input.unreadable)."""
    text = spec
    if os.path.exists(spec) or spec.count("+") < 2:
        with open_input(spec) as stream:
            text = text_of(read_small(stream, f"witness key file {spec}"), f"witness key {spec}")
    try:
        return CosignatureVerifier.from_key_string(text.strip())
    except (FairdealError, ValueError) as e:
        raise InputError("input.wrong_format", f"bad witness key: {e}") from None
