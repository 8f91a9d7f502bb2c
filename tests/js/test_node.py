"""Runs the browser module's Node tests (tests/js/*.test.mjs) under pytest, so that the
README's test command runs them too."""

import shutil
import subprocess
from pathlib import Path

import pytest

HERE = Path(__file__).parent
NODE = shutil.which("node")


@pytest.mark.skipif(NODE is None, reason="node is not installed: the JS tests need Node 20")
def test_node_tests_of_the_browser_module_pass() -> None:
    files = sorted(str(p) for p in HERE.glob("*.test.mjs"))
    assert len(files) >= 3
    run = subprocess.run(
        [str(NODE), "--test", *files], capture_output=True, text=True, timeout=900, check=False
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert "# fail 0" in run.stdout
