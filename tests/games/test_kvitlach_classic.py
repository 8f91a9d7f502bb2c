"""Classic Kvitlach (the English source), one test per rule.

Deck layouts below: the players' first cards in turn order, the banker's first card,
then every later card in the order it is drawn.
"""

from dataclasses import replace

import pytest

from fairdeal import randomness
from fairdeal.errors import IllegalActionError, LimitError, OutOfTurnError
from fairdeal.events import Event
from fairdeal.games.base import Command
from fairdeal.games.kvitlach import GAME
from fairdeal.games.kvitlach.decide import CONSEQUENCES

from .kvitlach_helpers import Driver, money_is_conserved, seated


def kinds(events: list[Event]) -> list[str]:
    return [e.type for e in events]


def commitment_holds(driver: Driver, shown: dict[str, object]) -> bool:
    """A shown card's salt opens the commitment logged when it was dealt face down."""
    dealt = [e for e in driver.of_type("card_dealt") if e.data["position"] == shown["position"]]
    salt = bytes.fromhex(str(shown["salt"]))
    opened = randomness.card_commitment(salt, str(shown["card"])).hex()
    return dealt[-1].data.get("commitment", opened) == opened


def test_each_player_and_the_banker_get_one_face_down_card_from_the_bankers_left() -> None:
    driver = seated(players=2)
    driver.deal()
    dealt = driver.of_type("card_dealt")
    assert [(e.data["seat"], e.data["position"], e.data["face"]) for e in dealt] == [
        (1, 0, "down"),
        (2, 1, "down"),
        (0, 2, "down"),
    ]
    assert all("card" not in e.data for e in dealt)
    assert driver.state.play is not None and driver.state.play.turn == 1


def test_the_player_bets_before_drawing() -> None:
    driver = seated()
    driver.deal()
    assert driver.legal(1) == ["bet"]
    with pytest.raises(IllegalActionError):
        driver.seat(1, "hit")
    with pytest.raises(IllegalActionError):
        driver.seat(1, "stand")


def test_bet_is_limited_by_the_maximum_bet() -> None:
    driver = seated()
    driver.deal()
    with pytest.raises(LimitError):
        driver.seat(1, "bet", {"amount": 51})
    driver.seat(1, "bet", {"amount": 50})
    assert driver.state.play is not None and driver.state.play.hands[1].bet == 50


def test_bet_is_limited_by_the_players_chips() -> None:
    driver = seated(buy_in=60)  # 10 left after the ante of 50
    driver.deal()
    with pytest.raises(LimitError):
        driver.seat(1, "bet", {"amount": 11})
    driver.seat(1, "bet", {"amount": 10})


def test_the_bank_sets_aside_each_bet() -> None:
    driver = seated(players=2)
    driver.deal()
    driver.seat(1, "bet", {"amount": 30})
    round_view = driver.view(None)["round"]
    assert (round_view["bank"], round_view["covered"]) == (200, 30)


def test_hit_deals_face_down_cards_one_at_a_time() -> None:
    driver = seated()
    driver.deal("3", "5", "4", "2")
    driver.seat(1, "bet", {"amount": 10})
    first = driver.seat(1, "hit")
    assert [e.type for e in first] == ["hit", "card_dealt"]
    assert first[1].data["face"] == "down" and first[1].data["position"] == 2
    assert [c["card"] for c in driver.view(1)["your_cards"]] == ["3", "4"]
    assert driver.legal(1) == ["hit", "stand"]


def test_exact_21_wins_at_once_and_shows_the_cards() -> None:
    driver = seated(players=2)
    driver.deal("10", "5", "5", "11")
    driver.seat(1, "bet", {"amount": 20})
    events = driver.seat(1, "hit")
    assert [e.type for e in events] == ["hit", "card_dealt", "cards_shown", "hand_won"]
    shown = events[2].data["cards"]
    assert [c["card"] for c in shown] == ["10", "11"]
    assert all(commitment_holds(driver, c) for c in shown)
    won = events[3].data
    assert won["transfers"] == [{"from": "bank", "to": "seat:1", "amount": 20}]
    assert won["reason"] == "21" and driver.balance(1) == 970
    assert driver.state.play is not None and driver.state.play.turn == 2


def test_two_framed_cards_first_is_an_immediate_21() -> None:
    driver = seated()
    driver.deal("2", "5", "11")
    driver.seat(1, "bet", {"amount": 10})
    won = [e for e in driver.seat(1, "hit") if e.type == "hand_won"]
    assert won[0].data["reason"] == "framed"
    assert driver.balance("bank") == 140


def test_two_twelves_first_are_an_immediate_21() -> None:
    driver = seated()
    driver.deal("12", "5", "12")
    driver.seat(1, "bet", {"amount": 10})
    assert "hand_won" in kinds(driver.seat(1, "hit"))


def test_21_with_any_number_of_cards_wins_at_once() -> None:
    driver = seated()
    driver.deal("5", "5", "6", "10")
    driver.seat(1, "bet", {"amount": 10})
    assert kinds(driver.seat(1, "hit")) == ["hit", "card_dealt"]
    assert "hand_won" in kinds(driver.seat(1, "hit"))


def test_over_21_loses_at_once_and_the_bet_goes_into_the_bank() -> None:
    driver = seated()
    driver.deal("10", "5", "8", "7")
    driver.seat(1, "bet", {"amount": 25})
    driver.seat(1, "hit")
    events = driver.seat(1, "hit")
    assert kinds(events)[:4] == ["hit", "card_dealt", "cards_shown", "hand_lost"]
    assert events[3].data["transfers"] == [{"from": "seat:1", "to": "bank", "amount": 25}]
    assert driver.balance("bank") == 175


def test_stand_keeps_an_open_bet_with_the_cards_face_down() -> None:
    driver = seated(players=2)
    driver.deal("9", "4", "5")
    driver.seat(1, "bet", {"amount": 10})
    events = driver.seat(1, "stand")
    assert [e.type for e in events] == ["stand"]
    assert driver.state.play is not None and driver.state.play.hands[1].status == "open"
    others = driver.view(2)["round"]["hands"][0]
    assert others["seat"] == 1 and others["cards"] == [{"position": 0, "card": None}]


def test_turns_pass_to_the_left_then_to_the_banker() -> None:
    driver = seated(players=3)
    driver.deal()
    turns = []
    for seat in (1, 2, 3):
        assert driver.state.play is not None
        turns.append(driver.state.play.turn)
        driver.seat(seat, "bet", {"amount": 1})
        driver.seat(seat, "stand")
    assert driver.state.play is not None
    assert turns == [1, 2, 3] and driver.state.play.turn == 0
    assert driver.legal(0) == ["banker_draw"]


def test_moves_out_of_turn_are_refused() -> None:
    driver = seated(players=2)
    driver.deal()
    with pytest.raises(OutOfTurnError):
        driver.seat(2, "bet", {"amount": 5})
    with pytest.raises(OutOfTurnError):
        driver.seat(0, "banker_draw")


def test_bank_exhausted_banker_plays_at_once() -> None:
    driver = seated(players=3, ante=0, max_bet=100)
    driver.deal()
    driver.seat(1, "bet", {"amount": 100})
    driver.seat(1, "stand")
    play = driver.state.play
    assert play is not None
    assert play.turn == 0 and play.phase == "banker"
    assert [play.hands[s].status for s in (2, 3)] == ["skipped", "skipped"]


def test_banker_keeps_the_first_card_down_and_draws_face_up() -> None:
    driver = seated()
    driver.deal("9", "6", "8")
    driver.seat(1, "bet", {"amount": 10})
    driver.seat(1, "stand")
    events = driver.seat(0, "banker_draw")
    assert events[1].data["face"] == "up" and events[1].data["card"] == "8"
    assert driver.view(1)["round"]["hands"][1]["cards"][0] == {"position": 1, "card": None}


def test_banker_must_draw_on_16() -> None:
    driver = seated()
    driver.deal("9", "10", "6", "3")
    driver.seat(1, "bet", {"amount": 10})
    driver.seat(1, "stand")
    driver.seat(0, "banker_draw")  # 16
    assert driver.legal(0) == ["banker_draw"]
    with pytest.raises(IllegalActionError):
        driver.seat(0, "banker_stop")
    driver.seat(0, "banker_draw")  # 19
    assert driver.legal(0) == ["banker_draw", "banker_stop"]


def test_banker_must_draw_on_15_when_the_table_says_so() -> None:
    driver = seated(banker_must_draw="15")
    driver.deal("9", "10", "6")
    driver.seat(1, "bet", {"amount": 10})
    driver.seat(1, "stand")
    driver.seat(0, "banker_draw")  # 16: above the threshold of 15
    assert "banker_stop" in driver.legal(0)


def test_banker_without_must_draw_may_stop_at_any_total() -> None:
    driver = seated(banker_must_draw="none")
    driver.deal("9", "3")
    driver.seat(1, "bet", {"amount": 10})
    driver.seat(1, "stand")
    assert driver.legal(0) == ["banker_draw", "banker_stop"]


def settle_after_banker(driver: Driver, *draws: str) -> dict[str, object]:
    for _ in draws:
        if driver.state.round is not None and driver.state.round.revealed:
            break
        driver.seat(0, "banker_draw")
    if driver.state.round is not None and not driver.state.round.revealed:
        driver.seat(0, "banker_stop")
    return dict(driver.last("round_settled").data)


def test_banker_exact_21_wins_all_open_bets() -> None:
    driver = seated(players=2)
    driver.deal("9", "10", "10", "11")
    for seat, bet in ((1, 10), (2, 20)):
        driver.seat(seat, "bet", {"amount": bet})
        driver.seat(seat, "stand")
    settled = settle_after_banker(driver, "11")
    assert settled["banker_result"] == "21"
    assert [r["outcome"] for r in settled["results"]] == ["lose", "lose"]  # type: ignore[attr-defined]
    assert driver.balance("bank") == 230 and money_is_conserved(driver)


def test_banker_bust_pays_every_open_bet() -> None:
    driver = seated(players=2, banker_must_draw="none")
    busting = [str(n) for n in range(6, 13)]  # 16 or 17 plus any of these is over 21
    driver.deal("9", "3", "10", ("6", "7"), busting)
    for seat, bet in ((1, 10), (2, 20)):
        driver.seat(seat, "bet", {"amount": bet})
        driver.seat(seat, "stand")
    settled = settle_after_banker(driver, "6 or 7", "6 to 12")
    assert settled["banker_result"] == "bust"
    assert settled["transfers"] == [
        {"from": "bank", "to": "seat:1", "amount": 10},
        {"from": "bank", "to": "seat:2", "amount": 20},
    ]
    assert driver.balance("bank") == 170


def test_greater_total_beats_a_banker_who_stops_below_21() -> None:
    driver = seated(players=2, banker_must_draw="none")
    driver.deal("10", "7", "9")
    for seat in (1, 2):
        driver.seat(seat, "bet", {"amount": 10})
        driver.seat(seat, "stand")
    settled = settle_after_banker(driver)
    assert settled["banker_result"] == "below" and settled["banker_total"] == 9
    assert settled["results"] == [
        {"seat": 1, "bet": 10, "total": 10, "outcome": "win"},
        {"seat": 2, "bet": 10, "total": 7, "outcome": "lose"},
    ]
    assert settled["transfers"] == [
        {"from": "bank", "to": "seat:1", "amount": 10},
        {"from": "seat:2", "to": "bank", "amount": 10},
    ]


def test_equal_total_loses_to_the_banker() -> None:
    driver = seated(banker_must_draw="none")
    driver.deal("9", "9")
    driver.seat(1, "bet", {"amount": 10})
    driver.seat(1, "stand")
    settled = settle_after_banker(driver)
    assert settled["banker_total"] == 9
    assert settled["results"] == [{"seat": 1, "bet": 10, "total": 9, "outcome": "lose"}]


def test_banker_does_not_play_when_no_bet_is_open() -> None:
    driver = seated()
    driver.deal("10", "5", "11")
    driver.seat(1, "bet", {"amount": 10})
    events = driver.seat(1, "hit")  # 21: paid at once, nothing left open
    assert [e.type for e in events][-3:] == ["cards_shown", "round_settled", "round_revealed"]
    assert events[-2].data["results"] == [] and events[-2].data["transfers"] == []


def test_elvaroon_is_called_only_at_a_total_of_11() -> None:
    driver = seated()
    driver.deal("5", "6", "4")
    driver.seat(1, "bet", {"amount": 10})
    with pytest.raises(IllegalActionError):
        driver.seat(1, "elvaroon")
    driver.seat(1, "hit")  # 9
    assert "elvaroon" not in driver.legal(1)


def test_elvaroon_lets_the_player_reject_an_eleven() -> None:
    driver = seated()
    driver.deal("1", "5", "10", "11", "4")
    driver.seat(1, "bet", {"amount": 10})
    driver.seat(1, "hit")  # 11
    assert "elvaroon" in driver.legal(1)
    driver.seat(1, "elvaroon")
    dealt = driver.seat(1, "hit")  # the 11 would make 22: no loss yet
    assert [e.type for e in dealt] == ["hit", "card_dealt"]
    assert driver.legal(1) == ["reject"]
    events = driver.seat(1, "reject")
    assert [e.type for e in events] == ["reject", "card_burned", "card_dealt"]
    burned = events[1].data
    assert (burned["position"], burned["card"]) == (3, "11") and commitment_holds(driver, burned)
    assert events[2].data["position"] == 4 and events[2].data["face"] == "down"
    assert [c["card"] for c in driver.view(1)["your_cards"]] == ["1", "10", "4"]
    assert driver.view(2)["round"]["hands"][0]["burned"] == [{"position": 3, "card": "11"}]


def test_without_elvaroon_an_eleven_over_21_loses_at_once() -> None:
    driver = seated()
    driver.deal("1", "5", "10", "11")
    driver.seat(1, "bet", {"amount": 10})
    driver.seat(1, "hit")
    assert "hand_lost" in kinds(driver.seat(1, "hit"))


def test_a_protected_eleven_making_21_wins_at_once() -> None:
    driver = seated()
    driver.deal("1", "5", "12", "11")  # 1 + 12 as 10 = 11; + 11 with the 12 as 9 = 21
    driver.seat(1, "bet", {"amount": 10})
    driver.seat(1, "hit")
    driver.seat(1, "elvaroon")
    assert "hand_won" in kinds(driver.seat(1, "hit"))


def test_reject_is_refused_unless_an_eleven_follows_an_elvaroon() -> None:
    driver = seated()
    driver.deal("1", "5", "10", "3")
    driver.seat(1, "bet", {"amount": 10})
    driver.seat(1, "hit")
    driver.seat(1, "elvaroon")
    driver.seat(1, "hit")  # a 3, not an 11
    with pytest.raises(IllegalActionError):
        driver.seat(1, "reject")


def test_elvaroon_raise_adds_to_the_bet_up_to_the_maximum() -> None:
    driver = seated()
    driver.deal("1", "5", "10")
    driver.seat(1, "bet", {"amount": 10})
    driver.seat(1, "hit")
    with pytest.raises(LimitError):
        driver.seat(1, "elvaroon", {"raise": 41})
    driver.seat(1, "elvaroon", {"raise": 40})
    assert driver.state.play is not None and driver.state.play.hands[1].bet == 50
    assert driver.last("elvaroon").data == {"raise": 40}


def test_raise_is_limited_by_the_banks_uncovered_funds() -> None:
    driver = seated(players=2, bank_funding=20, ante=0, max_bet=20)
    driver.deal("5", "1", "5", "10")
    driver.seat(1, "bet", {"amount": 15})
    driver.seat(1, "stand")
    driver.seat(2, "bet", {"amount": 2})
    driver.seat(2, "hit")  # 11
    with pytest.raises(LimitError):
        driver.seat(2, "elvaroon", {"raise": 4})  # 20 - 15 - 2 = 3 uncovered
    driver.seat(2, "elvaroon", {"raise": 3})


def test_elvaroon_is_called_once_per_hand() -> None:
    driver = seated()
    driver.deal("1", "5", "10")
    driver.seat(1, "bet", {"amount": 10})
    driver.seat(1, "hit")
    driver.seat(1, "elvaroon")
    with pytest.raises(IllegalActionError):
        driver.seat(1, "elvaroon")


def test_an_exhausted_deck_stops_drawing() -> None:
    driver = seated(banker_must_draw="16")
    driver.deal("5", "5")
    driver.seat(1, "bet", {"amount": 10})
    play = driver.state.play
    assert play is not None
    empty = replace(driver.state, play=replace(play, dealt=24))
    assert GAME.legal_actions(empty, 1, driver.secret) == ["stand"]
    with pytest.raises(IllegalActionError):
        GAME.decide(empty, Command("hit", "seat:1", driver.now, {}, driver.round_id), driver.secret)
    driver.seat(1, "stand")
    play = driver.state.play
    assert play is not None
    empty = replace(driver.state, play=replace(play, dealt=24))
    assert GAME.legal_actions(empty, 0, driver.secret) == ["banker_stop"]  # must-draw ends


@pytest.mark.parametrize("kind", sorted(CONSEQUENCES))
def test_consequence_events_are_refused_as_commands(kind: str) -> None:
    driver = seated()
    driver.deal()
    with pytest.raises(IllegalActionError):
        driver.do(kind, "server", {}, driver.round_id)


def test_players_cannot_bet_for_money_they_staked_on_other_moves() -> None:
    driver = seated(players=1, buy_in=70)  # 20 after the ante
    driver.deal("1", "5", "10")
    driver.seat(1, "bet", {"amount": 15})
    driver.seat(1, "hit")
    with pytest.raises(LimitError):
        driver.seat(1, "elvaroon", {"raise": 6})
    driver.seat(1, "elvaroon", {"raise": 5})
