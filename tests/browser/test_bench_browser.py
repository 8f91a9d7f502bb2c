"""bench/browser.py on tiny sizes: it runs, and prints its lines in their shape (never a
speed: the machine is shared)."""

import re
import subprocess
import sys
from pathlib import Path

from tests.browser.conftest import _chromium

REPO = Path(__file__).resolve().parents[2]
LINES = [
    r"one-round bundle in the page: +[\d.]+ ms median, [\d.]+ ms best of 2"
    r" \(target < 300 ms; valid\)",
    r"export: \d+ rounds, [\d,]+ events",
    r"browser, events verified per s: +[\d,]+ /s \([\d.]+ s, valid\)",
    r"fairdeal-verify --jobs 1: +[\d,]+ /s \([\d.]+ s, exit 0\)",
    r"browser / command: +[\d.]+ x \(target >= 1 x\)",
]


def test_the_browser_bench_prints_its_figures() -> None:
    import pytest

    if isinstance(found := _chromium(), str):
        pytest.skip(found)
    run = subprocess.run(
        [sys.executable, "bench/browser.py", "--events", "120", "--repeats", "2"],
        cwd=REPO, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    lines = run.stdout.strip().splitlines()
    assert len(lines) == len(LINES), run.stdout
    for line, shape in zip(lines, LINES, strict=True):
        assert re.fullmatch(shape, line), line
