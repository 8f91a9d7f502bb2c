"""Three Kvitlach rules an outside review found unsettled or unfaithful (SPEC 12.5, 12.6,
12.7), and how logs written before each correction are judged (SPEC 7.19)."""

from dataclasses import replace

import pytest

from fairdeal.errors import IllegalActionError, ReplayMismatchError
from fairdeal.events import Event
from fairdeal.games.kvitlach import GAME
from tests.replay import replay

from .kvitlach_helpers import Driver, money_is_conserved, seated
from .test_kvitlach_classic import settle_after_banker


def _framed_banker() -> Driver:
    """A player stands on 10; the banker's 2 and then 11 make a framed pair."""
    driver = seated(banker_must_draw="none")
    driver.deal("10", "2", "11")
    driver.seat(1, "bet", {"amount": 10})
    driver.seat(1, "stand")
    settle_after_banker(driver, "11")
    return driver


def test_a_bankers_framed_pair_is_logged_as_the_21_it_counts_as() -> None:
    settled = _framed_banker().last("round_settled").data
    assert (settled["banker_result"], settled["banker_total"]) == ("21", 21)
    assert settled["results"] == [{"seat": 1, "bet": 10, "total": 10, "outcome": "lose"}]


def _with_banker_total(driver: Driver, banker_total: int) -> list[Event]:
    events = driver.events()
    return [
        replace(e, data={**e.data, "banker_total": banker_total})
        if e.type == "round_settled"
        else e
        for e in events
    ]


def test_a_log_of_the_earlier_service_with_the_pairs_own_total_still_replays() -> None:
    # 2 + 11 = 13: what services before the correction logged beside banker_result "21".
    replayed = replay({GAME.name: GAME}, _with_banker_total(_framed_banker(), 13))
    assert replayed.state.balances["bank"] == 160


@pytest.mark.parametrize("banker_total", [12, 14, 22])
def test_any_other_banker_total_for_the_pair_is_a_mismatch(banker_total: int) -> None:
    with pytest.raises(ReplayMismatchError, match="banker_total=21"):
        replay({GAME.name: GAME}, _with_banker_total(_framed_banker(), banker_total))


# A broke player holds the bank hostage no longer (SPEC 12.7, no_players).


def test_the_term_ends_when_the_last_player_who_could_play_goes_broke() -> None:
    driver = seated(buy_in=51, banker_must_draw="none")  # the ante is 50: one unit to bet
    driver.deal("10", "10")
    driver.seat(1, "bet", {"amount": 1})
    driver.seat(1, "stand")
    run = driver.seat(0, "banker_stop")  # 10 against 10: the player loses its last unit
    kinds = [e.type for e in run]
    assert kinds[-3:] == ["round_settled", "term_ended", "round_revealed"]
    ended = run[-2]
    assert ended.round == driver.round_id and ended.data["reason"] == "no_players"
    assert ended.data["transfers"] == [{"from": "bank", "to": "seat:0", "amount": 151}]
    assert driver.balance(1) == 0 and driver.state.term is None
    driver.seat(0, "seat_left")  # the banker is free to go
    assert money_is_conserved(driver)


def test_the_term_ends_when_every_player_goes_broke_in_one_round() -> None:
    driver = seated(players=2, buy_in=51, banker_must_draw="none")
    driver.deal("9", "8", "10")
    for seat in (1, 2):
        driver.seat(seat, "bet", {"amount": 1})
        driver.seat(seat, "stand")
    driver.seat(0, "banker_stop")
    assert driver.last("term_ended").data["reason"] == "no_players"


def test_when_the_one_who_can_play_leaves_a_broke_player_does_not_keep_the_term() -> None:
    driver = seated(buy_in=51, banker_must_draw="none")
    driver.join(2, 1_000)
    driver.deal("10", "9", "10")  # seat 1 on 10, seat 2 on 9, the banker on 10
    for seat in (1, 2):
        driver.seat(seat, "bet", {"amount": 1})
        driver.seat(seat, "stand")
    driver.seat(0, "banker_stop")
    assert driver.balance(1) == 0 and driver.state.term is not None  # seat 2 plays on
    left = driver.seat(2, "seat_left")
    assert [e.type for e in left] == ["seat_left", "term_ended"]
    assert left[1].round is None and left[1].data["reason"] == "no_players"
    assert 1 in driver.state.seats  # the broke player may stay; nobody waits on it


def test_a_player_short_of_the_ante_does_not_keep_the_term() -> None:
    # Seat 2 joins during the term with less than the ante and a unit: it can never play.
    driver = seated(buy_in=51, banker_must_draw="none")
    driver.join(2, 50)
    driver.deal("10", "10")
    driver.seat(1, "bet", {"amount": 1})
    driver.seat(1, "stand")
    driver.seat(0, "banker_stop")
    assert driver.last("term_ended").data["reason"] == "no_players"


# Pressburg's Elvaroon raises nothing (the Hebrew source's Elvarun).


def _pressburg_at_eleven() -> Driver:
    driver = seated(rule_set="pressburg")
    driver.deal("1", None, "10")
    driver.seat(1, "open_card")  # 1 + 10 = 11
    return driver


def test_a_pressburg_elvaroon_with_a_raise_is_refused() -> None:
    driver = _pressburg_at_eleven()
    with pytest.raises(IllegalActionError, match="raises nothing"):
        driver.seat(1, "elvaroon", {"raise": 5})
    assert driver.state.play is not None and not driver.state.play.hands[1].elvaroon


@pytest.mark.parametrize("data", [{}, {"raise": 0}])
def test_a_pressburg_elvaroon_without_a_raise_is_logged_with_raise_0(
    data: dict[str, int],
) -> None:
    driver = _pressburg_at_eleven()
    driver.seat(1, "elvaroon", data)
    assert driver.last("elvaroon").data == {"raise": 0}
    assert driver.state.play is not None and driver.state.play.hands[1].bet == 0


@pytest.mark.parametrize("data", [{"raise": False}, {"raise": 0.0}])
def test_a_pressburg_raise_of_another_type_is_refused(data: dict[str, object]) -> None:
    with pytest.raises(IllegalActionError):
        _pressburg_at_eleven().seat(1, "elvaroon", data)


def test_a_classic_elvaroon_still_raises() -> None:
    driver = seated()
    driver.deal("5", None, "6")
    driver.seat(1, "bet", {"amount": 10})
    driver.seat(1, "hit")  # 5 + 6 = 11
    driver.seat(1, "elvaroon", {"raise": 20})
    assert driver.state.play is not None and driver.state.play.hands[1].bet == 30
