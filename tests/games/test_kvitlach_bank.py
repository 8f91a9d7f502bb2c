"""Seats, the bank and the banker's term: funding, antes, leaving, rotation, exits."""

import pytest

from fairdeal.errors import IllegalActionError, LimitError, OutOfTurnError
from fairdeal.games.money import MAX_TABLE_TOTAL, total

from .kvitlach_helpers import (
    ANTES_PILING_UP,
    LARGEST,
    Driver,
    Want,
    fill_with_antes,
    money_is_conserved,
    new_table,
    seated,
)


def quick_round(driver: Driver, banker_first: Want = None) -> None:
    """Every player bets 1 and stands on one card; the banker stops at once."""
    players = len(driver.state.seats) - 1
    driver.deal(*[None] * players, banker_first)
    play = driver.state.play
    assert play is not None
    for seat in play.order:
        driver.seat(seat, "bet", {"amount": 1})
        driver.seat(seat, "stand")
    driver.seat(play.banker, "banker_stop")


NOT_4_OR_7 = [str(n) for n in range(1, 13) if n not in (4, 7)]


def test_the_creator_joins_first_as_seat_0_and_is_the_first_banker() -> None:
    driver = new_table()
    with pytest.raises(OutOfTurnError):
        driver.join(1)
    driver.join(0)
    driver.join(1)
    assert driver.open_round()[0].data["banker"] == 0


def test_joiners_take_the_lowest_free_seat() -> None:
    driver = seated(players=2)
    driver.seat(1, "seat_left")
    with pytest.raises(OutOfTurnError):
        driver.join(3)
    driver.join(1)
    assert driver.state.seats == (0, 1, 2)


def test_a_full_table_refuses_joiners() -> None:
    driver = seated(players=3)
    with pytest.raises(OutOfTurnError):
        driver.join(4)


def test_the_buy_in_is_logged_as_a_deposit() -> None:
    driver = new_table()
    event = driver.join(0, 500)[0]
    assert event.data == {"buy_in": 500, "balances": {"seat:0": 500}}
    with pytest.raises(IllegalActionError):
        driver.join(1, 0)


def test_the_bank_is_funded_by_the_banker_and_half_as_much_by_each_player() -> None:
    driver = seated(players=2)
    funded = next(e for e in driver.open_round() if e.type == "bank_funded")
    assert funded.data["transfers"] == [
        {"from": "seat:0", "to": "bank", "amount": 100},
        {"from": "seat:1", "to": "bank", "amount": 50},
        {"from": "seat:2", "to": "bank", "amount": 50},
    ]
    assert funded.data["balances"]["bank"] == 200 and funded.data["paid"] == [1, 2]


def test_a_seat_that_cannot_pay_the_ante_and_one_unit_sits_out() -> None:
    driver = seated(players=1)
    driver.join(2, 50)  # the ante alone would leave nothing to bet
    opened = driver.open_round()
    assert opened[0].data["seats"] == [0, 1]
    assert driver.balance(2) == 50
    assert driver.state.term is not None and 2 not in driver.state.term.paid


def test_a_banker_who_cannot_fund_the_bank_is_passed_over_to_the_right() -> None:
    driver = seated(players=2, banker_buy_in=99)
    opened = driver.open_round()
    assert opened[0].data["banker"] == 2  # the right of seat 0 is the highest seat
    assert opened[1].data["transfers"][0] == {"from": "seat:2", "to": "bank", "amount": 100}


def test_the_ante_is_paid_once_per_term() -> None:
    driver = seated(banker_must_draw="none")
    quick_round(driver)
    assert "bank_funded" not in [e.type for e in driver.open_round()]


def test_a_seat_joining_during_a_term_pays_its_ante_at_its_first_round() -> None:
    driver = seated(banker_must_draw="none")
    quick_round(driver)
    driver.join(2)
    funded = next(e for e in driver.open_round() if e.type == "bank_funded")
    assert funded.data["paid"] == [2]
    assert funded.data["transfers"] == [{"from": "seat:2", "to": "bank", "amount": 50}]


def test_finding_2_a_newcomer_in_a_departed_seat_pays_the_ante() -> None:
    """Issue 11, finding 2: the ante was remembered by seat number, so a newcomer in the
    seat of a player who paid and left played the term without paying."""
    driver = seated(players=2, banker_must_draw="none")
    quick_round(driver)  # seats 1 and 2 pay the term's ante
    driver.seat(1, "seat_left")  # seat 2 still plays: the term goes on
    driver.join(1)
    funded = next(e for e in driver.open_round() if e.type == "bank_funded")
    assert funded.data["paid"] == [1]
    assert funded.data["transfers"] == [{"from": "seat:1", "to": "bank", "amount": 50}]
    assert money_is_conserved(driver)


def test_finding_2_a_newcomer_in_a_departed_seat_who_cannot_pay_the_ante_sits_out() -> None:
    driver = seated(players=2, banker_must_draw="none")
    quick_round(driver)
    driver.seat(1, "seat_left")
    driver.join(1, 50)  # the ante alone would leave nothing to bet
    assert driver.open_round()[0].data["seats"] == [0, 2]
    assert driver.balance(1) == 50


def test_seats_join_and_leave_only_between_rounds() -> None:
    driver = seated()
    driver.open_round()
    with pytest.raises(IllegalActionError):
        driver.do("seat_joined", "seat:2", {"buy_in": 10})
    with pytest.raises(IllegalActionError):
        driver.do("seat_left", "seat:1")


def test_leaving_withdraws_the_balance() -> None:
    driver = seated(players=2, banker_must_draw="none")
    quick_round(driver)
    before = driver.balance(2)
    event = driver.seat(2, "seat_left")[0]
    assert event.data["withdrawal"] == before and "seat:2" not in event.data["balances"]
    assert money_is_conserved(driver)


def test_the_banker_cannot_leave_during_the_term() -> None:
    driver = seated(players=2, banker_must_draw="none")
    quick_round(driver)
    assert "seat_left" not in driver.legal(0)
    with pytest.raises(IllegalActionError):
        driver.seat(0, "seat_left")


def test_the_last_player_leaving_ends_the_term_and_returns_the_bank() -> None:
    driver = seated(banker_must_draw="none")
    quick_round(driver)
    bank = driver.balance("bank")
    events = driver.seat(1, "seat_left")
    ended = events[1].data
    assert ended["reason"] == "no_players" and ended["next_banker"] == 0
    assert ended["transfers"] == [{"from": "bank", "to": "seat:0", "amount": bank}]
    assert driver.state.term is None and "seat_left" in driver.legal(0)


def test_banker_with_4_or_7_from_round_4_exits_and_banker_passes_right() -> None:
    driver = seated(players=2, banker_must_draw="none")
    for _ in range(3):
        quick_round(driver, NOT_4_OR_7)
    quick_round(driver, ("4", "7"))
    ended = driver.last("term_ended").data
    assert (ended["reason"], ended["banker"], ended["next_banker"]) == ("four_or_seven", 0, 2)
    assert ended["balances"].get("bank", 0) == 0 and driver.state.banker == 2
    assert driver.open_round()[0].data["banker"] == 2


def test_banker_with_4_or_7_before_round_4_stays() -> None:
    driver = seated(players=1, banker_must_draw="none")
    for _ in range(3):
        quick_round(driver, ("4", "7"))
    assert driver.of_type("term_ended") == [] and driver.state.term is not None


def test_the_exit_counts_the_bankers_own_rounds_not_the_tables() -> None:
    driver = seated(players=1, banker_must_draw="none", bank_funding=2, ante=0, max_bet=2)
    driver.deal("10", "3")  # the player wins the whole bank: the term ends
    driver.seat(1, "bet", {"amount": 2})
    driver.seat(1, "stand")
    driver.seat(0, "banker_stop")
    assert driver.state.banker == 1
    for _ in range(3):
        quick_round(driver, ("4", "7"))  # table rounds 2-4, the new banker's 1-3
    assert driver.state.term is not None and driver.state.term.banker == 1


def test_optional_exit_lets_the_banker_take_the_bank_or_stay() -> None:
    driver = seated(players=1, banker_exit="optional", banker_must_draw="none")
    for _ in range(3):
        quick_round(driver, NOT_4_OR_7)
    quick_round(driver, ("4", "7"))
    assert driver.of_type("term_ended") == [] and "banker_exit" in driver.legal(0)
    bank = driver.balance("bank")
    ended = driver.seat(0, "banker_exit")[1].data
    assert ended["reason"] == "banker_exit" and ended["next_banker"] == 1
    assert ended["transfers"] == [{"from": "bank", "to": "seat:0", "amount": bank}]


def test_an_optional_exit_not_taken_lapses_with_the_next_round() -> None:
    driver = seated(players=1, banker_exit="optional", banker_must_draw="none")
    for _ in range(3):
        quick_round(driver, NOT_4_OR_7)
    quick_round(driver, ("4", "7"))
    driver.open_round()
    assert driver.state.exit_offer is False
    with pytest.raises(IllegalActionError):
        driver.do("banker_exit", "seat:0")


def test_exit_off_keeps_the_banker_on_4_or_7() -> None:
    driver = seated(players=1, banker_exit="off", banker_must_draw="none")
    for _ in range(4):
        quick_round(driver, ("4", "7"))
    assert driver.of_type("term_ended") == [] and driver.legal(0) == []


def test_an_empty_bank_ends_the_term_and_the_role_passes_right() -> None:
    driver = seated(players=2, banker_must_draw="none", bank_funding=2, ante=0, max_bet=2)
    driver.deal("10", None, "3")
    driver.seat(1, "bet", {"amount": 2})
    driver.seat(1, "stand")  # the whole bank is set aside: seat 2 is skipped
    driver.seat(0, "banker_stop")
    ended = driver.last("term_ended").data
    assert ended["reason"] == "bank_empty" and ended["transfers"] == []
    assert ended["next_banker"] == 2 and driver.state.banker == 2
    assert money_is_conserved(driver)


def test_finding_3_money_that_would_take_a_table_past_its_total_is_refused() -> None:
    """Issue 11, finding 3: nothing bounded the money at a table, so antes piled up past
    2^53 - 1 and then no balance, and so no departure or timeout, could be logged."""
    driver = seated(0, banker_buy_in=LARGEST, **ANTES_PILING_UP)
    fill_with_antes(driver)
    seat = 1
    while (room := MAX_TABLE_TOTAL - total(driver.state.balances)) >= LARGEST:
        driver.join(seat, LARGEST)
        seat += 1
    with pytest.raises(LimitError, match=f"at most {room} more"):
        driver.join(seat, room + 1)
    driver.join(seat, room)
    assert total(driver.state.balances) == MAX_TABLE_TOTAL
    with pytest.raises(LimitError):
        driver.join(seat + 1, 1)

    driver.open_round()  # every timeout of a round at the bound is logged
    driver.time_out_round()
    for player in range(1, seat + 1):
        driver.seat(player, "seat_left")
    assert driver.state.seats == (0,) and money_is_conserved(driver)
