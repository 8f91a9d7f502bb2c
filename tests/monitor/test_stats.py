"""The monitor's statistics against published and hand-computed figures, and the score
test's p-values against its null."""

import math
import random

import pytest

from fairdeal.monitor.stats import chi2_sf_1df, cmh, holm, mixture_p, score

# Penicillin and rabbits (Mantel 1963; Agresti, Categorical Data Analysis, 1990, p. 233), the
# example of R's mantelhaen.test ("Rabbits"): per penicillin level, (immediate & cured,
# immediate & died, delayed & cured, delayed & died). R reports Mantel-Haenszel
# X-squared = 3.9286 (df = 1, with its default continuity correction), p-value = 0.04747,
# common odds ratio 7.
RABBITS = [(0, 6, 0, 5), (3, 3, 0, 6), (6, 0, 2, 4), (5, 1, 6, 0), (2, 0, 5, 0)]


def test_cmh_gives_the_published_rabbits_figures() -> None:
    result = cmh(RABBITS)
    assert result.chi2 == pytest.approx(3.9286, abs=1e-4)
    assert result.p == pytest.approx(0.04747, abs=1e-5)
    assert result.odds_ratio == pytest.approx(7.0)
    assert (result.decisions, result.informative) == (54, 3)


def test_cmh_without_the_correction_is_the_hand_computed_one() -> None:
    # sum a = 16, its expectation 10.5, its variance 5.3475... by hand: (5.5)^2 / 5.3475
    assert cmh(RABBITS, correct=False).chi2 == pytest.approx(5.6571, abs=1e-4)


def test_strata_with_one_action_or_one_hidden_value_add_nothing() -> None:
    result = cmh([(3, 0, 0, 0), (2, 2, 0, 0), (1, 0, 4, 0)])
    assert (result.p, result.odds_ratio, result.informative) == (1.0, None, 0)


@pytest.mark.parametrize(
    ("x", "p"), [(0.0, 1.0), (3.841458820694124, 0.05), (6.634896601021214, 0.01), (-1, 1.0)]
)
def test_the_chi_square_survival_function_matches_the_table(x: float, p: float) -> None:
    assert chi2_sf_1df(x) == pytest.approx(p, rel=1e-9)


def test_holm_adjusts_step_down_and_keeps_the_order_given() -> None:
    # sorted: 0.005 x 4 = 0.02, 0.01 x 3 = 0.03, 0.03 x 2 = 0.06, 0.04 x 1 -> 0.06 (monotone)
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([]) == []
    assert holm([0.9, 0.8]) == [1.0, 1.0]


def test_one_surprising_card_is_no_evidence() -> None:
    """A seat that drew once, on a card it had one chance in a hundred of finding good: the
    chi-square would make it a near-certain cheat, the mixture does not."""
    result = score([(True, True, 0.01, "17")])
    assert result.p < 1e-10
    assert result.p_mixture > 0.1
    assert mixture_p([]) == 1.0


def _honest_decisions(rng: random.Random, n: int) -> list[tuple[bool, bool, float, str]]:
    found = []
    for _ in range(n):
        chance = rng.choice([0.02, 0.1, 0.3, 0.5, 0.7, 0.97])
        visible = rng.choice("abc")
        drew = rng.random() < {"a": 0.1, "b": 0.5, "c": 0.9}[visible]
        found.append((drew, rng.random() < chance, chance, visible))
    return found


@pytest.mark.parametrize("n", [3, 30, 300])
def test_the_mixture_p_value_is_valid_for_honest_seats(n: int) -> None:
    rng = random.Random(n)
    values = [score(_honest_decisions(rng, n)).p_mixture for _ in range(400)]
    for level in (0.05, 0.2):
        assert sum(v <= level for v in values) / len(values) <= level + 0.03


def test_a_seat_that_draws_exactly_when_the_card_is_good_is_found() -> None:
    rng = random.Random(1)
    decisions = [(d[1], d[1], d[2], d[3]) for d in _honest_decisions(rng, 100)]
    result = score(decisions)
    assert result.p_mixture < 1e-6
    assert result.statistic > 0 and math.isfinite(result.chi2)
