"""The SDK as a Python user meets it: typed under ``mypy --strict`` from the installed package
(py.typed), its moves named, ``with`` closing its connection, its public names in ``__all__``,
and importable and usable with the core install alone (no Flask, no database)."""

import importlib
import json
import pkgutil
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from types import ModuleType

import pytest

from fairdeal.api import client as sdk
from fairdeal.api.client import Action, FairdealClient
from fairdeal.games.kvitlach.play import BANKER_MOVES, PLAYER_MOVES
from fairdeal.keys import KeySet

REPO = Path(__file__).resolve().parents[2]
PROGRAM = Path(__file__).with_name("sdk_program.py")
SOURCES = ("fairdeal", "api", "verifier", "typings", "pyproject.toml", "README.md", "MANIFEST.in")
BUILD = "from setuptools import build_meta as b; print(b.build_wheel({0!r}))"
# What a user's mypy must refuse: a round that may be None, a move that is not one.
MISUSE = """
from fairdeal.api.client import FairdealClient
def turn(client: FairdealClient) -> int:
    client.join("tbl-1").act("tbl-1.1", 5)
    return client.join("tbl-1").view()["view"]["round"]["turn"]
"""
BLOCKER = """
import json, sys
BLOCKED = {"flask", "flask_smorest", "marshmallow", "werkzeug", "gunicorn", "sqlite3", "psycopg"}
class Blocker:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ImportError(f"the SDK imported {name}")
        return None
sys.meta_path.insert(0, Blocker())
from fairdeal.api.client import Action, FairdealClient
from fairdeal.keys import KeySet
vector = json.loads(sys.stdin.read())
bundle = next(line for line in vector["export"] if line["round_id"])
with FairdealClient("http://127.0.0.1:9", keys=KeySet([])) as client:
    report = client.verify_bundle(bundle["round_id"], bundle, [vector["verifier_key"]])
print(report.verdict, Action.HIT)
"""


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The package as a wheel installs it (built from a copy of this checkout), unpacked."""
    pytest.importorskip("setuptools", minversion="68", reason="the build needs setuptools>=68")
    top = tmp_path_factory.mktemp("sdk")
    source, site = top / "source", top / "site"
    source.mkdir()
    for name in SOURCES:
        copy = shutil.copytree if (REPO / name).is_dir() else shutil.copy
        copy(REPO / name, source / name)  # type: ignore[operator]
    built = subprocess.run(
        [sys.executable, "-c", BUILD.format(str(top))],
        cwd=source,
        capture_output=True,
        text=True,
        check=False,
    )
    assert built.returncode == 0, built.stderr
    with zipfile.ZipFile(top / built.stdout.splitlines()[-1]) as wheel:
        wheel.extractall(site)
    return site


def test_a_client_program_type_checks_under_mypy_strict(installed: Path, tmp_path: Path) -> None:
    misuse = tmp_path / "misuse.py"
    misuse.write_text(MISUSE)
    program = tmp_path / "program.py"
    shutil.copy(PROGRAM, program)
    command = [sys.executable, "-m", "mypy", "--strict", "--config-file", "", "--cache-dir"]
    done = subprocess.run(
        [*command, str(tmp_path / "cache"), "program.py", "misuse.py"],
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(installed)},
        capture_output=True,
        text=True,
        check=False,
    )
    errors = [line for line in done.stdout.splitlines() if ": error:" in line]
    assert not [e for e in errors if e.startswith("program.py")], done.stdout
    assert any('"act"' in e and '"Action | str"' in e for e in errors), done.stdout
    assert any('"RoundView | None"' in e for e in errors), done.stdout


def test_the_package_says_it_is_typed(installed: Path) -> None:
    assert (installed / "fairdeal" / "py.typed").is_file()


def test_the_client_works_with_the_core_install_alone() -> None:
    vector = (REPO / "tests" / "vectors" / "fairdeal-bundle-2.json").read_text(encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-c", BLOCKER],
        input=vector,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["valid", "hit"]


def test_with_closes_the_connection(monkeypatch: pytest.MonkeyPatch) -> None:
    closed: list[bool] = []
    with FairdealClient("http://127.0.0.1:9", keys=KeySet([])) as client:
        monkeypatch.setattr(client.connection, "close", lambda: closed.append(True))
        assert not closed
    assert closed == [True]


def test_actions_are_every_move_of_every_game_and_plain_strings_still() -> None:
    toto21 = {"hit", "stand", "blind"}
    between_rounds = {"seat_left", "banker_exit"}
    assert set(Action) == toto21 | set(PLAYER_MOVES) | set(BANKER_MOVES) | between_rounds
    assert Action.OPEN_CARD == "open_card" and json.dumps(Action.BET) == '"bet"'


def test_the_public_api_is_listed_and_documented() -> None:
    """Every class of the SDK's modules is in ``fairdeal.api.client``'s ``__all__``."""
    for name in sdk.__all__:
        assert getattr(sdk, name).__doc__, name
    for module in _modules():
        public = {n for n, v in vars(module).items() if not n.startswith("_") and _made_in(v)}
        assert public <= set(sdk.__all__), module.__name__


def _modules() -> list[ModuleType]:
    names = [info.name for info in pkgutil.iter_modules(sdk.__path__, f"{sdk.__name__}.")]
    assert names
    return [importlib.import_module(name) for name in names]


def _made_in(value: object) -> bool:
    module = getattr(value, "__module__", None) or ""
    return module.startswith(f"{sdk.__name__}.") and isinstance(value, type)
