"""What every test folder shares: the PostgreSQL the tests may use, or a clear skip; and the
long runs (marked slow), which run only when asked for."""

import os
from pathlib import Path

import pytest

BROWSER = Path(__file__).parent / "browser"
POSTGRES_URL = os.environ.get("FAIRDEAL_TEST_POSTGRES_URL", "postgresql://127.0.0.1:5432/test")


@pytest.fixture(scope="session")
def postgres_url() -> str:
    """The test database's URL; tests that need it skip, saying why, when none answers."""
    psycopg = pytest.importorskip("psycopg", reason="psycopg is not installed")
    info = psycopg.conninfo.conninfo_to_dict(POSTGRES_URL)
    where = f"{info.get('host', 'localhost')}:{info.get('port', 5432)}"
    try:
        with psycopg.connect(POSTGRES_URL, connect_timeout=3):
            pass
    except psycopg.Error as e:
        pytest.skip(f"PostgreSQL not reachable at {where}: {' '.join(str(e).split())}")
    return POSTGRES_URL


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The browser tests share one xdist worker (one Chromium at a time, so that their
    pages are not starved of the CPU). The long runs (marked slow) run only when asked for:
    ``-m slow`` or FAIRDEAL_SLOW=1; their bounded versions run by default."""
    for item in items:
        if BROWSER in item.path.parents:
            item.add_marker(pytest.mark.xdist_group("browser"))
    if "slow" in (config.getoption("markexpr") or "") or os.environ.get("FAIRDEAL_SLOW"):
        return
    skip = pytest.mark.skip(reason="long run: pytest -m slow, or FAIRDEAL_SLOW=1")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)
