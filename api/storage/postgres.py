"""The shared store: PostgreSQL through psycopg 3, for several API processes on one database.

Each thread has its own connection, opened on first use (and again if the server dropped
it). ``transaction()`` is one database transaction at READ COMMITTED; writers of a table
serialize on ``SELECT ... FOR UPDATE`` of its row, and writers of the Merkle log on the one
``log_state`` row, so leaf indexes stay dense across processes. ``migrate()`` holds a
transaction-scoped advisory lock, so processes starting together upgrade the schema once.
"""

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg.pq import TransactionStatus

from api.storage import ConflictError, StorageError, schema

# The advisory lock key that makes migrate() one-at-a-time ("fairdeal" in ASCII, as a bigint).
_MIGRATE_LOCK = 0x6661697264656164


@contextmanager
def _mapped_errors() -> Iterator[None]:
    try:
        yield
    except psycopg.IntegrityError as e:
        raise ConflictError(str(e)) from e
    except psycopg.Error as e:
        raise StorageError(str(e)) from e


class _PostgresTransaction(schema.SqlTransaction):
    DIALECT = "postgresql"
    _LOCK_TABLE = (
        "SELECT table_id, game, created_at, next_deadline FROM tables WHERE table_id = ? FOR UPDATE"
    )
    _LOCK_LOG = "SELECT size FROM log_state WHERE id = 1 FOR UPDATE"

    def __init__(self, conn: psycopg.Connection[Any]) -> None:
        self._conn = conn

    def _run(self, sql: str, params: tuple[Any, ...] = ()) -> schema.Cursor:
        with _mapped_errors():
            return self._conn.execute(sql.replace("?", "%s"), params)


class PostgresStore:
    """A store in the PostgreSQL database at ``url`` (a libpq URI)."""

    def __init__(self, url: str) -> None:
        self._url = url
        self._local = threading.local()
        self._lock = threading.Lock()
        self._connections: list[psycopg.Connection[Any]] = []
        self._closed = False

    def migrate(self) -> None:
        with self.transaction() as tx:
            tx._run("SELECT pg_advisory_xact_lock(?)", (_MIGRATE_LOCK,))
            schema.migrate(tx)

    @contextmanager
    def transaction(self) -> Iterator[_PostgresTransaction]:
        conn = self._connection()
        if conn.info.transaction_status != TransactionStatus.IDLE:
            raise RuntimeError("transaction() is not re-entrant")
        with _mapped_errors(), conn.transaction():
            yield _PostgresTransaction(conn)

    def close(self) -> None:
        """Close every connection this store opened, in any thread."""
        with self._lock:
            self._closed = True
            connections, self._connections = self._connections, []
        for conn in connections:
            conn.close()

    def _connection(self) -> psycopg.Connection[Any]:
        """This thread's connection, opened if missing or dropped (refused once closed)."""
        conn: psycopg.Connection[Any] | None = getattr(self._local, "conn", None)
        if conn is None or conn.closed:
            with _mapped_errors():
                conn = psycopg.connect(self._url, autocommit=False)
            with self._lock:
                if self._closed:
                    conn.close()
                    raise StorageError("the store is closed")
                self._connections = [c for c in self._connections if not c.closed]
                self._connections.append(conn)
            self._local.conn = conn
        return conn
