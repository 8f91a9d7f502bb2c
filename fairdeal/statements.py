"""Seat keys and the statements seats sign (SPEC 6.7): the engine's part of version 2.

In a version-2 table, ``seat_joined`` binds the seat's Ed25519 public key (``key``, or
null for a keyless seat, whose moves the operator alone attests). Every later command of
a keyed seat carries ``signed`` {n, signature}: its signature over the canonical
statement {table, round, seat, n, type, data}, ``n`` above the seat's last. The engine
checks it before the game decides, and logs it in the command's event as {n, data,
signature}, ``data`` being what the seat signed (the event's own data may add the
fields the rules derive, such as balances). The games never see either member.
"""

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
    SeatSignatureError,
    SignatureMissingError,
    SignatureReplayedError,
    SignatureUnexpectedError,
)
from fairdeal.events import Draft, actor_seat
from fairdeal.games.base import Command
from fairdeal.keys import raw_public_key
from fairdeal.protocol import SEAT_JOINED, SEED_COMMITMENT, is_hex64

FIRST, SIGNED = 1, 2  # protocol versions: SIGNED binds seat keys and takes seed commitments
KEY, SIGNATURE = "key", "signed"  # the members the engine owns in a command's event
MAX_N = 2**53 - 1


@dataclass(frozen=True)
class SeatKey:
    """A seat's bound public key (64 hex; None: keyless) and the last ``n`` it signed."""

    key: str | None
    n: int = 0


SeatKeys = Mapping[int, SeatKey]
NO_KEYS: SeatKeys = MappingProxyType({})


def statement(
    table: str, round_id: str | None, seat: int, *, n: int, kind: str, data: Mapping[str, Any]
) -> bytes:
    """The bytes a seat signs: the tag, then the canonical statement (SPEC 6.7)."""
    body = {"data": data, "n": n, "round": round_id, "seat": seat, "table": table, "type": kind}
    return tags.SEAT_STATEMENT + canonical_bytes(body)


def signed_data(
    private_key: Ed25519PrivateKey,
    table: str,
    round_id: str | None,
    seat: int,
    *,
    n: int,
    kind: str,
    data: Mapping[str, Any],
) -> dict[str, Any]:
    """A keyed seat's command data as it sends them: ``data`` and ``signed`` {n, signature}."""
    message = statement(table, round_id, seat, n=n, kind=kind, data=data)
    return {**data, SIGNATURE: {"n": n, "signature": private_key.sign(message).hex()}}


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
    version: int, keys: SeatKeys, table: str, command: Command
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
        if key is not None and not is_hex64(key):
            raise IllegalActionError("key is a 64-hex Ed25519 public key, or null")
        return replace(command, data=_without(data, KEY)), {KEY: key}
    bound = keys.get(seat)
    signed = data.get(SIGNATURE)
    if bound is None or bound.key is None:
        if signed is not None:
            raise SignatureUnexpectedError("this seat has no key: its commands carry no signature")
        return command, None
    if signed is None:
        raise SignatureMissingError(
            f"seat {seat} has a key: its commands carry signed {{n, signature}}"
        )
    if not isinstance(signed, Mapping) or set(signed) != {"n", "signature"}:
        raise SeatSignatureError("signed is {n, signature}")
    n, signature = signed["n"], signed["signature"]
    if type(n) is not int or not 0 < n <= MAX_N or not isinstance(signature, str):
        raise SeatSignatureError("signed.n is a positive integer and signed.signature 128 hex")
    if n <= bound.n:
        raise SignatureReplayedError(f"seat {seat}'s statements are numbered above {bound.n}")
    bare = _without(data, SIGNATURE)
    message = statement(table, command.round, seat, n=n, kind=command.type, data=bare)
    if not verifies(bound.key, message, signature):
        raise SeatSignatureError(f"the signature is not seat {seat}'s over this statement")
    return replace(command, data=bare), {SIGNATURE: {"n": n, "data": bare, "signature": signature}}


def as_sent(command: Command) -> Command:
    """The command a logged first event records, as its seat sent it: for a signed one,
    the data the seat signed and its {n, signature} (``admit`` checks them again)."""
    logged = command.data.get(SIGNATURE)
    if not isinstance(logged, Mapping) or not isinstance(logged.get("data"), Mapping):
        return command
    sent = {"n": logged.get("n"), "signature": logged.get("signature")}
    return replace(command, data={**logged["data"], SIGNATURE: sent})


def logged(draft: Draft, members: Mapping[str, Any] | None) -> Draft:
    """The command's first draft with the engine's members added."""
    if not members:
        return draft
    return replace(draft, data={**draft.data, **members})


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


def _without(data: Mapping[str, Any], member: str) -> dict[str, Any]:
    return {name: value for name, value in data.items() if name != member}
