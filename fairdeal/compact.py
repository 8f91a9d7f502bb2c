"""The third bundle format's compact events (SPEC 13.1.1): a signed event written without
what a reader derives, and a shuffle step's deck and proof packed into base64url.

``compact`` writes a second-format bundle's events so; ``expanded`` turns them back into
signed events (5.3), exactly the ones written, for the verifier to check as it checks any.
Nothing here checks anything: a compact event the reader cannot turn is left as it stands
(and every one after it), and the signed-event check refuses it.
"""

import base64
import binascii
import re
from collections.abc import Iterator, Sequence
from typing import Any

from fairdeal.canonical import json_text
from fairdeal.errors import EncodingError
from fairdeal.events import FIELDS, event_hash, has_shape
from fairdeal.protocol import DECK_SHUFFLED

# The members a compact event may leave out when they equal the event's before it.
INHERITED = ("version", "table", "round", "time", "actor", "key_id")
_MEMBERS = frozenset((*FIELDS, "key_id", "signature"))
_REQUIRED = frozenset(("seq", "type", "data", "signature"))
_FIRST_REQUIRED = _MEMBERS

# A shuffle proof's members in SPEC 15.11.6's order; True: an array of N values.
PROOF_LAYOUT = (
    ("c", True), ("c_hat", True), ("t1", False), ("t2", False), ("t3", False),
    ("t41", False), ("t42", False), ("t_hat", True), ("s1", False), ("s2", False),
    ("s3", False), ("s4", False), ("s_hat", True), ("s_prime", True),
)  # fmt: skip
_VALUE = 32  # bytes of an element or a scalar (SPEC 15.2)
_HEX = re.compile(r"[0-9a-f]{64}")
_BASE64URL = re.compile(r"[A-Za-z0-9_-]*")


class NotCompactError(ValueError):
    """Events the compact form cannot hold as they are (a stated hash that is not the event's,
    a ``prev`` that is not the hash before it): they are written in the second format."""


def compact(events: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Signed events (5.3, as JSON) written compactly: ``hash`` left out, ``prev`` but the
    first's, the ``INHERITED`` members equal to the event's before, a step packed. Raises
    ``NotCompactError`` unless a reader turns them back into exactly these events."""
    written = _written(events)
    try:  # compared as JSON text: 1, 1.0 and true are three values here, as in the log
        same = json_text(expanded(written)) == json_text(list(events))
    except (ValueError, TypeError) as e:
        raise NotCompactError("these events are not JSON the log holds") from e
    if not same:
        raise NotCompactError("these events are not their compact form's")
    return written


def _written(events: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    written: list[dict[str, Any]] = []
    before: dict[str, Any] | None = None
    for signed in events:
        flat = {**signed["event"], "key_id": signed["key_id"]}
        entry = {
            name: value
            for name, value in flat.items()
            if before is None
            or (name != "prev" and not (name in INHERITED and _same(before[name], value)))
        }
        entry["data"] = _packed(flat)
        entry["signature"] = signed["signature"]
        written.append(entry)
        before = flat
    return written


def expanded(entries: Sequence[Any]) -> list[Any]:
    """Compact events turned into signed events, in order; from the first one that cannot
    be turned, each as it stands."""
    turned: list[Any] = []
    before: dict[str, Any] | None = None
    for index, entry in enumerate(entries):
        signed = _turned(entry, before)
        if signed is None:
            return turned + list(entries[index:])
        turned.append(signed)
        before = {**signed["event"], "key_id": signed["key_id"], "prev": signed["hash"]}
    return turned


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


def _turned(entry: Any, before: dict[str, Any] | None) -> dict[str, Any] | None:
    """One compact event as a signed event, or None: not an object of its members (a
    member named twice included), a required one missing, an inheritable one not of its
    field's shape (so none carries a large value into every event after it), or no
    canonical encoding."""
    if type(entry) is not dict or not _MEMBERS.issuperset(entry):
        return None
    required = _FIRST_REQUIRED if before is None else _REQUIRED
    if not required.issubset(entry) or (before is not None and "prev" in entry):
        return None
    if not all(has_shape(name, entry[name]) for name in INHERITED if name in entry):
        return None
    known = before or {}
    event = {name: entry[name] if name in entry else known[name] for name in FIELDS}
    event["data"] = _unpacked(entry["type"], entry["data"])
    try:
        digest = event_hash(event)
    except EncodingError:
        return None
    key_id = entry["key_id"] if "key_id" in entry else known["key_id"]
    return {"event": event, "hash": digest.hex(), "key_id": key_id, "signature": entry["signature"]}


def _steps(data: Any) -> Iterator[dict[str, Any]]:
    """The objects of a deck_shuffled's data that may hold a step: the data (the service's
    step) and its ``signed.data`` (a seat's, SPEC 15.13.11)."""
    if type(data) is dict:
        yield data
        signed = data.get("signed")
        if type(signed) is dict and type(signed.get("data")) is dict:
            yield signed["data"]


def _packed(event: dict[str, Any]) -> Any:
    """The event's data, with a step's deck and proof packed where they are of the form
    that unpacks to exactly them."""
    data = event["data"]
    if event["type"] != DECK_SHUFFLED:
        return data
    return _rebuilt(data, _pack)


def _unpacked(kind: Any, data: Any) -> Any:
    return _rebuilt(data, _unpack) if kind == DECK_SHUFFLED else data


def _rebuilt(data: Any, turn: Any) -> Any:
    """``data`` with each step object ``turn`` changes replaced (copies: the caller's
    objects are never changed)."""
    steps = list(_steps(data))
    if not steps:
        return data
    outer = turn(steps[0])
    if len(steps) > 1:
        inner = turn(steps[1])
        if inner is not steps[1]:
            outer = {**outer, "signed": {**outer["signed"], "data": inner}}
    return outer


def _pack(step: dict[str, Any]) -> dict[str, Any]:
    deck, proof = step.get("deck"), step.get("proof")
    values = _deck_values(deck)
    proof_values = _proof_values(proof, len(values) // 2) if values else None
    if values is None or proof_values is None:
        return step
    return {**step, "deck": _base64(values), "proof": _base64(proof_values)}


def _unpack(step: dict[str, Any]) -> dict[str, Any]:
    deck, proof = step.get("deck"), step.get("proof")
    if not isinstance(deck, str) or not isinstance(proof, str):
        return step
    deck_bytes, proof_bytes = _unbase64(deck), _unbase64(proof)
    if deck_bytes is None or proof_bytes is None or not deck_bytes:
        return step
    count, rest = divmod(len(deck_bytes), 2 * _VALUE)
    if rest or len(proof_bytes) != (5 * count + 9) * _VALUE:
        return step
    values = [proof_bytes[i : i + _VALUE].hex() for i in range(0, len(proof_bytes), _VALUE)]
    unpacked_proof: dict[str, Any] = {}
    for name, is_array in PROOF_LAYOUT:
        taken = count if is_array else 1
        unpacked_proof[name] = values[:taken] if is_array else values[0]
        values = values[taken:]
    pairs = [deck_bytes[i : i + 2 * _VALUE] for i in range(0, len(deck_bytes), 2 * _VALUE)]
    unpacked_deck = [{"a": p[:_VALUE].hex(), "b": p[_VALUE:].hex()} for p in pairs]
    return {**step, "deck": unpacked_deck, "proof": unpacked_proof}


def _deck_values(deck: Any) -> list[str] | None:
    """A deck's values in order (a, b of each ciphertext) if it packs, else None."""
    if type(deck) is not list or not deck:
        return None
    values: list[Any] = []
    for ciphertext in deck:
        if type(ciphertext) is not dict or ciphertext.keys() != {"a", "b"}:
            return None
        values += [ciphertext["a"], ciphertext["b"]]
    return values if all(_is_hex(v) for v in values) else None


def _proof_values(proof: Any, count: int) -> list[str] | None:
    """A proof's values in 15.11.6's order if it packs (for a deck of ``count``), else None."""
    if type(proof) is not dict or proof.keys() != {name for name, _ in PROOF_LAYOUT}:
        return None
    values: list[Any] = []
    for name, is_array in PROOF_LAYOUT:
        value = proof[name]
        if is_array and (type(value) is not list or len(value) != count):
            return None
        values += value if is_array else [value]
    return values if all(_is_hex(v) for v in values) else None


def _is_hex(value: Any) -> bool:
    return type(value) is str and _HEX.fullmatch(value) is not None


def _base64(values: list[str]) -> str:
    raw = b"".join(bytes.fromhex(v) for v in values)
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _unbase64(text: str) -> bytes | None:
    """RFC 4648 base64url without padding, in its one canonical spelling, or None."""
    if not _BASE64URL.fullmatch(text) or len(text) % 4 == 1:
        return None
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except binascii.Error:
        return None
    return raw if base64.urlsafe_b64encode(raw).decode().rstrip("=") == text else None
