"""The browser's Kvitlach rules (api/static/web/js/fairdeal/games/kvitlach) against the
Python ones: every call the Python rules answer while tables are played, replayed and
verified (operators' forgeries too), probed with forged commands at every state, and
tested rule by rule (tests/games), recorded by kvitlach_record.py in a temporary file and
asked again of the port in node (kvitlach.test.mjs)."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
NODE = shutil.which("node")


@pytest.mark.skipif(NODE is None, reason="node is not installed: the JS tests need Node 20")
def test_the_browser_rules_answer_every_recorded_call_as_the_python_rules(tmp_path: Path) -> None:
    path = tmp_path / "kvitlach.jsonl"
    record = [sys.executable, "-m", "tests.js.kvitlach_record", str(path)]
    made = subprocess.run(
        record, cwd=HERE.parents[1], capture_output=True, text=True, timeout=1200, check=False
    )
    assert made.returncode == 0, made.stdout[-4000:] + made.stderr[-2000:]
    run = subprocess.run(
        [str(NODE), "--test", str(HERE / "kvitlach.test.mjs")],
        capture_output=True,
        text=True,
        timeout=1200,
        check=False,
        env={**os.environ, "KVITLACH_RECORDS": str(path)},
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert "# fail 0" in run.stdout and "# skipped 0" in run.stdout
    assert len(re.findall(r"^ok \d+ - the chain of ", run.stdout, re.M)) >= 10
    assert len(re.findall(r"^ok \d+ - the bundle ", run.stdout, re.M)) >= 80
