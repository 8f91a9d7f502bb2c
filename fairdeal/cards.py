"""Cards and decks, by the stable codes the log uses.

A card code is short ASCII text. Toto21: rank then suit ("6C", "10H", "QS", "AD").
Kvitlach: the number itself ("1" to "12"); the copies of a number are alike, and a
card's identity in a round is its deck position. Each deck lists its cards in a fixed
canonical order, which the shuffle permutes.
"""

from collections.abc import Sequence

TOTO21_RANKS = ("6", "7", "8", "9", "10", "J", "Q", "K", "A")
TOTO21_SUITS = ("C", "D", "H", "S")
_TOTO21_VALUES = {"J": 2, "Q": 3, "K": 4, "A": 11}

KVITLACH_NUMBERS = tuple(range(1, 13))
KVITLACH_FRAMED = frozenset({2, 11})
KVITLACH_COPIES_PER_DECK = 2


def toto21_deck() -> tuple[str, ...]:
    """The 36-card Toto21 deck: suits C, D, H, S, each with ranks 6..10, J, Q, K, A."""
    return tuple(rank + suit for suit in TOTO21_SUITS for rank in TOTO21_RANKS)


def canonical_deck(game: str, decks: int) -> tuple[str, ...]:
    """The unshuffled deck a game's rules name: ("toto21", 1) or ("kvitlach", 1 or 2)."""
    if game == "toto21" and decks == 1:
        return toto21_deck()
    if game == "kvitlach":
        return kvitlach_deck(decks)
    raise ValueError(f"no deck for game {game!r} with {decks} deck(s)")


def toto21_rank(card: str) -> str:
    return card[:-1]


def toto21_value(card: str) -> int:
    """A card's count: 6–10 their face, J=2, Q=3, K=4, A=11 (an ace may drop to 1 in a hand)."""
    rank = toto21_rank(card)
    return _TOTO21_VALUES.get(rank) or int(rank)


def toto21_total(cards: Sequence[str]) -> int:
    """Best total: each ace counts 11 unless that busts the hand, then 1."""
    total = sum(toto21_value(card) for card in cards)
    aces = sum(1 for card in cards if toto21_rank(card) == "A")
    while total > 21 and aces:
        total -= 10
        aces -= 1
    return total


def kvitlach_deck(decks: int) -> tuple[str, ...]:
    """One deck is 24 cards (two of each 1..12); two decks are 48, the first deck first."""
    if decks not in (1, 2):
        raise ValueError("Kvitlach is played with 1 or 2 decks")
    one = tuple(str(n) for _ in range(KVITLACH_COPIES_PER_DECK) for n in KVITLACH_NUMBERS)
    return one * decks


def kvitlach_number(card: str) -> int:
    return int(card)


def is_framed(card: str) -> bool:
    return kvitlach_number(card) in KVITLACH_FRAMED


def is_toto21_card(card: str) -> bool:
    return card in _TOTO21_CARDS


def is_kvitlach_card(card: str) -> bool:
    return card in _KVITLACH_CARDS


_TOTO21_CARDS = frozenset(toto21_deck())
_KVITLACH_CARDS = frozenset(kvitlach_deck(1))
