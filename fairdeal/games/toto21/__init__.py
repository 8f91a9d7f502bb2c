"""Toto21: two seats, a 36-card deck, a dealer chosen each round by the shuffle key.

RULES.md section 1 with the project's answers to its open questions; SPEC.md states
them. ``GAME`` is the plug-in object the table engine drives.
"""

from collections.abc import Mapping
from typing import Any

from fairdeal.events import Draft, Event
from fairdeal.games.base import Command, Decision
from fairdeal.games.toto21 import options as _options
from fairdeal.games.toto21 import timing, views
from fairdeal.games.toto21.apply import apply as _apply
from fairdeal.games.toto21.decide import decide as _decide
from fairdeal.games.toto21.state import Toto21State


class Toto21:
    """The Toto21 game: each method is the pure function base.Game names."""

    name = _options.NAME

    def options(self, raw: Mapping[str, Any]) -> dict[str, Any]:
        return _options.parse(raw).to_json()

    def deck_rules(self, options: Mapping[str, Any]) -> dict[str, Any]:
        return _options.deck_rules(options)

    def new(self, options: Mapping[str, Any]) -> Toto21State:
        return Toto21State(_options.parse(options))

    def step(self, state: Toto21State, command: Command, secret: bytes | None) -> Decision:
        return _decide(state, command, secret)

    def decide(self, state: Toto21State, command: Command, secret: bytes | None) -> list[Draft]:
        return _decide(state, command, secret).drafts

    def apply(self, state: Toto21State, event: Event) -> Toto21State:
        return _apply(state, event)

    def legal_actions(self, state: Toto21State, seat: int, secret: bytes | None) -> list[str]:
        return views.legal_actions(state, seat, secret)

    def view_for(
        self, state: Toto21State, seat: int | None, secret: bytes | None
    ) -> dict[str, Any]:
        return views.view_for(state, seat, secret)

    def due(self, state: Toto21State, now: int) -> Command | None:
        return timing.due(state, now)


GAME = Toto21()

__all__ = ["GAME", "Toto21", "Toto21State"]
