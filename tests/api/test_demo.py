"""``fairdeal demo``, run as a user runs it: a subprocess, its output folder on disk."""

import subprocess
import sys
from pathlib import Path

# The demo through the CLI's own main(), then: is the sweeper thread still running?
DEMO_THEN_SWEEPERS = """
import sys, threading
from fairdeal.api.cli.main import main
code = main(sys.argv[1:])
sweepers = [t for t in threading.enumerate() if t.name == "fairdeal-sweeper"]
print(f"sweepers left running: {len(sweepers)}", file=sys.stderr)
sys.exit(code)
"""


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_finding_15_demo_stops_its_sweeper_verifies_from_any_folder_and_refuses_one_in_use(
    tmp_path: Path,
) -> None:
    out = tmp_path / "demo"
    argv = ["demo", "--out", str(out)]

    first = subprocess.run(  # from a folder outside the checkout, as an installed command runs
        [sys.executable, "-c", DEMO_THEN_SWEEPERS, *argv],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
        cwd=tmp_path,
    )
    assert first.returncode == 0, first.stdout + first.stderr
    assert "VALID" in first.stdout
    assert first.stderr == "sweepers left running: 0\n"
    written = _files(out)
    assert any(name.startswith("bundles/") for name in written)

    again = subprocess.run(
        [sys.executable, "-m", "fairdeal.api.cli", *argv],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert again.returncode == 2
    assert again.stderr == (
        f"fairdeal: error: --out {out} is not an empty folder: an earlier run's bundles, "
        "signed by another key, would lie beside this run's; remove it or name a new folder\n"
    )
    assert again.stdout == ""
    assert _files(out) == written
