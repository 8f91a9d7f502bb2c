"""The benchmark scripts still run, on tiny sizes: their figures are quoted in the
project's notes, so a script broken by a change elsewhere must show up here, not on
the day someone needs a figure. Speed itself is never asserted."""

import re

from .commands import run_python


def _run(*args: str) -> str:
    done = run_python(*args, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_core_bench_prints_every_row_with_its_ratio():
    out = _run("bench/core.py", "--seconds", "0.02")
    for label in ("sign + chain events", "toto21 rounds, events", "kvitlach rounds, events"):
        assert re.search(rf"^{re.escape(label)} +[\d,]+ /s +\d+\.\d% of raw signing$", out, re.M)
    assert re.search(r"^shuffle 48 cards +[\d,]+ /s +\d+\.\d µs each$", out, re.M)


def test_verify_bench_verifies_its_own_exports():
    out = _run(
        "bench/verify.py", "--rounds", "100", "--interleaved", "100", "--repeats", "1",
        "--memory-events", "300",
    )  # fmt: skip
    assert re.search(r"= \d\.\d\d x raw per CPU second", out)
    # every run of the command on the bench's exports found them valid
    exits = re.findall(r"exit ([\d,]+)", out)
    assert exits and set(exits) == {"0"}, out
    assert "peak memory" in out


def test_long_table_bench_prints_its_targets_and_verifies_its_exports():
    out = _run("bench/long_table.py", "--rounds", "24", "--seats", "3")
    assert re.search(r"^round N / round 1: size \d+\.\d\d x, verify \d+\.\d\d x", out, re.M)
    assert re.search(r"^  N / N/2: \d+\.\d\d x", out, re.M)
    exits = re.findall(r"\(exit (\d+)\)", out)
    assert exits == ["0", "0"], out
    assert "peak memory" in out


def test_api_bench_plays_keyless_and_signed_seats_without_a_refusal():
    out = _run("bench/api.py", "--seconds", "1", "--concurrency", "1")
    for which in ("bare", "keyless", "signed"):
        # every request of every kind was answered as the bot expected: no error, no refusal
        assert re.search(rf"^{which} +[\d.]+ actions/s .*errors: none\)$", out, re.M), out
    assert re.search(r"^signed / keyless seats: \d+\.\d%", out, re.M)


def test_witnesses_bench_plays_with_and_without_witnesses_and_times_their_cosignatures():
    out = _run("bench/witnesses.py", "--seconds", "1", "--concurrency", "1", "--repeats", "1")
    for which in ("no witness", "two witnesses"):
        assert re.search(rf"^{which} +[\d.]+ actions/s .*errors: none\)$", out, re.M), out
    assert re.search(r"^witnessed / none, mean of 1: \d+\.\d%", out, re.M), out
    # every head of the witnessed run was cosigned by both witnesses, and timed
    timed = re.search(r"p99 (\d+) ms, max \d+ ms over (\d+) heads", out)
    assert timed and int(timed.group(2)) > 0, out


def test_blind_table_bench_prints_each_target_with_a_verdict_and_the_sizes():
    out = _run("bench/blind_table.py", "--rounds", "2")
    for label in (
        "first card (service)",
        "each further card (service)",
        "verify one round, libsodium",
        "verify one round, pure Python",
    ):
        assert re.search(rf"^{re.escape(label)} +[\d.]+ ms +\d+x +\d+ ms (ok|OVER)$", out, re.M)
    assert re.search(r"^  a long round, 16 cards: \d+ bytes  \(in full \d+\)$", out, re.M)
