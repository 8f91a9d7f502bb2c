"""Kvitlach table options: defaults, ranges, and the rule set's own defaults."""

import pytest

from fairdeal import cards
from fairdeal.errors import OptionsError
from fairdeal.games.kvitlach import GAME


def test_defaults_follow_the_classic_rules() -> None:
    assert GAME.options({}) == {
        "rule_set": "classic",
        "decks": 1,
        "bank_funding": 100,
        "ante": 50,
        "max_bet": 50,
        "banker_must_draw": "16",
        "banker_exit": "mandatory",
        "order": "left",
        "max_seats": 4,
        "seed_time_ms": 30_000,
        "move_time_ms": 30_000,
    }


def test_pressburg_defaults_are_no_must_draw_optional_exit_and_alternating_order() -> None:
    full = GAME.options({"rule_set": "pressburg"})
    assert (full["banker_must_draw"], full["banker_exit"], full["order"]) == (
        "none",
        "optional",
        "alternate",
    )


def test_players_put_in_half_the_bank_funding_unless_agreed_otherwise() -> None:
    assert GAME.options({"bank_funding": 40})["ante"] == 20
    assert GAME.options({"bank_funding": 40, "ante": 7})["ante"] == 7


@pytest.mark.parametrize(
    "raw",
    [
        {},
        {"rule_set": "pressburg", "decks": 2},
        {"bank_funding": 10, "max_bet": 3, "order": "alternate"},
    ],
)
def test_full_options_are_a_fixed_point(raw: dict[str, object]) -> None:
    once = GAME.options(raw)
    assert GAME.options(once) == once


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param({"bank_funding": 7}, id="odd bank funding"),
        pytest.param({"bank_funding": 0}, id="no bank funding"),
        pytest.param({"bank_funding": 10**12 + 2}, id="bank funding over the limit"),
        pytest.param({"max_bet": 101}, id="max bet over the bank funding"),
        pytest.param({"max_bet": 0}, id="max bet zero"),
        pytest.param({"ante": -1}, id="negative ante"),
        pytest.param({"decks": 3}, id="three decks"),
        pytest.param({"decks": True}, id="a boolean is not a number"),
        pytest.param({"max_seats": 5}, id="five seats on one deck"),
        pytest.param({"decks": 2, "max_seats": 8}, id="eight seats on two decks"),
        pytest.param({"max_seats": 1}, id="a banker alone"),
        pytest.param({"banker_must_draw": 16}, id="threshold as a number"),
        pytest.param({"banker_must_draw": "17"}, id="threshold 17"),
        pytest.param({"banker_exit": "sometimes"}, id="unknown exit rule"),
        pytest.param({"order": "right"}, id="unknown order"),
        pytest.param({"rule_set": "vienna"}, id="unknown rule set"),
        pytest.param({"move_time_ms": 1.5}, id="float time"),
        pytest.param({"colour": "red"}, id="unknown option"),
    ],
)
def test_options_outside_the_rules_are_refused(raw: dict[str, object]) -> None:
    with pytest.raises(OptionsError):
        GAME.options(raw)


def test_seat_limit_is_four_on_one_deck_and_seven_on_two() -> None:
    assert GAME.options({})["max_seats"] == 4
    assert GAME.options({"decks": 2})["max_seats"] == 7


def test_deck_rules_name_the_game_and_the_number_of_decks() -> None:
    assert GAME.deck_rules(GAME.options({"decks": 2})) == {"game": "kvitlach", "decks": 2}
    assert len(cards.kvitlach_deck(1)) == 24 and len(cards.kvitlach_deck(2)) == 48
