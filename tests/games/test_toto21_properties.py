"""Toto21 properties under random legal play: cards, money, termination, replay, privacy."""

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fairdeal.games.dealing import BLIND
from fairdeal.games.toto21 import GAME, timing
from fairdeal.games.toto21.state import deck_of

from .toto21_helpers import Driver, money_is_conserved, new_table

MAX_STEPS = 400


def _forbidden(driver: Driver, seat: int | None) -> list[str]:
    """Strings a view for ``seat`` must not contain now."""
    state, secret = driver.state, driver.secret
    if state.round is None or secret is None or state.round.revealed:
        return []
    found = [secret.hex()]
    if state.hand is None:
        return found
    deck = deck_of(state, secret)
    for held in state.hand.held:
        if held.position in state.hand.known:
            continue
        if held.seat != seat or held.face == BLIND:
            found += [f'"{deck.card(held.position)}"', deck.salt(held.position).hex()]
    return found


def _check_views(driver: Driver) -> None:
    for seat in (0, 1, None):
        text = json.dumps(driver.view(seat))
        for secret in _forbidden(driver, seat):
            assert secret not in text


def _next_deadline(driver: Driver) -> int:
    pending = timing.pending(driver.state)
    return pending[0].time if pending else 2**62


def _step(driver: Driver, data: st.DataObject, max_rounds: int) -> None:
    """One random legal command: a due timeout, a new round, a seat's action; or time passes."""
    state = driver.state
    command = GAME.due(state, driver.now)
    if command is not None:
        driver.do(command.type, command.actor, dict(command.data), command.round)
        return
    if state.phase == "playing" and not state.in_round() and driver.rounds < max_rounds:
        driver.now += data.draw(st.integers(0, 5_000))
        driver.open_round()
        return
    seats = [  # seeds go in the clear (tests/games/test_seed_commitments.py commits them)
        (seat, act)
        for seat in (0, 1)
        for act in GAME.legal_actions(state, seat, driver.secret)
        if act != "seed_commitment"
    ]
    clock = [("wait", None), ("clock", None)] if state.phase == "playing" else []
    action, seat = data.draw(st.sampled_from([(act, seat) for seat, act in seats] + clock))
    if action in ("wait", "clock"):  # to the next deadline, or the game's end
        assert state.game_deadline is not None
        ending = action == "clock" and driver.rounds >= max_rounds
        driver.now = state.game_deadline if ending else _next_deadline(driver)
        return
    assert seat is not None
    driver.now = min(driver.now + data.draw(st.integers(0, 1_000)), _next_deadline(driver) - 1)
    payload = (
        {"seed": data.draw(st.text("abc", min_size=1, max_size=4))}
        if action == "client_seed"
        else {}
    )
    if action == "joiner_rejected" and data.draw(st.booleans()):
        action = "joiner_accepted"
    driver.seat(seat, action, payload)


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    stake=st.integers(0, 1_000),
    target=st.sampled_from([2, 4]),
    max_rounds=st.integers(1, 8),  # then the game clock is run out, so every match ends
    data=st.data(),
)
def test_random_legal_play_keeps_every_invariant(
    stake: int, target: int, max_rounds: int, data: st.DataObject
) -> None:
    driver = new_table(stake=stake, target=target, move_time_ms=5_000, seed_time_ms=1_000)
    for _ in range(MAX_STEPS):
        if driver.state.phase == "over":
            break
        _step(driver, data, max_rounds)
        assert money_is_conserved(driver)
        _check_views(driver)
    assert driver.state.phase == "over", "the match did not end within the step bound"
    for round_id in {e.round for e in driver.events() if e.round}:
        positions = [
            e.data["position"]
            for e in driver.events()
            if e.round == round_id and e.type == "card_dealt"
        ]
        assert len(positions) == len(set(positions)) and positions == list(range(len(positions)))
    opened = [e.round for e in driver.of_type("round_opened")]
    assert opened == [e.round for e in driver.of_type("round_revealed")]
    dealt = {e.round for e in driver.of_type("card_dealt")}
    assert not dealt & {e.round for e in driver.of_type("round_voided")}  # finding 7
    assert driver.replayed() == driver.state
