"""Valid material built once per session by driving the real games."""

import json
from pathlib import Path
from typing import Any

import pytest

from fairdeal.verifier import Trust, load_trust

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


@pytest.fixture()
def files(tmp_path: Path, log: helpers.Log, bundles: list[dict[str, Any]]) -> dict[str, str]:
    """The command line's files: a PEM key, the export, its last bundle, checkpoints of
    the whole log and of its first 3 leaves, and the consistency proof between them."""
    paths = {
        "key": tmp_path / "operator.pem",
        "export": tmp_path / "export.jsonl",
        "bundle": tmp_path / "bundle.json",
        "checkpoint": tmp_path / "checkpoint.txt",
        "previous": tmp_path / "previous.txt",
        "consistency": tmp_path / "consistency.json",
    }
    paths["key"].write_text(helpers.PEM)
    paths["export"].write_text(helpers.export_text(bundles))
    paths["bundle"].write_text(json.dumps(bundles[-1], indent=2))
    paths["checkpoint"].write_text(log.checkpoint())
    paths["previous"].write_text(log.checkpoint(3))
    paths["consistency"].write_text(json.dumps(log.consistency(3, log.tree.size)))
    return {name: str(path) for name, path in paths.items()}
