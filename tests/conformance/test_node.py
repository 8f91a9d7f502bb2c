"""Every case of the conformance suite (conformance/manifest.json) through the browser's
verification module (api/static/web/js/fairdeal), all in one Node process
(run_node.mjs): its verdict, exit status and exact set of finding codes are the
manifest's, as fairdeal-verify's are (test_python.py). No case and no code is skipped."""

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).parent
SUITE = HERE.parents[1] / "conformance"
CASES: list[dict[str, Any]] = json.loads((SUITE / "manifest.json").read_text())["cases"]
NODE = shutil.which("node")
pytestmark = [
    pytest.mark.skipif(NODE is None, reason="node is not installed: no JS to run"),
    # one xdist worker runs all of it: its module fixture checks every case once, not per worker
    pytest.mark.xdist_group(__name__),
]


@pytest.fixture(scope="module")
def results() -> dict[str, dict[str, Any]]:
    run = subprocess.run(
        [str(NODE), str(HERE / "run_node.mjs"), str(SUITE)],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert run.returncode == 0, run.stderr[-4000:]
    lines = [json.loads(line) for line in run.stdout.splitlines()]
    return {line["id"]: line for line in lines}


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_the_browser_module_gives_the_manifests_verdict_exit_status_and_codes(
    case: dict[str, Any], results: dict[str, dict[str, Any]]
) -> None:
    result = results[case["id"]]
    assert "error" not in result, result.get("error")
    assert (result["verdict"], result["exit_status"], result["codes"]) == (
        case["verdict"],
        case["exit_status"],
        case["codes"],
    ), case["description"]
