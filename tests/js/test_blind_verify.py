"""The browser's checks of dealer-blind rounds against today's Python: the cases of
blind_verify_cases.py made afresh (fresh proofs and shuffles, the findings of today's
RoundChecker), and blind_verify.test.mjs run on them. The committed blind_verify_cases.json
holds the same cases for a Node run alone (``node --test tests/js/``)."""

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.blind.backends import needs_sodium
from tests.js import blind_verify_cases

HERE = Path(__file__).parent
NODE = shutil.which("node")
pytestmark = [
    pytest.mark.skipif(NODE is None, reason="node is not installed: no JS to run"),
    needs_sodium,
]


def test_the_committed_cases_are_the_cases_made_today() -> None:
    """The same cases and the same findings, code and event (the bytes differ, and with them
    the cards a reason names: fresh randomness)."""
    made = blind_verify_cases.cases()
    committed = json.loads(blind_verify_cases.PATH.read_text())
    assert committed["cases"].keys() == made["cases"].keys()
    for name, case in made["cases"].items():
        where = [(f["code"], f["seq"]) for f in case["findings"]]
        assert [(f["code"], f["seq"]) for f in committed["cases"][name]["findings"]] == where, name


def test_the_browser_finds_what_python_finds_in_each_case_made_afresh(tmp_path: Path) -> None:
    cases = tmp_path / "cases.json"
    cases.write_text(blind_verify_cases.text())
    run = subprocess.run(
        [str(NODE), "--test", str(HERE / "blind_verify.test.mjs")],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        env={**os.environ, "BLIND_VERIFY_CASES": str(cases)},
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert "# fail 0" in run.stdout
