"""Toto21 scoring: the showdown, double busts, the match's end and its pot."""

import pytest

from fairdeal import randomness
from fairdeal.errors import IllegalActionError, ReplayMismatchError
from fairdeal.events import Event
from fairdeal.games.toto21 import GAME
from tests.replay import replay

from .toto21_helpers import (
    Deal,
    Driver,
    dealer_two,
    double_bust,
    money_is_conserved,
    no_golden,
    player_two,
    started,
    total,
    win_round,
)


def _both_stand(driver: Driver, deal: Deal) -> dict[str, object]:
    driver.seat(deal.player, "stand")
    driver.seat(deal.dealer, "stand")
    return dict(driver.of_type("round_won")[-1].data)


def test_the_higher_total_wins_the_round_and_one_point() -> None:
    driver = started()
    deal = driver.deal(lambda d: no_golden(d) and 21 >= total(player_two(d)) > total(dealer_two(d)))
    won = _both_stand(driver, deal)
    assert won["seat"] == deal.player and won["reason"] == "higher_total"
    assert won["points"] == 1
    assert driver.state.score[deal.player] == 1 and driver.state.score[deal.dealer] == 0


def test_tie_goes_to_the_dealer() -> None:
    driver = started()
    deal = driver.deal(lambda d: no_golden(d) and total(player_two(d)) == total(dealer_two(d)))
    won = _both_stand(driver, deal)
    assert won["seat"] == deal.dealer and won["reason"] == "tie"


def test_a_player_over_21_loses() -> None:
    driver = started()
    deal = driver.deal(
        lambda d: (
            no_golden(d)
            and total(player_two(d)) < 21
            and total([*player_two(d), d.cards[4]]) > 21
            and total(dealer_two(d)) <= 21
        )
    )
    driver.seat(deal.player, "hit")
    won = _both_stand(driver, deal)
    assert won["seat"] == deal.dealer and won["reason"] == "player_over_21"


def test_a_dealer_over_21_loses() -> None:
    driver = started()
    deal = driver.deal(
        lambda d: (
            no_golden(d) and total(dealer_two(d)) < 21 and total([*dealer_two(d), d.cards[4]]) > 21
        )
    )
    driver.seat(deal.player, "stand")
    driver.seat(deal.dealer, "hit")
    driver.seat(deal.dealer, "stand")
    won = driver.of_type("round_won")[-1].data
    assert won["seat"] == deal.player and won["reason"] == "dealer_over_21"


def test_both_over_21_nobody_scores() -> None:
    driver = started()
    double_bust(driver)
    [bust] = driver.of_type("round_double_bust")
    assert bust.data["next_worth"] == 2
    assert min(bust.data["totals"]) > 21
    assert driver.state.score == (0, 0)
    assert not driver.of_type("round_won")


def test_after_a_double_bust_the_next_round_is_worth_2() -> None:
    driver = started()
    double_bust(driver)
    win_round(driver, 1)
    won = driver.of_type("round_won")[-1].data
    assert won["points"] == 2 and won["score"] == [0, 2]


def test_each_consecutive_double_bust_adds_one_point_to_the_next_round() -> None:
    driver = started(target=10)
    double_bust(driver)
    double_bust(driver)
    assert driver.of_type("round_double_bust")[-1].data["next_worth"] == 3
    win_round(driver, 0)
    assert driver.of_type("round_won")[-1].data["points"] == 3


def test_a_won_round_makes_the_next_worth_1_again() -> None:
    driver = started(target=10)
    double_bust(driver)
    win_round(driver, 0)
    win_round(driver, 0)
    assert driver.of_type("round_won")[-1].data["points"] == 1
    assert driver.state.score == (3, 0)


def test_the_showdown_shows_every_hidden_card_with_its_salt() -> None:
    driver = started()
    deal = driver.deal(lambda d: no_golden(d) and total(player_two(d)) < 21)
    driver.seat(deal.player, "hit")
    _both_stand(driver, deal)
    commitments = {
        e.data["position"]: e.data["commitment"]
        for e in driver.of_type("card_dealt")
        if e.data["face"] != "up"
    }
    shown = [c for e in driver.of_type("cards_shown") for c in e.data["cards"]]
    assert sorted(c["position"] for c in shown) == sorted(commitments)  # all hidden: 0, 2, 3, 4
    for card in shown:
        proof = randomness.card_commitment(bytes.fromhex(card["salt"]), card["card"]).hex()
        assert proof == commitments[card["position"]]
        assert card["card"] == deal.cards[card["position"]]


def test_a_round_ends_with_its_outcome_then_round_revealed() -> None:
    driver = started()
    win_round(driver, 0)
    types = [e.type for e in driver.events()]
    assert types[-4:] == ["cards_shown", "cards_shown", "round_won", "round_revealed"]
    assert driver.events()[-1].data == {"server_seed": driver.secret.hex()}  # type: ignore[union-attr]


def test_match_ends_when_a_seat_reaches_the_target_and_takes_the_pot() -> None:
    driver = started(target=2, stake=500)
    win_round(driver, 1)
    assert driver.state.phase == "playing"
    win_round(driver, 1)
    # The settlement comes before the reveal, so the round head covers it.
    last = driver.events()[-2]
    assert driver.events()[-1].type == "round_revealed"
    assert last.type == "match_won"
    assert last.data == {
        "seat": 1,
        "reason": "target",
        "score": [0, 2],
        "transfers": [{"from": "pot", "to": "seat:1", "amount": 1000}],
        "balances": {"pot": 0, "seat:0": 0, "seat:1": 1000},
    }
    assert money_is_conserved(driver)


def test_points_past_the_target_still_end_the_match() -> None:
    driver = started(target=2)
    double_bust(driver)
    win_round(driver, 0)  # worth 2 at once
    assert driver.events()[-2].type == "match_won"


def test_no_round_opens_after_the_match_ended() -> None:
    driver = started(target=2)
    win_round(driver, 0)
    win_round(driver, 0)
    with pytest.raises(IllegalActionError):
        driver.open_round()


def test_replay_of_the_log_rebuilds_the_live_state() -> None:
    driver = started(target=2, stake=3)
    double_bust(driver)
    win_round(driver, 1)
    assert driver.replayed() == driver.state


def test_a_forged_outcome_in_the_log_fails_replay() -> None:
    driver = started(target=2)
    win_round(driver, 0)
    events = driver.events()
    index = next(i for i, e in enumerate(events) if e.type == "round_won")
    forged = dict(events[index].to_json(), data={**events[index].data, "seat": 1})
    parsed = [e.to_json() for e in events]
    parsed[index] = forged
    with pytest.raises(ReplayMismatchError):
        replay({GAME.name: GAME}, [Event.from_json(e) for e in parsed])
