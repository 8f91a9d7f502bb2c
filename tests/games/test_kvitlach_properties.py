"""Properties under random legal play: cards dealt once, money conserved, rounds end,
the log replays to the live state, and no view leaks a hidden card or the seed."""

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fairdeal.errors import IllegalActionError
from fairdeal.games.kvitlach import GAME
from fairdeal.games.kvitlach.play import raise_limit, stake_limit
from fairdeal.games.kvitlach.run import deck_of

from .kvitlach_helpers import MOVE, Driver, money_is_conserved, seated

MAX_STEPS = 200
ROUNDS = 5
ROUNDS_PLAYED: list[int] = []


def options_strategy() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {
            "rule_set": st.sampled_from(["classic", "pressburg"]),
            "decks": st.sampled_from([1, 2]),
            "bank_funding": st.sampled_from([2, 20, 100]),
            "banker_must_draw": st.sampled_from(["none", "15", "16"]),
            "banker_exit": st.sampled_from(["mandatory", "optional", "off"]),
        }
    )


def check_views(driver: Driver) -> None:
    """No seat's view holds another seat's hidden card or salt, nor an unrevealed seed."""
    state, secret = driver.state, driver.secret
    play, current = state.play, state.round
    if play is None or current is None or not current.sealed or secret is None:
        return
    deck = deck_of(state, secret)
    for seat in state.seats:
        text = json.dumps(driver.view(seat))
        if not current.revealed:
            assert secret.hex() not in text
        for other, hand in play.hands.items():
            hidden = [p for p in hand.cards if p not in play.known]
            if other != seat:
                assert all(deck.salt(p).hex() not in text for p in hidden)
        for shown in driver.view(seat)["round"]["hands"]:
            if shown["seat"] != seat:
                for card in shown["cards"]:
                    assert card["card"] is None or card["position"] in play.known


def a_move(driver: Driver, data: st.DataObject) -> None:
    """One random legal move by some seat, or the due timeout."""
    state = driver.state
    moves = [(seat, kind) for seat in state.seats for kind in driver.legal(seat)]
    skipped = ("seat_left", "banker_exit", "seat_joined", "seed_commitment")  # seeds in the clear
    moves = [(s, k) for s, k in moves if k not in skipped]
    if not moves or data.draw(st.integers(0, 9)) == 0:
        command = GAME.due(state, driver.now + 10 * MOVE)
        assert command is not None, "a round in progress always awaits someone"
        driver.do(command.type, command.actor, dict(command.data), command.round, command.time)
        return
    seat, kind = data.draw(st.sampled_from(moves))
    payload: dict[str, Any] = {}
    if kind == "client_seed":
        payload = {"seed": data.draw(st.text("abc", min_size=1, max_size=4))}
    elif kind in ("bet", "elvaroon"):
        assert state.play is not None
        hand = state.play.hands[seat]
        limit = stake_limit(state, hand) if kind == "bet" else raise_limit(state, hand)
        key = "amount" if kind == "bet" else "raise"
        payload = {key: data.draw(st.integers(1 if kind == "bet" else 0, limit))}
    driver.seat(seat, kind, payload)


def play_round(driver: Driver, data: st.DataObject) -> bool:
    try:
        driver.open_round()
    except IllegalActionError:
        return False  # nobody can fund the bank or play against it
    for _ in range(MAX_STEPS):
        assert driver.state.round is not None
        if driver.state.round.revealed:
            break
        a_move(driver, data)
        check_views(driver)
    assert driver.state.round is not None and driver.state.round.revealed
    if "banker_exit" in driver.legal(driver.state.banker) and data.draw(st.booleans()):
        driver.seat(driver.state.banker, "banker_exit")
    return True


def dealt_once(driver: Driver) -> bool:
    seen: set[tuple[str | None, int]] = set()
    for event in driver.of_type("card_dealt"):
        key = (event.round, event.data["position"])
        if key in seen:
            return False
        seen.add(key)
    return True


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(options=options_strategy(), players=st.integers(1, 3), data=st.data())
def test_random_legal_play_keeps_every_invariant(
    options: dict[str, Any], players: int, data: st.DataObject
) -> None:
    buy_in = data.draw(st.sampled_from([60, 300, 1_000]))
    driver = seated(players=players, buy_in=buy_in, banker_buy_in=1_000, **options)
    for _ in range(ROUNDS):
        if not play_round(driver, data):
            break
        assert money_is_conserved(driver)
    assert dealt_once(driver)
    ROUNDS_PLAYED.append(len(driver.of_type("round_revealed")))
    assert driver.replayed() == driver.state
    assert all(v >= 0 for v in driver.state.balances.values())


def test_random_play_reaches_settled_rounds() -> None:
    """The property above is not vacuous: its tables played rounds to the reveal."""
    test_random_legal_play_keeps_every_invariant()
    assert sum(ROUNDS_PLAYED) >= 30


def _players_without_their_ante(driver: Driver) -> list[tuple[str | None, int]]:
    """From the log alone: the round's players (banker aside) that have not paid the ante of
    the term since they sat down, when the round is sealed."""
    paid: set[int] = set()
    players: set[int] = set()
    unpaid = []
    for event in driver.events():
        if event.type in ("seat_joined", "seat_left"):
            paid.discard(int(event.actor.removeprefix("seat:")))
        elif event.type == "term_ended":
            paid.clear()
        elif event.type == "bank_funded":
            paid.update(event.data["paid"])
        elif event.type == "round_opened":
            players = set(event.data["order"])
        elif event.type == "round_sealed":
            unpaid += [(event.round, seat) for seat in sorted(players - paid)]
    return unpaid


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_finding_2_every_player_has_paid_its_terms_ante_since_it_sat_down(
    data: st.DataObject,
) -> None:
    """Seats come and go between rounds (some buy in too little for the ante) and every
    round times out; no round is played by a seat that has not paid since it sat down."""
    driver = seated(players=2, banker_must_draw="none", max_seats=4)
    for _ in range(ROUNDS):
        for seat in range(1, 4):
            if "seat_left" in driver.legal(seat) and data.draw(st.booleans()):
                driver.seat(seat, "seat_left")
            elif "seat_joined" in driver.legal(seat) and data.draw(st.booleans()):
                driver.join(seat, data.draw(st.sampled_from([50, 60, 1_000])))
        try:
            driver.open_round()
        except IllegalActionError:
            continue  # nobody can play against the bank
        driver.time_out_round()
    assert _players_without_their_ante(driver) == []
    assert money_is_conserved(driver)
