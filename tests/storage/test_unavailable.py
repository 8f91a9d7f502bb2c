"""Finding 16 of issue 11: a database that is away is told apart from a bug, and a connection
the server dropped is never used again.

``StorageUnavailableError`` (answered 503, try again) is for a connection lost or refused;
any other failure stays a ``StorageError`` (answered 500). The connections are PostgreSQL's
own, ended from another session with ``pg_terminate_backend``.
"""

import sqlite3
import uuid

import psycopg
import pytest

from bench.harness import free_port
from fairdeal.api.storage import StorageError, StorageUnavailableError, Store, open_store
from tests.storage.conftest import Backend
from tests.storage.test_contract import with_table


def _named(backend: Backend) -> tuple[Store, str]:
    """A store on the backend whose connections carry a name of their own."""
    name = f"fairdeal-finding-16-{uuid.uuid4().hex[:12]}"
    store = open_store(f"{backend.url}&application_name={name}")
    backend.opened.append(store)
    store.migrate()
    return store, name


def _terminate(backend: Backend, name: str) -> int:
    """End every backend of the connections named ``name``, waiting until each is gone."""
    with psycopg.connect(backend.url, autocommit=True) as admin:
        row = admin.execute(
            "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid, 5000)) "
            "FROM pg_stat_activity WHERE application_name = %s",
            (name,),
        ).fetchone()
    assert row is not None
    return int(row[0])


def _table_exists(store: Store, table_id: str) -> bool:
    with store.transaction() as tx:
        return tx.lock_table(table_id) is not None


@pytest.mark.postgres
def test_finding_16_a_connection_the_server_dropped_while_idle_is_not_used_again(
    postgres_backend: Backend,
) -> None:
    store, name = _named(postgres_backend)
    assert _terminate(postgres_backend, name) == 1  # the pool's idle connection
    with_table(store, "t1")  # on a new connection, without an error
    assert _table_exists(store, "t1")


@pytest.mark.postgres
def test_finding_16_a_connection_lost_mid_transaction_is_unavailable_and_rolls_back(
    postgres_backend: Backend,
) -> None:
    store, name = _named(postgres_backend)
    with pytest.raises(StorageUnavailableError), store.transaction() as tx:
        tx.create_table("t1", "toto21", created_at=100)
        assert _terminate(postgres_backend, name) == 1
        tx.create_table("t2", "toto21", created_at=100)
    assert not _table_exists(store, "t1")
    with_table(store, "t3")
    assert _table_exists(store, "t3")


@pytest.mark.postgres
def test_finding_16_a_refused_connection_is_unavailable() -> None:
    store = open_store(f"postgresql://127.0.0.1:{free_port()}/test?connect_timeout=3")
    with pytest.raises(StorageUnavailableError, match="Connection refused"):
        store.migrate()


def _drop_table(backend: Backend, name: str) -> None:
    if backend.name == "sqlite":
        with sqlite3.connect(backend.url.removeprefix("sqlite:///")) as db:
            db.execute(f"DROP TABLE {name}")
        return
    with psycopg.connect(backend.url, autocommit=True) as db:  # with what depends on it
        db.execute(f"DROP TABLE {name} CASCADE")


def test_finding_16_a_schema_changed_behind_the_store_is_a_bug_not_unavailable(
    backend: Backend, store: Store
) -> None:
    _drop_table(backend, "checkpoints")
    with pytest.raises(StorageError) as raised, store.transaction() as tx:
        tx.latest_checkpoint()
    assert not isinstance(raised.value, StorageUnavailableError)
