"""Queries on ``tables``: a table's row, its lock for writers, and its next deadline."""

from typing import ClassVar

from . import TableRow
from .queries import Queries

TABLE_ROW = "SELECT table_id, game, created_at, next_deadline FROM tables WHERE table_id = ?"


class TableQueries(Queries):
    _LOCK_TABLE: ClassVar[str] = TABLE_ROW

    def create_table(self, table_id: str, game: str, created_at: int) -> None:
        self._insert("tables", table_id=table_id, game=game, created_at=created_at)

    def lock_table(self, table_id: str) -> TableRow | None:
        row = self._run(self._LOCK_TABLE, (table_id,)).fetchone()
        return None if row is None else TableRow(*row)

    def table_row(self, table_id: str) -> TableRow | None:
        """The table's row, read without locking it."""
        row = self._run(TABLE_ROW, (table_id,)).fetchone()
        return None if row is None else TableRow(*row)

    def set_deadline(self, table_id: str, deadline: int | None) -> None:
        cursor = self._run(
            "UPDATE tables SET next_deadline = ? WHERE table_id = ?", (deadline, table_id)
        )
        if cursor.rowcount == 0:
            raise ValueError(f"no table {table_id!r}")

    def due_tables(self, now: int, limit: int) -> list[str]:
        rows = self._run(
            "SELECT table_id FROM tables WHERE next_deadline <= ?"
            " ORDER BY next_deadline, table_id LIMIT ?",
            (now, limit),
        ).fetchall()
        return [table_id for (table_id,) in rows]
