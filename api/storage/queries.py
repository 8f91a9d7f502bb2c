"""What every query module builds on: one open database transaction that runs SQL.

The SQL is written once, in the subset SQLite and PostgreSQL agree on, with ``?`` placeholders
(the PostgreSQL backend turns them into ``%s``). A backend's transaction runs it (``_run``,
mapping driver errors to ``StorageError`` and integrity errors to ``ConflictError``) and says
where the dialects differ: the two locking reads, which PostgreSQL ends with ``FOR UPDATE``
and SQLite does not need (its ``BEGIN IMMEDIATE`` already holds the database).
"""

import json
from typing import Any, ClassVar, Literal, Protocol

Dialect = Literal["sqlite", "postgresql"]


class Cursor(Protocol):
    """What both drivers' cursors give back."""

    @property
    def rowcount(self) -> int: ...
    def fetchone(self) -> Any: ...
    def fetchall(self) -> list[Any]: ...


class Queries:
    """The base of every query module's part of a transaction."""

    DIALECT: ClassVar[Dialect]

    def _run(self, sql: str, params: tuple[Any, ...] = ()) -> Cursor:
        raise NotImplementedError

    def _insert(self, table: str, **row: Any) -> None:
        """Insert one row; ``row`` names its columns (a query module's own names, never input)."""
        columns, marks = ", ".join(row), ", ".join("?" * len(row))
        sql = f"INSERT INTO {table} ({columns}) VALUES ({marks})"  # noqa: S608
        self._run(sql, tuple(row.values()))


def dump_json(obj: Any) -> str:
    """The stored text of a JSON object: sorted keys, no spaces, no NaN."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), allow_nan=False)


def optional_bytes(value: Any) -> bytes | None:
    """A nullable byte column, as ``bytes`` whichever driver read it."""
    return None if value is None else bytes(value)
