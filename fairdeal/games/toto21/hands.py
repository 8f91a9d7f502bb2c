"""What a Toto21 hand is worth and who wins a round, from card codes alone.

Values: 6-10 their face, J=2, Q=3, K=4, A=11 or 1 (each ace 11 unless that busts
the hand). Over 21 loses; a tie goes to the dealer.
"""

from collections.abc import Sequence
from dataclasses import dataclass

LIMIT = 21
_VALUES = {"J": 2, "Q": 3, "K": 4, "A": 11}
ACE_DROP = 10  # an ace counted 1 rather than 11


@dataclass(frozen=True)
class Outcome:
    """A round's result: the winning seat (None when both are over 21) and why."""

    winner: int | None
    reason: str


def rank(card: str) -> str:
    return card[:-1]


def value(card: str) -> int:
    """A card's count: 6–10 their face, J=2, Q=3, K=4, A=11 (an ace may drop to 1 in a hand)."""
    face = rank(card)
    return _VALUES.get(face) or int(face)


def total(hand: Sequence[str]) -> int:
    """Best total: each ace counts 11 unless that busts the hand, then 1."""
    best = sum(value(card) for card in hand)
    aces = sum(1 for card in hand if rank(card) == "A")
    while best > LIMIT and aces:
        best -= ACE_DROP
        aces -= 1
    return best


def may_draw(visible: Sequence[str]) -> bool:
    """A participant may take another card while the cards they can see total below 21."""
    return total(visible) < LIMIT


def two_aces(first_two: Sequence[str]) -> bool:
    return len(first_two) == 2 and all(rank(card) == "A" for card in first_two)


def golden_point(
    player: int, dealer: int, player_two: Sequence[str], dealer_two: Sequence[str]
) -> Outcome | None:
    """The player's two aces win at once, unless the dealer's first two are aces too."""
    if not two_aces(player_two):
        return None
    if two_aces(dealer_two):
        return Outcome(dealer, "dealer_two_aces")
    return Outcome(player, "golden_point")


def showdown(
    player: int, dealer: int, player_cards: Sequence[str], dealer_cards: Sequence[str]
) -> Outcome:
    """Higher total not over 21 wins; over 21 loses; a tie goes to the dealer."""
    mine, theirs = total(player_cards), total(dealer_cards)
    if mine > LIMIT and theirs > LIMIT:
        return Outcome(None, "both_over_21")
    if mine > LIMIT:
        return Outcome(dealer, "player_over_21")
    if theirs > LIMIT:
        return Outcome(player, "dealer_over_21")
    if mine == theirs:
        return Outcome(dealer, "tie")
    return Outcome(player if mine > theirs else dealer, "higher_total")
