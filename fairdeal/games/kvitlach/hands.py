"""Hand totals: what a list of Kvitlach card codes is worth to its holder.

A 12 counts 12, 10 or 9, as its holder likes; every other card counts its number.
The engine always takes the holder's best value, so the service and the verifier
agree without asking anyone.
"""

from collections.abc import Sequence
from functools import lru_cache
from itertools import product

TWENTY_ONE = 21
ELVAROON_TOTAL = 11
TWELVE_VALUES = (12, 10, 9)
FRAMED = frozenset({2, 11})


def number(card: str) -> int:
    return int(card)


def is_framed(card: str) -> bool:
    return number(card) in FRAMED


def totals(hand: Sequence[str]) -> frozenset[int]:
    """Every total the hand can count, one for each way of valuing its 12s."""
    return _totals(tuple(sorted(hand)))


@lru_cache(maxsize=4096)
def _totals(hand: tuple[str, ...]) -> frozenset[int]:
    # Cached by the cards in order of code: the rules ask again at every move.
    # hot: kvitlach rounds, events (3 %; kept: the row is at 96 % of 86035da with it)
    fixed = sum(number(card) for card in hand if card != "12")
    twelves = sum(1 for card in hand if card == "12")
    return frozenset(fixed + sum(values) for values in product(TWELVE_VALUES, repeat=twelves))


def is_bust(hand: Sequence[str]) -> bool:
    """Over 21 even with every 12 at its lowest (9)."""
    return min(totals(hand)) > TWENTY_ONE


def best(hand: Sequence[str]) -> int:
    """The highest total not over 21; a bust hand's lowest total."""
    fitting = [t for t in totals(hand) if t <= TWENTY_ONE]
    return max(fitting) if fitting else min(totals(hand))


def is_framed_pair(hand: Sequence[str]) -> bool:
    """Two framed cards (2 or 11) as the first two cards: an automatic 21."""
    return len(hand) == 2 and all(is_framed(card) for card in hand)


def is_twenty_one(hand: Sequence[str]) -> bool:
    """Exactly 21 by any valuation (12+12, 12+9, 12+11 among them) or a framed pair."""
    return TWENTY_ONE in totals(hand) or is_framed_pair(hand)


def win_reason(hand: Sequence[str]) -> str:
    """How an immediate win was made, as logged: "21" or "framed"."""
    return "21" if TWENTY_ONE in totals(hand) else "framed"


def can_call_elvaroon(hand: Sequence[str]) -> bool:
    return ELVAROON_TOTAL in totals(hand)
