"""The Pressburg custom (the Hebrew source): bets that deal, open cards, alternating order."""

import pytest

from fairdeal.errors import IllegalActionError, LimitError

from .kvitlach_helpers import seated


def test_pressburg_alternates_the_first_player() -> None:
    driver = seated(players=3, rule_set="pressburg")
    orders = []
    for _ in range(3):
        driver.deal()
        play = driver.state.play
        assert play is not None
        orders.append(list(play.order))
        for seat in play.order:
            driver.seat(seat, "stand")  # no bet: each sits out; the round ends at once
    assert orders == [[3, 2, 1], [1, 2, 3], [3, 2, 1]]


def test_pressburg_bet_adds_to_the_bet_and_deals_a_face_down_card() -> None:
    driver = seated(rule_set="pressburg")
    driver.deal("3", "4", "5", "2")
    events = driver.seat(1, "bet", {"amount": 10})
    assert [e.type for e in events] == ["bet", "card_dealt"]
    assert events[1].data["face"] == "down" and "card" not in events[1].data
    driver.seat(1, "bet", {"amount": 5})
    assert driver.state.play is not None and driver.state.play.hands[1].bet == 15


def test_pressburg_open_card_is_dealt_face_up_without_a_bet() -> None:
    driver = seated(rule_set="pressburg")
    driver.deal("3", "4", "5")
    assert driver.legal(1) == ["bet", "open_card", "stand"]
    events = driver.seat(1, "open_card")
    assert events[1].data["face"] == "up" and events[1].data["card"] == "5"
    assert driver.state.play is not None and driver.state.play.hands[1].bet == 0


def test_pressburg_stand_without_a_bet_sits_the_round_out() -> None:
    driver = seated(players=2, rule_set="pressburg")
    driver.deal()
    driver.seat(2, "stand")  # round 1 starts at the banker's right: seat 2
    assert driver.state.play is not None and driver.state.play.hands[2].status == "out"


def test_pressburg_total_bet_is_limited_by_the_maximum() -> None:
    driver = seated(rule_set="pressburg")
    driver.deal("1", "2", "3")
    driver.seat(1, "bet", {"amount": 30})
    with pytest.raises(LimitError):
        driver.seat(1, "bet", {"amount": 21})


def test_pressburg_has_no_hit() -> None:
    driver = seated(rule_set="pressburg")
    driver.deal()
    with pytest.raises(IllegalActionError):
        driver.seat(1, "hit")


def test_pressburg_eleven_and_twelve_first_is_an_immediate_21() -> None:
    driver = seated(rule_set="pressburg")
    driver.deal("11", None, "12")
    driver.seat(1, "bet", {"amount": 10})
    won = driver.last("hand_won").data
    assert won["reason"] == "21" and won["transfers"] == [
        {"from": "bank", "to": "seat:1", "amount": 10}
    ]


def test_pressburg_elvaroon_reject_of_an_open_card_burns_it_and_deals_the_next_face_up() -> None:
    driver = seated(rule_set="pressburg")
    driver.deal("1", None, "10", "11", "5")
    driver.seat(1, "open_card")  # 11
    driver.seat(1, "elvaroon")
    driver.seat(1, "open_card")  # an 11: 22
    assert driver.legal(1) == ["reject"]
    events = driver.seat(1, "reject")
    assert [e.type for e in events] == ["reject", "card_burned", "card_dealt"]
    assert events[2].data["face"] == "up" and events[2].data["card"] == "5"


def test_pressburg_banker_may_stop_at_any_total() -> None:
    driver = seated(rule_set="pressburg")
    driver.deal("5", "2", "3")
    driver.seat(1, "bet", {"amount": 1})  # 5 + 3
    driver.seat(1, "stand")
    assert driver.legal(0) == ["banker_draw", "banker_stop"]  # the banker holds 2
    settled = next(e for e in driver.seat(0, "banker_stop") if e.type == "round_settled")
    assert settled.data["results"][0]["outcome"] == "win"
