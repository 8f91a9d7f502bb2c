"""C2SP tlog-cosignature (c2sp.org/tlog-cosignature), version 1 with Ed25519.

A witness cosigns a checkpoint it found consistent with the last one it cosigned for the
same log: a note signature line "\u2014 <name> base64(key ID || u64be(timestamp) ||
signature)", where the key ID is SHA-256(name || 0x0A || 0x04 || public key)[:4], the
timestamp is POSIX seconds, and the signature is Ed25519 over
"cosignature/v1\\ntime <timestamp>\\n" followed by the checkpoint's note body.
"""

import struct
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from cryptography.exceptions import InvalidSignature

from fairdeal.errors import BadSignatureError
from fairdeal.note import (
    KEY_ID_SIZE,
    MalformedNoteError,
    NamedKey,
    NamedSigner,
    NoteError,
    read_note,
    signature_line,
)

COSIGNATURE_TYPE = b"\x04"
MAX_TIMESTAMP = 2**63 - 1
_HEADER = "cosignature/v1\n"
_ED25519_SIG_SIZE = 64
_BLOB_SIZE = KEY_ID_SIZE + 8 + _ED25519_SIG_SIZE


class BadCosignatureError(NoteError, BadSignatureError):
    """A cosignature by a trusted witness key that does not verify, or is malformed."""


def cosigned_message(body: str, timestamp: int) -> bytes:
    """What a version-1 Ed25519 cosignature signs: header, time line, checkpoint body."""
    if not 0 <= timestamp <= MAX_TIMESTAMP:
        raise ValueError(f"a cosignature time is 0..2**63-1, not {timestamp}")
    return f"{_HEADER}time {timestamp}\n{body}".encode()


@dataclass(frozen=True)
class Cosignature:
    """A verified cosignature: who made it, and when (POSIX seconds)."""

    name: str
    timestamp: int


class CosignatureVerifier(NamedKey):
    """A witness's Ed25519 public key under its name (signature type 0x04): checks its
    cosignatures."""

    SIGNATURE_TYPE = COSIGNATURE_TYPE

    def verify(self, body: str, blob: bytes) -> int:
        """The timestamp of the cosignature ``blob`` (key ID, time, signature) over the
        checkpoint ``body``; BadCosignatureError if it is not this witness's."""
        if len(blob) != _BLOB_SIZE or blob[:KEY_ID_SIZE] != self.key_id:
            raise BadCosignatureError(f"the cosignature by {self.name} is malformed")
        (timestamp,) = struct.unpack(">Q", blob[KEY_ID_SIZE : KEY_ID_SIZE + 8])
        if timestamp > MAX_TIMESTAMP:
            raise BadCosignatureError(f"the cosignature by {self.name} has time {timestamp}")
        try:
            self.public_key.verify(blob[KEY_ID_SIZE + 8 :], cosigned_message(body, timestamp))
        except InvalidSignature:
            raise BadCosignatureError(f"the cosignature by {self.name} does not verify") from None
        return int(timestamp)


class Cosigner(NamedSigner[CosignatureVerifier]):
    """A witness's Ed25519 private key under its name: cosigns checkpoints."""

    VERIFIER = CosignatureVerifier

    def cosign(self, body: str, timestamp: int) -> str:
        """The signature line cosigning the checkpoint ``body`` at ``timestamp``."""
        signature = self._key.sign(cosigned_message(body, timestamp))
        blob = self.key_id + struct.pack(">Q", timestamp) + signature
        return signature_line(self.name, blob)


def cosignatures(note: str | bytes, verifiers: Iterable[CosignatureVerifier]) -> list[Cosignature]:
    """The valid cosignatures in ``note`` by the given witnesses, at most one each (the
    earliest). Lines by other keys are ignored; one that a given witness's key ID names
    and that does not verify raises BadCosignatureError, as a bad signature by a trusted
    key rejects a signed note."""
    body, signatures = read_note(note)
    trusted = {(v.name, v.key_id): v for v in verifiers}
    found: dict[str, int] = {}
    for name, kid, signature in signatures:
        verifier = trusted.get((name, kid))
        if verifier is None:
            continue
        timestamp = verifier.verify(body, kid + signature)
        found[name] = min(timestamp, found.get(name, timestamp))
    return [Cosignature(name, found[name]) for name in sorted(found)]


def with_signatures(note: str, lines: Sequence[str]) -> str:
    """``note`` with the signature ``lines`` added after its own, each once."""
    read_note(note)  # a well-formed note, or MalformedNoteError
    present = set(note[note.rfind("\n\n") + 2 :].splitlines(keepends=True))
    added = "".join(line for line in dict.fromkeys(lines) if line not in present)
    merged = note + added
    read_note(merged)  # the lines are signature lines, and the note stays within bounds
    return merged


__all__ = [
    "COSIGNATURE_TYPE",
    "BadCosignatureError",
    "Cosignature",
    "CosignatureVerifier",
    "Cosigner",
    "MalformedNoteError",
    "cosignatures",
    "cosigned_message",
    "with_signatures",
]
