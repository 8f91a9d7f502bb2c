"""A table rebuilt from its whole logged chain, for tests: the one replay of the core
(``fairdeal.table.runs``, which the verifier drives too), every decided run checked
(SPEC 6.3), with the seeds the chain reveals."""

from collections.abc import Mapping
from typing import Any

from fairdeal.errors import EventSchemaError
from fairdeal.events import ChainHead, Event
from fairdeal.games.base import AnyGame
from fairdeal.protocol import TABLE_CREATED
from fairdeal.statements import NOTHING_SEEN
from fairdeal.table import CREATED, Replayed, Table, runs, started
from fairdeal.verifier.rounds import revealed_seeds


def replay(game_of: Mapping[str, AnyGame], events: list[Event]) -> Table[Any]:
    """Rounds not yet revealed replay without their seed: hidden cards stay unknown, so
    the rules refuse the runs that need the deck (IllegalActionError)."""
    if not events or events[0].type != TABLE_CREATED or events[0].seq != 0:
        raise EventSchemaError("a table's chain starts with table_created at seq 0")
    game, state = started(game_of, events[0].data, events[0].version)
    seen = NOTHING_SEEN.then(events[0], events[0].hash().hex())
    replayed = Replayed(game, state, CREATED, events[0].version, seen=seen)
    for _, after in runs(replayed, events[1:], revealed_seeds(events)):
        replayed = after  # the run is checked
    head = ChainHead(events[0].table).advance(events[-1], events[-1].hash())
    return Table(
        replayed.game, replayed.state, head, replayed.standing, replayed.seats, replayed.seen
    )
