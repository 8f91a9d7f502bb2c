"""The statistics of the monitor, from counts alone: the Cochran–Mantel–Haenszel test of a
2 x 2 x K table, the Mantel–Haenszel common odds ratio, the chi-square survival function
with one degree of freedom, and Holm's step-down correction.

Each stratum's table is (a, b, c, d): a = drew and the hidden fact was good, b = drew and it
was bad, c = stopped and it was good, d = stopped and it was bad.
"""

import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

Table = tuple[int, int, int, int]  # (a, b, c, d): one stratum's 2 x 2 counts


@dataclass(frozen=True)
class Cmh:
    """A CMH test over strata: the statistic (with Mantel and Haenszel's continuity
    correction of 1/2), its p-value (chi-square, 1 df, two-sided), the Mantel–Haenszel
    common odds ratio (None where it is 0/0; inf where only its denominator is 0), the
    decisions counted and the strata that weigh (both rows and both columns present)."""

    chi2: float
    p: float
    odds_ratio: float | None
    observed: int  # sum of a over the strata
    expected: float  # its expectation under conditional independence
    decisions: int
    informative: int


def chi2_sf_1df(x: float) -> float:
    """P(X >= x) for X chi-square with one degree of freedom: erfc(sqrt(x / 2))."""
    if x <= 0:
        return 1.0
    return math.erfc(math.sqrt(x / 2))


def cmh(tables: Iterable[Table], *, correct: bool = True) -> Cmh:
    """The Cochran–Mantel–Haenszel test of conditional independence in each stratum (Mantel
    and Haenszel 1959): sum of a against its hypergeometric mean and variance, stratum by
    stratum. A stratum with one row or one column empty adds nothing (its variance is 0)."""
    observed, expected, variance = 0, 0.0, 0.0
    numerator, denominator = 0.0, 0.0
    decisions = informative = 0
    for a, b, c, d in tables:
        n = a + b + c + d
        decisions += n
        drew, stopped, good, bad = a + b, c + d, a + c, b + d
        if n < 2 or 0 in (drew, stopped, good, bad):
            continue
        informative += 1
        observed += a
        expected += drew * good / n
        variance += drew * stopped * good * bad / (n * n * (n - 1))
        numerator += a * d / n
        denominator += b * c / n
    if variance == 0:
        return Cmh(0.0, 1.0, None, observed, expected, decisions, informative)
    gap = abs(observed - expected)
    if correct:
        gap = max(gap - 0.5, 0.0)
    chi2 = gap * gap / variance
    return Cmh(chi2, chi2_sf_1df(chi2), _ratio(numerator, denominator), observed,
               expected, decisions, informative)  # fmt: skip


def _ratio(numerator: float, denominator: float) -> float | None:
    if denominator > 0:
        return numerator / denominator
    return math.inf if numerator > 0 else None


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's (1979) step-down adjusted p-values, in the order given: each test is flagged
    at family-wise level alpha exactly when its adjusted p-value is at most alpha, whatever
    the dependence between the tests."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    adjusted = [1.0] * len(p_values)
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (len(p_values) - rank) * p_values[index]))
        adjusted[index] = running
    return adjusted


@dataclass(frozen=True)
class Score:
    """The score test of decisions whose hidden fact has a known chance under the null.

    S = sum of w (good - chance) over the decisions, with w = drew - the seat's draw rate
    in the same visible state before this decision (a predictable estimate of how often the
    seat draws there: (draws + 1/2) / (decisions + 1)); chi2 = S^2 / sum of w^2 chance
    (1 - chance), 1 df. Each term has mean 0 given everything before it and what the seat
    saw and did, whatever its strategy: S is a martingale, and the chi-square holds as the
    decisions grow (docs/monitor.md). Weighting by the surprise in the seat's action puts
    the weight where an informed seat departs from its own habits."""

    statistic: float  # S
    variance: float
    chi2: float
    p: float  # the chi-square's
    decisions: int
    informative: int  # decisions whose chance is neither 0 nor 1
    p_mixture: float = 1.0  # mixture_p's: valid however few the decisions


Decision = tuple[bool, bool, float, str]  # (drew, good, chance, visible state)
Term = tuple[float, bool, float]  # (weight, good, chance): one term of S


def weighted(decisions: Iterable[Decision]) -> Iterator[tuple[Term, bool]]:
    """Each decision's term, in order, and whether it is informative (its chance neither 0
    nor 1; a term that is not weighs nothing): w = drew - the seat's draw rate in the same
    visible state before this decision, (draws + 1/2) / (decisions + 1)."""
    habits: dict[str, tuple[int, int]] = {}  # visible state -> (draws, decisions) so far
    for drew, good, p, visible in decisions:
        draws, made = habits.get(visible, (0, 0))
        habits[visible] = (draws + drew, made + 1)
        yield (drew - (draws + 0.5) / (made + 1), good, p), 0 < p < 1


def score(decisions: Iterable[Decision]) -> Score:
    """``decisions`` in the order they were made, as (drew, good, chance, visible state)."""
    statistic, variance = 0.0, 0.0
    counted = informative = 0
    terms: list[Term] = []
    for (weight, good, p), counts in weighted(decisions):
        counted += 1
        if counts:
            informative += 1
            statistic += weight * (good - p)
            variance += weight * weight * p * (1 - p)
            terms.append((weight, good, p))
    if variance == 0:
        return Score(0.0, 0.0, 0.0, 1.0, counted, informative)
    chi2 = statistic * statistic / variance
    return Score(
        statistic, variance, chi2, chi2_sf_1df(chi2), counted, informative, mixture_p(terms)
    )


# A grid of bets on the direction and size of a seat's lean: the mixture's components.
LAMBDAS = tuple(sign * 0.02 * 2 ** (k / 2) for sign in (1, -1) for k in range(16))


def mixture_p(terms: Iterable[tuple[float, bool, float]]) -> float:
    """An anytime-valid p-value for S = sum of w (good - chance), from ``terms`` (w, good,
    chance) in decision order: 1 / the mean, over LAMBDAS, of the martingales
    prod exp(l w (good - chance)) / E[exp(l w (good - chance))], each of mean 1 whatever the
    seat's strategy and however many decisions are seen (Ville's inequality). Unlike the
    chi-square, it holds for a handful of decisions with rare chances, where one surprising
    card would otherwise make a tiny p-value."""
    logs = [0.0] * len(LAMBDAS)
    for weight, good, chance in terms:
        for index, lam in enumerate(LAMBDAS):
            step = lam * weight
            moment = chance * math.exp(step * (1 - chance)) + (1 - chance) * math.exp(
                -step * chance
            )
            logs[index] += step * (good - chance) - math.log(moment)
    top = max(logs)
    log_mean = top + math.log(sum(math.exp(x - top) for x in logs) / len(LAMBDAS))
    return 1.0 if log_mean <= 0 else math.exp(-log_mean)


# The bets l of the rounds' mixture, each side: 4, 2, 1, 1/2, ..., 1/64.
ROUND_BETS = tuple(sign * 2.0 ** (2 - k) for sign in (1, -1) for k in range(9))


def round_score(decisions: Iterable[tuple[Decision, str]]) -> Score:
    """The score test of a card fixed for the round, every choice of the round counted:
    ``decisions`` in the order made, each with its round. A round's increment is
    Y = sum of w (good - chance) over its decisions, each with the chance at that decision
    (given every card and move before it): each term has mean 0 given everything before
    it, so Y has mean 0 given everything before the round, whatever the seat's strategy,
    though its terms share one hidden card (docs/monitor.md). The p-value is anytime-valid
    (round_bets). chi2 = S^2 / sum of Y^2 shows the lean's size (a round's terms are not
    independent: their own variances would not do)."""
    rounds: dict[str, list[Term]] = {}  # round -> its informative terms, rounds in order
    counted = informative = 0
    decisions = list(decisions)
    pairs = zip(weighted(d for d, _ in decisions), decisions, strict=True)
    for (term, counts), (_, round_) in pairs:
        counted += 1
        terms = rounds.setdefault(round_, [])
        if counts:
            informative += 1
            terms.append(term)
    increments = [sum(w * (good - p) for w, good, p in terms) for terms in rounds.values()]
    statistic = sum(increments)
    variance = sum(y * y for y in increments)
    if variance == 0:
        return Score(0.0, 0.0, 0.0, 1.0, counted, informative)
    chi2 = statistic * statistic / variance
    p_value = round_bets(list(rounds.values()))
    return Score(statistic, variance, chi2, chi2_sf_1df(chi2), counted, informative, p_value)


def round_bets(rounds: Sequence[Sequence[Term]]) -> float:
    """An anytime-valid p-value from each round's terms (w, good, chance): 1 / the mean over
    ROUND_BETS of the wealth prod (1 + sum of b (good - chance)) of a bettor who stakes
    b = l w on each term as the decision is made, before the round's card is shown, within
    what it can lose: the stakes' worst losses, |b| max(chance, 1 - chance), add up to at
    most 1, so the round's factor is never negative. A stake depends on the seat's move and
    on what came before it alone, and an honest seat's move is independent of the card, good
    with exactly its chance given those: so the factor has mean 1 given every round before,
    and each wealth is a martingale of mean 1 (Ville's inequality)."""
    logs = []
    for bet in ROUND_BETS:
        log_wealth = 0.0
        for terms in rounds:
            factor, budget = 1.0, 1.0
            for weight, good, chance in terms:
                worst = max(chance, 1 - chance)
                stake = max(-budget / worst, min(budget / worst, bet * weight))
                budget = max(budget - abs(stake) * worst, 0.0)
                factor += stake * (good - chance)
            log_wealth += math.log(factor) if factor > 0 else -math.inf
        logs.append(log_wealth)
    top = max(logs)
    if top == -math.inf:
        return 1.0
    log_mean = top + math.log(sum(math.exp(x - top) for x in logs) / len(ROUND_BETS))
    return 1.0 if log_mean <= 0 else math.exp(-log_mean)
