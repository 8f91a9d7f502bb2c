"""Steps (1) to (5) for each signed event: schema, canonical form, links, signature, time.

Each event is checked on its own against the chain head before it, so one broken
link gives one finding and the rest of the chain is still checked (the head
resynchronises on the event that broke it). The signatures are verified once all the
events are read, one after another: Ed25519 and the Python around it both run faster
when they do not take turns evicting each other from the processor's caches. Each
finding still takes its event's place among the others.
"""

import hashlib
import hmac
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from fairdeal import tags
from fairdeal.canonical import json_text
from fairdeal.errors import (
    BadSignatureError,
    EncodingError,
    EventSchemaError,
    UnknownKeyError,
)
from fairdeal.events import GENESIS_PREV, Event, SignedEvent
from fairdeal.keys import KeySet
from fairdeal.protocol import TABLE_CREATED, TABLE_STATE

from .findings import Finding
from .inputs import has_duplicates


def event_hash(event: dict[str, Any]) -> bytes:
    """SHA-256(EVENT tag || canonical bytes) of an event already checked to be canonical.

    On the canonical domain, RFC 8785 is compact JSON with sorted members (SPEC 1.1).
    """
    return hashlib.sha256(tags.EVENT + json_text(event).encode("utf-8")).digest()


@dataclass(frozen=True)
class Head:
    """Where the chain stands before the next event."""

    next_seq: int = 0
    prev: str = GENESIS_PREV
    time: int = 0
    version: int | None = None  # the chain's protocol version: its first event's


class ChainChecker:
    """Checks events one by one and keeps the findings; ``intact`` while (1)-(3) hold."""

    def __init__(
        self, table: str, keys: KeySet, head: Head | None = None, opening: bool = False
    ) -> None:
        """From ``head``, or from the genesis; ``opening``: the first event may instead be
        a ``table_state`` anywhere in the chain, where the checks start (SPEC 13.1)."""
        self.table = table
        self.keys = keys
        start = head or Head()
        # the head's fields, kept apart: a new Head for every event costs more than (3)
        self._next_seq, self._prev, self._prev_time = start.next_seq, start.prev, start.time
        self._version = start.version
        self.findings: list[Finding] = []
        self.intact = True
        self._from_genesis = head is None
        self._opening = opening and head is None
        # (where its finding goes among the findings, the event, its hash)
        self._unverified: list[tuple[int, SignedEvent, bytes]] = []

    @property
    def head(self) -> Head:
        return Head(self._next_seq, self._prev, self._prev_time, self._version)

    def _find(self, code: str, round_id: Any, seq: Any, reason: str) -> None:
        self.findings.append(self._finding(code, round_id, seq, reason))

    def _finding(self, code: str, round_id: Any, seq: Any, reason: str) -> Finding:
        if code.split(".", maxsplit=1)[0] in ("schema", "canonical", "chain"):
            self.intact = False
        round_text = round_id if isinstance(round_id, str) else None
        seq_number = seq if type(seq) is int else None
        return Finding(code, self.table, round_text, seq_number, reason)

    def check(
        self, raws: Iterable[Any], duplicates_possible: bool
    ) -> list[tuple[SignedEvent, bytes, str]]:
        """Steps (1) to (5) for each signed event in turn; the ones that can be read as
        signed events, each with its hash and its data's canonical text."""
        read = [e for raw in raws if (e := self._read(raw, duplicates_possible)) is not None]
        self._verify_signatures()
        return read

    def _read(self, raw: Any, duplicates_possible: bool) -> tuple[SignedEvent, bytes, str] | None:
        """The signed event, its hash and its data's canonical text, or None when it cannot
        be read as one."""
        try:
            # (1) schema; (2) the core refuses a value without a canonical form while
            # parsing, and hashes the canonical bytes it checked
            signed, digest, data = SignedEvent.parse(raw)
        except EventSchemaError as e:
            self._unreadable(raw, e, duplicates_possible)
            return None
        event = signed.event
        # (2) canonical form
        if duplicates_possible and has_duplicates(raw):
            self._find(
                "canonical.duplicate_key", event.round, event.seq, "a member name appears twice"
            )
            return None
        if self._opening:
            self._open_at(event)
        self._links(event)
        self._hash(signed, digest)
        self._time(event)
        self._next_seq, self._prev, self._prev_time = event.seq + 1, digest.hex(), event.time
        return signed, digest, data

    def _unreadable(self, raw: Any, error: EventSchemaError, duplicates_possible: bool) -> None:
        event_raw = raw.get("event") if isinstance(raw, dict) else None
        event_raw = event_raw if isinstance(event_raw, dict) else {}
        round_id, seq = event_raw.get("round"), event_raw.get("seq")
        code = (
            "canonical.encoding" if isinstance(error.__cause__, EncodingError) else "schema.event"
        )
        reason = str(error)
        if duplicates_possible and has_duplicates(raw):
            code, reason = "canonical.duplicate_key", "a member name appears twice"
        self._find(code, round_id, seq, reason)

    def _open_at(self, event: Event) -> None:
        # (3) a bundle of the second format starts at table_created or at a table_state
        self._opening = False
        if event.seq == 0 and event.type == TABLE_CREATED:
            return
        if event.type != TABLE_STATE:
            reason = f"the bundle starts with {event.type} at seq {event.seq}"
            self._find("chain.start", event.round, event.seq, reason)
        self._next_seq, self._prev, self._prev_time = event.seq, event.prev, event.time

    def _links(self, event: Event) -> None:
        # (3) seq and prev
        if event.table != self.table:
            self._find("chain.table", event.round, event.seq, f"event of table {event.table!r}")
        if event.seq != self._next_seq:
            self._find("chain.gap", event.round, event.seq, f"expected seq {self._next_seq}")
        elif not hmac.compare_digest(event.prev, self._prev):
            self._find("chain.fork", event.round, event.seq, "prev is not the previous hash")
        if (event.seq == 0) != (event.type == TABLE_CREATED):
            self._find("chain.genesis", event.round, event.seq, "table_created is seq 0 only")
        # (3) a chain keeps the protocol version of its first event (SPEC 5.1): the rules
        # that replay it, and so what its seats' moves prove, depend on it
        if self._version is None:
            self._version = event.version
        elif event.version != self._version:
            reason = f"version {event.version} in a chain of version {self._version}"
            self._find("chain.version", event.round, event.seq, reason)

    def _hash(self, signed: SignedEvent, digest: bytes) -> None:
        # (4) the stated hash; a right one's signature is verified later, with the others
        event = signed.event
        if not hmac.compare_digest(digest, signed.hash):
            self._find("sig.hash_mismatch", event.round, event.seq, "stated hash is not its hash")
            return
        self._unverified.append((len(self.findings), signed, digest))

    def _verify_signatures(self) -> None:
        # (4) key ids and signatures, back to back; each finding is inserted at its event's
        # place, the last first, so that the places before it stay where they are
        late = []
        for place, signed, digest in self._unverified:
            problem = self._signature(signed, digest)
            if problem is not None:
                late.append((place, problem))
        if self._none_trusted([problem for _, problem in late]):
            late = [(late[0][0], self._wrong_key())]
        self._unverified.clear()
        for place, problem in reversed(late):
            self.findings.insert(place, problem)

    def _none_trusted(self, problems: list[Finding]) -> bool:
        """Whether every signature of the chain, read from seq 0, is by an untrusted key."""
        return (
            self._from_genesis
            and 0 < len(problems) == len(self._unverified)
            and all(problem.code == "sig.unknown_key" for problem in problems)
        )

    def _wrong_key(self) -> Finding:
        """One finding for a chain none of whose signatures is by a trusted key: most
        likely the wrong --key, so it names the keys that signed and the keys trusted."""
        signers = ", ".join(dict.fromkeys(signed.key_id for _, signed, _ in self._unverified))
        trusted = ", ".join(self.keys.ids()) or "none"
        reason = (
            f"the key given signed nothing here: is it the operator's key? It was signed by key id "
            f"{signers}; trusted: {trusted}"
        )
        return self._finding("sig.wrong_key", None, None, reason)

    def _signature(self, signed: SignedEvent, digest: bytes) -> Finding | None:
        event = signed.event
        try:
            self.keys.verify_hash(signed.key_id, digest, signed.signature)
        except UnknownKeyError:
            reason = f"key id {signed.key_id} is not a trusted key"
            return self._finding("sig.unknown_key", event.round, event.seq, reason)
        except BadSignatureError:
            reason = f"signature does not verify under key {signed.key_id}"
            return self._finding("sig.bad_signature", event.round, event.seq, reason)
        return None

    def _time(self, event: Event) -> None:
        # (5) times never go back
        if event.time < self._prev_time:
            reason = f"time {event.time} is before {self._prev_time}"
            self._find("time.went_back", event.round, event.seq, reason)
