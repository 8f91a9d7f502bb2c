"""The hot-path shortcuts equal the plain code they replace: an event's canonical bytes
formatted around its data (hashed, stamped and parsed alike), the frozen-dataclass
``make`` and ``evolve``, the cached card salts, the reused JSON encoder, the block-at-a-time
shuffle, a command's events chained in one pass, the cached Kvitlach hand totals, and hex
read through ``bytes.fromhex``."""

import dataclasses
import hashlib
import itertools
import json
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairdeal import randomness
from fairdeal.canonical import MAX_SAFE_INTEGER, canonical_bytes, json_text
from fairdeal.errors import EncodingError, EventSchemaError, IllegalActionError
from fairdeal.events import Draft, Event, SignedEvent
from fairdeal.frozen import evolve, make
from fairdeal.games.base import Command, Decision, Run
from fairdeal.games.dealing import Deck, RoundState, derive_deck, round_deck
from fairdeal.games.kvitlach import hands as kvitlach_hands
from fairdeal.games.kvitlach.state import Hand

EVENT_TAG = b"fairdeal/v1/event\x00"


class Text(str):
    """A str subclass: refused by the canonical encoder, so never formatted directly."""


_TEXT = st.text(max_size=8) | st.sampled_from(["\ud800", "\u00e9", '"\\', "\x00", ""])
_INT = st.integers(-(2**54), 2**54) | st.sampled_from([MAX_SAFE_INTEGER, -MAX_SAFE_INTEGER])
_ODD = st.none() | st.booleans() | st.floats(allow_nan=False) | _TEXT.map(Text)
_SCALAR = st.none() | st.booleans() | _INT | _TEXT
_DATA = st.recursive(
    st.dictionaries(st.text(max_size=4), _SCALAR, max_size=4),
    lambda inner: st.dictionaries(st.text(max_size=4), inner | st.lists(inner, max_size=3)),
    max_leaves=12,
)


def _plain_hash(event: Event) -> bytes:
    return hashlib.sha256(EVENT_TAG + canonical_bytes(event.to_json())).digest()


@settings(max_examples=300, deadline=None)
@given(
    strings=st.lists(_TEXT | _ODD, min_size=5, max_size=5),
    ints=st.lists(_INT | _ODD, min_size=3, max_size=3),
    data=_DATA | _ODD,
)
def test_the_event_hash_is_the_hash_of_the_whole_canonical_event(
    strings: list[Any], ints: list[Any], data: Any
) -> None:
    table, round_id, prev, kind, actor = strings
    version, seq, time = ints
    event = Event(version, table, round_id, seq, prev, time, kind, actor, data)
    try:
        expected = _plain_hash(event)
    except EncodingError:
        with pytest.raises(EncodingError):
            event.hash()
    else:
        assert event.hash() == expected


def test_evolve_equals_replace_and_refuses_unknown_fields() -> None:
    hand = Hand(3, cards=(1, 2), bet=5)
    assert evolve(hand, bet=7, status="open") == dataclasses.replace(hand, bet=7, status="open")
    with pytest.raises(TypeError, match="no field 'colour'"):
        evolve(hand, colour="red")


def test_make_equals_the_constructor() -> None:
    event = Event(1, "t", None, 0, "0" * 64, 5, "hit", "seat:1", {"a": 1})
    assert make(Event, dict(event.__dict__)) == event
    with pytest.raises(dataclasses.FrozenInstanceError):
        make(Event, dict(event.__dict__)).seq = 2  # type: ignore[misc]


def test_parsing_makes_exactly_the_fields_it_checked_the_members_against() -> None:
    """Event.parse and SignedEvent.parse make what they checked (``make`` trusts its
    caller): the member names each requires are exactly its dataclass's fields."""
    from fairdeal.events import _FIELD_SET, _SIGNED_FIELDS

    assert set(_FIELD_SET) == {f.name for f in dataclasses.fields(Event)}
    assert set(_SIGNED_FIELDS) == {f.name for f in dataclasses.fields(SignedEvent)}


def test_the_hot_constructors_give_what_the_dataclass_constructor_would() -> None:
    data = {"seat": 1}
    draft = Draft("hit", "seat:1", data, "t.1")
    event = Event(1, "t", "t.1", 3, "0" * 64, 5, "hit", "seat:1", data)
    assert Command.of(event) == Command("hit", "seat:1", 5, data, "t.1", table="t")
    run = Run(7, 5, lambda state, draft, time: state + 1)
    run.emit(draft)
    assert run.decision() == Decision([draft], 8)
    for value in (Command.of(event), run.decision()):
        with pytest.raises(dataclasses.FrozenInstanceError):
            value.type = "stand"  # type: ignore[misc,union-attr]


def test_a_decks_salts_are_the_card_salts_asked_again() -> None:
    key = hashlib.sha256(b"deck").digest()
    deck: Deck = derive_deck(key, ("1", "2", "3"))
    for position in (0, 2, 0):
        assert deck.salt(position) == randomness.card_salt(key, position)
    assert deck == Deck(key, deck.cards)


def test_a_rounds_deck_is_the_deck_derived_afresh() -> None:
    """RoundState.deck keeps the last deck derived, shared with the state's copies: each
    copy still gets its own round's deck, and a wrong seed is still refused."""
    secret = hashlib.sha256(b"seed").digest()
    rules = {"game": "kvitlach", "decks": 1}
    commitment = randomness.seed_commitment(secret).hex()
    sealed = RoundState("r1", 1, commitment, (0, 1), None, {0: "a", 1: "b"}, sealed=True)
    for state, seeds in (
        (sealed, ["a", "b"]),
        (evolve(sealed, seeds={0: "c", 1: "b"}), ["c", "b"]),
    ):
        assert state.deck(secret, rules) == round_deck(secret, "r1", seeds, rules)
        assert state.deck(secret, rules) == round_deck(secret, "r1", seeds, rules)
    with pytest.raises(IllegalActionError):
        sealed.deck(bytes(32), rules)


@settings(max_examples=300, deadline=None)
@given(data=_DATA | _ODD, seq=_INT | _ODD, prev=st.sampled_from(["0" * 64, "A" * 64, "0" * 63]))
def test_parsing_a_signed_event_hashes_what_from_json_checked(
    data: Any, seq: Any, prev: str
) -> None:
    event = {"version": 1, "table": "t", "round": "t.r1", "seq": seq, "prev": prev,
             "time": 5, "type": "hit", "actor": "seat:1", "data": data}  # fmt: skip
    raw = {"event": event, "hash": "ab" * 32, "key_id": "cd" * 16, "signature": "ef" * 64}
    try:
        expected = SignedEvent.from_json(raw)
    except EventSchemaError as e:
        with pytest.raises(EventSchemaError, match=re.escape(str(e))):
            SignedEvent.parse(raw)
    else:
        signed, digest, data_text = SignedEvent.parse(raw)
        assert signed == expected
        assert digest == _plain_hash(expected.event) == expected.event.hash()
        assert data_text == canonical_bytes(expected.event.data).decode()


_FIELDS = ("version", "table", "round", "seq", "prev", "time", "type", "actor", "data")
_ID = "[A-Za-z0-9._:-]{1,64}"
_ACTOR_TEXT = st.sampled_from(["server", "seat:0", "seat:9", "seat:99", "seat:100", "seat:07"])
_ID_TEXT = st.from_regex(_ID, fullmatch=True) | _TEXT
_FIELD_VALUES = {
    "version": st.sampled_from([1, 0, 2, 3, True, 1.0]) | _ODD,
    "table": _ID_TEXT | _ODD,
    "round": _ID_TEXT | _ODD,
    "seq": _INT | _ODD,
    "prev": st.sampled_from(["0" * 64, "ab" * 32, "AB" * 32, "0" * 63, "0 " * 32]) | _ODD,
    "time": _INT | _ODD,
    "type": st.from_regex(r"[a-z][a-z0-9_]{0,40}", fullmatch=True) | _TEXT | _ODD,
    "actor": _ACTOR_TEXT | _TEXT | _ODD,
    "data": _DATA | _ODD,
}


_SPEC_5_1 = {  # each field's constraint, as the table of SPEC 5.1 has them, with its reason
    "version": (lambda v: type(v) is int and v in (1, 2, 3), "version must be 1, 2 or 3"),
    "table": (lambda v: isinstance(v, str) and re.fullmatch(_ID, v), "bad table id"),
    "round": (
        lambda v: v is None or (isinstance(v, str) and re.fullmatch(_ID, v)),
        "bad round id",
    ),
    "seq": (lambda v: type(v) is int and v >= 0, "seq must be a non-negative integer"),
    "prev": (
        lambda v: isinstance(v, str) and re.fullmatch("[0-9a-f]{64}", v),
        "prev must be 64 lowercase hex digits",
    ),
    "time": (lambda v: type(v) is int and v >= 0, "time must be a non-negative integer"),
    "type": (
        lambda v: isinstance(v, str) and re.fullmatch("[a-z][a-z0-9_]{0,39}", v),
        "bad event type",
    ),
    "actor": (
        lambda v: isinstance(v, str) and re.fullmatch("server|seat:(0|[1-9][0-9]?)", v),
        "bad actor",
    ),
    "data": (lambda v: isinstance(v, dict), "data must be an object"),
}


def _plain_parse(obj: dict[str, Any]) -> tuple[Event, bytes, str]:
    """SPEC 5.1 as written: each field in the table's order, then the whole event's
    canonical encoding (its members in their own order)."""
    for name in _FIELDS:
        holds, reason = _SPEC_5_1[name]
        if not holds(obj[name]):
            raise EventSchemaError(f"seq {obj['seq']!r}: {reason}")
    try:
        canonical = canonical_bytes(obj)
    except EncodingError as e:
        raise EventSchemaError(f"seq {obj['seq']!r}: {e}") from e
    return Event(**obj), canonical, canonical_bytes(obj["data"]).decode()


@settings(max_examples=1000, deadline=None)
@given(
    values=st.fixed_dictionaries(_FIELD_VALUES),
    order=st.permutations(_FIELDS),
    broken=st.sets(st.sampled_from(_FIELDS), max_size=3),
)
def test_parsing_an_event_checks_its_fields_as_spec_5_1_says(
    values: dict[str, Any], order: list[str], broken: set[str]
) -> None:
    """A few fields drawn from anything, the rest valid, members in any order: the same
    verdict, the same first failure named, the same bytes and data text."""
    valid = {"version": 1, "table": "t", "round": "t.r1", "seq": 3, "prev": "ab" * 32,
             "time": 5, "type": "hit", "actor": "seat:1", "data": {"a": [1, None]}}  # fmt: skip
    obj = {name: values[name] if name in broken else valid[name] for name in order}
    try:
        expected = _plain_parse(obj)
    except EventSchemaError as e:
        with pytest.raises(EventSchemaError, match=f"^{re.escape(str(e))}$"):
            Event.parse(obj)
    else:
        assert Event.parse(obj) == expected


_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | _TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=10,
)


@given(value=_JSON)
def test_json_text_is_compact_sorted_json_dumps(value: Any) -> None:
    expected = json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    assert json_text(value) == expected


def _naive_shown_cards(value: Any) -> list[Any]:
    found = []
    if isinstance(value, dict):
        if {"position", "card", "salt"} <= value.keys():
            found.append(value)
        for item in value.values():
            found.extend(_naive_shown_cards(item))
    elif isinstance(value, list):
        for item in value:
            found.extend(_naive_shown_cards(item))
    return found


_SHOWN = st.fixed_dictionaries({"position": _INT, "card": _TEXT, "salt": _TEXT})


_WITH_SHOWN = st.recursive(
    _SCALAR | _SHOWN,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=12,
)


@given(data=_WITH_SHOWN)
def test_the_verifier_finds_every_shown_card_in_document_order(data: Any) -> None:
    from fairdeal.verifier.rounds import _shown_cards

    assert [id(c) for c in _shown_cards(data)] == [id(c) for c in _naive_shown_cards(data)]


def _naive_shuffle(key: bytes, items: list[int], purpose: str) -> list[int]:
    """Fisher–Yates drawing every index through ``uniform`` from the byte stream."""
    deck = list(items)
    stream = randomness.byte_stream(key, purpose)
    for i in range(len(deck) - 1, 0, -1):
        j = randomness.uniform(stream, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


@settings(max_examples=200, deadline=None)
@given(
    key=st.binary(min_size=32, max_size=32),
    size=st.integers(0, 300) | st.sampled_from([24, 36, 48, 256, 257]),
    purpose=st.sampled_from(["deck", "dealer", "x y"]),
)
def test_the_block_at_a_time_shuffle_draws_what_uniform_draws(
    key: bytes, size: int, purpose: str
) -> None:
    items = list(range(size))
    assert randomness.shuffle(key, items, purpose) == _naive_shuffle(key, items, purpose)


@settings(max_examples=200, deadline=None)
@given(
    drafts=st.lists(
        st.tuples(_DATA | _ODD, _TEXT | _ODD, st.none() | _TEXT | _ODD), min_size=0, max_size=3
    ),
    time=_INT | st.sampled_from([10, 10.0, 9.5]),  # equal to the head's time, or before it
)
def test_extending_a_chain_is_stamping_signing_and_advancing_each_draft(
    drafts: list[tuple[Any, Any, Any]], time: Any
) -> None:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from fairdeal.events import ChainHead, Draft, sign
    from fairdeal.keys import Signer

    signer = Signer(Ed25519PrivateKey.from_private_bytes(bytes(range(32))))
    start = ChainHead("t", 3, "ab" * 32, 10)
    run = [Draft(kind, "seat:1", data, round_id) for data, kind, round_id in drafts]
    head, expected = start, []
    try:
        for draft in run:
            expected.append(sign(head.stamp(draft, time), signer))
            head = head.advance(expected[-1].event, expected[-1].hash)
    except (EncodingError, TypeError, ValueError) as e:  # data that is no mapping, say
        with pytest.raises(type(e), match=re.escape(str(e))):
            start.extend(run, time, signer)
    else:
        assert start.extend(run, time, signer) == (head, expected)


@given(seed=st.text(max_size=260) | st.text(alphabet=st.characters(max_codepoint=0x80)))
def test_a_client_seed_is_checked_as_printable_ascii_character_by_character(seed: str) -> None:
    from fairdeal.errors import SeedError

    printable = all(" " <= char <= "~" for char in seed)
    if 1 <= len(seed) <= randomness.MAX_CLIENT_SEED_BYTES and printable:
        randomness.check_client_seed(seed)
    else:
        with pytest.raises(SeedError):
            randomness.check_client_seed(seed)


_KVITLACH_CARDS = st.sampled_from([str(number) for number in range(1, 13)])


@given(hand=st.lists(_KVITLACH_CARDS, max_size=8))
def test_kvitlach_totals_cached_by_sorted_hand_are_the_totals_counted_afresh(
    hand: list[str],
) -> None:
    """The cached ``_totals`` (keyed by the hand sorted) equals every way of counting the
    hand's 12s as 12, 10 or 9, in the hand's own order."""
    fixed = sum(int(card) for card in hand if card != "12")
    choices = itertools.product((12, 10, 9), repeat=hand.count("12"))
    assert kvitlach_hands.totals(hand) == {fixed + sum(values) for values in choices}
    assert kvitlach_hands.totals(hand) == kvitlach_hands.totals(list(reversed(hand)))


_HEXISH = st.text(alphabet="0123456789abcdefABCDEF \t\ng\u0660\uff10", max_size=10)


@settings(max_examples=500)
@given(
    value=_HEXISH | st.binary(max_size=5).map(bytes.hex) | st.none() | st.integers(),
    size=st.integers(0, 5),
)
def test_hex_read_by_fromhex_is_the_lowercase_hex_match(value: Any, size: int) -> None:
    """``_hex`` reads through ``bytes.fromhex`` what a lowercase-hex pattern would accept."""
    from fairdeal.events import _hex

    plain = (
        bytes.fromhex(value)
        if isinstance(value, str) and len(value) == 2 * size and re.fullmatch(r"[0-9a-f]*", value)
        else None
    )
    assert _hex(value, size) == plain
