"""The tables both backends keep: their DDL, ``migrate()``, and the SQL that reads and writes them.

The SQL is written once, in the subset SQLite and PostgreSQL agree on, with ``?`` placeholders
(the PostgreSQL backend turns them into ``%s``). Where the dialects differ, the backend says
so: the byte type (``BLOB`` / ``BYTEA``) and the two locking reads, which PostgreSQL ends
with ``FOR UPDATE`` and SQLite does not need (its ``BEGIN IMMEDIATE`` already holds the
database).

Every schema change is a new step at the end of ``_MIGRATIONS``; a released step is never
edited. ``migrate`` runs the missing steps inside one transaction that the backend has
already made exclusive, so two processes starting at once apply each step once.
"""

import json
from typing import Any, ClassVar, Literal, Protocol

from fairdeal.api.storage import (
    CheckpointRow,
    ConflictError,
    HeadRow,
    IdempotencyRow,
    RoundRow,
    StorageError,
    TableRow,
)

Dialect = Literal["sqlite", "postgresql"]
_BYTES_TYPE: dict[Dialect, str] = {"sqlite": "BLOB", "postgresql": "BYTEA"}

# Step n of this tuple brings the schema from version n - 1 to version n.
_MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        """CREATE TABLE tables (
            table_id TEXT PRIMARY KEY,
            game TEXT NOT NULL,
            created_at BIGINT NOT NULL,
            next_deadline BIGINT
        )""",
        "CREATE INDEX tables_next_deadline ON tables (next_deadline)",
        """CREATE TABLE events (
            table_id TEXT NOT NULL REFERENCES tables (table_id),
            seq BIGINT NOT NULL,
            round_id TEXT,
            time BIGINT NOT NULL,
            body TEXT NOT NULL,
            PRIMARY KEY (table_id, seq)
        )""",
        "CREATE INDEX events_round ON events (table_id, round_id, seq)",
        """CREATE TABLE rounds (
            round_id TEXT PRIMARY KEY,
            table_id TEXT NOT NULL REFERENCES tables (table_id),
            number BIGINT NOT NULL,
            server_seed {bytes} NOT NULL,
            opened_at BIGINT NOT NULL,
            finished_at BIGINT,
            head_hash {bytes},
            leaf_index BIGINT UNIQUE
        )""",
        "CREATE INDEX rounds_table_leaf ON rounds (table_id, leaf_index)",
        """CREATE TABLE seat_tokens (
            table_id TEXT NOT NULL REFERENCES tables (table_id),
            seat INTEGER NOT NULL,
            token_hash {bytes} NOT NULL,
            PRIMARY KEY (table_id, seat),
            UNIQUE (table_id, token_hash)
        )""",
        """CREATE TABLE idempotency (
            table_id TEXT NOT NULL REFERENCES tables (table_id),
            key TEXT NOT NULL,
            request_hash {bytes} NOT NULL,
            status INTEGER NOT NULL,
            response TEXT NOT NULL,
            PRIMARY KEY (table_id, key)
        )""",
        """CREATE TABLE leaves (
            leaf_index BIGINT PRIMARY KEY,
            leaf_hash {bytes} NOT NULL,
            round_id TEXT NOT NULL UNIQUE REFERENCES rounds (round_id)
        )""",
        """CREATE TABLE checkpoints (
            size BIGINT PRIMARY KEY,
            root_hash {bytes} NOT NULL,
            note TEXT NOT NULL,
            signed_at BIGINT NOT NULL
        )""",
        """CREATE TABLE log_state (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            size BIGINT NOT NULL
        )""",
        "INSERT INTO log_state (id, size) VALUES (1, 0)",
    ),
    (
        # A leaf is a round's head or a table's head at rest (no round open): round_id may
        # be null, and table heads get their own rows.
        """CREATE TABLE leaves_v2 (
            leaf_index BIGINT PRIMARY KEY,
            leaf_hash {bytes} NOT NULL,
            round_id TEXT UNIQUE REFERENCES rounds (round_id)
        )""",
        "INSERT INTO leaves_v2 (leaf_index, leaf_hash, round_id)"
        " SELECT leaf_index, leaf_hash, round_id FROM leaves",
        "DROP TABLE leaves",
        "ALTER TABLE leaves_v2 RENAME TO leaves",
        """CREATE TABLE table_heads (
            leaf_index BIGINT PRIMARY KEY,
            table_id TEXT NOT NULL REFERENCES tables (table_id),
            seq BIGINT NOT NULL,
            head_hash {bytes} NOT NULL,
            finished_at BIGINT NOT NULL,
            UNIQUE (table_id, seq)
        )""",
    ),
    (
        # Idempotency keys are each caller's own: the caller is the hash of the seat token
        # that sent the request. Keys kept before have the empty caller (LEGACY_CALLER).
        """CREATE TABLE idempotency_v3 (
            table_id TEXT NOT NULL REFERENCES tables (table_id),
            caller {bytes} NOT NULL,
            key TEXT NOT NULL,
            request_hash {bytes} NOT NULL,
            status INTEGER NOT NULL,
            response TEXT NOT NULL,
            PRIMARY KEY (table_id, caller, key)
        )""",
        "INSERT INTO idempotency_v3 (table_id, caller, key, request_hash, status, response)"
        " SELECT table_id, CAST('' AS {bytes}), key, request_hash, status, response"
        " FROM idempotency",
        "DROP TABLE idempotency",
        "ALTER TABLE idempotency_v3 RENAME TO idempotency",
    ),
)
VERSION = len(_MIGRATIONS)
# The caller of idempotency keys kept before schema version 3, when keys were per table.
LEGACY_CALLER = b""

# Bounds that stand in for "no bound" on a BIGINT time column.
_MIN_TIME = -(2**63)
_MAX_TIME = 2**63 - 1

TABLE_ROW = "SELECT table_id, game, created_at, next_deadline FROM tables WHERE table_id = ?"
_ROUND_COLUMNS = (
    "round_id, table_id, number, server_seed, opened_at, finished_at, head_hash, leaf_index"
)


class Cursor(Protocol):
    """What both drivers' cursors give back."""

    @property
    def rowcount(self) -> int: ...
    def fetchone(self) -> Any: ...
    def fetchall(self) -> list[Any]: ...


def migrate(tx: "SqlTransaction") -> None:
    """Bring the schema to ``VERSION`` inside ``tx``, which the caller has made exclusive."""
    tx._run("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY)")
    found = tx._run("SELECT MAX(version) FROM schema_version").fetchone()[0] or 0
    if found > VERSION:
        raise StorageError(f"the database has schema version {found}; this code knows {VERSION}")
    for version in range(found + 1, VERSION + 1):
        for statement in _MIGRATIONS[version - 1]:
            tx._run(statement.format(bytes=_BYTES_TYPE[tx.DIALECT]))
        tx._run("INSERT INTO schema_version (version) VALUES (?)", (version,))


def dump_json(obj: Any) -> str:
    """The stored text of a JSON object: sorted keys, no spaces, no NaN."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), allow_nan=False)


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


class SqlTransaction:
    """Every ``Transaction`` method, over one open database transaction.

    A backend subclass runs the SQL (``_run``, mapping driver errors to ``StorageError``
    and integrity errors to ``ConflictError``) and supplies the two locking reads.
    """

    DIALECT: ClassVar[Dialect]
    _LOCK_TABLE: ClassVar[str] = TABLE_ROW
    _LOCK_LOG: ClassVar[str] = "SELECT size FROM log_state WHERE id = 1"

    def _run(self, sql: str, params: tuple[Any, ...] = ()) -> Cursor:
        raise NotImplementedError

    # Tables

    def create_table(self, table_id: str, game: str, created_at: int) -> None:
        self._run(
            "INSERT INTO tables (table_id, game, created_at) VALUES (?, ?, ?)",
            (table_id, game, created_at),
        )

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

    # Events

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

    def events_through(self, table_id: str, last_seq: int) -> list[dict[str, Any]]:
        """The table's chain from ``table_created`` to ``last_seq``."""
        return self._bodies(
            "SELECT body FROM events WHERE table_id = ? AND seq <= ? ORDER BY seq",
            (table_id, last_seq),
        )

    def last_seq(self, table_id: str) -> int | None:
        (last,) = self._run(
            "SELECT MAX(seq) FROM events WHERE table_id = ?", (table_id,)
        ).fetchone()
        return None if last is None else int(last)

    def round_events(self, table_id: str, round_id: str) -> list[dict[str, Any]]:
        return self._bodies(
            "SELECT body FROM events WHERE table_id = ? AND round_id = ? ORDER BY seq",
            (table_id, round_id),
        )

    def round_last_seq(self, table_id: str, round_id: str) -> int | None:
        (last,) = self._run(
            "SELECT MAX(seq) FROM events WHERE table_id = ? AND round_id = ?", (table_id, round_id)
        ).fetchone()
        return None if last is None else int(last)

    def _bodies(self, sql: str, params: tuple[Any, ...]) -> list[dict[str, Any]]:
        return [json.loads(body) for (body,) in self._run(sql, params).fetchall()]

    # Rounds

    def put_round(
        self, round_id: str, table_id: str, number: int, server_seed: bytes, opened_at: int
    ) -> None:
        self._run(
            "INSERT INTO rounds (round_id, table_id, number, server_seed, opened_at)"
            " VALUES (?, ?, ?, ?, ?)",
            (round_id, table_id, number, server_seed, opened_at),
        )

    def get_round(self, round_id: str) -> RoundRow | None:
        row = self._run(
            "SELECT " + _ROUND_COLUMNS + " FROM rounds WHERE round_id = ?",  # noqa: S608
            (round_id,),
        ).fetchone()
        return None if row is None else _round_row(row)

    def finish_round(
        self, round_id: str, head_hash: bytes, leaf_index: int, finished_at: int
    ) -> None:
        """Record a round's end once; finishing it again is a conflict, never an overwrite."""
        cursor = self._run(
            "UPDATE rounds SET head_hash = ?, leaf_index = ?, finished_at = ?"
            " WHERE round_id = ? AND finished_at IS NULL",
            (head_hash, leaf_index, finished_at, round_id),
        )
        if cursor.rowcount == 0:
            if self.get_round(round_id) is None:
                raise ValueError(f"no round {round_id!r}")
            raise ConflictError(f"round {round_id!r} is already finished")

    def put_table_head(
        self, table_id: str, seq: int, head_hash: bytes, leaf_index: int, finished_at: int
    ) -> None:
        self._run(
            "INSERT INTO table_heads (leaf_index, table_id, seq, head_hash, finished_at)"
            " VALUES (?, ?, ?, ?, ?)",
            (leaf_index, table_id, seq, head_hash, finished_at),
        )

    def table_head(self, table_id: str, seq: int | None) -> HeadRow | None:
        """The table's head logged at ``seq``, or its latest one (None)."""
        sql = "SELECT leaf_index, table_id, seq, head_hash FROM table_heads WHERE table_id = ?"
        if seq is None:
            row = self._run(sql + " ORDER BY seq DESC LIMIT 1", (table_id,)).fetchone()
        else:
            row = self._run(sql + " AND seq = ?", (table_id, seq)).fetchone()
        if row is None:
            return None
        leaf_index, table, head_seq, head_hash = row
        return HeadRow(leaf_index, table, None, head_seq, bytes(head_hash))

    def logged_heads(
        self,
        since: int | None,
        until: int | None,
        table_id: str | None,
        after_leaf: int,
        limit: int,
    ) -> list[HeadRow]:
        """Rounds' and tables' heads by leaf index after ``after_leaf``, logged in [since,
        until): the log's leaves with what each covers."""
        bounds = (
            after_leaf,
            _MIN_TIME if since is None else since,
            _MAX_TIME if until is None else until,
        )
        where = "leaf_index > ? AND finished_at >= ? AND finished_at < ?"
        where += "" if table_id is None else " AND table_id = ?"
        params = bounds if table_id is None else (*bounds, table_id)
        rounds = "SELECT leaf_index, table_id, round_id, NULL, head_hash FROM rounds"
        tables = "SELECT leaf_index, table_id, NULL, seq, head_hash FROM table_heads"
        sql = f"{rounds} WHERE {where} UNION ALL {tables} WHERE {where} ORDER BY leaf_index LIMIT ?"
        rows = self._run(sql, (*params, *params, limit)).fetchall()
        return [
            HeadRow(index, table, round_id, seq, bytes(head))
            for index, table, round_id, seq, head in rows
        ]

    # Seat tokens

    def put_token(self, table_id: str, seat: int, token_hash: bytes) -> None:
        # A seat its occupant left under an older version of the service, which kept the
        # token of a vacated seat, may still hold it: the new token replaces it.
        self._run(
            "INSERT INTO seat_tokens (table_id, seat, token_hash) VALUES (?, ?, ?)"
            " ON CONFLICT (table_id, seat) DO UPDATE SET token_hash = excluded.token_hash",
            (table_id, seat, token_hash),
        )

    def drop_token(self, table_id: str, seat: int) -> None:
        self._run("DELETE FROM seat_tokens WHERE table_id = ? AND seat = ?", (table_id, seat))

    def seat_for_token(self, table_id: str, token_hash: bytes) -> int | None:
        row = self._run(
            "SELECT seat FROM seat_tokens WHERE table_id = ? AND token_hash = ?",
            (table_id, token_hash),
        ).fetchone()
        return None if row is None else int(row[0])

    # Idempotency keys

    def get_idempotent(self, table_id: str, caller: bytes, key: str) -> IdempotencyRow | None:
        """The answer kept under the caller's key. A key kept while keys were per table
        answers any caller, as it did then; its request hash covers its caller."""
        row = self._run(
            "SELECT request_hash, status, response FROM idempotency"
            " WHERE table_id = ? AND key = ? AND caller IN (?, ?)",
            (table_id, key, caller, LEGACY_CALLER),
        ).fetchone()
        return None if row is None else IdempotencyRow(bytes(row[0]), row[1], json.loads(row[2]))

    def put_idempotent(self, table_id: str, caller: bytes, key: str, row: IdempotencyRow) -> None:
        self._run(
            "INSERT INTO idempotency (table_id, caller, key, request_hash, status, response)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (table_id, caller, key, row.request_hash, row.status, dump_json(row.response)),
        )

    # The Merkle log

    def append_leaf(self, leaf_hash: bytes, round_id: str | None) -> int:
        """Add a leaf at the next index, under the log lock, so indexes stay dense."""
        (size,) = self._run(self._LOCK_LOG).fetchone()
        self._run(
            "INSERT INTO leaves (leaf_index, leaf_hash, round_id) VALUES (?, ?, ?)",
            (size, leaf_hash, round_id),
        )
        self._run("UPDATE log_state SET size = ? WHERE id = 1", (size + 1,))
        return int(size)

    def leaf_hashes(self, start: int, end: int) -> list[bytes]:
        """Leaves ``start`` to ``end - 1``; a range beyond the log is the caller's error."""
        size = self.log_size()
        if not 0 <= start <= end <= size:
            raise ValueError(f"leaf range [{start}, {end}) is not within a log of size {size}")
        rows = self._run(
            "SELECT leaf_hash FROM leaves WHERE leaf_index >= ? AND leaf_index < ?"
            " ORDER BY leaf_index",
            (start, end),
        ).fetchall()
        return [bytes(leaf_hash) for (leaf_hash,) in rows]

    def log_size(self) -> int:
        (size,) = self._run("SELECT size FROM log_state WHERE id = 1").fetchone()
        return int(size)

    def put_checkpoint(self, row: CheckpointRow) -> None:
        """Keep a signed checkpoint; one per size, and never for a tree the log has not reached."""
        (size,) = self._run(self._LOCK_LOG).fetchone()
        if row.size > size:
            raise ValueError(f"a checkpoint of size {row.size} for a log of size {size}")
        self._run(
            "INSERT INTO checkpoints (size, root_hash, note, signed_at) VALUES (?, ?, ?, ?)",
            (row.size, row.root_hash, row.note, row.signed_at),
        )

    def latest_checkpoint(self) -> CheckpointRow | None:
        row = self._run(
            "SELECT size, root_hash, note, signed_at FROM checkpoints ORDER BY size DESC LIMIT 1"
        ).fetchone()
        return None if row is None else _checkpoint_row(row)


def _round_row(row: Any) -> RoundRow:
    round_id, table_id, number, seed, opened_at, finished_at, head_hash, leaf_index = row
    head = None if head_hash is None else bytes(head_hash)
    return RoundRow(
        round_id, table_id, number, bytes(seed), opened_at, finished_at, head, leaf_index
    )


def _checkpoint_row(row: Any) -> CheckpointRow:
    size, root_hash, note, signed_at = row
    return CheckpointRow(size, bytes(root_hash), note, signed_at)
