"""Toto21's table state: seats, money, score and the current round. Immutable."""

from collections.abc import Mapping
from dataclasses import dataclass, field

from fairdeal.games.base import deck_rules
from fairdeal.games.dealing import BLIND, Deck, RoundState
from fairdeal.games.money import POT
from fairdeal.games.toto21.cipher import Crypto
from fairdeal.games.toto21.options import NAME, Options

SEATS = (0, 1)
# Table phases: waiting for a joiner, the creator deciding on the joiner, the match, the end.
OPEN, DECIDING, PLAYING, OVER = "open", "deciding", "playing", "over"
DEALER_PURPOSE = "dealer"  # the shuffle key's stream that picks the dealer
DECK_RULES = deck_rules(NAME)


@dataclass(frozen=True)
class Held:
    """A card a seat holds: its deck position, face and (if not face up) commitment."""

    seat: int
    position: int
    face: str
    commitment: str | None


@dataclass(frozen=True)
class Known:
    """A card everyone may see: face up when dealt, or shown later with its salt."""

    card: str
    salt: str | None


@dataclass(frozen=True)
class Hand:
    """The play of a sealed round: roles, cards held, whose move it is and until when."""

    dealer: int
    player: int
    held: tuple[Held, ...] = ()
    known: Mapping[int, Known] = field(default_factory=dict)
    turn: int | None = None
    move_deadline: int | None = None
    blind_taken: bool = False

    def dealt(self) -> int:
        """The cards dealt this round, so the next deck position: every card is held."""
        return len(self.held)

    def of(self, seat: int) -> list[Held]:
        return [held for held in self.held if held.seat == seat]

    def hidden(self, seat: int) -> list[Held]:
        """The seat's cards nobody has been shown yet (down and blind)."""
        return [held for held in self.of(seat) if held.position not in self.known]


@dataclass(frozen=True)
class State:
    options: Options
    phase: str = OPEN
    seats: tuple[int, ...] = ()
    balances: Mapping[str, int] = field(default_factory=lambda: {POT: 0})
    score: tuple[int, int] = (0, 0)
    worth: int = 1  # points the next round is worth (rises after double busts)
    game_deadline: int | None = None
    rounds: int = 0
    round_ids: frozenset[str] = frozenset()  # a round id is used once per table
    round: RoundState | None = None
    hand: Hand | None = None
    crypto: Crypto | None = None  # a dealer-blind table's round (SPEC 15.13)

    def in_round(self) -> bool:
        """A round is opened and not yet revealed."""
        return self.round is not None and not self.round.revealed


def deck_of(state: State, secret: bytes | None) -> Deck:
    assert state.round is not None
    return state.round.deck(secret, DECK_RULES)


def cards_of(deck: Deck, held: list[Held]) -> list[str]:
    order = deck.cards  # read directly: the rules ask for the cards at every move
    return [order[card.position] for card in held]


def visible_to_owner(hand: Hand, seat: int) -> list[Held]:
    """The cards a seat itself can see: all its own but the blind card."""
    return [held for held in hand.of(seat) if held.face != BLIND]
