"""What every test folder shares: the PostgreSQL the tests may use, or a clear skip; and the
tiers: the README's command runs the rest in minutes, CI adds the long end-to-end runs (marked
ci), and the longest runs (marked slow) run only when asked for."""

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


TIERS = {
    "ci": "a long end-to-end run, which CI adds: pytest -m ci, or FAIRDEAL_CI=1",
    "slow": "long run: pytest -m slow, or FAIRDEAL_SLOW=1",
}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The browser tests share one xdist worker (one Chromium at a time, so that their
    pages are not starved of the CPU: two long browser runs side by side on two cores made
    a page miss a five-second deadline's display). A tier's tests (TIERS) run only when
    asked for, by ``-m`` or its environment variable; the rest is the README's command."""
    for item in items:
        if BROWSER in item.path.parents:
            item.add_marker(pytest.mark.xdist_group("browser"))
    asked = config.getoption("markexpr") or ""
    for tier, reason in TIERS.items():
        if tier in asked or os.environ.get(f"FAIRDEAL_{tier.upper()}"):
            continue
        skip = pytest.mark.skip(reason=reason)
        for item in items:
            if item.get_closest_marker(tier) is not None:
                item.add_marker(skip)
