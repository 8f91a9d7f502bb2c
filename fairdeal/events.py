"""Events, their canonical hash, signatures, and the per-table hash chain.

An event is {version, table, round, seq, prev, time, type, actor, data}. Its hash is
SHA-256(tag || RFC 8785 bytes); ``prev`` is the hash of the table's previous event
(64 zeros for the first), ``seq`` counts from 0 by one, ``time`` is integer
milliseconds since the Unix epoch. A signed event adds the key id and an Ed25519
signature over the tagged hash.
"""

import hashlib
import hmac
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any

from fairdeal import tags
from fairdeal.canonical import (
    MAX_SAFE_INTEGER,
    canonical_bytes,
    canonical_text,
    json_string,
    json_text,
    utf8,
)
from fairdeal.errors import (
    ChainForkError,
    ChainGapError,
    EncodingError,
    EventSchemaError,
    HashMismatchError,
    TimeWentBackError,
    WrongTableError,
)
from fairdeal.frozen import make
from fairdeal.keys import KeySet, Signer
from fairdeal.protocol import SERVER

VERSION = 1  # the first protocol's events; a table's chain keeps its table_created's version
# SPEC 5.1: 2 is the protocol with seat keys and seed commitments (6.7), 3 that of
# dealer-blind tables (15.13)
VERSIONS = (1, 2, 3)
GENESIS_PREV = "0" * 64
FIELDS = ("version", "table", "round", "seq", "prev", "time", "type", "actor", "data")  # SPEC 5.1
_FIELD_SET = frozenset(FIELDS)
_SIGNED_FIELDS = frozenset(("event", "hash", "key_id", "signature"))
_ID = re.compile(r"[A-Za-z0-9._:-]{1,64}")
_TYPE = re.compile(r"[a-z][a-z0-9_]{0,39}")
_KEY_ID = re.compile(r"[0-9a-f]{32}")
# server|seat:(0|[1-9][0-9]?)
_ACTORS = frozenset((SERVER, *(f"seat:{seat}" for seat in range(100))))


def is_id(value: object) -> bool:
    """Whether ``value`` is a table or round id as SPEC 5.1 allows them."""
    return isinstance(value, str) and _ID.fullmatch(value) is not None


def seat_actor(seat: int) -> str:
    return f"seat:{seat}"


def actor_seat(actor: str) -> int | None:
    """The seat number an actor names, or None for the server."""
    return None if actor == SERVER else int(actor.removeprefix("seat:"))


def concerned_seat(event: "Event") -> int | None:
    """The seat whose account a seating event concerns (SPEC 6.5): the data's ``seat`` when
    it is an integer (Toto21's seating), else the actor's; None for the server's own."""
    seat = event.data.get("seat")
    return seat if type(seat) is int else actor_seat(event.actor)


@dataclass(frozen=True)
class Draft:
    """What a game decides: an event before the chain gives it seq, prev and time."""

    type: str
    actor: str
    data: Mapping[str, Any] = field(default_factory=dict)
    round: str | None = None
    # Data an earlier service logged for the same decision before a rule's wording was
    # corrected (SPEC 7.19): a replay accepts them too; the service writes only ``data``.
    earlier: tuple[Mapping[str, Any], ...] = ()


@dataclass(frozen=True)
class Event:
    version: int
    table: str
    round: str | None
    seq: int
    prev: str
    time: int
    type: str
    actor: str
    data: Mapping[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {
            "version": self.version, "table": self.table, "round": self.round,
            "seq": self.seq, "prev": self.prev, "time": self.time, "type": self.type,
            "actor": self.actor, "data": self.data,
        }  # fmt: skip

    @classmethod
    def from_json(cls, obj: Any) -> "Event":
        """Parse a logged event, refusing any shape the log does not use."""
        return cls.parse(obj)[0]

    @classmethod
    def parse(cls, obj: Any) -> tuple["Event", bytes, str]:
        """``from_json``, the canonical bytes it checked (what the event's hash covers), and
        its data's canonical text (what ``fairdeal.table.records`` compares a draft's with).

        The fields are checked in SPEC 5.1's order, then the canonical domain.
        """
        if not isinstance(obj, dict) or obj.keys() != _FIELD_SET:
            raise EventSchemaError(f"an event has exactly the fields {', '.join(FIELDS)}")
        _check_shape(obj)
        try:
            canonical, data = _canonical(obj)
        except EncodingError as e:  # a float, a huge integer: not something the log holds
            raise EventSchemaError(f"seq {obj['seq']!r}: {e}") from e
        return make(cls, dict(obj)), canonical, data

    @property
    def draft(self) -> Draft:
        return Draft(self.type, self.actor, self.data, self.round)

    def hash(self) -> bytes:
        return _digest(_canonical(self.__dict__)[0])


@dataclass(frozen=True)
class SignedEvent:
    event: Event
    hash: bytes
    key_id: str
    signature: bytes

    def to_json(self) -> dict[str, Any]:
        return {
            "event": self.event.to_json(),
            "hash": self.hash.hex(),
            "key_id": self.key_id,
            "signature": self.signature.hex(),
        }

    @classmethod
    def from_json(cls, obj: Any) -> "SignedEvent":
        return cls.parse(obj)[0]

    @classmethod
    def parse(cls, obj: Any) -> tuple["SignedEvent", bytes, str]:
        """``from_json``, the event's own hash (from the canonical bytes it checked), and its
        data's canonical text (see ``Event.parse``).

        The stated hash is not compared with it here: ``check`` (or the caller) does that.
        """
        if not isinstance(obj, dict) or obj.keys() != _SIGNED_FIELDS:
            raise EventSchemaError("a signed event has exactly event, hash, key_id, signature")
        stated, key, signature = _hex(obj["hash"], 32), obj["key_id"], _hex(obj["signature"], 64)
        if stated is None or signature is None:
            raise EventSchemaError("hash or signature is not lowercase hex of the right length")
        if not isinstance(key, str) or not _KEY_ID.fullmatch(key):
            raise EventSchemaError("key_id is not 32 lowercase hex digits")
        event, canonical, data = Event.parse(obj["event"])
        values = {"event": event, "hash": stated, "key_id": key, "signature": signature}
        return make(cls, values), _digest(canonical), data

    def check(self, keys: KeySet) -> None:
        """The stated hash is the event's hash and the signature verifies under a trusted key."""
        if not hmac.compare_digest(self.event.hash(), self.hash):
            raise HashMismatchError(f"seq {self.event.seq}: stated hash is not the event's hash")
        keys.verify_hash(self.key_id, self.hash, self.signature)


def sign(event: Event, signer: Signer) -> SignedEvent:
    digest = event.hash()
    values = {
        "event": event,
        "hash": digest,
        "key_id": signer.key_id,
        "signature": signer.sign_hash(digest),
    }
    return make(SignedEvent, values)


@dataclass(frozen=True)
class ChainHead:
    """Where a table's chain stands: the next seq, the last hash and time."""

    table: str
    next_seq: int = 0
    prev: str = GENESIS_PREV
    time: int = 0
    version: int = VERSION

    def stamp(self, draft: Draft, time: int) -> Event:
        """Make the next event of this chain; time never goes back."""
        time = max(time, self.time)
        return _event(draft, self.table, self.next_seq, self.prev, time, version=self.version)

    def advance(self, event: Event, event_hash: bytes) -> "ChainHead":
        """The head after ``event``, whose version the chain keeps (its first event's)."""
        values = {
            "table": self.table,
            "next_seq": event.seq + 1,
            "prev": event_hash.hex(),
            "time": event.time,
            "version": event.version,
        }
        return make(ChainHead, values)

    def extend(
        self, drafts: Iterable[Draft], time: int, signer: Signer
    ) -> tuple["ChainHead", list[SignedEvent]]:
        """``stamp``, ``sign`` and ``advance`` for each draft in turn: the table engine's work
        for one command, without a head for each event between."""
        # hot: kvitlach rounds, events
        table, seq, prev, last, version = (
            self.table, self.next_seq, self.prev, self.time, self.version
        )  # fmt: skip
        signed = []
        for draft in drafts:
            event = _event(draft, table, seq, prev, max(time, last), version=version)
            signed.append(sign(event, signer))
            seq, prev, last = seq + 1, signed[-1].hash.hex(), signed[-1].event.time
        values = {"table": table, "next_seq": seq, "prev": prev, "time": last, "version": version}
        return make(ChainHead, values), signed

    def follow(self, signed: SignedEvent, keys: KeySet) -> "ChainHead":
        """Check that ``signed`` is the next link of this chain and return the new head."""
        event = signed.event
        if event.table != self.table:
            raise WrongTableError(f"seq {event.seq}: event of table {event.table!r}")
        if event.seq != self.next_seq:
            raise ChainGapError(f"expected seq {self.next_seq}, found {event.seq}")
        if not hmac.compare_digest(event.prev, self.prev):
            raise ChainForkError(f"seq {event.seq}: prev is not the previous event's hash")
        if event.time < self.time:
            raise TimeWentBackError(f"seq {event.seq}: time {event.time} < {self.time}")
        signed.check(keys)
        return self.advance(event, signed.hash)


def _event(draft: Draft, table: str, seq: int, prev: str, time: int, *, version: int) -> Event:
    """The event ``draft`` becomes at ``seq`` after the event of hash ``prev``, at ``time``."""
    values = {
        "version": version, "table": table, "round": draft.round, "seq": seq, "prev": prev,
        "time": time, "type": draft.type, "actor": draft.actor, "data": dict(draft.data),
    }  # fmt: skip
    return make(Event, values)


def event_hash(fields: dict[str, Any]) -> bytes:
    """The hash (5.2) of an event's nine fields as JSON, whatever their values; raises
    ``EncodingError`` where they have no canonical encoding."""
    return _digest(_canonical(fields)[0])


def _digest(canonical: bytes) -> bytes:
    """An event's hash, from its canonical bytes."""
    return hashlib.sha256(tags.EVENT + canonical).digest()


_SORTED_FIELDS = itemgetter(*sorted(FIELDS))  # an event's fields, as a tuple in that order


# hot: kvitlach rounds, events; events verified per CPU second (every event is hashed)
def _canonical(fields: dict[str, Any]) -> tuple[bytes, str]:
    """``canonical_bytes(fields)`` for an event's fields, and its data's canonical text:
    the one path by which an event is encoded, stamped (``sign``) or read (``parse``).

    When the fields have the types ``stamp`` gives them, only ``data`` goes through the
    encoder and the rest is formatted around it, members in RFC 8785 order (sorted by
    name). Otherwise the whole event is encoded, which names the first value (in the
    fields' own order) that has no encoding.
    """
    values = _SORTED_FIELDS(fields)
    if not _stamped(values):
        return canonical_bytes(fields), json_text(fields["data"])
    actor, data, prev, round_id, seq, table, time, kind, version = values
    text = canonical_text(data, depth=1)
    round_text = "null" if round_id is None else json_string(round_id)
    return utf8(
        f'{{"actor":{json_string(actor)},"data":{text},"prev":{json_string(prev)},'
        f'"round":{round_text},"seq":{seq},"table":{json_string(table)},"time":{time},'
        f'"type":{json_string(kind)},"version":{version}}}'
    ), text


def _stamped(values: tuple[Any, ...]) -> bool:
    """Whether an event's fields (sorted by name) have the types ``stamp`` gives them:
    then only its data can lack a canonical encoding."""
    actor, _, prev, round_id, seq, table, time, kind, version = values
    return (
        type(actor) is type(prev) is type(table) is type(kind) is str
        and (round_id is None or type(round_id) is str)
        and type(seq) is type(time) is type(version) is int
        and -MAX_SAFE_INTEGER <= seq <= MAX_SAFE_INTEGER
        and -MAX_SAFE_INTEGER <= time <= MAX_SAFE_INTEGER
        and -MAX_SAFE_INTEGER <= version <= MAX_SAFE_INTEGER
    )


def _hex(value: Any, size: int) -> bytes | None:
    """The ``size`` bytes that ``value`` spells in lowercase hex, or None if it does not.

    A string spells bytes in lowercase hex exactly when it is their ``hex()``: read so, not
    matched by a regular expression (every signed event has three such values).
    """
    # hot: events verified per CPU second
    if not isinstance(value, str) or len(value) != 2 * size:
        return None
    try:
        raw = bytes.fromhex(value)
    except ValueError:
        return None
    return raw if raw.hex() == value else None


# SPEC 5.1's constraint on each field, in the order of its table, with the reason it fails
_SHAPES: dict[str, tuple[Callable[[Any], bool], str]] = {
    "version": (lambda v: type(v) is int and v in VERSIONS, "version must be 1, 2 or 3"),
    "table": (lambda v: isinstance(v, str) and _ID.fullmatch(v) is not None, "bad table id"),
    "round": (lambda v: v is None or is_id(v), "bad round id"),
    "seq": (lambda v: type(v) is int and v >= 0, "seq must be a non-negative integer"),
    "prev": (lambda v: _hex(v, 32) is not None, "prev must be 64 lowercase hex digits"),
    "time": (lambda v: type(v) is int and v >= 0, "time must be a non-negative integer"),
    "type": (lambda v: isinstance(v, str) and _TYPE.fullmatch(v) is not None, "bad event type"),
    "actor": (lambda v: isinstance(v, str) and v in _ACTORS, "bad actor"),
    "data": (lambda v: isinstance(v, dict), "data must be an object"),
}


def has_shape(field_name: str, value: Any) -> bool:
    """Whether ``value`` meets SPEC 5.1's constraint on the event field ``field_name``, or
    5.3's on a signed event's ``key_id``."""
    if field_name == "key_id":
        return isinstance(value, str) and _KEY_ID.fullmatch(value) is not None
    return _SHAPES[field_name][0](value)


def _check_shape(obj: dict[str, Any]) -> None:
    """SPEC 5.1's constraints on an event's fields, in the order of its table: the first
    that fails is raised. Each check runs once those before it passed."""
    for name, (holds, reason) in _SHAPES.items():
        if not holds(obj.get(name)):
            raise EventSchemaError(f"seq {obj.get('seq')!r}: {reason}")
