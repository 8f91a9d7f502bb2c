"""Seat keys and the statements seats sign (SPEC 6.7): the engine's part of version 2.

In a version-2 table, ``seat_joined`` binds the seat's Ed25519 public key (``key``, or
null for a keyless seat, whose moves the operator alone attests). Every later command of
a keyed seat carries ``signed`` {n, after, signature}: its signature over the canonical
statement {table, round, seat, n, after, type, data}, ``n`` above the seat's last and
``after`` {seq, hash} an event of the chain the seat saw, so that a statement holds in
that one log and no fork of it. The engine checks it before the game decides, and logs
it in the command's event as {n, after, data, signature}, ``data`` being what the seat
signed (the event's own data may add the fields the rules derive, such as balances).
The games never see either member.
"""

import hmac
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from functools import lru_cache
from types import MappingProxyType
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from fairdeal import tags
from fairdeal.canonical import canonical_bytes
from fairdeal.errors import (
    EventSchemaError,
    IllegalActionError,
    KeyRequiredError,
    SeatKeyError,
    SeatSignatureError,
    SignatureMissingError,
    SignatureReplayedError,
    SignatureStaleError,
    SignatureUnexpectedError,
)
from fairdeal.events import Draft, Event, actor_seat
from fairdeal.game import Command
from fairdeal.keys import raw_public_key
from fairdeal.protocol import (
    ANSWERS,
    CLIENT_SEED,
    ROUND_OPENED,
    SEAT_JOINED,
    SEED_COMMITMENT,
    SEEDS_COMMITTED,
    TABLE_STATE,
    is_hex64,
)

# protocol versions: SIGNED binds seat keys and takes seed commitments, BLIND is that of
# dealer-blind tables (SPEC 15.13), where a seat's signed members are logged once
FIRST, SIGNED, BLIND = 1, 2, 3
KEY, SIGNATURE = "key", "signed"  # the members the engine owns in a command's event
MAX_N = 2**53 - 1


@dataclass(frozen=True)
class SeatKey:
    """A seat's bound public key (64 hex; None: keyless) and the last ``n`` it signed."""

    key: str | None
    n: int = 0


SeatKeys = Mapping[int, SeatKey]
NO_KEYS: SeatKeys = MappingProxyType({})


@dataclass(frozen=True)
class Seen:
    """The events a statement may name as the one it was made ``after`` (SPEC 6.7): from
    the event before the last table_state (the last a seat at rest saw) on, by their hashes
    from seq ``start``; the seq of the round's ``seeds_committed``, which a reveal
    must name or follow; and (version 3) the seq of the last request of the round's
    cryptography (``shuffle_due``, ``shares_due``, ``keys_due``), which an answer must name
    or follow (SPEC 15.13.11)."""

    start: int = 0
    hashes: tuple[str, ...] = ()
    reveals_at: int | None = None
    answers_at: int | None = None

    def then(self, event: Event, event_hash: str) -> "Seen":
        """What may be named once ``event`` (of hash ``event_hash``) is logged."""
        if event.type == TABLE_STATE:
            return Seen(event.seq - 1, (event.prev, event_hash))
        reveals_at, answers_at = self.reveals_at, self.answers_at
        if event.type == ROUND_OPENED:
            reveals_at = answers_at = None
        elif event.type == SEEDS_COMMITTED:
            reveals_at = event.seq
        elif event.type in ANSWERS:
            answers_at = event.seq
        return Seen(self.start, (*self.hashes, event_hash), reveals_at, answers_at)

    def check(self, command: Command, after: Any) -> None:
        """``after`` must be {seq, hash} of an event this one allows (else the statement was
        made against another log, or an older view than the table takes)."""
        if not isinstance(after, Mapping) or set(after) != {"seq", "hash"}:
            raise SeatSignatureError("signed.after is {seq, hash}")
        seq, digest = after["seq"], after["hash"]
        if type(seq) is not int or not is_hex64(digest):
            raise SeatSignatureError("signed.after is an integer seq and a 64-hex hash")
        if not self.start <= seq < self.start + len(self.hashes):
            span = f"{self.start} to {self.start + len(self.hashes) - 1}"
            raise SignatureStaleError(f"statements now name an event of seq {span}: look again")
        if not hmac.compare_digest(self.hashes[seq - self.start], digest):
            raise SeatSignatureError(f"the event at seq {seq} is not the one the seat saw")
        if command.type == CLIENT_SEED and self.reveals_at is not None and seq < self.reveals_at:
            raise SignatureStaleError("a reveal names seeds_committed or an event after it")
        if command.type in _ANSWER_TYPES and self.answers_at is not None and seq < self.answers_at:
            raise SignatureStaleError(f"a {command.type} names its request or an event after it")


NOTHING_SEEN = Seen()
_ANSWER_TYPES = frozenset(ANSWERS.values())


def statement(
    table: str,
    round_id: str | None,
    seat: int,
    *,
    n: int,
    after: Mapping[str, Any],
    kind: str,
    data: Mapping[str, Any],
) -> bytes:
    """The bytes a seat signs: the tag, then the canonical statement (SPEC 6.7)."""
    body = {
        "after": after, "data": data, "n": n, "round": round_id, "seat": seat, "table": table,
        "type": kind,
    }  # fmt: skip
    return tags.SEAT_STATEMENT + canonical_bytes(body)


def signed_data(
    private_key: Ed25519PrivateKey,
    table: str,
    round_id: str | None,
    seat: int,
    *,
    n: int,
    after: Mapping[str, Any],
    kind: str,
    data: Mapping[str, Any],
) -> dict[str, Any]:
    """A keyed seat's command data as it sends them: ``data`` and ``signed`` {n, after,
    signature}, ``after`` being {seq, hash} of the last event of the table it saw."""
    message = statement(table, round_id, seat, n=n, after=after, kind=kind, data=data)
    signature = private_key.sign(message).hex()
    return {**data, SIGNATURE: {"n": n, "after": dict(after), "signature": signature}}


def public_key_hex(private_key: Ed25519PrivateKey) -> str:
    return raw_public_key(private_key.public_key()).hex()


@lru_cache(maxsize=1024)
def _public_key(key: str) -> Ed25519PublicKey:
    return Ed25519PublicKey.from_public_bytes(bytes.fromhex(key))


def verifies(key: str, message: bytes, signature: str) -> bool:
    try:
        raw = bytes.fromhex(signature)
        if len(raw) != 64 or raw.hex() != signature:
            return False
        _public_key(key).verify(raw, message)
    except (ValueError, InvalidSignature):
        return False
    return True


def admit(
    version: int, keys: SeatKeys, seen: Seen, table: str, command: Command
) -> tuple[Command, dict[str, Any] | None]:
    """The command the game decides, and the members the engine adds to its first event:
    a ``seat_joined``'s key, or a keyed seat's checked signature. Raises a
    SeatSignatureError (or IllegalActionError) for a command this version refuses."""
    data = command.data
    if version < SIGNED:
        if command.type == SEED_COMMITMENT:
            raise IllegalActionError("a version-1 table takes no seed commitments")
        return command, None
    seat = actor_seat(command.actor)
    if seat is None:
        return command, None
    if command.type == SEAT_JOINED:
        key = data.get(KEY)
        if key is None and version >= BLIND:
            raise KeyRequiredError(
                "a dealer-blind table seats only keyed seats: send key, your Ed25519 public key"
            )
        if key is not None and not (is_hex64(key) and is_strong_key(key)):
            raise SeatKeyError(
                "key is a 64-hex Ed25519 public key of a point of large order, or null"
            )
        return replace(command, data=_without(data, KEY)), {KEY: key}
    bound = keys.get(seat)
    signed = data.get(SIGNATURE)
    if bound is None or bound.key is None:
        if signed is not None:
            raise SignatureUnexpectedError("this seat has no key: its commands carry no signature")
        return command, None
    if signed is None:
        raise SignatureMissingError(
            f"seat {seat} has a key: its commands carry signed {{n, after, signature}}"
        )
    if not isinstance(signed, Mapping) or set(signed) != {"n", "after", "signature"}:
        raise SeatSignatureError("signed is {n, after, signature}")
    n, signature = signed["n"], signed["signature"]
    if type(n) is not int or not 0 < n <= MAX_N or not isinstance(signature, str):
        raise SeatSignatureError("signed.n is a positive integer and signed.signature 128 hex")
    if n <= bound.n:
        raise SignatureReplayedError(f"seat {seat}'s statements are numbered above {bound.n}")
    after = signed["after"]
    seen.check(command, after)
    bare = _without(data, SIGNATURE)
    message = statement(table, command.round, seat, n=n, after=after, kind=command.type, data=bare)
    if not verifies(bound.key, message, signature):
        raise SeatSignatureError(f"the signature is not seat {seat}'s over this statement")
    member = {"n": n, "after": dict(after), "data": bare, "signature": signature}
    return replace(command, data=bare), {SIGNATURE: member}


def as_sent(command: Command) -> Command:
    """The command a logged first event records, as its seat sent it: for a signed one,
    the data the seat signed and its {n, after, signature} (``admit`` checks them again)."""
    logged = command.data.get(SIGNATURE)
    if not isinstance(logged, Mapping):
        return command
    data = logged.get("data")
    if not isinstance(data, Mapping):
        raise SeatSignatureError("a logged signed holds the data the seat signed")
    sent = {name: logged.get(name) for name in ("n", "after", "signature")}
    return replace(command, data={**data, SIGNATURE: sent})


def logged(draft: Draft, members: Mapping[str, Any] | None, version: int = SIGNED) -> Draft:
    """The command's first draft with the engine's members added. In version 3 a member
    the seat signed is logged once, inside ``signed`` (SPEC 15.13.11): the draft's copy is
    left out (``record`` made it equal to the signed value)."""
    if not members:
        return draft
    signed = members.get(SIGNATURE)
    data = dict(draft.data)
    if version >= BLIND and isinstance(signed, Mapping):
        for name in signed["data"]:
            data.pop(name, None)
    return replace(draft, data={**data, **members})


def command_data(version: int, data: Mapping[str, Any]) -> Mapping[str, Any]:
    """An event's data as the rules record them (SPEC 6.7, 15.13.11): without the statement
    a seat signed (``signed``), and in version 3 with the members it signed, which are logged
    inside it, put back. Data of no seat's statement are returned as they are."""
    signed = data.get(SIGNATURE)
    if not isinstance(signed, Mapping):
        return data
    others = {name: value for name, value in data.items() if name != SIGNATURE}
    inner = signed.get("data")
    if version >= BLIND and isinstance(inner, Mapping):
        return {**inner, **others}
    return others


def after(keys: SeatKeys, drafts: Iterable[Draft]) -> SeatKeys:
    """The seat keys after these events: a seat_joined binds its seat's key (a seat taken
    again gets its new occupant's), a signed command moves its seat's ``n`` on."""
    changes: dict[int, SeatKey] = {}
    for draft in drafts:
        seat = actor_seat(draft.actor)
        if seat is None:
            continue
        if draft.type == SEAT_JOINED and KEY in draft.data:
            changes[seat] = SeatKey(draft.data[KEY])
        signed = draft.data.get(SIGNATURE)
        if isinstance(signed, Mapping) and type(signed.get("n")) is int:
            current = changes.get(seat) or keys.get(seat) or SeatKey(None)
            changes[seat] = SeatKey(current.key, signed["n"])
    if not changes:
        return keys
    return MappingProxyType({**keys, **changes})


def to_json(keys: SeatKeys) -> list[dict[str, Any]]:
    """The seat keys as a table_state logs them (SPEC 6.6): by seat."""
    return [{"seat": seat, "key": keys[seat].key, "n": keys[seat].n} for seat in sorted(keys)]


def from_json(value: Any) -> SeatKeys:
    """``to_json``'s inverse, for exactly what it gives; raises EventSchemaError."""
    if not isinstance(value, list):
        raise EventSchemaError("seat_keys is a list")
    keys: dict[int, SeatKey] = {}
    for item in value:
        if not isinstance(item, dict) or set(item) != {"seat", "key", "n"}:
            raise EventSchemaError("each seat key is {seat, key, n}")
        seat, key, n = item["seat"], item["key"], item["n"]
        if type(seat) is not int or type(n) is not int or not 0 <= n <= MAX_N:
            raise EventSchemaError("a seat key's seat and n are integers")
        if key is not None and not is_hex64(key):
            raise EventSchemaError("a seat key is 64 lowercase hex, or null")
        keys[seat] = SeatKey(key, n)
    result = MappingProxyType(keys)
    if to_json(result) != value:
        raise EventSchemaError("seat_keys are listed once each, by seat")
    return result


_P = 2**255 - 19
# The encodings of the eight Ed25519 points of small order (8·A = identity), and the two
# non-canonical ones of x = 0 with the sign bit set: libsodium refuses the same keys.
_SMALL_ORDER = frozenset(
    (
        "01" + "00" * 31,  # the identity (0, 1)
        "ec" + "ff" * 30 + "7f",  # (0, -1), of order 2
        "00" * 32,  # (sqrt(-1), 0) and its negation, of order 4
        "00" * 31 + "80",
        "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",  # order 8
        "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",
        "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
        "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85",
        "01" + "00" * 30 + "80",  # x = 0 with the sign bit: not canonical
        "ec" + "ff" * 31,
    )
)


def is_strong_key(key: str) -> bool:
    """Whether 64 lowercase hex digits may be a seat's key (SPEC 6.7): y below p (a
    canonical encoding) and not a point of small order, under which some signatures
    verify for any message, so that anyone could sign for the seat."""
    y = int.from_bytes(bytes.fromhex(key), "little") & ((1 << 255) - 1)
    return y < _P and key not in _SMALL_ORDER


def _without(data: Mapping[str, Any], member: str) -> dict[str, Any]:
    return {name: value for name, value in data.items() if name != member}
