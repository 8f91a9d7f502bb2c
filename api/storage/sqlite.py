"""The embedded store: one SQLite file, in WAL mode, every commit durable.

Each thread has its own connection, opened on first use. ``transaction()`` starts with
``BEGIN IMMEDIATE``, which takes the database's one write lock at once, so writers (threads
or processes) run one after another, waiting up to ``BUSY_TIMEOUT_S`` for their turn (a
process's own writers queue on a lock of its own first); that
lock is also what ``lock_table`` and the log lock rely on. ``reader()`` starts a deferred
transaction that only reads: in WAL mode it reads a snapshot and takes no lock at all.
"""

import logging
import random
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path
from typing import Any

from . import (
    StorageError,
    StorageUnavailableError,
    committing,
    mapped_errors,
    private_files,
    schema,
)
from .pool import Pool
from .queries import Cursor
from .sql import SqlTransaction

log = logging.getLogger("fairdeal")
BUSY_TIMEOUT_S = 30.0

# Primary result codes that say the database cannot do the work for now, not that the work
# is wrong: its lock held past the busy timeout, the file read-only, the disk full or failing,
# the file not openable, a race in WAL's locking.
_UNAVAILABLE_CODES = frozenset(
    {
        sqlite3.SQLITE_BUSY,
        sqlite3.SQLITE_LOCKED,
        sqlite3.SQLITE_READONLY,
        sqlite3.SQLITE_IOERR,
        sqlite3.SQLITE_FULL,
        sqlite3.SQLITE_CANTOPEN,
        sqlite3.SQLITE_PROTOCOL,
    }
)


def _unavailable(error: sqlite3.Error) -> bool:
    code = getattr(error, "sqlite_errorcode", None)  # absent on the module's own misuse errors
    return code is not None and code & 0xFF in _UNAVAILABLE_CODES


def _mapped_errors() -> AbstractContextManager[None]:
    return mapped_errors(sqlite3.IntegrityError, sqlite3.Error, _unavailable)


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


class _SqliteTransaction(SqlTransaction):
    DIALECT = "sqlite"

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def _run(self, sql: str, params: tuple[Any, ...] = ()) -> Cursor:
        with _mapped_errors():
            return self._conn.execute(sql, params)


class SqliteStore:
    """A store in the SQLite file at ``path``. A missing file is made 0600, its folder 0700
    (the parents above it as usual), so its -wal and -shm files are 0600 too."""

    def __init__(self, path: str) -> None:
        if path in ("", ":memory:") or path.startswith("file:"):
            raise ValueError("SqliteStore needs a file path: each thread opens its own connection")
        self._path = Path(path)
        self._pool: Pool[sqlite3.Connection] = Pool(self._connect, _close)
        self._writer = threading.Lock()

    def migrate(self) -> None:
        """Bring the schema up to date, as the service starts; and say loudly if other users
        may read the database."""
        with self.transaction() as tx:
            schema.migrate(tx)
        _warn_if_open_to_others(self._path)

    def transaction(self) -> AbstractContextManager[_SqliteTransaction]:
        # This process's writers queue on a lock of their own before SQLite's, so they take
        # turns rather than retry in SQLite's busy handler, whose sleeps grow to 100 ms
        # (bench/load.py: p99 of an action 55-67 ms with it, 540-840 ms without).
        return self._within("BEGIN IMMEDIATE", self._writer)

    def reader(self) -> AbstractContextManager[_SqliteTransaction]:
        return self._within("BEGIN DEFERRED", nullcontext())

    @contextmanager
    def _within(
        self, begin: str, turn: AbstractContextManager[object]
    ) -> Iterator[_SqliteTransaction]:
        # The pool refuses a transaction inside another before the turn is waited for.
        with self._pool.connection() as conn, turn:
            with _mapped_errors():
                conn.execute(begin)
            try:
                yield _SqliteTransaction(conn)
                with committing(), _mapped_errors():
                    conn.execute("COMMIT")
            except BaseException:
                _rollback(conn)
                raise

    def close(self) -> None:
        """Close every idle connection; no new transaction starts afterwards."""
        self._pool.close()

    def _connect(self) -> sqlite3.Connection:
        try:
            private_files.make_folder(self._path.parent)
            private_files.create_file(self._path)
        except OSError as e:
            message = f"cannot create the directory of {self._path}: {e}"
            raise StorageUnavailableError(message) from e
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


def _warn_if_open_to_others(path: Path) -> None:
    for file in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        try:
            mode = file.stat().st_mode
        except FileNotFoundError:
            continue
        if private_files.open_to_others(mode):
            log.warning(
                "anyone who reads the database learns every hidden card of the rounds in "
                "progress, and %s",
                private_files.too_open(file, mode),
            )


def _rollback(conn: sqlite3.Connection) -> None:
    """Undo the open transaction (the pool then drops the connection anyway)."""
    try:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
    except sqlite3.Error:
        pass


def _close(conn: sqlite3.Connection) -> None:
    conn.close()
