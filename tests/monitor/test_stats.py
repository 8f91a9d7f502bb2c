"""The monitor's statistics against published and hand-computed figures, and the score
test's p-values against its null."""

import math
import random

import pytest

from fairdeal.monitor.stats import (
    Decision,
    chi2_sf_1df,
    cmh,
    holm,
    mixture_p,
    round_bets,
    round_score,
    score,
)

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
    _hold_their_level([score(_honest_decisions(rng, n)).p_mixture for _ in range(400)])


def _hold_their_level(values: list[float]) -> None:
    for level in (0.05, 0.2):
        assert sum(v <= level for v in values) / len(values) <= level + 0.03


def test_a_seat_that_draws_exactly_when_the_card_is_good_is_found() -> None:
    rng = random.Random(1)
    decisions = [(d[1], d[1], d[2], d[3]) for d in _honest_decisions(rng, 100)]
    result = score(decisions)
    assert result.p_mixture < 1e-6
    assert result.statistic > 0 and math.isfinite(result.chi2)


def _round(rng: random.Random, name: str, cheat: float = 0.0) -> list[tuple[Decision, str]]:
    """One round of a seat against a face-down card fixed for the round (good when 7 or
    more), drawing from the rest of a shuffled deck: an honest seat draws below a limit, so
    how often it draws depends on the cards it drew, which tell about the face-down card;
    each choice's chance is over the cards not yet seen. A cheat acts on the card with
    probability ``cheat`` at each choice."""
    deck = [value for value in range(1, 11) for _ in range(4)]
    rng.shuffle(deck)
    hidden, rest = deck[0], deck[1:]
    mine, limit, found = [rest.pop(), rest.pop()], rng.choice([13, 15, 17]), []
    while sum(mine) <= 21:
        chance = sum(value >= 7 for value in [hidden, *rest]) / (len(rest) + 1)
        good = hidden >= 7
        drew = good if rng.random() < cheat else sum(mine) < limit
        found.append(((drew, good, chance, str(sum(mine))), name))
        if not drew:
            break
        mine.append(rest.pop())
    return found


def _rounds(rng: random.Random, n: int, cheat: float = 0.0) -> list[tuple[Decision, str]]:
    return [d for r in range(n) for d in _round(rng, f"r{r}", cheat)]


@pytest.mark.parametrize("n", [5, 200])
def test_the_round_score_is_valid_for_honest_seats(n: int) -> None:
    """Every choice of a round against one card: the draws depend on cards the face-down
    card is dealt with, and the p-values still hold their level."""
    rng = random.Random(n)
    _hold_their_level([round_score(_rounds(rng, n)).p_mixture for _ in range(200)])


def test_the_round_score_finds_a_quarter_of_the_choices_informed() -> None:
    rng = random.Random(2)
    informed = round_score(_rounds(rng, 500, cheat=0.25))
    assert informed.p_mixture < 1e-6 and informed.statistic > 0
    assert informed.decisions > 500  # every choice of a round, not its first alone


def test_a_rounds_stakes_never_lose_more_than_the_wealth() -> None:
    """Four choices of one round all against the card: the large bets on drawing lose all
    they have and no more (the factor 1 + sum of b (good - chance) stays at 0 or above, a
    negative one would make an invalid martingale), the bets against it win."""
    terms = [(0.99, False, 0.6)] * 4
    # bets -4, -2, -1 stake all their budget, 1/0.6 in all: their wealth doubles (1 + 0.6/0.6)
    assert round_bets([terms]) <= 1.0
    assert round_bets([terms] * 20) < 1e-4
    assert round_bets([]) == 1.0
