"""Fixtures for the reliability tests: a deployment folder on SQLite or on a fresh PostgreSQL
schema (skipped, with the reason, when no PostgreSQL answers)."""

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.api.conftest import postgres_schema
from tests.reliability.audit import Deployment

__all__ = ["deployment", "postgres_deployment", "postgres_schema"]


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def deployment(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Deployment]:
    """A deployment on each backend in turn."""
    url = "" if request.param == "sqlite" else request.getfixturevalue("postgres_schema")
    yield Deployment(tmp_path / "deployment", url)


@pytest.fixture
def postgres_deployment(postgres_schema: str, tmp_path: Path) -> Iterator[Deployment]:
    yield Deployment(tmp_path / "deployment", postgres_schema)
