"""bench/shuffle.py still runs, on tiny sizes: its figures are quoted in the project's notes,
so a script broken by a change elsewhere shows here. Speed itself is never asserted."""

import re

import pytest

from tests.blind.backends import NO_SODIUM, SODIUM
from tests.commands import run_python


@pytest.mark.skipif(SODIUM is None, reason=NO_SODIUM)
def test_the_shuffle_bench_prints_every_row_with_its_baseline() -> None:
    done = run_python("bench/shuffle.py", "--repeats", "1", "--pure-repeats", "1", "--sizes", "2")
    assert done.returncode == 0, done.stderr[-2000:]
    for backend in ("sodium", "pure"):
        assert re.search(
            rf"^baseline \({backend}\): one scalar multiplication +[\d.]+ µs$", done.stdout, re.M
        )
    for label in ("shuffle (sodium)", "prove (sodium)", "verify (sodium)", "verify (pure)"):
        row = rf"^n = 2: {re.escape(label)} +[\d.]+ ms  = +\d+ scalar mults$"
        assert re.search(row, done.stdout, re.M), done.stdout
