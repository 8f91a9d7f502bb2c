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
from functools import lru_cache
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
from fairdeal.frozen import adopt, build, build_from, set_fields
from fairdeal.keys import KeySet, Signer
from fairdeal.protocol import SERVER

VERSION = 1
GENESIS_PREV = "0" * 64
_FIELDS = ("version", "table", "round", "seq", "prev", "time", "type", "actor", "data")
_FIELD_SET = frozenset(_FIELDS)
_FIELD_VALUES = itemgetter(*_FIELDS)  # an event's fields, as a tuple in that order
_SIGNED_FIELDS = frozenset(("event", "hash", "key_id", "signature"))


def _whole_match(pattern: str) -> Callable[[str], bool]:
    """Whether a text matches all of ``pattern``, as a function cached per pattern: a
    table's events repeat their table id, round id, type and key id, and a cached answer
    costs a third of a match."""
    compiled = re.compile(pattern)

    @lru_cache(maxsize=4096)
    def matches(text: str) -> bool:
        return compiled.fullmatch(text) is not None

    return matches


_is_id = _whole_match(r"[A-Za-z0-9._:-]{1,64}")
_is_type = _whole_match(r"[a-z][a-z0-9_]{0,39}")
_is_key_id = _whole_match(r"[0-9a-f]{32}")
# The actors, server|seat:(0|[1-9][0-9]?), each with the seat it names (None: the
# server): looked up faster than matched or parsed
_SEATS: dict[str, int | None] = {SERVER: None, **{f"seat:{seat}": seat for seat in range(100)}}
_ACTORS = frozenset(_SEATS)


def seat_actor(seat: int) -> str:
    return f"seat:{seat}"


def actor_seat(actor: str) -> int | None:
    """The seat number an actor names, or None for the server."""
    if actor in _SEATS:  # every logged actor: asked by the rules at most events
        return _SEATS[actor]
    return int(actor.removeprefix("seat:"))


def concerned_seat(event: "Event") -> int | None:
    """The seat whose account a seating event concerns (SPEC 6.5): the data's ``seat`` when
    it is an integer (Toto21's seating), else the actor's; None for the server's own."""
    seat = event.data.get("seat")
    return seat if type(seat) is int else actor_seat(event.actor)


@dataclass(frozen=True, init=False)
class Draft:
    """What a game decides: an event before the chain gives it seq, prev and time."""

    type: str
    actor: str
    data: Mapping[str, Any] = field(default_factory=dict)
    round: str | None = None

    def __init__(
        self,
        type: str,
        actor: str,
        data: Mapping[str, Any] | None = None,
        round: str | None = None,
    ) -> None:
        # Hot (every event is drafted): the fields given as one dictionary, where a frozen
        # dataclass's own __init__ sets each through object.__setattr__ (~0.25 µs more).
        fields = {
            "type": type,
            "actor": actor,
            "data": {} if data is None else data,
            "round": round,
        }
        set_fields(self, fields)


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

        Hot (every event read passes here): each field is checked once, in SPEC 5.1's
        order, and the canonical bytes are formatted around the encoded data.
        """
        if not isinstance(obj, dict) or obj.keys() != _FIELD_SET:
            raise EventSchemaError(f"an event has exactly the fields {', '.join(_FIELDS)}")
        values = _FIELD_VALUES(obj)
        _check_shape(values)
        try:
            if _stamped_types(values):
                data = canonical_text(obj["data"], depth=1)
                canonical = _formatted(values, data)
            else:  # the raw object is encoded, so that its member order names the first bad value
                canonical = canonical_bytes(obj)
                data = json_text(obj["data"])
        except EncodingError as e:  # a float, a huge integer: not something the log holds
            raise EventSchemaError(f"seq {values[3]!r}: {e}") from e
        return adopt(cls, dict(obj)), canonical, data  # its fields, checked above

    @property
    def draft(self) -> Draft:
        return Draft(self.type, self.actor, self.data, self.round)

    def hash(self) -> bytes:
        return _digest(_canonical(self))


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
        if not isinstance(key, str) or not _is_key_id(key):
            raise EventSchemaError("key_id is not 32 lowercase hex digits")
        event, canonical, data = Event.parse(obj["event"])
        values = {"event": event, "hash": stated, "key_id": key, "signature": signature}
        return adopt(cls, values), _digest(canonical), data

    def check(self, keys: KeySet) -> None:
        """The stated hash is the event's hash and the signature verifies under a trusted key."""
        if not hmac.compare_digest(self.event.hash(), self.hash):
            raise HashMismatchError(f"seq {self.event.seq}: stated hash is not the event's hash")
        keys.verify_hash(self.key_id, self.hash, self.signature)


def sign(event: Event, signer: Signer) -> SignedEvent:
    digest = event.hash()
    signature = signer.sign_hash(digest)
    return build(SignedEvent, event=event, hash=digest, key_id=signer.key_id, signature=signature)


@dataclass(frozen=True)
class ChainHead:
    """Where a table's chain stands: the next seq, the last hash and time."""

    table: str
    next_seq: int = 0
    prev: str = GENESIS_PREV
    time: int = 0

    def stamp(self, draft: Draft, time: int) -> Event:
        """Make the next event of this chain; time never goes back."""
        last = self.time
        stamped = last if last > time else time
        return build_from(Event, _fields(draft, self.table, self.next_seq, self.prev, stamped))

    def advance(self, event: Event, event_hash: bytes) -> "ChainHead":
        return build_from(
            ChainHead,
            {
                "table": self.table,
                "next_seq": event.seq + 1,
                "prev": event_hash.hex(),
                "time": event.time,
            },
        )

    def extend(
        self, drafts: Iterable[Draft], time: int, signer: Signer
    ) -> tuple["ChainHead", list[SignedEvent]]:
        """``stamp``, ``sign`` and ``advance`` for each draft in turn: the table engine's work
        for one command.

        Hot (every event passes here). The events of one command share their table and
        time, so when those have the types ``stamp`` gives them their text is formatted
        once, and each event's canonical bytes are assembled around its own fields; any
        other draft takes the general path (``_canonical_fields``), with its errors.
        """
        table, seq, prev, last = self.table, self.next_seq, self.prev, self.time
        stamped = last if last > time else time
        table_text = json_string(table) if _stamped_shared(table, stamped) else None
        key_id, sign_hash = signer.key_id, signer.sign_hash
        prev_text = json_string(prev) if type(prev) is str else None
        signed = []
        for draft in drafts:
            fields = _fields(draft, table, seq, prev, stamped)
            kind, actor, round_id = draft.type, draft.actor, draft.round
            if (
                table_text is not None
                and prev_text is not None
                and type(kind) is type(actor) is str
                and (round_id is None or type(round_id) is str)
                and type(seq) is int
                and 0 <= seq <= MAX_SAFE_INTEGER
            ):
                canonical = _event_bytes(
                    json_string(actor),
                    canonical_text(fields["data"], 1),
                    prev_text,
                    "null" if round_id is None else json_string(round_id),
                    seq,
                    table_text,
                    stamped,
                    json_string(kind),
                )
            else:
                canonical = _canonical_fields(fields)
            digest = _digest(canonical)
            values = {
                "event": adopt(Event, fields),
                "hash": digest,
                "key_id": key_id,
                "signature": sign_hash(digest),
            }
            signed.append(adopt(SignedEvent, values))
            seq, prev, last = seq + 1, digest.hex(), stamped
            prev_text = f'"{prev}"'  # a hash's hex needs no escaping
        head = adopt(ChainHead, {"table": table, "next_seq": seq, "prev": prev, "time": last})
        return head, signed

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


def _fields(draft: Draft, table: str, seq: int, prev: str, time: int) -> dict[str, Any]:
    """The fields, in ``Event``'s order, of the event after one at ``seq - 1`` with hash
    ``prev``, stamped at ``time`` (the caller keeps time from going back). Positional
    arguments: every event is stamped here, and keywords cost more."""
    return {
        "version": VERSION, "table": table, "round": draft.round, "seq": seq, "prev": prev,
        "time": time, "type": draft.type, "actor": draft.actor, "data": dict(draft.data),
    }  # fmt: skip


def _digest(canonical: bytes) -> bytes:
    """An event's hash, from its canonical bytes."""
    return hashlib.sha256(tags.EVENT + canonical).digest()


def _canonical(event: Event) -> bytes:
    """``canonical_bytes(event.to_json())``."""
    return _canonical_fields(event.__dict__)


def _canonical_fields(fields: Mapping[str, Any]) -> bytes:
    """The canonical bytes of an event with these fields. Hot (every event is hashed), so
    when they have the types ``stamp`` gives them, only ``data`` goes through the encoder
    and the rest is formatted around it, members in RFC 8785 order (sorted by name)."""
    values = _SORTED_FIELDS(fields)
    if not _stamped(values):
        return canonical_bytes({name: fields[name] for name in _FIELDS})
    actor, data, prev, round_id, seq, table, time, kind, version = values
    return _event_bytes(
        json_string(actor),
        canonical_text(data, depth=1),
        json_string(prev),
        "null" if round_id is None else json_string(round_id),
        seq,
        json_string(table),
        time,
        json_string(kind),
        version,
    )


def _stamped_shared(table: Any, time: Any) -> bool:
    """Whether the members every event of one command shares (table, time) have the
    types ``stamp`` gives them."""
    return type(table) is str and type(time) is int and 0 <= time <= MAX_SAFE_INTEGER


def _event_bytes(  # noqa: PLR0917 - hot: positional arguments cost less than keywords
    actor: str,
    data: str,
    prev: str,
    round_id: str,
    seq: int,
    table: str,
    time: int,
    kind: str,
    version: int = VERSION,
) -> bytes:
    """An event's canonical bytes from its members' JSON texts and integers, in RFC 8785
    order (sorted by name)."""
    return utf8(
        f'{{"actor":{actor},"data":{data},"prev":{prev},"round":{round_id},"seq":{seq},'
        f'"table":{table},"time":{time},"type":{kind},"version":{version}}}'
    )


_SORTED_FIELDS = itemgetter(*sorted(_FIELDS))  # an event's fields, as a tuple in that order


def _stamped_types(values: tuple[Any, ...]) -> bool:
    """Whether an event's fields (in ``_FIELDS`` order), whose shape passed, have the types
    ``stamp`` gives them: then only its data can lack a canonical encoding."""
    _, table, round_id, seq, prev, time, kind, actor, _ = values
    return (
        type(table) is type(prev) is type(kind) is type(actor) is str
        and (round_id is None or type(round_id) is str)
        and seq <= MAX_SAFE_INTEGER
        and time <= MAX_SAFE_INTEGER
    )


def _formatted(values: tuple[Any, ...], data: str) -> bytes:
    """The canonical bytes of an event of stamped types (``_stamped_types``) with this data
    text. SPEC 5.1's patterns hold no character JSON escapes, so each string is written
    as it is, in quotes (and ``version`` is 1)."""
    _, table, round_id, seq, prev, time, kind, actor, _ = values
    return _event_bytes(
        f'"{actor}"',
        data,
        f'"{prev}"',
        "null" if round_id is None else f'"{round_id}"',
        seq,
        f'"{table}"',
        time,
        f'"{kind}"',
    )


def _stamped(values: tuple[Any, ...]) -> bool:
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

    Faster than a regular expression: every signed event has two such values, and a
    string spells bytes in lowercase hex exactly when it is their ``hex()``.
    """
    if not isinstance(value, str) or len(value) != 2 * size:
        return None
    try:
        raw = bytes.fromhex(value)
    except ValueError:
        return None
    return raw if raw.hex() == value else None


def _check_shape(values: tuple[Any, ...]) -> None:
    """SPEC 5.1's constraints on an event's fields (in ``_FIELDS`` order), in the order of
    its table: the first that fails is raised. Each check runs once those before it passed."""
    version, table, round_id, seq, prev, time, kind, actor, data = values
    if type(version) is not int or version != VERSION:
        reason = "version must be 1"
    elif not (isinstance(table, str) and _is_id(table)):
        reason = "bad table id"
    elif not (round_id is None or (isinstance(round_id, str) and _is_id(round_id))):
        reason = "bad round id"
    elif type(seq) is not int or seq < 0:
        reason = "seq must be a non-negative integer"
    elif _hex(prev, 32) is None:
        reason = "prev must be 64 lowercase hex digits"
    elif type(time) is not int or time < 0:
        reason = "time must be a non-negative integer"
    elif not (isinstance(kind, str) and _is_type(kind)):
        reason = "bad event type"
    elif not (isinstance(actor, str) and actor in _ACTORS):
        reason = "bad actor"
    elif not isinstance(data, dict):
        reason = "data must be an object"
    else:
        return
    raise EventSchemaError(f"seq {seq!r}: {reason}")
