"""The embedded store: one SQLite file, in WAL mode, every commit durable.

Each thread has its own connection, opened on first use. ``transaction()`` starts with
``BEGIN IMMEDIATE``, which takes the database's one write lock at once, so writers (threads
or processes) run one after another, waiting up to ``BUSY_TIMEOUT_S`` for their turn; that
lock is also what ``lock_table`` and the log lock rely on.
"""

import random
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from api.storage import ConflictError, StorageError, schema
from api.storage.pool import Pool

BUSY_TIMEOUT_S = 30.0


@contextmanager
def _mapped_errors() -> Iterator[None]:
    try:
        yield
    except sqlite3.IntegrityError as e:
        raise ConflictError(str(e)) from e
    except sqlite3.Error as e:
        raise StorageError(str(e)) from e


def _use_wal(conn: sqlite3.Connection, path: Path) -> None:
    """Switch the file to WAL (it stays so). Retried here: the switch needs the file alone,
    and SQLite answers "locked" at once, without its busy handler, while another connection
    is in the middle of opening or switching it."""
    deadline = time.monotonic() + BUSY_TIMEOUT_S
    while True:
        try:
            (mode,) = conn.execute("PRAGMA journal_mode = WAL").fetchone()
            break
        except sqlite3.OperationalError as e:
            busy = e.sqlite_errorcode & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
            if not busy or time.monotonic() > deadline:
                raise
            time.sleep(random.uniform(0.001, 0.02))  # noqa: S311 - jitter, not a secret
    if mode != "wal":
        raise StorageError(f"{path} cannot use WAL (journal mode {mode})")


class _SqliteTransaction(schema.SqlTransaction):
    DIALECT = "sqlite"

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def _run(self, sql: str, params: tuple[Any, ...] = ()) -> schema.Cursor:
        with _mapped_errors():
            return self._conn.execute(sql, params)


class SqliteStore:
    """A store in the SQLite file at ``path``; its parent directories are made if missing."""

    def __init__(self, path: str) -> None:
        if path in ("", ":memory:") or path.startswith("file:"):
            raise ValueError("SqliteStore needs a file path: each thread opens its own connection")
        self._path = Path(path)
        self._pool: Pool[sqlite3.Connection] = Pool(self._connect, _close)

    def migrate(self) -> None:
        with self.transaction() as tx:
            schema.migrate(tx)

    @contextmanager
    def transaction(self) -> Iterator[_SqliteTransaction]:
        with self._pool.connection() as conn:
            with _mapped_errors():
                conn.execute("BEGIN IMMEDIATE")
            try:
                yield _SqliteTransaction(conn)
                with _mapped_errors():
                    conn.execute("COMMIT")
            except BaseException:
                _rollback(conn)
                raise

    def close(self) -> None:
        """Close every idle connection; no new transaction starts afterwards."""
        self._pool.close()

    def _connect(self) -> sqlite3.Connection:
        try:
            self._path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise StorageError(f"cannot create the directory of {self._path}: {e}") from e
        with _mapped_errors():
            # Shared between threads by the pool, one transaction at a time.
            conn = sqlite3.connect(
                self._path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False
            )
            try:
                conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
                _use_wal(conn, self._path)
                conn.execute("PRAGMA synchronous = FULL")
                conn.execute("PRAGMA foreign_keys = ON")
            except (sqlite3.Error, StorageError):
                conn.close()
                raise
        return conn


def _rollback(conn: sqlite3.Connection) -> None:
    """Undo the open transaction (the pool then drops the connection anyway)."""
    try:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
    except sqlite3.Error:
        pass


def _close(conn: sqlite3.Connection) -> None:
    conn.close()
