"""Toto21 seats: the creator, one joiner, the creator's answer, and the stakes."""

import pytest

from fairdeal.errors import IllegalActionError, OutOfTurnError
from fairdeal.protocol import SERVER

from .toto21_helpers import (
    commitment,
    money_is_conserved,
    new_table,
    seated,
    started,
    win_round,
)


def test_creator_joins_as_seat_0_and_deposits_the_stake() -> None:
    driver = new_table(stake=250)
    [joined] = driver.seat(0, "seat_joined")
    assert joined.data == {"seat": 0, "deposit": 250, "balances": {"pot": 0, "seat:0": 250}}
    assert money_is_conserved(driver)


def test_a_joiner_must_take_the_next_free_seat() -> None:
    driver = new_table()
    with pytest.raises(OutOfTurnError):
        driver.seat(1, "seat_joined")
    driver.seat(0, "seat_joined")
    with pytest.raises(OutOfTurnError):
        driver.seat(0, "seat_joined")
    [joined] = driver.seat(1, "seat_joined")
    assert joined.data["seat"] == 1


def test_a_table_has_exactly_two_seats() -> None:
    driver = seated()
    with pytest.raises(OutOfTurnError):
        driver.seat(2, "seat_joined")
    with pytest.raises(OutOfTurnError):
        driver.seat(1, "seat_joined")


def test_only_the_creator_decides_on_the_joiner() -> None:
    driver = seated()
    for answer in ("joiner_accepted", "joiner_rejected"):
        with pytest.raises(OutOfTurnError):
            driver.seat(1, answer)
        with pytest.raises(IllegalActionError):
            driver.do(answer, SERVER)


def test_creator_rejecting_the_joiner_returns_its_deposit() -> None:
    driver = seated(stake=40)
    rejected, left = driver.seat(0, "joiner_rejected", {"seat": 1})
    assert rejected.type == "joiner_rejected"
    assert left.type == "seat_left"
    assert left.data == {"seat": 1, "withdrawal": 40, "balances": {"pot": 0, "seat:0": 40}}
    assert driver.state.seats == (0,)
    assert money_is_conserved(driver)
    # Another may join, and the match starts only on a yes.
    [joined] = driver.seat(1, "seat_joined")
    assert joined.data["deposit"] == 40
    assert driver.state.phase == "deciding"


def test_creator_accepting_the_joiner_escrows_both_stakes_and_starts_the_game_clock() -> None:
    driver = seated(stake=70, game_time_ms=120_000)
    accepted, started_ = driver.seat(0, "joiner_accepted")
    assert accepted.data == {"seat": 1}
    assert started_.type == "match_started"
    assert started_.data == {
        "transfers": [
            {"from": "seat:0", "to": "pot", "amount": 70},
            {"from": "seat:1", "to": "pot", "amount": 70},
        ],
        "balances": {"pot": 140, "seat:0": 0, "seat:1": 0},
        "game_deadline": driver.now + 120_000,
    }
    assert money_is_conserved(driver)


def test_a_zero_stake_moves_no_money() -> None:
    driver = seated(stake=0)
    _, started_ = driver.seat(0, "joiner_accepted")
    assert started_.data["transfers"] == []


def test_rounds_can_only_be_opened_after_the_match_started() -> None:
    for driver in (new_table(), seated()):
        with pytest.raises(IllegalActionError):
            driver.open_round()
    assert started().open_round()[0].data["number"] == 1


def test_a_second_round_cannot_open_while_one_is_in_progress() -> None:
    driver = started()
    driver.open_round()
    with pytest.raises(IllegalActionError):
        driver.do("round_opened", SERVER, {"commitment": commitment("rX")}, "rX")


def test_only_the_server_opens_a_round() -> None:
    driver = started()
    with pytest.raises(IllegalActionError):
        driver.do("round_opened", "seat:0", {"commitment": commitment("r1")}, "r1")


CONSEQUENCES = [
    "match_started",
    "seat_left",
    "round_sealed",
    "dealer_chosen",
    "card_dealt",
    "move_due",
    "cards_shown",
    "round_won",
    "round_double_bust",
    "round_voided",
    "round_revealed",
    "match_won",
    "match_drawn",
    "table_created",
]


@pytest.mark.parametrize("type_", CONSEQUENCES)
def test_consequence_events_are_refused_as_commands(type_: str) -> None:
    driver = started()
    for actor in (SERVER, "seat:0", "seat:1"):
        with pytest.raises(IllegalActionError):
            driver.do(type_, actor, {})


def test_a_command_may_not_contradict_its_derived_fields() -> None:
    driver = new_table(stake=10)
    with pytest.raises(IllegalActionError):
        driver.seat(0, "seat_joined", {"deposit": 0})
    with pytest.raises(IllegalActionError):
        driver.seat(0, "seat_joined", {"bonus": 1})
    driver.seat(0, "seat_joined", {"seat": 0, "deposit": 10})


def test_table_commands_may_not_name_a_round() -> None:
    driver = new_table()
    with pytest.raises(IllegalActionError):
        driver.do("seat_joined", "seat:0", {}, "r1")


def test_a_round_id_is_used_once_per_table() -> None:
    driver = started()
    win_round(driver, 0)
    with pytest.raises(IllegalActionError):
        driver.do("round_opened", SERVER, {"commitment": commitment("r1")}, "r1")
