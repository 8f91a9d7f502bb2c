"""Kvitlach: a banker against the table, cards 1-12, 21 or as near as possible.

Two rule sets (``classic`` from the English source, ``pressburg`` from the Hebrew)
and table options; SPEC.md states every rule. ``GAME`` is the plug-in object.
"""

from collections.abc import Mapping
from typing import Any

from fairdeal.events import Draft, Event
from fairdeal.games.base import Command
from fairdeal.games.kvitlach import options as _options
from fairdeal.games.kvitlach import views
from fairdeal.games.kvitlach.apply import apply as _apply
from fairdeal.games.kvitlach.decide import decide as _decide
from fairdeal.games.kvitlach.state import State, frozen


class Kvitlach:
    """The Game protocol's functions for Kvitlach (stateless; the state is passed in)."""

    name = _options.NAME

    def options(self, raw: Mapping[str, Any]) -> dict[str, Any]:
        return _options.options(raw)

    def deck_rules(self, options: Mapping[str, Any]) -> dict[str, Any]:
        return _options.deck_rules(options)

    def new(self, options: Mapping[str, Any]) -> State:
        return State(frozen(_options.options(options)))

    # The engine's path for every command: the rules' function itself, not a method around it.
    step = staticmethod(_decide)

    def decide(self, state: State, command: Command, secret: bytes | None) -> list[Draft]:
        return _decide(state, command, secret).drafts

    def apply(self, state: State, event: Event) -> State:
        return _apply(state, event)

    def legal_actions(self, state: State, seat: int, secret: bytes | None) -> list[str]:
        return views.legal_actions(state, seat, secret)

    def view_for(self, state: State, seat: int | None, secret: bytes | None) -> dict[str, Any]:
        return views.view_for(state, seat, secret)

    def due(self, state: State, now: int) -> Command | None:
        return views.due(state, now)


GAME = Kvitlach()

__all__ = ["GAME", "Kvitlach", "State"]
