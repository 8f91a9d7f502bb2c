"""The run of one command: each drafted event is applied at once, so the next decision
sees the state it leaves (one rules path for service and verifier); and the deck it deals
from.
"""

from collections.abc import Mapping
from typing import Any

from fairdeal.events import Draft
from fairdeal.games import base, dealing
from fairdeal.games.base import deck_rules
from fairdeal.games.kvitlach.options import NAME, canonical_order
from fairdeal.games.kvitlach.state import Hand, Play, State
from fairdeal.protocol import SERVER


class Run(base.Run[State]):
    """The drafts of one decided command and the state after each (local, never shared),
    made with Kvitlach's ``apply_at``."""

    @property
    def play(self) -> Play:
        assert self.state.play is not None
        return self.state.play

    @property
    def round(self) -> dealing.RoundState:
        assert self.state.round is not None
        return self.state.round

    def server(
        self, kind: str, data: dict[str, object], earlier: tuple[Mapping[str, Any], ...] = ()
    ) -> None:
        """A server event of the round; ``earlier``, data an earlier service logged for
        it (SPEC 7.19)."""
        current = self.state.round  # not the property: a call fewer for each server event
        assert current is not None
        self.emit(Draft(kind, SERVER, data, current.round_id, earlier))


def deck_of(state: State, secret: bytes | None) -> dealing.Deck:
    assert state.round is not None
    return state.round.deck(secret, deck_rules(NAME, state.options.decks))


def deck_left(state: State) -> bool:
    """Whether the deck still has a card (an empty deck stops all drawing)."""
    assert state.play is not None
    return state.play.dealt < len(canonical_order(state.options))


def cards_of(hand: Hand, deck: dealing.Deck) -> list[str]:
    order = deck.cards  # read directly: the rules ask for a hand's cards at most moves
    return [order[position] for position in hand.cards]


def deal(run: Run, deck: dealing.Deck, seat: int, face: str) -> None:
    state = run.state  # not the properties: a card is dealt at most moves
    assert state.round is not None and state.play is not None
    run.emit(dealing.deal_draft(state.round, deck, state.play.dealt, seat, face))
