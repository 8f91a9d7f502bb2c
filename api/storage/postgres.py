"""The shared store: PostgreSQL through psycopg 3, for several API processes on one database.

A transaction borrows a connection from the pool; one the server dropped while it was idle
(a terminated backend, a restart) is not handed out again. ``transaction()`` is one database
transaction at READ COMMITTED; writers of a table serialize on ``SELECT ... FOR UPDATE`` of its
row, and writers of the Merkle log on the one ``log_state`` row, so leaf indexes stay dense
across processes. ``migrate()`` holds a transaction-scoped advisory lock, so processes starting
together upgrade the schema once. ``reader()`` is a READ ONLY transaction at REPEATABLE READ:
one snapshot for all its reads (a bundle's events, checkpoint and proof agree), no row locks
taken or waited for.
"""

import select
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any

import psycopg
from psycopg.pq import TransactionStatus

from . import committing, mapped_errors, schema
from .log import LOG_SIZE
from .pool import Pool
from .queries import Cursor
from .sql import SqlTransaction
from .tables import TABLE_ROW

# The advisory lock key that makes migrate() one-at-a-time ("fairdeal" in ASCII, as a bigint).
_MIGRATE_LOCK = 0x6661697264656164

# SQLSTATEs that say the database cannot do the work for now, not that the work is wrong:
# the classes 08 (connection exception), 53 (insufficient resources: disk full, out of
# memory, too many connections), 57 (operator intervention: terminated, shutting down,
# starting up, cancelled) and 58 (system error: I/O); 25006 (a read-only transaction, as on
# a standby) and 55P03 (a lock not available in time).
_UNAVAILABLE_CLASSES = frozenset({"08", "53", "57", "58"})
_UNAVAILABLE_STATES = frozenset({"25006", "55P03"})


def _unavailable(error: psycopg.Error) -> bool:
    state = error.sqlstate
    if state is None:  # no answer from the server: the connection failed or was lost
        return isinstance(error, psycopg.OperationalError)
    return state[:2] in _UNAVAILABLE_CLASSES or state in _UNAVAILABLE_STATES


def _mapped_errors() -> AbstractContextManager[None]:
    return mapped_errors(psycopg.IntegrityError, psycopg.Error, _unavailable)


class _PostgresTransaction(SqlTransaction):
    DIALECT = "postgresql"
    _LOCK_TABLE = TABLE_ROW + " FOR UPDATE"
    _LOCK_LOG = LOG_SIZE + " FOR UPDATE"

    def __init__(self, conn: psycopg.Connection[Any]) -> None:
        self._conn = conn

    def _run(self, sql: str, params: tuple[Any, ...] = ()) -> Cursor:
        with _mapped_errors():
            return self._conn.execute(sql.replace("?", "%s"), params)


class PostgresStore:
    """A store in the PostgreSQL database at ``url`` (a libpq URI)."""

    def __init__(self, url: str) -> None:
        self._url = url
        self._pool: Pool[psycopg.Connection[Any]] = Pool(self._connect, _close, _usable)

    def migrate(self) -> None:
        with self.transaction() as tx:
            tx._run("SELECT pg_advisory_xact_lock(?)", (_MIGRATE_LOCK,))
            schema.migrate(tx)

    @contextmanager
    def transaction(self) -> Iterator[_PostgresTransaction]:
        """Committed when the block ends. If the block raises, the pool closes the connection
        and the server rolls back what it had begun."""
        with self._pool.connection() as conn:
            yield _PostgresTransaction(conn)
            with committing(), _mapped_errors():
                conn.commit()

    @contextmanager
    def reader(self) -> Iterator[_PostgresTransaction]:
        """Ended by a commit, of nothing; if the block raises, the pool closes the connection."""
        with self._pool.connection() as conn:
            reading = _PostgresTransaction(conn)
            reading._run("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            yield reading
            with _mapped_errors():
                conn.commit()

    def close(self) -> None:
        """Close every idle connection; no new transaction starts afterwards."""
        self._pool.close()

    def _connect(self) -> psycopg.Connection[Any]:
        with _mapped_errors():
            return psycopg.connect(self._url, autocommit=False)


def _close(conn: psycopg.Connection[Any]) -> None:
    conn.close()


def _usable(conn: psycopg.Connection[Any]) -> bool:
    """Open and idle, with nothing waiting on its socket: the server sends an idle connection
    nothing but its farewell (the backend terminated, the server shutting down)."""
    if conn.closed or conn.info.transaction_status != TransactionStatus.IDLE:
        return False
    waiting = select.poll()
    waiting.register(conn.fileno(), select.POLLIN)
    return not waiting.poll(0)
