"""Decks in their canonical order, card values and Toto21 totals."""

from collections import Counter

import pytest

from fairdeal import cards
from fairdeal.cards import kvitlach_deck, toto21_deck
from fairdeal.games.kvitlach.hands import is_framed
from fairdeal.games.kvitlach.hands import number as kvitlach_number
from fairdeal.games.toto21.hands import rank as toto21_rank
from fairdeal.games.toto21.hands import total as toto21_total
from fairdeal.games.toto21.hands import value as toto21_value

RANKS = ["6", "7", "8", "9", "10", "J", "Q", "K", "A"]
SUITS = ["C", "D", "H", "S"]


def is_toto21_card(card: str) -> bool:
    return card in toto21_deck()


def is_kvitlach_card(card: str) -> bool:
    return card in kvitlach_deck(1)


def test_toto21_deck_is_36_cards_in_canonical_order() -> None:
    # Suit by suit (clubs, diamonds, hearts, spades), each from 6 up to the ace.
    expected = [
        "6C", "7C", "8C", "9C", "10C", "JC", "QC", "KC", "AC",
        "6D", "7D", "8D", "9D", "10D", "JD", "QD", "KD", "AD",
        "6H", "7H", "8H", "9H", "10H", "JH", "QH", "KH", "AH",
        "6S", "7S", "8S", "9S", "10S", "JS", "QS", "KS", "AS",
    ]  # fmt: skip
    assert toto21_deck() == tuple(expected)


def test_toto21_deck_has_each_card_once() -> None:
    deck = toto21_deck()
    assert len(set(deck)) == 36
    assert {toto21_rank(card) for card in deck} == set(RANKS)
    assert Counter(card[-1] for card in deck) == dict.fromkeys(SUITS, 9)


def test_kvitlach_deck_is_two_runs_of_one_to_twelve() -> None:
    run = [str(n) for n in range(1, 13)]
    assert kvitlach_deck(1) == tuple(run + run)


def test_two_kvitlach_decks_are_the_first_deck_then_the_second() -> None:
    one = kvitlach_deck(1)
    assert kvitlach_deck(2) == one + one
    assert len(kvitlach_deck(2)) == 48
    assert Counter(kvitlach_deck(2)) == {str(n): 4 for n in range(1, 13)}


@pytest.mark.parametrize("decks", [0, 3, -1])
def test_kvitlach_is_played_with_one_or_two_decks(decks: int) -> None:
    with pytest.raises(ValueError):
        kvitlach_deck(decks)


@pytest.mark.parametrize(
    ("card", "value"),
    [
        ("6C", 6), ("7D", 7), ("8H", 8), ("9S", 9), ("10C", 10),
        ("JD", 2), ("QH", 3), ("KS", 4), ("AC", 11),
    ],
)  # fmt: skip
def test_toto21_card_values(card: str, value: int) -> None:
    assert toto21_value(card) == value


def test_ten_is_a_two_character_rank() -> None:
    assert toto21_rank("10H") == "10"
    assert toto21_value("10H") == 10


@pytest.mark.parametrize(
    ("cards", "total"),
    [
        pytest.param([], 0, id="no cards count nothing"),
        pytest.param(["10C", "9D"], 19, id="ten and nine are nineteen"),
        pytest.param(["JC", "QD", "KH"], 9, id="court cards count two three four"),
        pytest.param(["AC", "10D"], 21, id="ace and ten are twenty-one"),
        pytest.param(["AC", "AD"], 12, id="two aces are twelve, one counting one"),
        pytest.param(["AC", "AD", "AH"], 13, id="three aces are thirteen"),
        pytest.param(["AC", "AD", "AH", "AS"], 14, id="four aces are fourteen"),
        pytest.param(["AC", "KD", "9H"], 14, id="ace king nine is fourteen, the ace counting one"),
        pytest.param(
            ["AC", "KD", "6H"], 21, id="ace king six is twenty-one with the ace as eleven"
        ),
        pytest.param(
            ["AC", "KD", "7H"], 12, id="ace king seven would be twenty-two, so the ace is one"
        ),
        pytest.param(["AC", "AD", "9H"], 21, id="two aces and nine are twenty-one"),
        pytest.param(["AC", "AD", "10H"], 12, id="two aces and ten are twelve"),
        pytest.param(["10C", "10D", "KH"], 24, id="a bust without aces stays a bust"),
        pytest.param(
            ["AC", "10D", "10H", "KS"], 25, id="a bust with every ace at one stays a bust"
        ),
        pytest.param(["KC", "AD", "JH"], 17, id="the ace counts eleven wherever it sits"),
    ],
)
def test_toto21_total(cards: list[str], total: int) -> None:
    assert toto21_total(cards) == total


def test_toto21_total_drops_only_the_aces_it_must() -> None:
    # Brute force over every hand of up to three cards: the best total is the largest
    # sum at most 21 over each ace counted 1 or 11, or the smallest sum if all bust.
    deck = toto21_deck()
    for a in deck[:9]:
        for b in deck[9:18]:
            for c in deck[18:27]:
                hand = [a, b, c]
                base = sum(1 if toto21_rank(x) == "A" else toto21_value(x) for x in hand)
                aces = sum(toto21_rank(x) == "A" for x in hand)
                sums = [base + 10 * k for k in range(aces + 1)]
                fitting = [s for s in sums if s <= 21]
                assert toto21_total(hand) == (max(fitting) if fitting else min(sums))


def test_kvitlach_numbers_and_framed_cards() -> None:
    assert [kvitlach_number(str(n)) for n in range(1, 13)] == list(range(1, 13))
    assert [n for n in range(1, 13) if is_framed(str(n))] == [2, 11]


@pytest.mark.parametrize("card", ["6C", "10S", "AH", "QD"])
def test_toto21_cards_are_recognised(card: str) -> None:
    assert is_toto21_card(card)
    assert not is_kvitlach_card(card)


@pytest.mark.parametrize("card", ["5C", "2H", "10", "A", "AX", "ac", "1", ""])
def test_non_toto21_codes_are_not_toto21_cards(card: str) -> None:
    assert not is_toto21_card(card)


@pytest.mark.parametrize("card", ["1", "2", "11", "12"])
def test_kvitlach_cards_are_recognised(card: str) -> None:
    assert is_kvitlach_card(card)


@pytest.mark.parametrize("card", ["0", "13", "01", " 1", "1.0", "AS", ""])
def test_non_kvitlach_codes_are_not_kvitlach_cards(card: str) -> None:
    assert not is_kvitlach_card(card)


def test_a_known_deck_in_another_order_is_refused_and_no_deck_of_the_call_added() -> None:
    shuffled = tuple(reversed(cards.kvitlach_deck(2)))
    with pytest.raises(ValueError, match="another order"):
        cards.add_decks("kvitlach", {3: ("1", "2"), 2: shuffled})
    with pytest.raises(ValueError, match="no deck"):
        cards.canonical_deck("kvitlach", 3)
    cards.add_decks("kvitlach", {1: cards.kvitlach_deck(1)})  # the same order: nothing new
    assert cards.canonical_deck("kvitlach", 1) == cards.kvitlach_deck(1)
