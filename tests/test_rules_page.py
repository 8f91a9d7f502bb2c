"""The players' rules page (``/rules``) says what the engine plays and SPEC 11 and 12 state.

Every number the page gives a player is marked with a ``data-`` attribute; each marker is read
here and held to the engine's own functions and constants and to the SPEC's text. A marker
this file does not know fails, so a new number on the page cannot go unchecked.
"""

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from fairdeal.errors import IllegalActionError
from fairdeal.games.kvitlach import hands as kv_hands
from fairdeal.games.kvitlach import options as kv_options
from fairdeal.games.toto21 import hands as toto_hands
from fairdeal.games.toto21 import options as toto_options
from fairdeal.games.toto21.state import State
from tests.games.kvitlach_helpers import seated

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "api" / "static" / "web" / "rules.html"
SPEC = (ROOT / "SPEC.md").read_text(encoding="utf-8")
KNOWN = {
    "data-toto-targets",
    "data-toto-default-target",
    "data-toto-cards",
    "data-toto-worth",
    "data-kv-seats",
    "data-kv-default",
    "data-kv-cards",
    "data-kv-must-draw",
    "data-kv-exit",
    "data-kv-elvaroon-raise",
    "data-values",
}


class _Markers(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[dict[str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        marked = {name: value or "" for name, value in attrs if name.startswith("data-")}
        if marked:
            self.found.append(marked)


def _markers() -> list[dict[str, str]]:
    parser = _Markers()
    parser.feed(PAGE.read_text(encoding="utf-8"))
    return parser.found


def _all(name: str) -> list[dict[str, str]]:
    found = [m for m in _markers() if name in m]
    assert found, f"the rules page marks no {name}"
    return found


def _spec_row(name: str) -> str:
    """The SPEC options table's row for option ``name``."""
    row = re.search(rf"^\| `{name}` .*$", SPEC, re.MULTILINE)
    assert row, name
    return row.group(0)


def test_every_number_marked_on_the_page_is_one_this_file_checks() -> None:
    unknown = {name for marker in _markers() for name in marker} - KNOWN
    assert not unknown


def test_toto21_targets_and_their_default() -> None:
    (targets,) = _all("data-toto-targets")
    (default,) = _all("data-toto-default-target")
    said = tuple(int(t) for t in targets["data-toto-targets"].split())
    assert said == toto_options.TARGETS
    assert int(default["data-toto-default-target"]) == toto_options.DEFAULT_TARGET
    assert toto_options.parse({}).target == toto_options.DEFAULT_TARGET
    row = _spec_row("target")
    assert ", ".join(map(str, said)) in row and f"| {toto_options.DEFAULT_TARGET} " in row


@pytest.mark.parametrize("marker", _all("data-toto-cards"), ids=lambda m: m["data-toto-cards"])
def test_toto21_card_values(marker: dict[str, str]) -> None:
    for rank in marker["data-toto-cards"].split():
        card = rank + "S"
        values = marker["data-values"]
        if values == "face":
            assert toto_hands.total([card]) == int(rank)
            assert f"{rank[0]}" in "6789" or rank == "10"
            continue
        counted = [int(v) for v in values.split()]
        assert toto_hands.total([card]) == counted[0]
        if len(counted) > 1:  # an ace drops to its second value where the first would bust
            assert toto_hands.total([card, "KS", "10S"]) == counted[1] + 4 + 10
        spec_said = " or ".join(map(str, counted))
        assert f"{rank} = {spec_said}" in SPEC


def test_toto21_a_round_is_worth_what_the_page_says_before_any_double_bust() -> None:
    (worth,) = _all("data-toto-worth")
    assert State.__dataclass_fields__["worth"].default == int(worth["data-toto-worth"])
    assert "starting at 1" in SPEC


def test_kvitlach_seats_per_number_of_decks() -> None:
    (seats,) = _all("data-kv-seats")
    said = dict(pair.split(":") for pair in seats["data-kv-seats"].split())
    assert {int(d): int(n) for d, n in said.items()} == kv_options.SEAT_LIMITS
    row = _spec_row("max_seats")
    for decks, most in kv_options.SEAT_LIMITS.items():
        assert f"2 … {most} ({decks} deck" in row


def test_kvitlach_defaults() -> None:
    for marker in _all("data-kv-default"):
        name, value = marker["data-kv-default"].split(":")
        assert str(getattr(kv_options.parse({}), name)) == value
        assert f"| {value} |" in _spec_row(name)


@pytest.mark.parametrize("marker", _all("data-kv-cards"), ids=lambda m: m["data-kv-cards"])
def test_kvitlach_card_values(marker: dict[str, str]) -> None:
    for card in marker["data-kv-cards"].split():
        values = marker["data-values"]
        expected = {int(card)} if values == "face" else {int(v) for v in values.split()}
        assert kv_hands.totals([card]) == expected
        assert kv_hands.best([card]) == max(expected)
    assert "A 12 counts 12, 10 or 9; every other card its number" in SPEC


@pytest.mark.parametrize(
    ("attribute", "option"),
    [("data-kv-must-draw", "banker_must_draw"), ("data-kv-exit", "banker_exit")],
)
def test_kvitlach_rule_set_defaults(attribute: str, option: str) -> None:
    markers = _all(attribute)
    said = dict(m[attribute].split(":") for m in markers)
    assert set(said) == {kv_options.CLASSIC, kv_options.PRESSBURG}
    row = _spec_row(option)
    for rule_set, value in said.items():
        assert getattr(kv_options.parse({"rule_set": rule_set}), option) == value
        assert f"`{value}` {rule_set}" in row


def test_kvitlach_elvaroon_raises_the_bet_where_the_page_says() -> None:
    said = dict(m["data-kv-elvaroon-raise"].split(":") for m in _all("data-kv-elvaroon-raise"))
    assert set(said) == {kv_options.CLASSIC, kv_options.PRESSBURG}
    for rule_set, raises in said.items():
        driver = seated(rule_set=rule_set)
        driver.deal("5", None, "6")
        driver.seat(1, "bet", {"amount": 1})
        if rule_set == kv_options.CLASSIC:
            driver.seat(1, "hit")  # 5 + 6 = 11; a Pressburg bet dealt the 6
        try:
            driver.seat(1, "elvaroon", {"raise": 1})
        except IllegalActionError:
            assert raises == "no"
        else:
            assert raises == "yes"
