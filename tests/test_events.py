"""Events: the canonical hash, signatures, the per-table chain and every way to break it."""

import dataclasses
import hashlib
import json
from collections.abc import Callable
from typing import Any

import pytest
import rfc8785
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from fairdeal.errors import (
    BadSignatureError,
    ChainForkError,
    ChainGapError,
    EventError,
    EventSchemaError,
    HashMismatchError,
    TimeWentBackError,
    UnknownKeyError,
    WrongTableError,
)
from fairdeal.events import (
    GENESIS_PREV,
    ChainHead,
    Draft,
    Event,
    SignedEvent,
    actor_seat,
    seat_actor,
    sign,
)
from fairdeal.keys import KeySet, Signer
from tests.chains import check_chain

EVENT_TAG = b"fairdeal/v1/event\x00"
EVENT_SIGNATURE_TAG = b"fairdeal/v1/event-signature\x00"

SIGNER = Signer(Ed25519PrivateKey.from_private_bytes(hashlib.sha256(b"operator key").digest()))
STRANGER = Signer(Ed25519PrivateKey.from_private_bytes(hashlib.sha256(b"stranger key").digest()))
KEYS = KeySet([SIGNER.public_key])
TABLE = "table-7"
T0 = 1_700_000_000_000

DRAFTS = [
    Draft("table_opened", "server", {"game": "toto21", "seats": 3, "name": "Tisch \u2660 7"}),
    Draft("round_opened", "server", {"commitment": "ab" * 32}, "r1"),
    Draft("client_seed", "seat:0", {"seed": "alice"}, "r1"),
    Draft("client_seed", "seat:1", {"seed": "bob"}, "r1"),
    Draft("bet", "seat:0", {"amount": 50}, "r1"),
    Draft("bet", "seat:1", {"amount": 75}, "r1"),
    Draft("card_dealt", "server", {"position": 0, "to": "seat:0", "card": "AS"}, "r1"),
    Draft("hit", "seat:0", {}, "r1"),
    Draft(
        "settled", "server", {"transfers": [{"from": "seat:1", "to": "seat:0", "amount": 75}]}, "r1"
    ),
    Draft("seed_revealed", "server", {"server_seed": "cd" * 32}, "r1"),
]


def _reference_hash(event: Event) -> bytes:
    fields: dict[str, Any] = {
        "version": event.version,
        "table": event.table,
        "round": event.round,
        "seq": event.seq,
        "prev": event.prev,
        "time": event.time,
        "type": event.type,
        "actor": event.actor,
        "data": event.data,
    }
    return hashlib.sha256(EVENT_TAG + rfc8785.dumps(fields)).digest()


def _build_chain() -> tuple[list[SignedEvent], ChainHead]:
    head = ChainHead(TABLE)
    chain = []
    for i, draft in enumerate(DRAFTS):
        event = head.stamp(draft, T0 + 1000 * i)
        signed = sign(event, SIGNER)
        head = head.advance(event, signed.hash)
        chain.append(signed)
    return chain, head


@pytest.fixture
def chain() -> list[SignedEvent]:
    return _build_chain()[0]


def _event(**changes: Any) -> Event:
    base = Event(1, TABLE, "r1", 0, GENESIS_PREV, T0, "bet", "seat:1", {"amount": 50})
    return dataclasses.replace(base, **changes)


# --- Hash and signature ---------------------------------------------------------------


def test_canonical_bytes_of_an_event_are_sorted_compact_json() -> None:
    event = _event()
    expected = (
        b'{"actor":"seat:1","data":{"amount":50},"prev":"' + b"0" * 64 + b'",'
        b'"round":"r1","seq":0,"table":"table-7","time":1700000000000,"type":"bet","version":1}'
    )
    assert event.hash() == hashlib.sha256(EVENT_TAG + expected).digest()


def test_event_hash_matches_the_definition(chain: list[SignedEvent]) -> None:
    for signed in chain:
        assert signed.event.hash() == _reference_hash(signed.event)
        assert signed.hash == _reference_hash(signed.event)


@pytest.mark.parametrize(
    "changes",
    [
        {"version": 2},
        {"table": "table-8"},
        {"round": None},
        {"round": "r2"},
        {"seq": 1},
        {"prev": "0" * 63 + "1"},
        {"time": T0 + 1},
        {"type": "raise"},
        {"actor": "seat:2"},
        {"data": {"amount": 51}},
        {"data": {"amount": 50, "note": ""}},
        {"data": {}},
    ],
    ids=lambda c: f"changing {next(iter(c))} to {next(iter(c.values()))!r}",
)
def test_every_field_is_hashed(changes: dict[str, Any]) -> None:
    assert _event(**changes).hash() != _event().hash()


def test_sign_signs_the_tagged_hash_with_the_key_id() -> None:
    event = _event()
    signed = sign(event, SIGNER)
    assert signed.event == event
    assert signed.hash == _reference_hash(event)
    assert signed.key_id == SIGNER.key_id
    SIGNER.public_key.verify(signed.signature, EVENT_SIGNATURE_TAG + signed.hash)
    signed.check(KEYS)


# --- Stamping and the chain head ------------------------------------------------------


def test_stamp_makes_the_next_event_of_the_chain() -> None:
    head = ChainHead(TABLE, next_seq=4, prev="ab" * 32, time=T0)
    data = {"amount": 5}
    event = head.stamp(Draft("bet", "seat:3", data, "r9"), T0 + 7)
    assert event == Event(1, TABLE, "r9", 4, "ab" * 32, T0 + 7, "bet", "seat:3", {"amount": 5})
    data["amount"] = 6
    assert event.data == {"amount": 5}
    assert event.draft == Draft("bet", "seat:3", {"amount": 5}, "r9")


def test_a_new_chain_starts_at_seq_zero_after_the_genesis_hash() -> None:
    event = ChainHead(TABLE).stamp(Draft("table_opened", "server"), T0)
    assert (event.seq, event.prev, event.round, event.data) == (0, "0" * 64, None, {})


def test_stamp_never_moves_time_back() -> None:
    head = ChainHead(TABLE, next_seq=1, prev="ab" * 32, time=T0)
    assert head.stamp(Draft("hit", "seat:0"), T0 - 5).time == T0
    assert head.stamp(Draft("hit", "seat:0"), T0).time == T0


def test_advance_moves_to_the_next_seq_and_hash() -> None:
    event = _event(seq=3, time=T0 + 9)
    head = ChainHead(TABLE, 3).advance(event, event.hash())
    assert head == ChainHead(TABLE, 4, event.hash().hex(), T0 + 9)


def test_follow_accepts_each_link_of_a_good_chain(chain: list[SignedEvent]) -> None:
    head = ChainHead(TABLE)
    for signed in chain:
        head = head.follow(signed, KEYS)
        assert head.next_seq == signed.event.seq + 1
        assert head.prev == _reference_hash(signed.event).hex()
        assert head.time == signed.event.time


def test_check_chain_returns_the_head_the_builder_reached() -> None:
    chain, built = _build_chain()
    assert check_chain(chain, KEYS) == built
    assert check_chain(chain, KEYS, ChainHead(TABLE)) == built
    assert built == ChainHead(TABLE, 10, chain[-1].hash.hex(), T0 + 9000)


def test_check_chain_continues_from_a_given_head(chain: list[SignedEvent]) -> None:
    middle = check_chain(chain[:5], KEYS)
    assert check_chain(chain[5:], KEYS, middle) == check_chain(chain, KEYS)
    assert check_chain([], KEYS, middle) == middle


def test_check_chain_without_a_head_starts_at_the_genesis(chain: list[SignedEvent]) -> None:
    with pytest.raises(ChainGapError):
        check_chain(chain[5:], KEYS)


def test_an_empty_chain_has_no_head() -> None:
    with pytest.raises(ValueError):
        check_chain([], KEYS)


def test_equal_times_are_not_going_back() -> None:
    head = ChainHead(TABLE)
    events = []
    for draft in DRAFTS[:3]:
        event = head.stamp(draft, T0)
        events.append(sign(event, SIGNER))
        head = head.advance(event, events[-1].hash)
    assert check_chain(events, KEYS) == head


def test_a_truncated_chain_checks_but_ends_at_another_head(chain: list[SignedEvent]) -> None:
    # Cutting the tail off is not visible inside the chain; the head (published in the
    # Merkle log) is what shows it.
    assert check_chain(chain[:-1], KEYS) != check_chain(chain, KEYS)


# --- Tampering ------------------------------------------------------------------------

Chain = list[SignedEvent]


def _resigned(signed: SignedEvent, signer: Signer = SIGNER, **changes: Any) -> SignedEvent:
    return sign(dataclasses.replace(signed.event, **changes), signer)


def _at(c: Chain, i: int, replacement: SignedEvent) -> Chain:
    return [*c[:i], replacement, *c[i + 1 :]]


def _drop(c: Chain) -> Chain:
    return [*c[:4], *c[5:]]


def _drop_first(c: Chain) -> Chain:
    return c[1:]


def _duplicate(c: Chain) -> Chain:
    return [*c[:5], c[4], *c[5:]]


def _swap(c: Chain) -> Chain:
    return [*c[:3], c[4], c[3], *c[5:]]


def _drop_and_renumber(c: Chain) -> Chain:
    return [*c[:4], *(_resigned(s, seq=s.event.seq - 1) for s in c[5:])]


def _change_prev(c: Chain) -> Chain:
    return _at(c, 6, _resigned(c[6], prev="ab" * 32))


def _genesis_prev(c: Chain) -> Chain:
    return _at(c, 0, _resigned(c[0], prev="11" * 32))


def _rewrite_and_resign(c: Chain) -> Chain:
    return _at(c, 5, _resigned(c[5], data={"amount": 7500}))


def _change_data_keep_hash(c: Chain) -> Chain:
    event = dataclasses.replace(c[5].event, data={"amount": 76})
    return _at(c, 5, dataclasses.replace(c[5], event=event))


def _rehash_not_resign(c: Chain) -> Chain:
    event = dataclasses.replace(c[5].event, data={"amount": 76})
    return _at(c, 5, dataclasses.replace(c[5], event=event, hash=event.hash()))


def _flip_signature_bit(c: Chain) -> Chain:
    signature = bytes([c[5].signature[0] ^ 1]) + c[5].signature[1:]
    return _at(c, 5, dataclasses.replace(c[5], signature=signature))


def _stranger_signs(c: Chain) -> Chain:
    return _at(c, 5, sign(c[5].event, STRANGER))


def _stranger_claims_operator_id(c: Chain) -> Chain:
    forged = SignedEvent(c[5].event, c[5].hash, SIGNER.key_id, STRANGER.sign_hash(c[5].hash))
    return _at(c, 5, forged)


def _other_table(c: Chain) -> Chain:
    return _at(c, 5, _resigned(c[5], table="table-8"))


def _time_back(c: Chain) -> Chain:
    return _at(c, 5, _resigned(c[5], time=c[4].event.time - 1))


TAMPERED: list[Any] = [
    pytest.param(_drop, ChainGapError, id="a dropped event leaves a gap in seq"),
    pytest.param(
        _drop_first, ChainGapError, id="a chain missing its first event does not start at seq 0"
    ),
    pytest.param(_duplicate, ChainGapError, id="a duplicated event repeats a seq"),
    pytest.param(_swap, ChainGapError, id="two swapped events are out of order"),
    pytest.param(
        _drop_and_renumber,
        ChainForkError,
        id="a dropped event hidden by renumbering breaks the prev link",
    ),
    pytest.param(
        _change_prev, ChainForkError, id="a validly re-signed event with another prev is a fork"
    ),
    pytest.param(
        _genesis_prev,
        ChainForkError,
        id="a first event whose prev is not the genesis hash is a fork",
    ),
    pytest.param(
        _rewrite_and_resign,
        ChainForkError,
        id="a rewritten and re-signed event breaks the next link",
    ),
    pytest.param(
        _change_data_keep_hash,
        HashMismatchError,
        id="changed data under the old hash is a hash mismatch",
    ),
    pytest.param(
        _rehash_not_resign,
        BadSignatureError,
        id="changed data re-hashed but not re-signed has a bad signature",
    ),
    pytest.param(
        _flip_signature_bit, BadSignatureError, id="a flipped signature bit is a bad signature"
    ),
    pytest.param(
        _stranger_signs,
        UnknownKeyError,
        id="an event signed by an untrusted key names an unknown key",
    ),
    pytest.param(
        _stranger_claims_operator_id,
        BadSignatureError,
        id="another key claiming the operator's key id is a bad signature",
    ),
    pytest.param(_other_table, WrongTableError, id="an event of another table is refused"),
    pytest.param(
        _time_back, TimeWentBackError, id="an event stamped before its predecessor is refused"
    ),
]


@pytest.mark.parametrize(("tamper", "error"), TAMPERED)
def test_tampered_chain_is_refused(
    chain: Chain, tamper: Callable[[Chain], Chain], error: type[EventError]
) -> None:
    with pytest.raises(error):
        check_chain(tamper(chain), KEYS, ChainHead(TABLE))


def test_a_chain_of_another_table_is_refused_from_this_tables_genesis(chain: Chain) -> None:
    foreign = [_resigned(chain[0], table="table-8")]
    assert check_chain(foreign, KEYS).table == "table-8"
    with pytest.raises(WrongTableError):
        check_chain(foreign, KEYS, ChainHead(TABLE))


# --- Parsing --------------------------------------------------------------------------


def _event_json(**changes: Any) -> dict[str, Any]:
    obj = _event(seq=3, prev="ab" * 32).to_json()
    obj.update(changes)
    return obj


def _without(name: str) -> dict[str, Any]:
    obj = _event_json()
    del obj[name]
    return obj


BAD_EVENTS = [
    pytest.param([], id="a list is not an event"),
    pytest.param(None, id="null is not an event"),
    pytest.param(_without("data"), id="an event without data"),
    pytest.param(_without("round"), id="an event without a round, even a null one"),
    pytest.param(_event_json(extra=1), id="an event with an extra field"),
    pytest.param(_event_json(version=4), id="version 4"),
    pytest.param(_event_json(version=0), id="version 0"),
    pytest.param(_event_json(version="1"), id="version as text"),
    pytest.param(_event_json(version=True), id="version as a boolean"),
    pytest.param(_event_json(version=1.0), id="version as a float"),
    pytest.param(_event_json(table=""), id="an empty table id"),
    pytest.param(_event_json(table="table 7"), id="a table id with a space"),
    pytest.param(_event_json(table="t" * 65), id="a table id of 65 characters"),
    pytest.param(_event_json(table=7), id="a table id as a number"),
    pytest.param(_event_json(round=""), id="an empty round id"),
    pytest.param(_event_json(round=1), id="a round id as a number"),
    pytest.param(_event_json(seq=3.0), id="a float seq"),
    pytest.param(_event_json(seq=True), id="a boolean seq"),
    pytest.param(_event_json(seq="3"), id="seq as text"),
    pytest.param(_event_json(seq=-1), id="a negative seq"),
    pytest.param(_event_json(time=-1), id="a negative time"),
    pytest.param(_event_json(time=1.5), id="a float time"),
    pytest.param(_event_json(time=False), id="a boolean time"),
    pytest.param(_event_json(prev="AB" * 32), id="uppercase hex prev"),
    pytest.param(_event_json(prev="ab" * 31 + "a"), id="a prev of 63 digits"),
    pytest.param(_event_json(prev="ab" * 33), id="a prev of 66 digits"),
    pytest.param(_event_json(prev="zz" * 32), id="a prev that is not hex"),
    pytest.param(_event_json(prev=None), id="a null prev"),
    pytest.param(_event_json(actor="seat:01"), id="actor seat:01 with a leading zero"),
    pytest.param(_event_json(actor="seat:-1"), id="actor seat:-1"),
    pytest.param(_event_json(actor="seat:100"), id="actor seat:100"),
    pytest.param(_event_json(actor="seat:"), id="actor seat: without a number"),
    pytest.param(_event_json(actor="bank"), id="actor bank"),
    pytest.param(_event_json(actor="Server"), id="actor Server capitalised"),
    pytest.param(_event_json(actor="server "), id="actor server with a trailing space"),
    pytest.param(_event_json(actor=None), id="a null actor"),
    pytest.param(_event_json(type="Bet"), id="a capitalised type"),
    pytest.param(_event_json(type="1bet"), id="a type starting with a digit"),
    pytest.param(_event_json(type="place-bet"), id="a type with a hyphen"),
    pytest.param(_event_json(type=""), id="an empty type"),
    pytest.param(_event_json(type="a" * 41), id="a type of 41 characters"),
    pytest.param(_event_json(type="bet\n"), id="a type with a trailing newline"),
    pytest.param(_event_json(data=[]), id="data as a list"),
    pytest.param(_event_json(data=None), id="null data"),
    pytest.param(_event_json(data="amount=50"), id="data as text"),
]


@pytest.mark.parametrize("obj", BAD_EVENTS)
def test_event_from_json_refuses(obj: Any) -> None:
    with pytest.raises(EventSchemaError):
        Event.from_json(obj)


@pytest.mark.parametrize(
    "obj",
    [
        pytest.param(_event_json(round=None), id="a null round"),
        pytest.param(_event_json(actor="seat:0"), id="seat 0"),
        pytest.param(_event_json(actor="seat:99"), id="seat 99"),
        pytest.param(_event_json(actor="server"), id="the server"),
        pytest.param(
            _event_json(table="A.b_c:d-9", round="r" * 64), id="ids with every allowed character"
        ),
        pytest.param(_event_json(type="a" * 40), id="a type of 40 characters"),
        pytest.param(_event_json(seq=0, time=0), id="seq and time zero"),
    ],
)
def test_event_from_json_accepts(obj: dict[str, Any]) -> None:
    assert Event.from_json(obj).to_json() == obj


@pytest.mark.parametrize(
    "obj",
    [
        pytest.param(_event_json(data={"amount": 1.5}), id="a float inside data"),
        pytest.param(_event_json(data={"amount": 2**53}), id="an integer past 2**53 inside data"),
        pytest.param(_event_json(seq=2**53), id="a seq past 2**53"),
    ],
)
def test_event_from_json_refuses_what_cannot_be_hashed(obj: dict[str, Any]) -> None:
    with pytest.raises(EventSchemaError):
        Event.from_json(obj)


def _signed_json(**changes: Any) -> dict[str, Any]:
    obj = sign(_event(), SIGNER).to_json()
    obj.update(changes)
    return obj


BAD_SIGNED = [
    pytest.param("signed", id="text is not a signed event"),
    pytest.param({k: v for k, v in _signed_json().items() if k != "key_id"}, id="no key id"),
    pytest.param(_signed_json(note="x"), id="an extra field"),
    pytest.param(_signed_json(hash="AB" * 32), id="an uppercase hash"),
    pytest.param(_signed_json(hash="ab" * 31), id="a short hash"),
    pytest.param(_signed_json(hash=None), id="a null hash"),
    pytest.param(_signed_json(signature="CD" * 64), id="an uppercase signature"),
    pytest.param(_signed_json(signature="cd" * 63), id="a short signature"),
    pytest.param(_signed_json(key_id=7), id="a key id as a number"),
    pytest.param(_signed_json(key_id=SIGNER.key_id.upper()), id="an uppercase key id"),
    pytest.param(_signed_json(key_id=SIGNER.key_id[:31]), id="a key id of 31 digits"),
    pytest.param(_signed_json(key_id=SIGNER.key_id + "00"), id="a key id of 34 digits"),
    pytest.param(_signed_json(key_id="operator"), id="a key id that is a name"),
    pytest.param(_signed_json(event=_event_json(version=4)), id="an event of version 4 inside"),
    pytest.param(
        _signed_json(event=_event_json(seq=True)), id="an event with a boolean seq inside"
    ),
]


@pytest.mark.parametrize("obj", BAD_SIGNED)
def test_signed_event_from_json_refuses(obj: Any) -> None:
    with pytest.raises(EventSchemaError):
        SignedEvent.from_json(obj)


def test_signed_events_round_trip_through_json_text(chain: Chain) -> None:
    text = "\n".join(json.dumps(signed.to_json()) for signed in chain)
    parsed = [SignedEvent.from_json(json.loads(line)) for line in text.splitlines()]
    assert parsed == chain
    assert check_chain(parsed, KEYS) == check_chain(chain, KEYS)


def test_signed_event_json_is_lowercase_hex(chain: Chain) -> None:
    obj = chain[0].to_json()
    assert obj["hash"] == chain[0].hash.hex()
    assert obj["signature"] == chain[0].signature.hex()
    assert obj["key_id"] == SIGNER.key_id
    assert obj["event"] == chain[0].event.to_json()


def test_schema_errors_are_event_errors() -> None:
    for error in (EventSchemaError, HashMismatchError, ChainGapError, ChainForkError):
        assert issubclass(error, EventError)


def test_seat_actors() -> None:
    assert seat_actor(0) == "seat:0"
    assert seat_actor(12) == "seat:12"
    assert actor_seat("seat:12") == 12
    assert actor_seat("server") is None


_VALID = {"version": 1, "table": "t", "round": "t.r1", "seq": 3, "prev": "ab" * 32,
          "time": 5, "type": "hit", "actor": "seat:1", "data": {}}  # fmt: skip


@pytest.mark.parametrize(
    ("field", "text", "reason"),
    [
        ("type", "Seat_joined", "bad event type"),
        ("type", "a" * 41, "bad event type"),
        ("round", "t.r 1", "bad round id"),
        ("table", "t" * 65, "bad table id"),
    ],
)
def test_a_field_just_outside_its_spec_5_1_pattern_is_refused(
    field: str, text: str, reason: str
) -> None:
    with pytest.raises(EventSchemaError, match=reason):
        Event.parse({**_VALID, field: text})


def test_a_valid_table_id_is_no_valid_key_id() -> None:
    """Upper-case hex is a table id (SPEC 5.1) but not a key id (32 lowercase hex)."""
    Event.parse({**_VALID, "table": "AB" * 16})
    signed = {"event": _VALID, "hash": "ab" * 32, "key_id": "AB" * 16, "signature": "cd" * 64}
    with pytest.raises(EventSchemaError, match="key_id"):
        SignedEvent.parse(signed)
