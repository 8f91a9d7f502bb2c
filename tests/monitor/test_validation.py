"""The bounded validation (bench/monitor.py at small sizes, seeded, so the same every run):
no honest seat of any strategy is flagged, and a seat acting on every tip is found within
200 rounds, whatever the tip: the next card (in each game), the dealer's or banker's hidden
card, a Kvitlach partner's hidden cards. The ci tier adds a longer run at p = 0.25, the
issue's goal. The full figures are in docs/monitor.md."""

import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from bench.monitor import (
    NEXT_TIP,
    OPPONENT_TIP,
    PARTNER_TIP,
    Group,
    Population,
    cheats,
    run_group,
    simulate,
    verdicts,
)
from fairdeal.monitor import judge
from fairdeal.monitor.observations import BY_ROUND, OPPONENT_CARD

ROOT = Path(__file__).resolve().parents[2]
HONEST_SEATS, HONEST_ROUNDS, CHEAT_ROUNDS = 200, 12, 200


def _with(population: Population, extra: Sequence[Group], rounds: int, seed: int) -> Population:
    for group in extra:
        population.add(run_group(group, rounds, seed=seed))
    return population


def _found(population: Population, rounds: int, p: float) -> list[bool]:
    """For each cheat acting at ``p`` (a seat, or a pair), whether it was flagged."""
    flags = verdicts(population, rounds)
    return [any(flags[key] for key in keys) for keys in cheats(population, p).values()]


def _honest_flagged(population: Population, rounds: int) -> int:
    flags = verdicts(population, rounds)
    return sum(flags[key] for key, _, cheat in population.seats if not cheat)


@pytest.fixture(scope="module")
def population() -> Population:
    tipped = [
        Group("toto21", (("next-t", NEXT_TIP, 1.0), ("mark-t", "state", 0.0)), "ct"),
        Group(
            "kvitlach",
            (("next-k", NEXT_TIP, 1.0), ("mark-k1", "tilt", 0.0), ("mark-k2", "random", 0.0)),
            "ck",
        ),
        Group("toto21", (("opponent-t", OPPONENT_TIP, 1.0), ("mark-o", "random", 0.0)), "co"),
        Group(
            "kvitlach",
            (("pair/a", PARTNER_TIP, 1.0), ("pair/b", PARTNER_TIP, 1.0), ("mark-p", "state", 0.0)),
            "cp",
        ),
    ]
    return _with(simulate(HONEST_SEATS, 0, HONEST_ROUNDS, seed=7), tipped, CHEAT_ROUNDS, seed=7)


def test_no_honest_seat_is_flagged(population: Population) -> None:
    honest = [key for key, _, cheat in population.seats if not cheat]
    assert len(honest) >= 0.95 * HONEST_SEATS
    assert _honest_flagged(population, CHEAT_ROUNDS) == 0


def test_a_seat_acting_on_every_tip_is_found_in_200_rounds(population: Population) -> None:
    found = _found(population, CHEAT_ROUNDS, 1.0)
    assert len(found) == 4  # next card twice, the opponent's card, a pair of partners
    assert all(found)


def test_a_card_fixed_for_the_round_is_weighed_at_every_choice(population: Population) -> None:
    """The opponent cheat at p = 1 is found by the round score over every choice of its
    rounds (stats.round_score), more choices than rounds, and no honest seat's is flagged."""
    first = [o for o in population.found if population.order[f"{o.table}/{o.round}"] <= 200]
    tests = {(test.seat, test.kind): test for test in judge(first).tests}
    keys = {name: key for key, name, _ in population.seats}
    cheat = tests[keys["opponent-t"], OPPONENT_CARD]
    assert cheat.flagged and cheat.method == "score"
    rounds = {o.round for o in first if o.seat == keys["opponent-t"] and o.kind == OPPONENT_CARD}
    assert cheat.decisions > len(rounds)
    honest = {key for key, _, p in population.seats if not p}
    assert not [t for t in tests.values() if t.kind in BY_ROUND and set(t.seats) <= honest
                and t.flagged]  # fmt: skip


@pytest.mark.ci
def test_a_seat_acting_on_a_quarter_of_its_tips_is_found_in_500_rounds() -> None:
    """The issue's goal, bounded: two cheats of each kind at p = 0.25 (the next card in each
    game, the dealer's hidden card, a pair of partners), judged with 150 honest seats."""
    tipped = [
        Group("toto21", (("n-t", NEXT_TIP, 0.25), ("m1", "state", 0.0)), "q1"),
        Group("kvitlach", (("n-k", NEXT_TIP, 0.25), ("m2", "tilt", 0.0), ("m3", "random", 0.0)),
              "q2"),
        Group("toto21", (("o-t", OPPONENT_TIP, 0.25), ("m4", "random", 0.0)), "q3"),
        Group("kvitlach", (("p/a", PARTNER_TIP, 0.25), ("p/b", PARTNER_TIP, 0.25),
                           ("m5", "threshold", 0.0)), "q4"),
    ]  # fmt: skip
    population = _with(simulate(150, 0, 40, seed=11), tipped, 500, seed=11)
    assert _honest_flagged(population, 500) == 0
    assert sum(_found(population, 500, 0.25)) >= 3


def test_the_bench_runs_as_a_script_and_prints_its_table() -> None:
    command = [sys.executable, "bench/monitor.py", "--honest", "8", "--cheaters", "1"]
    done = subprocess.run(
        [*command, "--rounds", "5,10"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert re.search(r"^ +10 +0/\d+ +0/\d+ +(\d+/1 +){4}$", done.stdout, re.M), done.stdout
    assert "next_card (score)" in done.stdout
