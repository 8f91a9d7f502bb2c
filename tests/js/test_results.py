"""The play page's results in words (api/static/web/js/play-results.js) against the events
they tell: tables played through the real rules (a Toto21 match won at its target, one ended
by the game's clock, random play with double busts, version-2 rounds voided for a withheld
seed; Kvitlach terms of both rule sets, banks emptied, seats that leave), handed to node
(results.test.mjs) in a temporary file named by RESULTS_CHAINS."""

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.js.test_parity import _long_tables
from tests.verifier import helpers, signed

HERE = Path(__file__).parent
NODE = shutil.which("node")


def _chains() -> dict[str, list[dict[str, object]]]:
    drivers = {
        **{d.table_id: d for d in _long_tables()},
        "toto21 random": helpers.toto21_table("t21r", rounds=14),
        "toto21 v2, a reveal withheld": signed.toto21_table("v2t21", rounds=4),
        "kvitlach, a bank of 2": helpers.kvitlach_table("kvb", rounds=8, bank_funding=2),
        "pressburg, 2 decks": helpers.kvitlach_table(
            "kpd", rounds=6, rule_set="pressburg", decks=2, banker_exit="off"
        ),
        "kvitlach v2, pressburg": signed.kvitlach_table("v2kp", silent=1, rule_set="pressburg"),
    }
    return {name: [s.event.to_json() for s in d.log] for name, d in drivers.items()}


@pytest.mark.skipif(NODE is None, reason="node is not installed: the JS tests need Node 20")
def test_every_result_the_page_tells_says_what_the_events_decided(tmp_path: Path) -> None:
    path = tmp_path / "chains.json"
    path.write_text(json.dumps(_chains()))
    run = subprocess.run(
        [str(NODE), "--test", str(HERE / "results.test.mjs")],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**os.environ, "RESULTS_CHAINS": str(path)},
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert "# fail 0" in run.stdout and "# skipped 0" in run.stdout
    assert len(re.findall(r"^ok \d+ - ", run.stdout, re.M)) >= 9
