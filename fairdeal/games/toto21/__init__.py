"""Toto21: two seats, a 36-card deck, a dealer chosen each round by the shuffle key.

RULES.md section 1 with the project's answers to its open questions; SPEC.md states
them. ``GAME`` is the plug-in object the table engine drives.
"""

from fairdeal import cards
from fairdeal.games.base import Plugin
from fairdeal.games.toto21 import options, rest, timing, views
from fairdeal.games.toto21.apply import apply
from fairdeal.games.toto21.decide import decide
from fairdeal.games.toto21.options import Options
from fairdeal.games.toto21.state import State

GAME: Plugin[State, Options] = Plugin(
    name=options.NAME,
    decks={1: cards.toto21_deck()},
    parse=options.parse,
    start=State,
    step=decide,
    apply=apply,
    legal_actions=views.legal_actions,
    view_for=views.view_for,
    due=timing.due,
    snapshot=rest.snapshot,
    restore=rest.restore,
)

__all__ = ["GAME", "State"]
