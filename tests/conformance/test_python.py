"""Every case of the conformance suite (conformance/manifest.json) through fairdeal-verify: its
verdict, exit status and exact set of finding codes are the manifest's.

Each case runs through the command's own ``main`` in this process (from the suite's folder,
with the case's options as its flags and ``--json``): a process per case spent most of the
suite's time starting Python. A case of each verdict also runs as a user runs it,
``python -m fairdeal.verifier`` in a process of its own, and must answer exactly alike."""

import contextlib
import io
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conformance.generate import command_line
from fairdeal.verifier.cli import main

SUITE = Path(__file__).resolve().parents[2] / "conformance"
CASES: list[dict[str, Any]] = json.loads((SUITE / "manifest.json").read_text())["cases"]
Answer = tuple[int, dict[str, Any]]


@contextlib.contextmanager
def _in_the_suites_folder() -> Iterator[None]:
    """The manifest's paths are relative to its folder (cwd is per process: xdist's workers
    are processes of their own)."""
    before = Path.cwd()
    os.chdir(SUITE)
    try:
        yield
    finally:
        os.chdir(before)


def _in_process(case: dict[str, Any]) -> Answer:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = main([*command_line(case), "--json", "--jobs", "1"])
    return status, json.loads(out.getvalue())


def _as_a_user_runs_it(case: dict[str, Any]) -> Answer:
    done = subprocess.run(
        [sys.executable, "-m", "fairdeal.verifier", *command_line(case), "--json"],
        cwd=SUITE,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert "Traceback" not in done.stderr, (case["id"], done.stderr)
    return done.returncode, json.loads(done.stdout)


# One xdist worker runs all of it: ``answers`` checks every case once, not once per worker.
pytestmark = pytest.mark.xdist_group(__name__)


@pytest.fixture(scope="module")
def answers() -> dict[str, Answer]:
    with _in_the_suites_folder():
        return {case["id"]: _in_process(case) for case in CASES}


def _codes(report: dict[str, Any]) -> list[str]:
    return sorted({finding["code"] for finding in report["findings"]})


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_fairdeal_verify_gives_the_manifests_verdict_exit_status_and_codes(
    case: dict[str, Any], answers: dict[str, Answer]
) -> None:
    status, report = answers[case["id"]]
    assert (report["verdict"], status, _codes(report)) == (
        case["verdict"],
        case["exit_status"],
        case["codes"],
    ), case["description"]


# A case of each verdict and of each kind of input (a file, a filtered export, a checkpoint
# alone).
SAMPLE = list(
    {(c["verdict"], c["input"] is None, "--partial" in command_line(c)): c for c in CASES}.values()
)


@pytest.mark.parametrize("case", SAMPLE, ids=[c["id"] for c in SAMPLE])
def test_the_command_in_a_process_of_its_own_answers_as_main_does(
    case: dict[str, Any], answers: dict[str, Answer]
) -> None:
    assert _as_a_user_runs_it(case) == answers[case["id"]]
