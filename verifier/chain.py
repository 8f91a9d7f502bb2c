"""Steps (1) to (5) for each signed event: schema, canonical form, links, signature, time.

Each event is checked on its own against the chain head before it, so one broken
link gives one finding and the rest of the chain is still checked (the head
resynchronises on the event that broke it).
"""

import hashlib
import hmac
import json
from dataclasses import dataclass
from typing import Any

from fairdeal import tags
from fairdeal.errors import (
    BadSignatureError,
    EncodingError,
    EventSchemaError,
    UnknownKeyError,
)
from fairdeal.events import GENESIS_PREV, SignedEvent
from fairdeal.keys import KeySet
from verifier.findings import Finding
from verifier.inputs import has_duplicates

TABLE_CREATED = "table_created"
# On the canonical domain (which Event.from_json has just checked), RFC 8785 is compact
# JSON with sorted members: SPEC 1.1. Encoding the parsed object directly hashes the
# very bytes that were checked, once.
_encode = json.JSONEncoder(ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode


def event_hash(event: dict[str, Any]) -> bytes:
    """SHA-256(EVENT tag || canonical bytes) of an event already checked to be canonical."""
    return hashlib.sha256(tags.EVENT + _encode(event).encode("utf-8")).digest()


@dataclass(frozen=True)
class Head:
    """Where the chain stands before the next event."""

    next_seq: int = 0
    prev: str = GENESIS_PREV
    time: int = 0


class ChainChecker:
    """Checks events one by one and keeps the findings; ``intact`` while (1)-(3) hold."""

    def __init__(self, table: str, keys: KeySet, head: Head | None = None) -> None:
        self.table = table
        self.keys = keys
        self.head = head or Head()
        self.findings: list[Finding] = []
        self.intact = True

    def _find(self, code: str, round_id: Any, seq: Any, reason: str) -> None:
        if code.split(".", maxsplit=1)[0] in ("schema", "canonical", "chain"):
            self.intact = False
        round_text = round_id if isinstance(round_id, str) else None
        seq_number = seq if type(seq) is int else None
        self.findings.append(Finding(code, self.table, round_text, seq_number, reason))

    def check(self, raw: Any, duplicates_possible: bool) -> tuple[SignedEvent, bytes] | None:
        """The signed event and its hash, or None when it cannot be read as one."""
        # (1) schema
        event_raw = raw.get("event") if isinstance(raw, dict) else None
        event_raw = event_raw if isinstance(event_raw, dict) else {}
        round_id, seq = event_raw.get("round"), event_raw.get("seq")
        try:
            signed = SignedEvent.from_json(raw)
        except EventSchemaError as e:
            # (2) the core refuses a value without a canonical form while parsing
            code = (
                "canonical.encoding" if isinstance(e.__cause__, EncodingError) else "schema.event"
            )
            if duplicates_possible and has_duplicates(raw):
                code, e = "canonical.duplicate_key", EventSchemaError("a member name appears twice")
            self._find(code, round_id, seq, str(e))
            return None
        # (2) canonical form
        if duplicates_possible and has_duplicates(raw):
            self._find("canonical.duplicate_key", round_id, seq, "a member name appears twice")
            return None
        try:
            digest = event_hash(event_raw)
        except (EncodingError, ValueError, TypeError) as e:
            self._find("canonical.encoding", round_id, seq, str(e))
            return None
        self._links(signed, digest)
        self._signature(signed, digest)
        self._time(signed)
        self.head = Head(signed.event.seq + 1, digest.hex(), signed.event.time)
        return signed, digest

    def _links(self, signed: SignedEvent, digest: bytes) -> None:
        # (3) seq and prev
        event, head = signed.event, self.head
        if event.table != self.table:
            self._find("chain.table", event.round, event.seq, f"event of table {event.table!r}")
        if event.seq != head.next_seq:
            self._find("chain.gap", event.round, event.seq, f"expected seq {head.next_seq}")
        elif not hmac.compare_digest(event.prev, head.prev):
            self._find("chain.fork", event.round, event.seq, "prev is not the previous hash")
        if (event.seq == 0) != (event.type == TABLE_CREATED):
            self._find("chain.genesis", event.round, event.seq, "table_created is seq 0 only")

    def _signature(self, signed: SignedEvent, digest: bytes) -> None:
        # (4) signatures and key ids
        event = signed.event
        if not hmac.compare_digest(digest, signed.hash):
            self._find("sig.hash_mismatch", event.round, event.seq, "stated hash is not its hash")
            return
        try:
            self.keys.verify_hash(signed.key_id, digest, signed.signature)
        except UnknownKeyError:
            reason = f"key id {signed.key_id} is not a trusted key"
            self._find("sig.unknown_key", event.round, event.seq, reason)
        except BadSignatureError:
            reason = f"signature does not verify under key {signed.key_id}"
            self._find("sig.bad_signature", event.round, event.seq, reason)

    def _time(self, signed: SignedEvent) -> None:
        # (5) times never go back
        event = signed.event
        if event.time < self.head.time:
            reason = f"time {event.time} is before {self.head.time}"
            self._find("time.went_back", event.round, event.seq, reason)
