"""bench/blind.py still runs and prints every row (its figures are quoted in the notes);
speed itself is never asserted."""

import re

from tests.commands import run_python


def test_the_blind_bench_prints_every_operation_for_both_backends() -> None:
    done = run_python("bench/blind.py", "--repeats", "1", "--quick", timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert re.search(r"^baseline: one Ed25519 verify .* µs$", done.stdout, re.M)
    for label in ("scalar mult", "share DLEQ, verify", "open a card, 3 parties (3 verifies)"):
        row = re.search(rf"^{re.escape(label)} .*$", done.stdout, re.M)
        assert row and len(re.findall(r"[\d.]+ x", row.group())) in (1, 2), done.stdout
