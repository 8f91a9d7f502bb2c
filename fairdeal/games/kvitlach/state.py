"""The state of a Kvitlach table: seats, balances, the banker's term and the round.

Everything here is public knowledge: hidden cards are kept as deck positions only,
and their values come from the deck (with the server seed) where the rules need them.
"""

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, TypeVar

from fairdeal.events import seat_actor
from fairdeal.games.dealing import RoundState
from fairdeal.games.kvitlach.options import Options
from fairdeal.games.money import BANK

# Hand statuses. A hand is "live" while its bet is covered by the bank.
WAITING, PLAYING, OPEN, OUT, WON, LOST, SKIPPED = (
    "waiting", "playing", "open", "out", "won", "lost", "skipped",
)  # fmt: skip
LIVE = (PLAYING, OPEN)
# Round phases after the round is opened.
SEEDING, PLAYERS, BANKER, SHOWDOWN, DONE = "seeding", "players", "banker", "showdown", "done"


K = TypeVar("K")
V = TypeVar("V")


def frozen(mapping: Mapping[K, V]) -> MappingProxyType[K, V]:
    return MappingProxyType(dict(mapping))


def changed(mapping: MappingProxyType[K, V], changes: Mapping[K, V]) -> MappingProxyType[K, V]:
    """A read-only mapping of the state with some entries changed.

    Hot (nearly every event): the proxy's ``copy`` copies its dictionary in C, where
    ``{**proxy}`` or ``dict(proxy)`` goes key by key through the mapping protocol.
    """
    new = mapping.copy()
    new.update(changes)
    return MappingProxyType(new)


def _empty() -> MappingProxyType[Any, Any]:
    return frozen({})


@dataclass(frozen=True)
class Hand:
    """One seat's cards in a round (deck positions, in order) and its bet."""

    seat: int
    cards: tuple[int, ...] = ()
    bet: int = 0
    status: str = WAITING
    elvaroon: bool = False  # called this round (once per hand)
    armed: bool = False  # the Elvaroon protects the next card dealt
    protected: int | None = None  # that card's position, until the holder moves again
    burned: tuple[int, ...] = ()


@dataclass(frozen=True)
class Play:
    """A round's table: who plays in which order, the hands, whose move it is."""

    banker: int
    order: tuple[int, ...]  # the players (banker excluded) in their turn order
    hands: MappingProxyType[int, Hand]
    phase: str = SEEDING
    turn: int | None = None
    deadline: int | None = None
    known: MappingProxyType[int, str] = field(default_factory=_empty)  # public cards by position
    dealt: int = 0  # cards dealt this round, burned ones included: the next deck position

    def hand(self, seat: int) -> Hand:
        return self.hands[seat]

    def deal_order(self) -> tuple[int, ...]:
        """The first card goes to each player in turn order, then to the banker."""
        return (*self.order, self.banker)


@dataclass(frozen=True)
class Term:
    """A banker's term: from funding the bank until the role passes."""

    banker: int
    rounds: int  # rounds opened in this term, this one included
    paid: frozenset[int]  # seated players whose ante is in this term's bank (not who left)


@dataclass(frozen=True)
class State:
    options: Options
    balances: MappingProxyType[str, int] = field(default_factory=_empty)
    seats: tuple[int, ...] = ()
    banker: int = 0  # the current banker, or who is next in line between terms
    term: Term | None = None
    rounds: int = 0
    round: RoundState | None = None
    play: Play | None = None
    exit_offer: bool = False  # an optional 4-or-7 exit the banker may take now
    round_ids: frozenset[str] = frozenset()  # a round id is used once per table


def in_round(state: State) -> bool:
    return state.round is not None and not state.round.revealed


def balance(state: State, seat: int) -> int:
    return state.balances.get(seat_actor(seat), 0)


def bank(state: State) -> int:
    return state.balances.get(BANK, 0)


def can_play(state: State, seat: int, paid: frozenset[int]) -> bool:
    """A player plays a round with the term's ante paid (``paid``) and a unit left to bet,
    or with the ante and a unit to pay now."""
    return balance(state, seat) >= (1 if seat in paid else state.options.ante + 1)


def players_able(state: State) -> list[int]:
    """The term's seated players that could play its next round (SPEC 12.7 ``no_players``)."""
    assert state.term is not None
    term = state.term
    return [s for s in state.seats if s != term.banker and can_play(state, s, term.paid)]


def covered(play: Play | None) -> int:
    """What the bank has set aside: the bets of every hand still in play."""
    return 0 if play is None else staked(play.hands)


def staked(hands: Mapping[int, Hand]) -> int:
    """The bets of the hands still in play among ``hands``."""
    total = 0
    for hand in hands.values():  # a loop, not a generator: asked at every bet and stand
        if hand.status in LIVE:
            total += hand.bet
    return total


def uncovered(state: State) -> int:
    return bank(state) - covered(state.play)


def leftward(seats: Iterable[int], start: int, max_seats: int) -> list[int]:
    """The other seats from ``start``'s left onwards: seat numbers upwards, wrapping."""
    return sorted((s for s in seats if s != start), key=lambda s: (s - start) % max_seats)


def rightward(seats: Iterable[int], start: int, max_seats: int) -> list[int]:
    """The other seats from ``start``'s right onwards: seat numbers downwards, wrapping."""
    return sorted((s for s in seats if s != start), key=lambda s: (start - s) % max_seats)


def open_hands(play: Play) -> list[Hand]:
    return [play.hands[s] for s in play.order if play.hands[s].status == OPEN]


EXIT_FROM_TERM_ROUND = 4
EXIT_CARDS = ("4", "7")


def banker_first_card(play: Play) -> str | None:
    """The banker's first card once it is public (at the showdown)."""
    first = play.hands[play.banker].cards
    return play.known.get(first[0]) if first else None


def exit_condition(state: State) -> bool:
    """Rule 19: from the term's 4th round, a first card of 4 or 7 lets the banker out."""
    return (
        state.term is not None
        and state.play is not None
        and state.term.rounds >= EXIT_FROM_TERM_ROUND
        and banker_first_card(state.play) in EXIT_CARDS
    )
