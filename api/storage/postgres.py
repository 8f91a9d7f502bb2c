"""The shared store: PostgreSQL through psycopg 3, for several API processes on one database.

Each thread has its own connection, opened on first use (and again if the server dropped
it). ``transaction()`` is one database transaction at READ COMMITTED; writers of a table
serialize on ``SELECT ... FOR UPDATE`` of its row, and writers of the Merkle log on the one
``log_state`` row, so leaf indexes stay dense across processes. ``migrate()`` holds a
transaction-scoped advisory lock, so processes starting together upgrade the schema once.
"""

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg

from api.storage import ConflictError, StorageError, schema
from api.storage.pool import Pool

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
        self._pool: Pool[psycopg.Connection[Any]] = Pool(self._connect, _close)

    def migrate(self) -> None:
        with self.transaction() as tx:
            tx._run("SELECT pg_advisory_xact_lock(?)", (_MIGRATE_LOCK,))
            schema.migrate(tx)

    @contextmanager
    def transaction(self) -> Iterator[_PostgresTransaction]:
        with self._pool.connection() as conn, _mapped_errors(), conn.transaction():
            yield _PostgresTransaction(conn)

    def close(self) -> None:
        """Close every idle connection; no new transaction starts afterwards."""
        self._pool.close()

    def _connect(self) -> psycopg.Connection[Any]:
        with _mapped_errors():
            return psycopg.connect(self._url, autocommit=False)


def _close(conn: psycopg.Connection[Any]) -> None:
    conn.close()
