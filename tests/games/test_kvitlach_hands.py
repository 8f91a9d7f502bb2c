"""Hand totals: the 12's three values, busts, framed pairs, the Elvaroon total."""

import pytest

from fairdeal.games.kvitlach import hands


def test_twelve_counts_as_twelve_ten_or_nine_to_the_holders_advantage() -> None:
    assert hands.totals(["12", "5"]) == {17, 15, 14}
    assert hands.best(["12", "5"]) == 17
    assert hands.best(["12", "8", "2"]) == 20  # 12 would bust: it counts 10
    assert hands.best(["12", "7", "3"]) == 20  # 10 + 7 + 3
    assert hands.best(["12", "9", "11"]) == 29  # a bust hand: its lowest total, 9 + 9 + 11


def test_bust_counts_every_twelve_at_its_lowest() -> None:
    assert hands.is_bust(["12", "12", "5"])  # 9 + 9 + 5 = 23
    assert not hands.is_bust(["12", "10", "2"])  # 9 + 10 + 2 = 21
    assert hands.is_twenty_one(["12", "10", "2"])


@pytest.mark.parametrize("pair", [["2", "2"], ["2", "11"], ["11", "2"], ["11", "11"]])
def test_two_framed_cards_first_count_as_21(pair: list[str]) -> None:
    assert hands.is_twenty_one(pair)
    assert hands.win_reason(pair) == "framed"


def test_framed_cards_count_as_21_only_as_the_first_two() -> None:
    assert not hands.is_twenty_one(["5", "2", "2"])
    assert not hands.is_twenty_one(["2", "5", "11"])


@pytest.mark.parametrize("pair", [["12", "12"], ["12", "9"], ["12", "11"], ["11", "10"]])
def test_twelve_pairs_and_eleven_ten_reach_21(pair: list[str]) -> None:
    assert hands.is_twenty_one(pair)
    assert hands.win_reason(pair) == "21"


def test_elvaroon_needs_a_total_of_exactly_11() -> None:
    assert hands.can_call_elvaroon(["1", "10"])
    assert hands.can_call_elvaroon(["1", "12"])  # the 12 counted as 10
    assert hands.can_call_elvaroon(["11"])
    assert not hands.can_call_elvaroon(["5", "5"])
    assert not hands.can_call_elvaroon(["5", "7"])
