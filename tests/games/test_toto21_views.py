"""What each Toto21 seat may see, and what it may do."""

import json

from fairdeal.games.toto21 import GAME

from .toto21_helpers import new_table, no_golden, player_two, seated, started, total, win_round


def _cards(view: dict) -> dict[int, dict]:  # type: ignore[type-arg]
    return {c["position"]: c for c in view["round"]["cards"]}


def test_each_seat_sees_its_own_cards_with_code_and_salt() -> None:
    driver = started()
    deal = driver.deal(no_golden)
    deck_salt = driver.state.round.deck(driver.secret, GAME.deck_rules({})).salt  # type: ignore[union-attr]
    mine = _cards(driver.view(deal.player))
    assert mine[0]["card"] == deal.cards[0] and mine[0]["salt"] == deck_salt(0).hex()
    assert mine[2]["card"] == deal.cards[2]
    theirs = _cards(driver.view(deal.dealer))
    assert theirs[3]["card"] == deal.cards[3] and theirs[3]["salt"] == deck_salt(3).hex()


def test_the_dealers_up_card_is_public() -> None:
    driver = started()
    deal = driver.deal(no_golden)
    for seat in (deal.player, deal.dealer, None):
        assert _cards(driver.view(seat))[1]["card"] == deal.cards[1]


def test_the_players_cards_stay_hidden_from_the_dealer_until_showdown() -> None:
    driver = started()
    deal = driver.deal(lambda d: no_golden(d) and total(player_two(d)) < 21)
    driver.seat(deal.player, "hit")
    driver.seat(deal.player, "stand")
    for seat, hidden in ((deal.dealer, (0, 2, 4)), (deal.player, (3,)), (None, (0, 2, 3, 4))):
        text = json.dumps(driver.view(seat))
        for position in hidden:
            assert f'"{deal.cards[position]}"' not in text
            assert "card" not in _cards(driver.view(seat))[position]
    driver.seat(deal.dealer, "stand")
    public = _cards(driver.view(None))
    assert [public[p]["card"] for p in range(5)] == list(deal.cards[:5])


def test_the_server_seed_is_shown_only_after_the_reveal() -> None:
    driver = started()
    deal = driver.deal(no_golden)
    seed_hex = driver.secret.hex()  # type: ignore[union-attr]
    for seat in (0, 1, None):
        assert seed_hex not in json.dumps(driver.view(seat))
    driver.seat(deal.player, "stand")
    driver.seat(deal.dealer, "stand")
    assert driver.view(None)["round"]["server_seed"] == seed_hex


def test_the_public_view_shows_score_balances_and_worth() -> None:
    driver = started(stake=9)
    win_round(driver, 1)
    view = driver.view(None)
    assert view["score"] == [0, 1] and view["worth"] == 1
    assert view["balances"] == {"pot": 18, "seat:0": 0, "seat:1": 0}
    assert view["phase"] == "playing" and view["viewer"] is None


def test_legal_actions_follow_the_phase() -> None:
    driver = new_table()
    assert GAME.legal_actions(driver.state, 0, None) == ["seat_joined"]
    assert GAME.legal_actions(driver.state, 1, None) == []
    driver = seated()
    assert GAME.legal_actions(driver.state, 0, None) == ["joiner_accepted", "joiner_rejected"]
    assert GAME.legal_actions(driver.state, 1, None) == []
    driver.seat(0, "joiner_accepted")
    assert GAME.legal_actions(driver.state, 0, None) == []
    driver.open_round()
    driver.seat(1, "client_seed", {"seed": "x"})
    assert GAME.legal_actions(driver.state, 0, None) == ["seed_commitment", "client_seed"]
    assert GAME.legal_actions(driver.state, 1, None) == []
