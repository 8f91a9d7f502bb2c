"""A Toto21 round: the dealer's choice, the deal, the turns, the golden point, the blind card."""

import json

import pytest

from fairdeal import cards, randomness
from fairdeal.errors import IllegalActionError, OutOfTurnError, SealedError
from fairdeal.games import dealing
from fairdeal.games.toto21 import GAME
from fairdeal.games.toto21.state import DECK_RULES

from .toto21_helpers import (
    ALL_ACES_SEED_START,
    Deal,
    Driver,
    dealer_two,
    is_ace,
    no_golden,
    player_two,
    started,
    total,
)


def test_dealer_choice_comes_from_the_shuffle_key() -> None:
    for dealer in (0, 1):

        def dealt_by(d: Deal, dealer: int = dealer) -> bool:
            return d.dealer == dealer and no_golden(d)

        driver = started()
        driver.deal(dealt_by)
        [sealed] = driver.of_type("round_sealed")
        assert driver.round_id is not None and driver.secret is not None
        deck = dealing.round_deck(
            driver.secret, driver.round_id, sealed.data["client_seeds"], DECK_RULES
        )
        expected = [0, 1][randomness.choose(deck.key, "dealer", 2)]
        [chosen] = driver.of_type("dealer_chosen")
        assert chosen.data == {"dealer": expected, "player": 1 - expected}
        assert expected == dealer


def test_the_deal_is_player_down_dealer_up_player_down_dealer_hole() -> None:
    driver = started()
    deal = driver.deal(no_golden)
    dealt = driver.of_type("card_dealt")
    assert [(e.data["position"], e.data["seat"], e.data["face"]) for e in dealt] == [
        (0, deal.player, "down"),
        (1, deal.dealer, "up"),
        (2, deal.player, "down"),
        (3, deal.dealer, "down"),
    ]
    assert dealt[1].data["card"] == deal.cards[1]
    assert all("card" not in e.data for e in (dealt[0], dealt[2], dealt[3]))


def test_the_player_moves_first() -> None:
    driver = started()
    deal = driver.deal(no_golden)
    assert driver.events()[-1].type == "move_due"
    assert driver.events()[-1].data == {"seat": deal.player, "deadline": driver.now + 30_000}
    with pytest.raises(OutOfTurnError):
        driver.seat(deal.dealer, "hit")
    with pytest.raises(OutOfTurnError):
        driver.seat(deal.dealer, "stand")


def test_a_hit_deals_the_next_card_face_down_and_the_turn_goes_on() -> None:
    driver = started()
    deal = driver.deal(lambda d: no_golden(d) and total(player_two(d)) < 21)
    hit, card, due = driver.seat(deal.player, "hit")
    assert (hit.type, card.type, due.type) == ("hit", "card_dealt", "move_due")
    assert card.data["position"] == 4 and card.data["face"] == "down"
    assert card.data["seat"] == deal.player and "card" not in card.data
    assert due.data["seat"] == deal.player


def test_a_participant_may_hit_only_while_the_cards_they_see_total_below_21() -> None:
    driver = started()
    deal = driver.deal(lambda d: total(player_two(d)) == 21 and total(dealer_two(d)) < 21)
    assert GAME.legal_actions(driver.state, deal.player, driver.secret) == ["stand"]
    for draw in ("hit", "blind"):
        with pytest.raises(IllegalActionError):
            driver.seat(deal.player, draw)
    driver.seat(deal.player, "stand")
    assert GAME.legal_actions(driver.state, deal.dealer, driver.secret) == ["hit", "stand"]


def test_the_dealer_plays_after_the_player_stands_and_its_stand_ends_the_round() -> None:
    driver = started()
    deal = driver.deal(lambda d: no_golden(d) and total(dealer_two(d)) < 21)
    _, due = driver.seat(deal.player, "stand")
    assert due.data["seat"] == deal.dealer
    with pytest.raises(OutOfTurnError):
        driver.seat(deal.player, "hit")
    driver.seat(deal.dealer, "hit")
    events = driver.seat(deal.dealer, "stand")
    assert events[-1].type == "round_revealed"


def test_a_players_bust_is_not_announced_and_the_dealer_still_plays() -> None:
    driver = started()

    def player_busts_on_a_hit(d: Deal) -> bool:
        mine = player_two(d)
        return no_golden(d) and total(mine) < 21 and total([*mine, d.cards[4]]) > 21

    deal = driver.deal(player_busts_on_a_hit)
    events = driver.seat(deal.player, "hit")
    assert [e.type for e in events] == ["hit", "card_dealt", "move_due"]
    assert driver.view(deal.dealer)["round"]["turn"] == deal.player
    assert GAME.legal_actions(driver.state, deal.player, driver.secret) == ["stand"]
    _, due = driver.seat(deal.player, "stand")
    assert due.data["seat"] == deal.dealer


def test_golden_point_two_aces_win_the_round_at_once() -> None:
    driver = started()
    deal = driver.deal(lambda d: not no_golden(d) and not all(map(is_ace, dealer_two(d))))
    types = [e.type for e in driver.events()]
    start = types.index("card_dealt")
    assert types[start + 4 :] == ["cards_shown", "cards_shown", "round_won", "round_revealed"]
    shown_player, shown_dealer, won = driver.events()[start + 4 : start + 7]
    assert [c["card"] for c in shown_player.data["cards"]] == player_two(deal)
    assert shown_dealer.data["seat"] == deal.dealer
    assert [c["position"] for c in shown_dealer.data["cards"]] == [3]  # the hole card
    assert won.data["seat"] == deal.player and won.data["reason"] == "golden_point"
    assert "move_due" not in types


def test_a_seed_for_a_round_that_ended_at_the_deal_is_refused_as_sealed() -> None:
    driver = started()
    driver.deal(lambda d: not no_golden(d))
    assert not driver.state.in_round()
    with pytest.raises(SealedError):
        driver.seat(1, "client_seed", {"seed": "late"})


def test_dealers_two_aces_beat_the_players_golden_point() -> None:
    driver = started()
    deal = driver.deal(lambda d: all(map(is_ace, d.cards[:4])), start=ALL_ACES_SEED_START)
    won = driver.of_type("round_won")[0]
    assert won.data["seat"] == deal.dealer
    assert won.data["reason"] == "dealer_two_aces"
    assert driver.state.score[deal.dealer] == 1


def test_dealers_two_aces_alone_are_an_ordinary_12() -> None:
    driver = started()
    deal = driver.deal(lambda d: all(map(is_ace, dealer_two(d))) and no_golden(d))
    assert driver.events()[-1].type == "move_due"  # no automatic win: play goes on
    driver.seat(deal.player, "stand")
    driver.seat(deal.dealer, "stand")
    won = driver.of_type("round_won")[0]
    assert won.data["totals"][deal.dealer] == 12


def _blind_round() -> tuple[Driver, Deal]:
    driver = started()
    deal = driver.deal(lambda d: no_golden(d) and total(player_two(d)) < 21)
    return driver, deal


def test_blind_card_is_hidden_from_both_until_showdown() -> None:
    driver, deal = _blind_round()
    _, card, _ = driver.seat(deal.player, "blind")
    assert card.data["face"] == "blind" and "card" not in card.data
    code = deal.cards[4]  # the blind card is deck position 4
    for seat in (deal.player, deal.dealer, None):
        view = driver.view(seat)
        blind = next(c for c in view["round"]["cards"] if c["position"] == 4)
        assert "card" not in blind and "salt" not in blind
        assert f'"{code}"' not in json.dumps(view)
    driver.seat(deal.player, "stand")
    driver.seat(deal.dealer, "stand")
    shown = driver.of_type("cards_shown")[0]
    assert shown.data["seat"] == deal.player
    assert [(c["position"], c["card"]) for c in shown.data["cards"]][-1] == (4, code)


def test_blind_card_does_not_end_the_turn() -> None:
    driver, deal = _blind_round()
    _, _, due = driver.seat(deal.player, "blind")
    assert due.data["seat"] == deal.player
    assert "hit" in GAME.legal_actions(driver.state, deal.player, driver.secret)
    driver.seat(deal.player, "hit")


def test_only_one_blind_card_per_round() -> None:
    driver, deal = _blind_round()
    driver.seat(deal.player, "blind")
    assert "blind" not in GAME.legal_actions(driver.state, deal.player, driver.secret)
    with pytest.raises(IllegalActionError):
        driver.seat(deal.player, "blind")


def test_only_the_rounds_player_takes_a_blind_card() -> None:
    driver = started()
    deal = driver.deal(lambda d: no_golden(d) and total(dealer_two(d)) < 21)
    driver.seat(deal.player, "stand")
    assert "blind" not in GAME.legal_actions(driver.state, deal.dealer, driver.secret)
    with pytest.raises(OutOfTurnError):
        driver.seat(deal.dealer, "blind")


def test_the_blind_card_counts_at_the_showdown() -> None:
    driver = started()

    def blind_busts_the_player(d: Deal) -> bool:
        mine = player_two(d)
        return (
            no_golden(d)
            and total(mine) < 21
            and total([*mine, d.cards[4]]) > 21
            and total(dealer_two(d)) <= 21
        )

    deal = driver.deal(blind_busts_the_player)
    driver.seat(deal.player, "blind")
    driver.seat(deal.player, "stand")
    driver.seat(deal.dealer, "stand")
    won = driver.of_type("round_won")[0]
    assert won.data["seat"] == deal.dealer and won.data["reason"] == "player_over_21"


def test_every_round_deals_from_one_shuffled_36_card_deck() -> None:
    driver = started()
    deal = driver.deal(no_golden)
    assert sorted(deal.cards) == sorted(cards.toto21_deck())
    assert len(deal.cards) == 36
