"""Every case of the conformance suite (conformance/manifest.json) through fairdeal-verify as
a user runs it: ``python -m fairdeal.verifier`` in a process of its own, from the suite's
folder, with the case's options as its flags and ``--json``. Its verdict, exit status and
exact set of finding codes are the manifest's. The processes run side by side."""

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from conformance.generate import command_line

SUITE = Path(__file__).resolve().parents[2] / "conformance"
CASES: list[dict[str, Any]] = json.loads((SUITE / "manifest.json").read_text())["cases"]


def _run(case: dict[str, Any]) -> tuple[int, dict[str, Any]]:
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


@pytest.fixture(scope="module")
def reports() -> dict[str, tuple[int, dict[str, Any]]]:
    with ThreadPoolExecutor(max_workers=2 * (os.cpu_count() or 1)) as pool:
        return dict(zip([c["id"] for c in CASES], pool.map(_run, CASES), strict=True))


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_fairdeal_verify_gives_the_manifests_verdict_exit_status_and_codes(
    case: dict[str, Any], reports: dict[str, tuple[int, dict[str, Any]]]
) -> None:
    status, report = reports[case["id"]]
    codes = sorted({finding["code"] for finding in report["findings"]})
    assert (report["verdict"], status, codes) == (
        case["verdict"],
        case["exit_status"],
        case["codes"],
    ), case["description"]
