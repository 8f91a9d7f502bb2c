"""An export's later bundle of a table, checked from where its earlier bundle ended.

A bundle of the first format, or of a table's heads logged before it had a table_state,
holds the table's whole chain before its head, so a busy table's lines repeat ever longer
prefixes. A ``Memo`` keeps the table as verified
through its last bundle that passed every step (``bundle.Verified``), with a digest of
each verified signed event's ``identity``: a later bundle whose first events are exactly
those is checked from there on (``bundle.Context.since``).
"""

import hashlib
from dataclasses import dataclass
from typing import Any

from .bundle import Checked, Verified
from .chain import event_hash

_SIGNED_KEYS = {"event", "hash", "key_id", "signature"}


@dataclass(frozen=True)
class Memo:
    """A table verified through the end of a valid bundle."""

    identities: "hashlib._Hash"  # SHA-256 over each signed event's ``identity``, in seq order
    verified: Verified


def reusable(memo: Memo | None, obj: Any, duplicates: bool) -> Memo | None:
    """``memo``, if the bundle ``obj`` goes on from it: its first events are exactly the
    memo's, and it has more. Never for a text with a member name twice (``duplicates``)."""
    events = obj.get("events") if isinstance(obj, dict) else None
    if memo is None or duplicates or not isinstance(events, list):
        return None
    if len(events) <= memo.verified.length or _first_seq(events) != 0:
        return None
    # Every identity is 128 bytes or empty: the joined ones are the verified ones exactly
    # when each is.
    prefix = hashlib.sha256(b"".join(map(identity, events[: memo.verified.length])))
    return memo if prefix.digest() == memo.identities.digest() else None


def remember(used: Memo | None, checked: Checked) -> Memo | None:
    """The memo of the table after a bundle checked from ``used`` (None: from seq 0), if
    it passed every step (so each stated hash is the event's, as ``identity`` requires)."""
    work = checked.work
    if checked.verified is None or work is None or checked.result.start is not None:
        return None  # a bundle from a table_state repeats nothing: the export links it
    identities = used.identities.copy() if used else hashlib.sha256()
    new = zip(work.digests, work.signed, strict=True)
    identities.update(b"".join(_identity(d, s.signature, s.key_id) for d, s in new))
    return Memo(identities, checked.verified)


def _first_seq(events: list[Any]) -> Any:
    first = events[0] if events else None
    event = first.get("event") if isinstance(first, dict) else None
    return event.get("seq") if isinstance(event, dict) else None


def identity(raw: Any) -> bytes:
    """What a later bundle's signed event must be to be taken as verified: its event's
    hash (over its canonical bytes), its raw signature and its key id, 128 bytes, equal for
    two signed events exactly when their JSON is. b"" (never a verified event's) unless
    the stated hash is the event's, the signature 128 lowercase hex digits and the key id
    32 ASCII characters, as every verified event's are."""
    event = raw.get("event") if isinstance(raw, dict) else None
    if not isinstance(raw, dict) or set(raw) != _SIGNED_KEYS or not isinstance(event, dict):
        return b""
    try:
        digest = event_hash(event)
        signature, key = raw["signature"], raw["key_id"]
        if raw["hash"] != digest.hex() or len(signature) != 128:
            return b""
        if not (isinstance(key, str) and len(key) == 32 and key.isascii()):
            return b""
        raw_signature = bytes.fromhex(signature)
    except (TypeError, ValueError, RecursionError):
        return b""
    if raw_signature.hex() != signature:  # fromhex also reads uppercase and spaces
        return b""
    return _identity(digest, raw_signature, key)


def _identity(digest: bytes, signature: bytes, key_id: str) -> bytes:
    return digest + signature + key_id.encode()
