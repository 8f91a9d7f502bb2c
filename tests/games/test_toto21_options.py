"""Toto21 options (the match conditions) and what cards are worth."""

import pytest

from fairdeal.errors import OptionsError
from fairdeal.games.toto21 import GAME
from fairdeal.games.toto21.hands import golden_point, showdown, total

DEFAULTS = {
    "game_time_ms": 1_800_000,
    "move_time_ms": 30_000,
    "seed_time_ms": 30_000,
    "stake": 0,
    "target": 4,
}


def test_missing_options_take_their_defaults() -> None:
    assert GAME.options({}) == DEFAULTS


def test_full_options_are_a_fixed_point() -> None:
    chosen = GAME.options({"target": 10, "stake": 5})
    assert GAME.options(chosen) == chosen
    assert chosen == {**DEFAULTS, "target": 10, "stake": 5}


@pytest.mark.parametrize("target", [2, 4, 6, 8, 10])
def test_target_may_be_2_4_6_8_or_10(target: int) -> None:
    assert GAME.options({"target": target})["target"] == target


@pytest.mark.parametrize("target", [0, 1, 3, 5, 7, 9, 11, 12, -2])
def test_any_other_target_is_refused(target: int) -> None:
    with pytest.raises(OptionsError):
        GAME.options({"target": target})


LIMITS = [
    ("move_time_ms", 5_000, 600_000),
    ("game_time_ms", 60_000, 86_400_000),
    ("stake", 0, 10**12),
    ("seed_time_ms", 1_000, 600_000),
]


@pytest.mark.parametrize(("name", "lowest", "highest"), LIMITS, ids=[n for n, _, _ in LIMITS])
def test_each_option_is_checked_against_its_range(name: str, lowest: int, highest: int) -> None:
    assert GAME.options({name: lowest})[name] == lowest
    assert GAME.options({name: highest})[name] == highest
    for outside in (lowest - 1, highest + 1):
        with pytest.raises(OptionsError):
            GAME.options({name: outside})


@pytest.mark.parametrize("value", [True, 4.0, "4", None, [4]])
def test_options_must_be_integers(value: object) -> None:
    with pytest.raises(OptionsError):
        GAME.options({"target": value})
    with pytest.raises(OptionsError):
        GAME.options({"stake": value})


def test_unknown_options_are_refused() -> None:
    with pytest.raises(OptionsError):
        GAME.options({"decks": 2})


def test_the_deck_rules_name_one_toto21_deck() -> None:
    assert GAME.deck_rules(GAME.options({})) == {"game": "toto21", "decks": 1}


@pytest.mark.parametrize(
    ("cards", "expected"),
    [
        (["6C", "7D"], 13),
        (["8C", "9D", "10H"], 27),
        (["JC", "QD", "KH"], 9),  # J=2, Q=3, K=4
        (["AC", "10D"], 21),  # an ace is 11
        (["AC", "AD"], 12),  # 11 + 1
        (["AC", "9D", "KH"], 14),  # 11 would bust: the ace is 1
        (["AC", "AD", "AH", "AS"], 14),  # 11 + 1 + 1 + 1
        (["AC", "AD", "9H"], 21),
    ],
)
def test_each_ace_counts_11_unless_that_busts_the_hand(cards: list[str], expected: int) -> None:
    assert total(cards) == expected


def test_golden_point_needs_the_players_first_two_cards_to_be_aces() -> None:
    assert golden_point(1, 0, ["AC", "10D"], ["6C", "7C"]) is None
    won = golden_point(1, 0, ["AC", "AD"], ["AH", "7C"])
    assert won is not None and won.winner == 1
    lost = golden_point(1, 0, ["AC", "AD"], ["AH", "AS"])
    assert lost is not None and lost.winner == 0


@pytest.mark.parametrize(
    ("player", "dealer", "winner", "reason"),
    [
        (["10C", "9C"], ["10D", "8D"], 1, "higher_total"),
        (["10C", "8C"], ["10D", "9D"], 0, "higher_total"),
        (["10C", "9C"], ["10D", "9D"], 0, "tie"),
        (["10C", "9C", "8C"], ["10D", "6D"], 0, "player_over_21"),
        (["10C", "6C"], ["10D", "9D", "8D"], 1, "dealer_over_21"),
        (["10C", "9C", "8C"], ["10D", "9D", "8D"], None, "both_over_21"),
    ],
)
def test_showdown_outcomes(
    player: list[str], dealer: list[str], winner: int | None, reason: str
) -> None:
    outcome = showdown(1, 0, player, dealer)
    assert (outcome.winner, outcome.reason) == (winner, reason)
