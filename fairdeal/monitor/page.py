"""The monitor's report as one self-contained HTML page: no script, no font, no image and no
address outside the page, so that it opens offline and can be mailed or archived as it is.

The charts are inline SVG drawn here: the evidence of each test (-log10 of its p-value)
against Holm's step-down threshold, the flagged seats and pairs first; each test's effect
(the Mantel–Haenszel odds ratio, on a log scale) with the decisions behind it; and, for each
flag, the rounds that weigh most. Pure: the caller writes the page where it likes.
"""

import math
from collections.abc import Callable, Mapping, Sequence

from fairdeal.monitor.report import Report, SeatTest

SHOWN = 40  # tests drawn in the charts, smallest p-value first; the table lists them all
ROW, LEFT, WIDTH = 22, 330, 560  # a chart's row height, label column and plot width (px)
TOP = 34  # room above a chart's first row for its axis
FLAG, NEAR, QUIET, LINE = "#c0392b", "#e67e22", "#8a9bb0", "#1f2d3d"
FLOOR = 1e-300  # p-values below this are drawn as this (the chart's scale ends there)

STYLE = """
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1f2d3d;
margin:0;background:#f4f6f9}
main{max-width:1000px;margin:0 auto;padding:24px 28px 48px}
h1{font-size:24px;margin:0 0 4px}h2{font-size:18px;margin:32px 0 8px}
.sub{color:#5b6b7d;margin:0 0 18px}
.tiles{display:flex;gap:12px;flex-wrap:wrap}
.tile{background:#fff;border-radius:8px;padding:10px 16px;box-shadow:0 1px 2px #0002;
min-width:110px}
.tile b{display:block;font-size:22px}.tile.bad b{color:#c0392b}.tile.ok b{color:#1e8449}
.card{background:#fff;border-left:5px solid #c0392b;border-radius:6px;padding:12px 16px;
margin:10px 0;box-shadow:0 1px 2px #0002}
.card h3{margin:0 0 6px;font-size:16px}.card code{font-size:12px;word-break:break-all}
.none{background:#fff;border-left:5px solid #1e8449;border-radius:6px;padding:12px 16px}
.chart{background:#fff;border-radius:8px;padding:8px;box-shadow:0 1px 2px #0002;
overflow-x:auto}
.note{color:#5b6b7d;font-size:13px;margin:6px 0 0}
table{border-collapse:collapse;background:#fff;font-size:12px;width:100%}
td,th{padding:3px 6px;border-bottom:1px solid #e3e8ee;text-align:right}
td:first-child,th:first-child,td:nth-child(2),th:nth-child(2){text-align:left}
tr.flag td{background:#fdecea}
svg text{font:12px system-ui,sans-serif;fill:#1f2d3d}
svg .small{font-size:11px;fill:#5b6b7d}
"""


def escape(text: str) -> str:
    """``text`` as HTML text or an attribute's value (the standard library's html.escape,
    which the core does not import)."""
    for raw, entity in (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ('"', "&quot;"),
                        ("'", "&#x27;")):  # fmt: skip
        text = text.replace(raw, entity)
    return text


def page(report: Report, summary: Mapping[str, int], title: str = "Informed-play monitor") -> str:
    """The whole page: ``summary`` holds the export's counts (tables, rounds, decisions)."""
    flagged = report.flagged
    parts = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(title)}</title><style>{STYLE}</style></head><body><main>",
        f"<h1>{escape(title)}</h1>",
        '<p class="sub">Does any seat play as if it saw cards it could not see? Each test '
        "asks whether a seat's choices (or a pair's) go with what it could not see, given "
        "what it could. A flag is evidence for a closer look, not proof.</p>",
        _tiles(report, summary),
        "<h2>Flagged seats and pairs</h2>",
        _cards(flagged) if flagged else _none(report),
        "<h2>Evidence, test by test</h2>",
        _evidence(report),
        "<h2>How strong the lean is, and on how many decisions</h2>",
        _effects(report),
        "<h2>Every test</h2>",
        _table(report),
        "</main></body></html>",
    ]
    return "\n".join(parts) + "\n"


def _tiles(report: Report, summary: Mapping[str, int]) -> str:
    names = ("tables", "rounds", "decisions")
    counts = [(name, summary[name]) for name in names if name in summary]
    counts.append(("tests", len(report.tests)))
    tiles = [f'<div class="tile"><b>{value:,}</b>{escape(name)}</div>' for name, value in counts]
    state = "bad" if report.flagged else "ok"
    tiles.append(f'<div class="tile {state}"><b>{len(report.flagged)}</b>flagged</div>')
    tiles.append(
        f'<div class="tile"><b>{report.alpha:g}</b>family-wise level ({escape(report.correction)})'
        "</div>"
    )
    return f'<div class="tiles">{"".join(tiles)}</div>'


def _none(report: Report) -> str:
    return (
        f'<div class="none">Nothing flagged: no test reached the family-wise level '
        f"{report.alpha:g} after Holm's correction. That is not proof that nobody cheated "
        "(a tip used rarely leaves too small a trace).</div>"
    )


def _cards(flagged: Sequence[SeatTest]) -> str:
    cards = []
    for test in flagged:
        who = "Pair" if test.partner else "Seat"
        names = "<br>".join(f"<code>{escape(seat)}</code>" for seat in test.seats)
        rounds = ", ".join(f"<code>{escape(r)}</code>" for r in test.rounds) or "none listed"
        cards.append(
            f'<div class="card"><h3>{who} &middot; {escape(test.kind)}</h3>{names}'
            f"<p>{test.decisions:,} decisions; odds ratio {_ratio(test.odds_ratio)} "
            f"(above 1: draws more when the hidden fact favours drawing); "
            f"p {test.p:.2e}, after Holm {test.p_holm:.2e} ({escape(test.method)}).</p>"
            f"{_lean(test)}<p>Rounds that weigh most: {rounds}</p></div>"
        )
    return "".join(cards)


def _lean(test: SeatTest) -> str:
    """A small chart: draws made when the hidden fact was good, against the count expected
    of a seat that could not see it."""
    top = max(test.drew_good, test.expected, 1)
    width = 360
    rows = [
        ("seen", test.drew_good, f"{test.drew_good:,}", FLAG),
        ("expected blind", test.expected, f"{test.expected:,.1f}", QUIET),
    ]
    bars = []
    for index, (label, value, shown, colour) in enumerate(rows):
        y = 4 + index * 20
        length = width * value / top
        bars.append(
            f'<text x="0" y="{y + 12}">{label}</text>'
            f'<rect x="110" y="{y}" width="{length:.1f}" height="14" fill="{colour}" rx="2"/>'
            f'<text x="{114 + length:.1f}" y="{y + 12}" class="small">{shown}</text>'
        )
    return (
        '<p class="note">Draws when the hidden fact favoured drawing:</p>'
        f'<svg width="{width + 180}" height="46" role="img" aria-label="draws when good">'
        f"{''.join(bars)}</svg>"
    )


def _label(test: SeatTest) -> str:
    names = " & ".join(_short(seat) for seat in test.seats)
    return f"{names} · {test.kind}"


def _short(seat: str) -> str:
    """A key's first 8 hex digits (the full key is in the row's tooltip and the table)."""
    return seat[:12] + "…" if seat.startswith("key:") and len(seat) > 12 else seat


def _colour(test: SeatTest, threshold: float) -> str:
    if test.flagged:
        return FLAG
    return NEAR if test.p <= 10 * threshold else QUIET


def _evidence(report: Report) -> str:
    """-log10 p for each test, smallest p first, with Holm's step-down threshold: the i-th
    smallest p-value of m is compared with alpha / (m - i + 1), and the tests flagged are
    those above the line before the first that is not."""
    tests = report.tests[:SHOWN]
    if not tests:
        return '<p class="note">No decision with a choice: nothing to test.</p>'
    m = len(report.tests)
    steps = [report.alpha / (m - rank) for rank in range(len(tests))]
    scores = [0.0 if test.p >= 1 else -math.log10(max(test.p, FLOOR)) for test in tests]
    # the axis ends at 4 times the highest threshold (the first test's) at most: the tests
    # near it stay readable, and a bar beyond the end is cut there, its value after a »
    highest = -math.log10(steps[0])
    top = min(max(*scores, highest) * 1.08, 4 * highest)
    height = TOP + ROW * len(tests) + 26

    def x(value: float) -> float:
        return LEFT + WIDTH * min(value, top) / top

    rows = []
    for index, (test, value, step) in enumerate(zip(tests, scores, steps, strict=True)):
        y = TOP + ROW * index
        colour = _colour(test, step)
        tip = escape(f"{test.name} {test.kind}: p {test.p:.3g}, Holm {test.p_holm:.3g}")
        rows.append(
            f"<g><title>{tip}</title>"
            f'<text x="{LEFT - 8}" y="{y + 15}" text-anchor="end">{escape(_label(test))}</text>'
            f'<rect x="{LEFT}" y="{y + 4}" width="{max(x(value) - LEFT, 1):.1f}" height="14" '
            f'fill="{colour}" rx="2"/>'
            f'<text x="{x(value) + 4:.1f}" y="{y + 15}" class="small">'
            f"{'» ' if value > top else ''}{value:.1f}</text></g>"
        )
    line = " ".join(
        f"{x(-math.log10(step)):.1f},{TOP + ROW * index + (0 if end else ROW)}"
        for index, step in enumerate(steps)
        for end in (True, False)
    )
    more = len(report.tests) - len(tests)
    note = f" The {more:,} other tests have larger p-values." if more > 0 else ""
    return (
        f'<div class="chart"><svg width="{LEFT + WIDTH + 60}" height="{height}" role="img" '
        'aria-label="evidence per test">'
        f"{_axis(top, x, height - 22, 'evidence: −log10 p (longer: less likely by chance)')}"
        f'{"".join(rows)}<polyline points="{line}" fill="none" stroke="{LINE}" '
        'stroke-width="2" stroke-dasharray="5 3"/>'
        f'<text x="{LEFT + WIDTH}" y="14" text-anchor="end" class="small">dashed: Holm threshold '
        f"at family-wise level {report.alpha:g}</text></svg></div>"
        f'<p class="note">Red: flagged. Orange: within a factor of 10 of its threshold. '
        f"Smallest p-values first.{note}</p>"
    )


def _axis(top: float, x: Callable[[float], float], y: float, caption: str) -> str:
    ticks = _ticks(top)
    marks = "".join(
        f'<line x1="{x(t):.1f}" x2="{x(t):.1f}" y1="{TOP - 4}" y2="{y}" stroke="#e3e8ee"/>'
        f'<text x="{x(t):.1f}" y="{y + 14}" text-anchor="middle" class="small">{t:g}</text>'
        for t in ticks
    )
    return marks + f'<text x="{LEFT}" y="14" class="small">{escape(caption)}</text>'


def _ticks(top: float) -> list[float]:
    raw = top / 5
    magnitude = 10 ** math.floor(math.log10(raw)) if raw > 0 else 1
    step = next(m * magnitude for m in (1, 2, 5, 10) if m * magnitude >= raw)
    return [step * i for i in range(int(top / step) + 1)]


def _effects(report: Report) -> str:
    """Each charted test's odds ratio on a log scale (1: no lean), its dot's area growing
    with the decisions behind it."""
    tests = report.tests[:SHOWN]
    if not tests:
        return ""
    span = 2.0  # log10 of the widest ratio drawn: 1/100 to 100
    height = TOP + ROW * len(tests) + 26
    most = max(test.decisions for test in tests) or 1

    def x(ratio: float) -> float:
        value = -span if ratio <= 0 else span if math.isinf(ratio) else math.log10(ratio)
        return LEFT + WIDTH * (min(max(value, -span), span) + span) / (2 * span)

    rows, m = [], len(report.tests)
    for index, test in enumerate(tests):
        y = TOP + ROW * index + 11
        radius = 3 + 6 * math.sqrt(test.decisions / most)
        colour = _colour(test, report.alpha / (m - index))
        tip = escape(f"{test.name} {test.kind}: odds ratio {_ratio(test.odds_ratio)}, "
                     f"{test.decisions} decisions")  # fmt: skip
        rows.append(
            f"<g><title>{tip}</title>"
            f'<text x="{LEFT - 8}" y="{y + 4}" text-anchor="end">{escape(_label(test))}</text>'
            f'<line x1="{LEFT}" x2="{LEFT + WIDTH}" y1="{y}" y2="{y}" stroke="#f0f2f5"/>'
            f"{_dot(x(test.odds_ratio), y, radius, colour) if test.odds_ratio is not None else ''}"
            f'<text x="{LEFT + WIDTH + 6}" y="{y + 4}" class="small">{test.decisions:,}</text></g>'
        )
    ticks = "".join(
        f'<line x1="{x(r):.1f}" x2="{x(r):.1f}" y1="{TOP - 4}" y2="{height - 22}" '
        f'stroke="{LINE if r == 1 else "#e3e8ee"}"/>'
        f'<text x="{x(r):.1f}" y="{height - 8}" text-anchor="middle" class="small">{r:g}</text>'
        for r in (0.01, 0.1, 0.5, 1, 2, 10, 100)
    )
    return (
        f'<div class="chart"><svg width="{LEFT + WIDTH + 70}" height="{height}" role="img" '
        'aria-label="effect sizes">'
        f'<text x="{LEFT}" y="14" class="small">Mantel–Haenszel odds ratio (log scale; right '
        "of 1: draws more when the hidden fact favours drawing)</text>"
        f'<text x="{LEFT + WIDTH + 6}" y="14" class="small">decisions</text>'
        f"{ticks}{''.join(rows)}</svg></div>"
        '<p class="note">A dot\'s area grows with the decisions behind it; an empty row has '
        "no ratio (no stratum with both choices and both kinds of hidden fact).</p>"
    )


def _dot(x: float, y: float, radius: float, colour: str) -> str:
    return f'<circle cx="{x:.1f}" cy="{y}" r="{radius:.1f}" fill="{colour}" fill-opacity="0.85"/>'


def _ratio(ratio: float | None) -> str:
    if ratio is None:
        return "n/a"
    return "∞" if math.isinf(ratio) else f"{ratio:.2f}"


def _table(report: Report) -> str:
    head = (
        "<tr><th>seat or pair</th><th>kind</th><th>decisions</th><th>odds ratio</th>"
        "<th>p</th><th>Holm</th><th>method</th></tr>"
    )
    rows = [
        f'<tr class="{"flag" if test.flagged else ""}"><td><code>'
        f"{'<br>'.join(escape(seat) for seat in test.seats)}</code></td>"
        f"<td>{escape(test.kind)}</td><td>{test.decisions:,}</td>"
        f"<td>{_ratio(test.odds_ratio)}</td><td>{test.p:.2e}</td><td>{test.p_holm:.2e}</td>"
        f"<td>{escape(test.method)}</td></tr>"
        for test in report.tests
    ]
    return (
        f"<details{' open' if len(rows) <= 30 else ''}><summary>{len(rows):,} tests, "
        f"smallest p-value first</summary><table>{head}{''.join(rows)}</table></details>"
    )
