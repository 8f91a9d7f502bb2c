"""Valid material built once per session by driving the real games."""

from typing import Any

import pytest

from verifier import Trust, load_trust

from . import helpers
from .corpus import Fixture


@pytest.fixture(scope="session")
def drivers() -> dict[str, helpers.TableDriver]:
    toto21 = helpers.toto21_table("t21", rounds=3)
    kvitlach = helpers.kvitlach_table("kv", rounds=3)
    timeout = helpers.TableDriver("kvitlach", "kvt", {})
    for seat in range(3):
        timeout.seat(seat, "seat_joined", {"buy_in": 1_000})
    timeout.play_round(seeds=["a", "b", None])
    return {"toto21": toto21, "kvitlach": kvitlach, "timeout": timeout}


@pytest.fixture(scope="session")
def log(drivers: dict[str, helpers.TableDriver]) -> helpers.Log:
    return helpers.Log().add_all(*drivers.values())


@pytest.fixture(scope="session")
def bundles(log: helpers.Log) -> list[dict[str, Any]]:
    return log.bundles()


@pytest.fixture(scope="session")
def fixture(log: helpers.Log, drivers: dict[str, helpers.TableDriver]) -> Fixture:
    def of(name: str, number: int) -> dict[str, Any]:
        round_id = drivers[name].rounds[number - 1]
        index = next(i for i, e in enumerate(log.entries) if e[1] == round_id)
        return log.bundle(index)

    return Fixture(toto21=of("toto21", 2), kvitlach=of("kvitlach", 2), timeout=of("timeout", 1))


@pytest.fixture(scope="session")
def trust() -> Trust:
    return load_trust([helpers.VERIFIER_KEY])
