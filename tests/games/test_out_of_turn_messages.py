"""Messages that help: a move out of turn says whose move it is, and a move before the deal
says the round is not dealt yet (it once said "it is not seat:0's move" to a seat before any
card was out); an unknown command or option names the nearest one."""

from typing import Any

import pytest

from fairdeal.errors import IllegalActionError, OptionsError, OutOfTurnError
from fairdeal.games.kvitlach import options as kvitlach_options
from fairdeal.games.toto21 import options as toto21_options
from tests.verifier.helpers import TableDriver, kvitlach_table, toto21_table


def _refusal(driver: TableDriver, seat: int, kind: str, data: dict[str, int]) -> str:
    with pytest.raises(OutOfTurnError) as refused:
        driver.do(kind, f"seat:{seat}", data, driver.rounds[-1])
    return str(refused.value)


def test_toto21_before_the_deal_and_out_of_turn() -> None:
    driver = toto21_table("oot", rounds=0)
    round_id = driver.open_round()
    assert "not dealt yet" in _refusal(driver, 0, "hit", {})
    driver.seed(round_id, [0, 1], ["a", "b"])
    turn = driver.table.state.hand.turn
    said = _refusal(driver, 1 - turn, "hit", {})
    assert said == f"it is seat:{turn}'s move, not seat:{1 - turn}'s"


def test_kvitlach_out_of_turn_names_the_seat_to_move() -> None:
    driver = kvitlach_table("koot", rounds=0)
    round_id = driver.open_round()
    seats = [s.event for s in driver.log if s.event.type == "round_opened"][-1].data["seats"]
    driver.seed(round_id, seats, ["s"] * len(seats))
    play = driver.table.state.play
    waiting = next(seat for seat in play.order if seat != play.turn)
    assert _refusal(driver, waiting, "bet", {"amount": 1}) == f"bet: it is seat:{play.turn}'s turn"


def test_an_unknown_command_names_the_nearest_and_what_is_legal_now() -> None:
    driver = toto21_table("typo", rounds=0)
    round_id = driver.open_round()
    driver.seed(round_id, [0, 1], ["a", "b"])
    turn = driver.table.state.hand.turn
    with pytest.raises(IllegalActionError) as refused:
        driver.do("stnad", f"seat:{turn}", {}, round_id)
    assert str(refused.value).startswith("Toto21 has no command 'stnad' (did you mean 'stand'?)")
    legal = driver.game.legal_actions(driver.table.state, turn, driver.secret)
    assert "stand" in legal and str(refused.value).endswith(f"; legal now: {', '.join(legal)}")
    with pytest.raises(IllegalActionError) as refused:
        driver.do("fold", f"seat:{1 - turn}", {}, round_id)
    assert str(refused.value) == (
        "Toto21 has no command 'fold'; nothing is legal for this sender now"
    )


def test_a_kvitlach_typo_names_the_move_it_was_meant_for() -> None:
    driver = kvitlach_table("ktypo", rounds=0)
    round_id = driver.open_round()
    seats = [s.event for s in driver.log if s.event.type == "round_opened"][-1].data["seats"]
    driver.seed(round_id, seats, ["s"] * len(seats))
    turn = driver.table.state.play.turn
    with pytest.raises(IllegalActionError) as refused:
        driver.do("bte", f"seat:{turn}", {"amount": 1}, round_id)
    assert (
        str(refused.value) == "Kvitlach has no command 'bte' (did you mean 'bet'?); legal now: bet"
    )


@pytest.mark.parametrize(
    ("game", "raw", "said"),
    [
        (toto21_options, {"targt": 4}, "Toto21 has no option 'targt' (did you mean 'target'?); "),
        (
            kvitlach_options,
            {"bank_fundng": 2, "zzz": 1},
            "Kvitlach has no option 'bank_fundng' (did you mean 'bank_funding'?), 'zzz'; ",
        ),
    ],
)
def test_an_unknown_option_names_the_nearest_and_every_option(
    game: Any, raw: dict[str, int], said: str
) -> None:
    with pytest.raises(OptionsError) as refused:
        game.parse(raw)
    message = str(refused.value)
    assert message.startswith(said)
    every = sorted(game.options_schema()["properties"])  # each option a table may be given
    assert message.endswith(f"its options: {', '.join(every)}")
