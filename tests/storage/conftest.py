"""Fixtures that give every contract test a fresh store of each backend.

SQLite: a real file under the test's tmp_path. PostgreSQL: a schema of its own in the
database at FAIRDEAL_TEST_POSTGRES_URL (default postgresql://127.0.0.1:5432/test), chosen
through the connection's search_path and dropped afterwards; when no server answers, the
PostgreSQL cases skip and say why.
"""

import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from bench.harness import drop_schema
from fairdeal.api.storage import Store, open_store


@dataclass
class Backend:
    """One database, and every store opened on it (closed when the test ends)."""

    name: str
    url: str
    opened: list[Store] = field(default_factory=list)

    def open(self) -> Store:
        store = open_store(self.url)
        self.opened.append(store)
        return store

    def close_all(self) -> None:
        for store in self.opened:
            store.close()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    if request.param == "sqlite":
        # A directory that does not exist yet: the store makes it.
        backend = Backend("sqlite", f"sqlite:///{tmp_path / 'data' / 'fairdeal.db'}")
        yield backend
        backend.close_all()
        return
    yield from _postgres_backend(request.getfixturevalue("postgres_url"))


@pytest.fixture
def postgres_backend(postgres_url: str) -> Iterator[Backend]:
    """PostgreSQL alone, for what only a server does (drop connections, refuse them)."""
    yield from _postgres_backend(postgres_url)


def _postgres_backend(url: str) -> Iterator[Backend]:
    import psycopg
    from psycopg import sql

    name = f"fairdeal_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(name)))
    separator = "&" if "?" in url else "?"
    backend = Backend("postgres", f"{url}{separator}options=-csearch_path%3D{name}")
    try:
        yield backend
    finally:
        backend.close_all()
        drop_schema(url, name)


@pytest.fixture
def store(backend: Backend) -> Store:
    """A migrated, empty store."""
    store = backend.open()
    store.migrate()
    return store
