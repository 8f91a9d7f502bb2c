"""Toto21 clocks: seed time, move time and total game time; each end is a logged event."""

import pytest

from fairdeal.errors import IllegalActionError, NotDueError
from fairdeal.games.base import Command
from fairdeal.games.toto21 import GAME
from fairdeal.protocol import SERVER

from .toto21_helpers import (
    T0,
    Driver,
    dealer_two,
    money_is_conserved,
    no_golden,
    stand_off_winner,
    started,
    total,
    win_round,
)


def _run_due(driver: Driver, at: int) -> list[str]:
    command = GAME.due(driver.state, at)
    assert command is not None
    return [
        e.type
        for e in driver.do(command.type, command.actor, dict(command.data), command.round, at)
    ]


def test_move_timeout_stands_the_seat() -> None:
    driver = started(move_time_ms=5_000)
    deal = driver.deal(lambda d: no_golden(d) and total(dealer_two(d)) <= 21)
    deadline = driver.now + 5_000
    assert GAME.due(driver.state, deadline - 1) is None
    command = GAME.due(driver.state, deadline)
    assert command == Command(
        "move_timeout", SERVER, deadline, {"seat": deal.player, "deadline": deadline}, "r1"
    )
    assert _run_due(driver, deadline) == ["move_timeout", "move_due"]
    assert driver.state.hand is not None and driver.state.hand.turn == deal.dealer
    # The dealer's own timeout stands it too, which ends the round.
    assert _run_due(driver, deadline + 5_000)[-1] == "round_revealed"


def test_a_move_timeout_before_its_deadline_is_refused() -> None:
    driver = started()
    deal = driver.deal(no_golden)
    data = {"seat": deal.player, "deadline": driver.now + 30_000}
    with pytest.raises(NotDueError):
        driver.do("move_timeout", SERVER, data, "r1", driver.now + 29_999)


def test_a_move_at_or_after_its_deadline_is_refused() -> None:
    driver = started()
    deal = driver.deal(no_golden)
    deadline = driver.now + 30_000
    with pytest.raises(IllegalActionError):
        driver.do("stand", f"seat:{deal.player}", {}, "r1", deadline)
    driver.do("stand", f"seat:{deal.player}", {}, "r1", deadline - 1)


def test_a_hit_restarts_the_move_clock() -> None:
    driver = started()
    deal = driver.deal(lambda d: no_golden(d) and total([d.cards[0], d.cards[2]]) < 21)
    driver.do("hit", f"seat:{deal.player}", {}, "r1", driver.now + 20_000)
    assert driver.events()[-1].data == {"seat": deal.player, "deadline": driver.now + 30_000}


def test_seed_timeout_seals_the_round_with_an_empty_seed() -> None:
    driver = started(seed_time_ms=2_000)
    driver.open_round()
    driver.seat(1, "client_seed", {"seed": "only-one"})
    assert GAME.due(driver.state, T0 + 1_999) is None
    types = _run_due(driver, T0 + 2_000)
    assert types[:3] == ["seed_timeout", "round_sealed", "dealer_chosen"]
    assert driver.of_type("seed_timeout")[0].data == {"deadline": T0 + 2_000, "seats": [0]}
    assert driver.of_type("round_sealed")[0].data == {"client_seeds": ["", "only-one"]}
    with pytest.raises(IllegalActionError):
        driver.seat(0, "client_seed", {"seed": "late"})


def test_a_client_seed_at_the_seed_deadline_is_refused() -> None:
    driver = started(seed_time_ms=2_000)
    driver.open_round()
    with pytest.raises(IllegalActionError):
        driver.do("client_seed", "seat:0", {"seed": "late"}, "r1", T0 + 2_000)


def test_finding_7_a_leader_who_stalls_a_losing_hand_cannot_void_the_round() -> None:
    """Issue 11, finding 7: the game's end voided the dealt round in play, so a seat ahead
    on points that saw a losing hand stopped moving and won the match on the old score."""
    driver = started(game_time_ms=60_000, move_time_ms=60_000, stake=30)
    win_round(driver, 0)
    deal = driver.deal(lambda d: d.player == 0 and stand_off_winner(d) == 1)
    # Seat 0 leads 1-0, sees it loses if both stand, and stops moving: its move time and
    # the game time end together.
    assert _run_due(driver, T0 + 60_000) == ["move_timeout", "move_due"]
    # The dealer still has a whole move time, past the game's end.
    driver.do("stand", f"seat:{deal.dealer}", {}, "r2", T0 + 119_999)
    assert driver.of_type("round_won")[-1].data["score"] == [1, 1]
    assert _run_due(driver, T0 + 119_999) == ["game_time_up", "match_drawn"]
    assert driver.of_type("game_time_up")[0].round is None
    assert not driver.of_type("round_voided")


def test_a_game_time_up_claimed_during_a_dealt_round_is_not_due() -> None:
    driver = started(game_time_ms=60_000, move_time_ms=600_000)
    deal = driver.deal(no_golden)
    driver.seat(deal.player, "stand")
    assert GAME.due(driver.state, T0 + 600_000 - 1) is None
    with pytest.raises(NotDueError, match="dealt round"):
        driver.do("game_time_up", SERVER, {"deadline": T0 + 60_000}, "r1", T0 + 60_000)


def test_game_time_end_voids_an_unsealed_round() -> None:
    driver = started(game_time_ms=60_000, seed_time_ms=600_000)
    driver.open_round()
    types = _run_due(driver, T0 + 60_000)
    assert types == ["game_time_up", "round_voided", "match_drawn", "round_revealed"]
    assert driver.of_type("round_voided")[0].data == {"reason": "game_time_up"}
    assert driver.of_type("game_time_up")[0].data == {"deadline": T0 + 60_000}


def test_game_time_end_with_equal_points_is_a_draw_and_returns_stakes() -> None:
    driver = started(game_time_ms=60_000, stake=30)
    win_round(driver, 0)
    win_round(driver, 1)
    assert _run_due(driver, T0 + 60_000) == ["game_time_up", "match_drawn"]
    drawn = driver.events()[-1]
    assert drawn.data == {
        "score": [1, 1],
        "transfers": [
            {"from": "pot", "to": "seat:0", "amount": 30},
            {"from": "pot", "to": "seat:1", "amount": 30},
        ],
        "balances": {"pot": 0, "seat:0": 30, "seat:1": 30},
    }
    assert money_is_conserved(driver)


def test_game_time_end_with_more_points_wins_the_pot() -> None:
    driver = started(game_time_ms=60_000, stake=30)
    win_round(driver, 1)
    _run_due(driver, T0 + 60_000)
    won = driver.events()[-1]
    assert won.type == "match_won"
    assert won.data["seat"] == 1 and won.data["reason"] == "game_time_up"
    assert won.data["balances"] == {"pot": 0, "seat:0": 0, "seat:1": 60}


def test_game_time_up_before_its_deadline_is_refused() -> None:
    driver = started(game_time_ms=60_000)
    with pytest.raises(NotDueError):
        driver.do("game_time_up", SERVER, {"deadline": T0 + 60_000}, None, T0 + 59_999)


def test_the_earliest_passed_deadline_is_due_first() -> None:
    driver = started(game_time_ms=60_000, seed_time_ms=30_000)
    driver.open_round(at=T0 + 40_000)  # its seed deadline: T0 + 70_000
    late = T0 + 80_000
    assert GAME.due(driver.state, late).type == "game_time_up"  # type: ignore[union-attr]
    with pytest.raises(IllegalActionError):
        driver.do("seed_timeout", SERVER, {"deadline": T0 + 70_000, "seats": [0, 1]}, "r1", late)


def test_seeds_and_new_rounds_after_the_game_time_are_refused() -> None:
    driver = started(game_time_ms=60_000, seed_time_ms=600_000)
    driver.open_round()
    with pytest.raises(IllegalActionError, match="game time"):
        driver.do("client_seed", "seat:0", {"seed": "late"}, "r1", T0 + 60_000)
    other = started(game_time_ms=60_000)
    with pytest.raises(IllegalActionError, match="game time"):
        other.open_round(at=T0 + 60_000)


def test_nothing_is_due_after_the_match() -> None:
    driver = started(game_time_ms=60_000)
    _run_due(driver, T0 + 60_000)
    assert driver.state.phase == "over"
    assert GAME.due(driver.state, T0 + 10**9) is None
