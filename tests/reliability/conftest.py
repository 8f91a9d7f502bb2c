"""Fixtures for the reliability tests: a deployment folder on SQLite or on a fresh PostgreSQL
schema (skipped, with the reason, when no PostgreSQL answers)."""

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.api.conftest import postgres_schema
from tests.reliability.audit import Deployment

__all__ = ["deployment", "postgres_deployment", "postgres_schema"]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The long runs here (marked slow) run only when asked for: ``-m slow`` or FAIRDEAL_SLOW=1;
    their bounded versions run by default."""
    if "slow" in (config.getoption("markexpr") or "") or os.environ.get("FAIRDEAL_SLOW"):
        return
    skip = pytest.mark.skip(reason="long run: pytest -m slow tests/reliability")
    here = Path(__file__).parent
    for item in items:
        if "slow" in item.keywords and here in item.path.parents:
            item.add_marker(skip)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def deployment(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Deployment]:
    """A deployment on each backend in turn."""
    url = "" if request.param == "sqlite" else request.getfixturevalue("postgres_schema")
    yield Deployment(tmp_path / "deployment", url)


@pytest.fixture
def postgres_deployment(postgres_schema: str, tmp_path: Path) -> Iterator[Deployment]:
    yield Deployment(tmp_path / "deployment", postgres_schema)
