"""The bounded validation (bench/monitor.py at small sizes): honest seats of every strategy
are rarely flagged, and a seat that acts on the next card every time is found in 200 rounds.
The full figures are in docs/monitor.md."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

from bench.monitor import Group, Population, run_group, simulate, verdicts

ROOT = Path(__file__).resolve().parents[2]
HONEST_SEATS, HONEST_ROUNDS, CHEAT_ROUNDS = 200, 12, 200


@pytest.fixture(scope="module")
def population() -> Population:
    population = simulate(HONEST_SEATS, 0, HONEST_ROUNDS, seed=7)
    cheaters = [
        Group("toto21", (("cheat-t", "threshold", 1.0), ("mark-t", "state", 0.0)), "ct"),
        Group(
            "kvitlach",
            (("cheat-k", "threshold", 1.0), ("mark-k1", "tilt", 0.0), ("mark-k2", "random", 0.0)),
            "ck",
        ),
    ]
    for group in cheaters:
        played = run_group(group, CHEAT_ROUNDS, seed=7)
        population.seats += played.seats
        population.found += played.found
        population.order.update(played.order)
    return population


def test_honest_seats_are_rarely_flagged(population: Population) -> None:
    flags = verdicts(population, CHEAT_ROUNDS)
    honest = [key for key, _, cheat in population.seats if not cheat]
    assert len(honest) >= 0.95 * HONEST_SEATS
    assert sum(flags[key] for key in honest) <= 1


def test_a_seat_acting_on_every_next_card_is_found_in_200_rounds(population: Population) -> None:
    flags = verdicts(population, CHEAT_ROUNDS)
    cheaters = [key for key, _, cheat in population.seats if cheat == 1.0]
    assert len(cheaters) == 2
    assert all(flags[key] for key in cheaters)


def test_the_bench_runs_as_a_script_and_prints_its_table() -> None:
    command = [sys.executable, "bench/monitor.py", "--honest", "8", "--cheaters", "1"]
    done = subprocess.run(
        [*command, "--rounds", "5,10"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert re.search(r"^ +10 +0/\d+ +(\d+/1 +){4}$", done.stdout, re.M), done.stdout
