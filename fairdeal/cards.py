"""Decks, by the stable card codes the log uses.

A card code is short ASCII text. Toto21: rank then suit ("6C", "10H", "QS", "AD").
Kvitlach: the number itself ("1" to "12"); the copies of a number are alike, and a
card's identity in a round is its deck position. Each deck lists its cards in a fixed
canonical order, which the shuffle permutes. What a card is worth is each game's own
(its ``hands`` module).

The decks are here, apart from the games, because the verifier's own check of the
shuffle (SPEC 7, step 8) reads them without the game modules.
"""

from collections.abc import Mapping

TOTO21_RANKS = ("6", "7", "8", "9", "10", "J", "Q", "K", "A")
TOTO21_SUITS = ("C", "D", "H", "S")

KVITLACH_NUMBERS = tuple(range(1, 13))
KVITLACH_COPIES_PER_DECK = 2


def toto21_deck() -> tuple[str, ...]:
    """The 36-card Toto21 deck: suits C, D, H, S, each with ranks 6..10, J, Q, K, A."""
    return tuple(rank + suit for suit in TOTO21_SUITS for rank in TOTO21_RANKS)


def kvitlach_deck(decks: int) -> tuple[str, ...]:
    """One deck is 24 cards (two of each 1..12); two decks are 48, the first deck first."""
    if decks not in (1, 2):
        raise ValueError("Kvitlach is played with 1 or 2 decks")
    one = tuple(str(n) for _ in range(KVITLACH_COPIES_PER_DECK) for n in KVITLACH_NUMBERS)
    return one * decks


# Every deck there is (SPEC 4), by game name and number of decks.
_BUILT_IN: dict[tuple[str, int], tuple[str, ...]] = {
    ("toto21", 1): toto21_deck(),
    ("kvitlach", 1): kvitlach_deck(1),
    ("kvitlach", 2): kvitlach_deck(2),
}
_DECKS = dict(_BUILT_IN)


def canonical_deck(game: str, decks: int) -> tuple[str, ...]:
    """The unshuffled deck a game's rules name: ("toto21", 1) or ("kvitlach", 1 or 2)."""
    order = _DECKS.get((game, decks))
    if order is None:
        raise ValueError(f"no deck for game {game!r} with {decks} deck(s)")
    return order


def add_decks(game: str, orders: Mapping[int, tuple[str, ...]]) -> None:
    """Make a registered game's decks known (``games.register``), by number of decks; a
    deck already known must be given in the same order, else none is added."""
    for decks, order in orders.items():
        known = _DECKS.get((game, decks))
        if known is not None and known != tuple(order):
            raise ValueError(f"the deck ({game!r}, {decks}) is already known, in another order")
    _DECKS.update({(game, decks): tuple(order) for decks, order in orders.items()})


def remove_deck(game: str, decks: int) -> None:
    """Forget a deck ``add_decks`` added (``games.unregister``); the built-in ones stay."""
    if (game, decks) not in _BUILT_IN:
        _DECKS.pop((game, decks), None)
