"""Deadlines: seed timeouts and move timeouts, each refused before it is due."""

import pytest

from fairdeal.errors import IllegalActionError, NotDueError
from fairdeal.games.kvitlach import GAME

from .kvitlach_helpers import MOVE, commitment, seated


def test_seed_timeout_seals_with_the_empty_seed_for_missing_seats() -> None:
    driver = seated()
    driver.open_round()
    driver.seat(0, "client_seed", {"seed": "mine"})
    assert GAME.due(driver.state, driver.now) is None
    command = GAME.due(driver.state, driver.now + 30_000)
    assert command is not None and command.data == {"deadline": driver.now + 30_000, "seats": [1]}
    events = driver.do(command.type, command.actor, dict(command.data), command.round, command.time)
    assert [e.type for e in events[:2]] == ["seed_timeout", "round_sealed"]
    assert events[1].data["client_seeds"] == ["mine", ""]


def test_a_move_timeout_before_the_deadline_is_refused() -> None:
    driver = seated()
    driver.deal()
    play = driver.state.play
    assert play is not None and play.deadline == driver.now + MOVE
    with pytest.raises(NotDueError):
        driver.do("move_timeout", "server", {"seat": 1, "deadline": play.deadline}, driver.round_id)


def run_due(driver: object) -> list[str]:
    command = GAME.due(driver.state, driver.now + MOVE)  # type: ignore[attr-defined]
    assert command is not None
    events = driver.do(command.type, command.actor, dict(command.data), command.round, command.time)  # type: ignore[attr-defined]
    return [e.type for e in events]


def test_a_player_who_has_not_bet_sits_out_on_timeout() -> None:
    driver = seated(players=2)
    driver.deal()
    assert run_due(driver) == ["move_timeout", "hand_closed"]
    play = driver.state.play
    assert play is not None and play.hands[1].status == "out" and play.turn == 2


def test_a_player_with_a_bet_stands_on_timeout() -> None:
    driver = seated(players=2)
    driver.deal("5", "6", "7")
    driver.seat(1, "bet", {"amount": 10})
    run_due(driver)
    assert driver.state.play is not None and driver.state.play.hands[1].status == "open"


def test_the_banker_draws_what_the_house_rule_forces_then_stops_on_timeout() -> None:
    driver = seated()
    driver.deal("9", "3", "2", "4", ["10", "11"])  # 3, 5, 9, then 19 or 20
    driver.seat(1, "bet", {"amount": 10})
    driver.seat(1, "stand")
    kinds = run_due(driver)
    draws = [
        e for e in driver.of_type("card_dealt") if e.data["seat"] == 0 and e.data["face"] == "up"
    ]
    assert len(draws) == 3 and kinds[-1] == "round_revealed"
    assert driver.last("round_settled").data["banker_result"] == "below"


def test_a_timeout_rejects_a_protected_eleven() -> None:
    driver = seated()
    driver.deal("1", "5", "10", "11", "3")
    driver.seat(1, "bet", {"amount": 10})
    driver.seat(1, "hit")
    driver.seat(1, "elvaroon")
    driver.seat(1, "hit")
    kinds = run_due(driver)
    assert kinds[:4] == ["move_timeout", "card_burned", "card_dealt", "hand_closed"]
    assert driver.state.play is not None and driver.state.play.hands[1].status != "lost"


def test_a_seed_at_or_after_the_seed_deadline_is_refused_and_the_timeout_is_due() -> None:
    driver = seated()
    driver.open_round()
    deadline = driver.now + 30_000
    with pytest.raises(IllegalActionError, match="seed time"):
        driver.do("client_seed", "seat:1", {"seed": "late"}, driver.round_id, deadline)
    assert GAME.due(driver.state, deadline) is not None


def test_a_round_id_is_used_once_per_table_not_only_the_last_one() -> None:
    driver = seated()
    driver.deal()
    first = driver.round_id or ""
    driver.time_out_round()
    driver.deal()
    driver.time_out_round()
    with pytest.raises(IllegalActionError, match="used once"):
        driver.do("round_opened", "server", {"commitment": commitment(first)}, first)
