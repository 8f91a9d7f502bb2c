"""The verdict and its pages: a partner kind is judged once per pair of seats, both seats'
choices in one test, and named as the pair; the HTML report stands alone (no address
outside the page), names the flagged seat and pair first, and the command writes it."""

import html
import json
import random
import re
from pathlib import Path

import pytest

from bench.monitor import export, seat_of, toto21_group
from fairdeal.monitor import Observation, judge, text
from fairdeal.monitor.observations import NEXT_CARD, PARTNER_CARD
from fairdeal.monitor.page import escape, page
from fairdeal.verifier import monitor_cli

CHEAT, HONEST, PARTNER = "key:" + "c" * 64, "key:" + "a" * 64, "key:" + "b" * 64


def _decisions(
    seat: str, kind: str, count: int, rng: random.Random, *, informed: bool, partner: str = ""
) -> list[Observation]:
    """``count`` choices with a hidden fact good at chance 1/2: drawn exactly when it is
    good (``informed``) or at random."""
    found = []
    for index in range(count):
        good = rng.random() < 0.5
        drew = good if informed else rng.random() < 0.5
        found.append(Observation(seat, kind, "p=1/2", drew, good, "t", f"r{index}", index,
                                 0.5, "player 12", partner))  # fmt: skip
    return found


@pytest.fixture(scope="module")
def observations() -> list[Observation]:
    rng = random.Random(29)
    return [
        *_decisions(CHEAT, NEXT_CARD, 120, rng, informed=True),
        *_decisions(HONEST, NEXT_CARD, 120, rng, informed=False),
        *_decisions(HONEST, PARTNER_CARD, 120, rng, informed=True, partner=PARTNER),
        *_decisions(PARTNER, PARTNER_CARD, 120, rng, informed=True, partner=HONEST),
    ]


def test_a_partner_kind_is_one_test_per_pair_named_as_the_pair(
    observations: list[Observation],
) -> None:
    report = judge(observations)
    pairs = [test for test in report.tests if test.kind == PARTNER_CARD]
    assert len(pairs) == 1
    (pair,) = pairs
    assert pair.seats == (HONEST, PARTNER) and pair.decisions == 240 and pair.flagged
    assert report.flagged_seats == {CHEAT, HONEST, PARTNER}
    assert f"{HONEST} & {PARTNER} partner_card" in text(report)
    assert json.dumps(pair.to_json())  # plain JSON, with the partner named
    assert pair.to_json()["partner"] == PARTNER


def test_the_html_report_stands_alone_and_shows_the_flags_first(
    observations: list[Observation],
) -> None:
    html = page(judge(observations), {"tables": 1, "rounds": 120, "decisions": 480})
    assert html.startswith("<!doctype html>") and html.count("<svg") >= 3
    assert CHEAT in html and PARTNER in html
    assert html.index(CHEAT) < html.index("Evidence, test by test")
    # nothing that a browser would fetch: no address, script, import or external resource
    assert not re.search(r"https?:|//[a-z]|<script|<link|<img|<iframe|@import|url\(", html, re.I)


def test_a_quiet_report_says_so_and_an_empty_one_too() -> None:
    html = page(judge(_decisions(HONEST, NEXT_CARD, 40, random.Random(1), informed=False)), {})
    assert "Nothing flagged" in html and "not proof" in html
    assert "nothing to test" in page(judge([]), {"rounds": 0})


def test_the_command_writes_the_html_report(tmp_path: Path) -> None:
    seats = [seat_of("cheat", "threshold", 0.0), seat_of("mark", "random", 0.0)]
    seats[0].cheat, seats[0].strategy = 1.0, "next-tip"
    bundles = toto21_group(seats, 60, random.Random(5), "h")
    path, html = tmp_path / "export.jsonl", tmp_path / "report.html"
    path.write_text("".join(json.dumps(line) + "\n" for line in export(bundles)))
    assert monitor_cli.main([str(path), "--html", str(html)]) == 1
    assert seats[0].key_name in html.read_text(encoding="utf-8")


def test_text_is_escaped_as_the_standard_library_does() -> None:
    text = '<a href="x">Tom & Jerry\'s</a>'
    assert escape(text) == html.escape(text)
