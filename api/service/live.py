"""The tables this process has seen: each the fold of its logged events, topped up on use
(a table new to the process is folded from the table_state before its last round).

Under the table's lock a request reads only the events the cache has not folded yet, so
several processes can share one database and each keeps its own cache.
"""

import threading
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from fairdeal.events import ChainHead, SignedEvent
from fairdeal.games.base import AnyGame
from fairdeal.protocol import ROUND_OPENED, ROUND_REVEALED, TABLE_CREATED, TABLE_STATE
from fairdeal.table import Table, follow, started_at

from ..storage import Reader
from .errors import NotFoundError


@dataclass(frozen=True)
class Live:
    """A table as this process last saw it, with the round that is current.

    ``in_round`` while that round is open (not yet revealed); ``last_type`` is the type of
    the table's last event: together they tell whether the table is at rest (SPEC 13.3).
    """

    table: Table[Any]
    current_round: str | None = None
    rounds_opened: int = 0
    in_round: bool = False
    last_type: str = TABLE_CREATED

    @property
    def table_id(self) -> str:
        return self.table.head.table

    def followed(self, signed: SignedEvent) -> "Live":
        """After one more of the table's events (already applied to ``table`` or not)."""
        event = signed.event
        if event.type == ROUND_OPENED:
            opened = live_round(self, event.round)
            return replace(
                opened, rounds_opened=self.rounds_opened + 1, in_round=True, last_type=event.type
            )
        in_round = self.in_round and event.type != ROUND_REVEALED
        if in_round == self.in_round and event.type == self.last_type:
            return self  # most events of a round: nothing this records changes
        return replace(self, in_round=in_round, last_type=event.type)

    @property
    def unlogged_rest(self) -> bool:
        """At rest (no round open) on a head that no round's head covers: the head a
        write that ends here adds to the log as a table's head."""
        return not self.in_round and self.last_type != ROUND_REVEALED


def live_round(live: Live, round_id: str | None) -> Live:
    return replace(live, current_round=round_id)


class LiveTables:
    def __init__(self, games: Mapping[str, AnyGame]) -> None:
        self.games = games
        self._tables: dict[str, Live] = {}
        self._lock = threading.Lock()

    def __getitem__(self, table_id: str) -> Live:
        with self._lock:
            return self._tables[table_id]

    def load(self, txn: Reader, table_id: str) -> Live:
        """The table from the cache (or, new to it, from the table_state before its last
        round), topped up with the events it has not seen."""
        with self._lock:
            live = self._tables.get(table_id)
        if live is None:
            live = self._resumed(txn, table_id)
        start = 0 if live is None else live.table.head.next_seq
        for raw in txn.events(table_id, start):
            live = self._fold(live, SignedEvent.from_json(raw))
        if live is None:
            raise NotFoundError(f"no table {table_id!r}")
        return live

    def remember(self, live: Live) -> None:
        """Keep ``live`` unless the cache already holds a later state of the table."""
        with self._lock:
            known = self._tables.get(live.table_id)
            if known is None or known.table.head.next_seq <= live.table.head.next_seq:
                self._tables[live.table_id] = live

    def _resumed(self, txn: Reader, table_id: str) -> Live | None:
        """The table as the table_state right before its last round restores it (SPEC
        6.6): a process new to a table reads that round's events, not the table's whole
        past, and shows the last round as it was played. None: no such table_state (no
        round yet, or a table from before 6.6), so the table is read from seq 0."""
        last = txn.last_round_start(table_id)
        if last is None or last[1] == 0:
            return None
        rounds, opened_at = last
        (raw,) = txn.events(table_id, opened_at - 1, 1)
        signed = SignedEvent.from_json(raw)
        event = signed.event
        if event.type != TABLE_STATE:
            return None
        at = started_at(self.games, event, event.data, signed.hash)
        head = ChainHead(event.table).advance(event, signed.hash)
        table = Table(at.game, at.state, head, at.standing, at.seats, at.seen)
        return Live(table, rounds_opened=rounds - 1, last_type=TABLE_STATE)

    def _fold(self, live: Live | None, signed: SignedEvent) -> Live:
        event = signed.event
        if live is None:
            game = self.games[event.data["game"]]
            head = ChainHead(event.table).advance(event, signed.hash)
            return Live(Table(game, game.new(event.data["options"]), head))
        return replace(live, table=follow(live.table, event, signed.hash)).followed(signed)
