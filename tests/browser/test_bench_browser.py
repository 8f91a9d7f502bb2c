"""bench/browser.py and bench/blind_browser.py on tiny sizes: each runs, and prints its lines
in their shape (never a speed: the machine is shared)."""

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


BLIND_LINES = [
    r"rounds: 1 blind, 1 committed",
    r"first card, committed table: +[\d.]+ s median, [\d.]+ s best \(baseline\)",
    r"first card, browser parties: +[\d.]+ s median, [\d.]+ s best, [\d.]+ x the baseline"
    r" \(target 2 s: (met|NOT met)\)",
    *(
        rf"  {phase}: +[\d.]+ s median \(from the log's times\)"
        for phase in (
            "seats commit \\(keys\\)",
            "seats reveal, service's step",
            "first seat's step",
            "second seat's step",
            "the deal and its shares",
        )
    ),
]


def _run(*argv: str) -> list[str]:
    import pytest

    if isinstance(found := _chromium(), str):
        pytest.skip(found)
    run = subprocess.run(
        [sys.executable, *argv], cwd=REPO, capture_output=True, text=True, timeout=300, check=False
    )
    assert run.returncode == 0, run.stderr[-3000:]
    return run.stdout.strip().splitlines()


def test_the_browser_bench_prints_its_figures() -> None:
    lines = _run("bench/browser.py", "--events", "120", "--repeats", "2")
    assert len(lines) == len(LINES), lines
    for line, shape in zip(lines, LINES, strict=True):
        assert re.fullmatch(shape, line), line


def test_the_blind_browser_bench_prints_every_phase_of_a_round() -> None:
    lines = _run("bench/blind_browser.py", "--rounds", "1")
    assert len(lines) == len(BLIND_LINES), lines
    for line, shape in zip(lines, BLIND_LINES, strict=True):
        assert re.fullmatch(shape, line), line
