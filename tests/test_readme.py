"""The README's commands are the ones that work: its test command is the one CI runs, and its
flows (the curl quickstart, the SDK example, the player's three commands, the auditor's) run
as written against ``fairdeal serve`` started by the README's own command.

A block the flows test runs follows an HTML comment ``<!-- test: NAME -->``. Only the port
is changed (8000 to a free one); the commands run in a folder whose ``.venv/bin`` is this
interpreter's scripts folder, as in a clone where the README's install command was run.
"""

import contextlib
import json
import os
import re
import signal
import subprocess
import sysconfig
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bench.harness import free_port
from bench.transport import answers, raw

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
README_PORT = "8000"


def _fenced_commands() -> list[str]:
    return re.findall(r"```sh\n(.*?)\n```", README, flags=re.DOTALL)


def _marked(name: str) -> str:
    """The code block right after ``<!-- test: name -->``."""
    found = re.findall(rf"<!-- test: {name} -->\n```\w+\n(.*?)```", README, flags=re.DOTALL)
    assert len(found) == 1, f"README.md has {len(found)} blocks marked {name!r}"
    return str(found[0])


def _on_port(block: str, port: int) -> str:
    assert block.count(README_PORT) == 1, "the port placeholder, exactly once"
    return block.replace(README_PORT, str(port))


def test_ci_runs_the_readmes_test_command() -> None:
    test_command = _fenced_commands()[1]
    assert "pytest" in test_command
    assert test_command in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_readme_starts_with_the_serve_command_then_the_test_command() -> None:
    serve, tests = _fenced_commands()[:2]
    assert serve.endswith("fairdeal serve")
    assert tests.endswith("pytest")


def test_the_readme_calls_every_command_by_its_path_in_the_venv() -> None:
    """A bare ``fairdeal-verify`` is not found in a shell where the venv is not active."""
    for block in _fenced_commands():
        for line in block.splitlines():
            words = line.split()
            assert not words or words[0] not in ("fairdeal", "fairdeal-verify"), line


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Path, int]]:
    """The README's quickstart ``serve`` command, run as written in a fresh folder."""
    (tmp_path / ".venv").mkdir()
    (tmp_path / ".venv" / "bin").symlink_to(sysconfig.get_path("scripts"))
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("FAIRDEAL_")}
    with (tmp_path / "serve.log").open("wb") as log:
        process = subprocess.Popen(
            ["bash", "-c", _on_port(_marked("serve"), port)],
            cwd=tmp_path,
            env=env,
            stdout=log,
            stderr=log,
            start_new_session=True,  # its own process group, ended as a whole below
        )
    try:
        _wait_until_healthy(process, port, tmp_path / "serve.log")
        yield tmp_path, port
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)


def _wait_until_healthy(process: subprocess.Popen[bytes], port: int, log: Path) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"serve exited: {log.read_text(errors='replace')}")
        if answers(f"http://127.0.0.1:{port}"):
            return
        time.sleep(0.05)  # polling for the server to be up, not waiting for a time to pass
    raise AssertionError(f"serve did not answer: {log.read_text(errors='replace')}")


def _bash(folder: Path, script: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("FAIRDEAL_")}
    done = subprocess.run(
        ["bash", "-c", "set -eo pipefail\n" + script],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, f"{done.stdout}\n{done.stderr}"
    return done.stdout


def test_the_readmes_flows_run_as_written_against_fairdeal_serve(
    served: tuple[Path, int],
) -> None:
    folder, port = served
    quickstart = _on_port(_marked("quickstart"), port)
    # A player plays and checks a round; two players play a round with signed seats; an
    # auditor checks the export; another round is played; the auditor checks the new export
    # and checkpoint against the old checkpoint.
    out = _bash(
        folder,
        "\n".join(
            [
                quickstart,
                _marked("player"),
                _marked("signed"),
                _marked("auditor"),
                quickstart,
                _marked("auditor-next-time"),
                _marked("consistency"),
            ]
        ),
    )
    verdicts = [line for line in out.splitlines() if line.startswith(("VALID", "INVALID"))]
    assert len(verdicts) == 4 and all(v.startswith("VALID:") for v in verdicts), out
    assert "VALID: bundle round.json" in verdicts[0]
    assert "fairdeal deck" in out  # --explain told the round
    assert (folder / "round.json").read_text().startswith("{")
    _played_by_signed_seats(json.loads((folder / "signed-round.json").read_text()))


def _played_by_signed_seats(bundle: dict[str, Any]) -> None:
    """Every command of a seat in the signed block's round carries the seat's statement."""
    events = [e["event"] for e in bundle["events"]]
    by_seats = [e for e in events if e["actor"] != "server"]
    # A player dealt two aces wins at once (about one round in a hundred): nobody stands.
    [won] = [e for e in events if e["type"] == "round_won"]
    moved = won["data"]["reason"] not in ("golden_point", "dealer_two_aces")
    expected = {"seed_commitment", "client_seed"} | ({"stand"} if moved else set())
    assert expected <= {e["type"] for e in by_seats}
    assert all("signed" in e["data"] for e in by_seats)
    keys = bundle["events"][0]["event"]["data"]["seat_keys"]  # the table_state it starts at
    assert [k["key"] is not None for k in keys] == [True, True]


def test_the_readmes_sdk_example_runs_to_a_verified_bundle(
    served: tuple[Path, int], capsys: pytest.CaptureFixture[str]
) -> None:
    _, port = served
    namespace: dict[str, object] = {}
    exec(_on_port(_marked("sdk"), port), namespace)
    assert capsys.readouterr().out.splitlines()[-1] == "valid"
    view = namespace["view"]
    assert isinstance(view, dict) and view["current_round"] == namespace["round_id"]


def test_the_export_without_the_operator_token_says_it_needs_the_operator_token(
    served: tuple[Path, int],
) -> None:
    _, port = served
    answer = raw(f"http://127.0.0.1:{port}", "GET", "/v1/export", timeout=10)
    assert answer.status == 401
    assert b"needs the operator token" in answer.body
