"""The browser's Toto21 rules (api/static/web/js/fairdeal/games/toto21) against the Python
ones: the committed named cases (toto21_cases.json) are what the rules give today, and
Python-made chains, forged commands tried at every state, replay alike in node
(toto21.test.mjs, handed them in a temporary file named by TOTO21_CHAINS)."""

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.js import toto21_chains

HERE = Path(__file__).parent
NODE = shutil.which("node")


def test_the_committed_cases_are_what_the_python_rules_give() -> None:
    assert toto21_chains.PATH.read_text() == toto21_chains.text(), (
        "run python -m tests.js.toto21_chains"
    )


@pytest.mark.skipif(NODE is None, reason="node is not installed: the JS tests need Node 20")
def test_python_made_chains_replay_alike_in_the_browser_rules(tmp_path: Path) -> None:
    chains = toto21_chains.chains()
    path = tmp_path / "toto21_chains.json"
    path.write_text(json.dumps(chains))
    run = subprocess.run(
        [str(NODE), "--test", str(HERE / "toto21.test.mjs")],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        env={**os.environ, "TOTO21_CHAINS": str(path)},
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert "# fail 0" in run.stdout
    replayed = re.findall(r"^ok \d+ - a Python-made chain replays alike", run.stdout, re.M)
    assert len(replayed) == len(chains)
