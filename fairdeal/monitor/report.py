"""The monitor's verdict: one test per seat and kind of hidden information (per unordered
pair of seats for the partner kinds, both seats' choices in one test), Holm's correction
across all of them, and a flag at a family-wise level.

A flag is evidence for a closer look at a seat, not proof: see docs/monitor.md.
"""

import math
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from fairdeal.monitor.observations import BY_ROUND, PAIRS, Observation
from fairdeal.monitor.stats import cmh, holm, round_score, score

ALPHA = 0.001  # the default family-wise level of a flag, after Holm's correction
WEIGHTIEST = 5  # rounds listed behind each flag


@dataclass(frozen=True)
class SeatTest:
    """One seat's decisions against one kind of hidden information; for a partner kind, a
    pair's: each seat's against the other's hidden cards."""

    seat: str
    kind: str
    partner: str  # a partner kind's other seat, else ""
    decisions: int
    strata: int  # strata that weigh (both actions and both hidden values seen)
    drew_good: int  # decisions that drew when the hidden fact was good
    expected: float  # that count's expectation for a seat that cannot see the fact
    chi2: float
    p: float
    p_holm: float
    odds_ratio: float | None  # Mantel–Haenszel: > 1 draws more when the fact is good
    method: str  # "score" where every chance is known, else "cmh" (approximate strata)
    flagged: bool
    rounds: tuple[str, ...]  # the rounds that weigh most towards the association

    @property
    def seats(self) -> tuple[str, ...]:
        """The seat, or the pair, the test is about."""
        return (self.seat, self.partner) if self.partner else (self.seat,)

    @property
    def name(self) -> str:
        return " & ".join(self.seats)

    def to_json(self) -> dict[str, Any]:
        ratio = self.odds_ratio
        return {
            "seat": self.seat, "partner": self.partner or None, "kind": self.kind,
            "decisions": self.decisions,
            "strata": self.strata, "drew_good": self.drew_good,
            "expected": round(self.expected, 3), "chi2": round(self.chi2, 3), "p": self.p,
            "p_holm": self.p_holm,
            "odds_ratio": None if ratio is None or math.isinf(ratio) else round(ratio, 3),
            "odds_ratio_infinite": ratio is not None and math.isinf(ratio),
            "method": self.method, "flagged": self.flagged, "rounds": list(self.rounds),
        }  # fmt: skip


@dataclass(frozen=True)
class Report:
    alpha: float
    correction: str
    tests: tuple[SeatTest, ...]

    @property
    def flagged(self) -> tuple[SeatTest, ...]:
        return tuple(test for test in self.tests if test.flagged)

    @property
    def flagged_seats(self) -> frozenset[str]:
        """Every seat a flagged test is about (both seats of a flagged pair)."""
        return frozenset(seat for test in self.flagged for seat in test.seats)

    def to_json(self) -> dict[str, Any]:
        return {
            "alpha": self.alpha,
            "correction": self.correction,
            "tests": [test.to_json() for test in self.tests],
            "flagged": len(self.flagged),
        }


def judge(observations: Iterable[Observation], alpha: float = ALPHA) -> Report:
    """Each seat and kind (each pair, for a partner kind) tested, smallest p-value first,
    flagged where Holm's adjusted p-value is at most ``alpha``."""
    if not 0 < alpha < 1:
        raise ValueError("alpha is a level between 0 and 1")
    groups: dict[tuple[str, str, str], list[Observation]] = defaultdict(list)
    for o in observations:
        first, second = sorted((o.seat, o.partner)) if o.kind in PAIRS else (o.seat, "")
        groups[first, o.kind, second].append(o)
    keys = sorted(groups)
    raw = [_test(groups[key]) for key in keys]
    adjusted = holm([test.p for test in raw])
    tests = [
        replace(test, p_holm=p, flagged=p <= alpha) for test, p in zip(raw, adjusted, strict=True)
    ]
    tests.sort(key=lambda test: (test.p, test.seat, test.kind, test.partner))
    return Report(alpha, "holm", tuple(tests))


Strata = dict[tuple[str, str], list[int]]  # (deciding seat, stratum) -> its 2 x 2 counts


def tables(observations: Iterable[Observation]) -> Strata:
    """Each stratum's 2 x 2 counts [drew & good, drew & bad, stopped & good, stopped & bad],
    a stratum per deciding seat (a pair's two seats have strata of their own)."""
    counts: Strata = defaultdict(lambda: [0, 0, 0, 0])
    for o in observations:
        counts[o.seat, o.stratum][(0 if o.drew else 2) + (0 if o.good else 1)] += 1
    return counts


def _test(group: list[Observation]) -> SeatTest:
    """The score test where every chance is known (exact), else the CMH test over the
    strata; the Mantel–Haenszel odds ratio over the strata either way."""
    counts = tables(group)
    result = cmh((a, b, c, d) for a, b, c, d in counts.values())
    by_round = group[0].kind in BY_ROUND
    # a card fixed for the round: the seat's habit also by what it saw of the others' moves,
    # which may tell about the card when one of them acts on it (docs/monitor.md)
    chances = [
        (
            (o.drew, o.good, o.chance, f"{o.seat} {o.visible} {o.public if by_round else ''}"),
            f"{o.table}/{o.round}",
        )
        for o in group
        if o.chance is not None
    ]
    chi2, p, method = result.chi2, result.p, "cmh"
    if len(chances) == len(group):
        scored = round_score(chances) if by_round else score(d for d, _ in chances)
        # the chi-square shows the lean's size; the flag rests on the p-value that holds
        # however few the decisions (stats.mixture_p, stats.round_score)
        chi2, p, method = scored.chi2, scored.p_mixture, "score"
    seat, partner = group[0].seat, group[0].partner
    if partner and partner < seat:
        seat, partner = partner, seat
    return SeatTest(
        seat=seat, kind=group[0].kind, partner=partner, decisions=result.decisions,
        strata=result.informative, drew_good=result.observed, expected=result.expected,
        chi2=chi2, p=p, p_holm=p, odds_ratio=result.odds_ratio, method=method,
        flagged=False, rounds=_weightiest(group, counts),
    )  # fmt: skip


def _weightiest(group: list[Observation], counts: Strata) -> tuple[str, ...]:
    """The rounds whose decisions move the statistic most the way it leans: each decision
    weighs (drew - its stratum's draw rate) x (good - its stratum's good rate)."""
    by_round: dict[str, float] = defaultdict(float)
    lean = 0.0
    for o in group:
        a, b, c, d = counts[o.seat, o.stratum]
        n = a + b + c + d
        weight = (o.drew - (a + b) / n) * (o.good - (a + c) / n)
        by_round[f"{o.table}/{o.round}"] += weight
        lean += weight
    sign = 1 if lean >= 0 else -1
    ranked = sorted(by_round, key=lambda r: -sign * by_round[r])
    return tuple(r for r in ranked[:WEIGHTIEST] if sign * by_round[r] > 0)


def text(report: Report, *, all_tests: bool = False) -> str:
    """The report as plain text: the flags, or every test with ``all_tests``."""
    shown = report.tests if all_tests else report.flagged
    lines = [
        f"{len(report.tests)} tests (seat x kind, pair x kind), {len(report.flagged)} flagged at "
        f"family-wise level {report.alpha} ({report.correction})",
    ]
    for test in shown:
        ratio = "n/a" if test.odds_ratio is None else f"{test.odds_ratio:.2f}"
        mark = "FLAG " if test.flagged else "     "
        lines.append(
            f"{mark}{test.name} {test.kind}: {test.decisions} decisions, {test.strata} strata, "
            f"odds ratio {ratio}, chi2 {test.chi2:.1f}, p {test.p:.2e}, "
            f"Holm {test.p_holm:.2e} ({test.method})"
        )
        if test.flagged and test.rounds:
            lines.append(f"      rounds that weigh most: {', '.join(test.rounds)}")
    return "\n".join(lines) + "\n"
