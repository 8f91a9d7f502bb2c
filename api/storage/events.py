"""Queries on ``events``: each table's signed events by seq, appended without gaps."""

import json
from typing import Any

from . import ConflictError
from .queries import Queries, dump_json


class EventQueries(Queries):
    def append_events(self, table_id: str, events: list[dict[str, Any]]) -> None:
        """Append a run of events that continues the table's seq exactly; refuse anything else."""
        rows = [_event_row(table_id, signed) for signed in events]
        if not rows:
            return
        last = self.last_seq(table_id)
        for expected, row in enumerate(rows, start=0 if last is None else last + 1):
            if row[1] < expected:
                raise ConflictError(f"table {table_id!r} already has seq {row[1]}")
            if row[1] > expected:
                raise ValueError(f"table {table_id!r}: seq {row[1]} leaves a gap after {expected}")
        for row in rows:
            self._run(
                "INSERT INTO events (table_id, seq, round_id, time, body) VALUES (?, ?, ?, ?, ?)",
                row,
            )

    def events(
        self, table_id: str, from_seq: int = 0, limit: int | None = None
    ) -> list[dict[str, Any]]:
        """The table's events from ``from_seq`` on, at most ``limit`` of them (None: all)."""
        sql = "SELECT body FROM events WHERE table_id = ? AND seq >= ? ORDER BY seq"
        if limit is None:
            return self._bodies(sql, (table_id, from_seq))
        return self._bodies(sql + " LIMIT ?", (table_id, from_seq, limit))

    def events_between(self, table_id: str, first_seq: int, last_seq: int) -> list[dict[str, Any]]:
        """The table's events from ``first_seq`` to ``last_seq``, both included."""
        return self._bodies(
            "SELECT body FROM events WHERE table_id = ? AND seq >= ? AND seq <= ? ORDER BY seq",
            (table_id, first_seq, last_seq),
        )

    def last_seq(self, table_id: str) -> int | None:
        (last,) = self._run(
            "SELECT MAX(seq) FROM events WHERE table_id = ?", (table_id,)
        ).fetchone()
        return None if last is None else int(last)

    def round_events(
        self, table_id: str, round_id: str, from_seq: int = 0, limit: int | None = None
    ) -> list[dict[str, Any]]:
        """The round's events from ``from_seq`` on, at most ``limit`` of them (None: all)."""
        sql = (
            "SELECT body FROM events WHERE table_id = ? AND round_id = ? AND seq >= ? ORDER BY seq"
        )
        if limit is None:
            return self._bodies(sql, (table_id, round_id, from_seq))
        return self._bodies(sql + " LIMIT ?", (table_id, round_id, from_seq, limit))

    def last_round_start(self, table_id: str) -> tuple[int, int] | None:
        """The rounds opened at the table, and the seq of its last round's first event (its
        ``round_opened``); None before its first round."""
        row = self._run(
            "SELECT round_id, number FROM rounds WHERE table_id = ? ORDER BY number DESC LIMIT 1",
            (table_id,),
        ).fetchone()
        if row is None:
            return None
        (first,) = self._run(
            "SELECT MIN(seq) FROM events WHERE table_id = ? AND round_id = ?", (table_id, row[0])
        ).fetchone()
        return None if first is None else (int(row[1]), int(first))

    def round_last_seq(self, table_id: str, round_id: str) -> int | None:
        (last,) = self._run(
            "SELECT MAX(seq) FROM events WHERE table_id = ? AND round_id = ?", (table_id, round_id)
        ).fetchone()
        return None if last is None else int(last)

    def _bodies(self, sql: str, params: tuple[Any, ...]) -> list[dict[str, Any]]:
        return [json.loads(body) for (body,) in self._run(sql, params).fetchall()]


def _event_row(table_id: str, signed: dict[str, Any]) -> tuple[str, int, Any, int, str]:
    try:
        event = signed["event"]
        table, seq, round_id, time = event["table"], event["seq"], event.get("round"), event["time"]
    except (KeyError, TypeError, AttributeError) as e:
        raise ValueError(f"not a signed event object: missing {e}") from e
    if table != table_id:
        raise ValueError(f"an event of table {table!r} cannot be appended to {table_id!r}")
    if type(seq) is not int or type(time) is not int:
        raise ValueError("an event's seq and time must be integers")
    return table_id, seq, round_id, time, dump_json(signed)
