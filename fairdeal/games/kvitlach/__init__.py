"""Kvitlach: a banker against the table, cards 1-12, 21 or as near as possible.

Two rule sets (``classic`` from the English source, ``pressburg`` from the Hebrew)
and table options; SPEC.md states every rule. ``GAME`` is the plug-in object the table
engine drives.
"""

from fairdeal import cards
from fairdeal.games.base import Plugin
from fairdeal.games.kvitlach import options, rest, timing, views
from fairdeal.games.kvitlach.apply import apply
from fairdeal.games.kvitlach.decide import decide
from fairdeal.games.kvitlach.options import Options
from fairdeal.games.kvitlach.state import State

GAME: Plugin[State, Options] = Plugin(
    name=options.NAME,
    decks={decks: cards.kvitlach_deck(decks) for decks in (1, 2)},
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
