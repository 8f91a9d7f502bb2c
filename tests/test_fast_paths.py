"""The hot-path shortcuts equal the plain code they replace: the event hash formatted
around its data, the frozen-dataclass copies and constructors, the cached card salts."""

import dataclasses
import hashlib
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairdeal import randomness
from fairdeal.canonical import MAX_SAFE_INTEGER, canonical_bytes
from fairdeal.errors import EncodingError
from fairdeal.events import Event
from fairdeal.frozen import build, evolve
from fairdeal.games.dealing import Deck, derive_deck
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


def test_build_equals_the_constructor_and_needs_every_field() -> None:
    event = Event(1, "t", None, 0, "0" * 64, 5, "hit", "seat:1", {"a": 1})
    assert build(Event, **event.__dict__) == event
    with pytest.raises(TypeError):
        build(Event, version=1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        build(Event, **event.__dict__).seq = 2  # type: ignore[misc]


def test_a_decks_salts_are_the_card_salts_asked_again() -> None:
    key = hashlib.sha256(b"deck").digest()
    deck: Deck = derive_deck(key, ("1", "2", "3"))
    for position in (0, 2, 0):
        assert deck.salt(position) == randomness.card_salt(key, position)
    assert deck == Deck(key, deck.cards)
