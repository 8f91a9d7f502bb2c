"""What the service refuses at a dealer-blind table, over HTTP, and what it does when a seat
does not answer (SPEC 15.13): a keyless seat (422 ``key_required``), a stacked deck (422
``shuffle_invalid``, nothing logged), a wrong share (``share_invalid``), a wrong round key
(``key_invalid``) or revealed key (``key_mismatch``), a body over the limits (413), a blind
table where libsodium is missing (501 ``blind_unavailable``); and the timeouts of the
requests, fired by the sweeper as a move's is, once the test moves the clock."""

import json
from typing import Any

import pytest

from fairdeal.api.client import FairdealClient, SeatClient, ServerRefusedError
from fairdeal.api.service import service as service_module
from fairdeal.blind.group import ristretto255
from fairdeal.games.toto21.party import Party
from fairdeal.games.toto21.state import State
from fairdeal.protocol import (
    DECK_SHUFFLED,
    DECRYPTION_SHARES,
    KEYS_DUE,
    KEYS_TIMEOUT,
    ROUND_KEY,
    SHARES_DUE,
    SHARES_TIMEOUT,
    SHUFFLE_DUE,
    SHUFFLE_TIMEOUT,
)

from .conftest import Server
from .test_blind_match import OPTIONS, BlindMatch, keys_due

SEED_TIME = OPTIONS["seed_time_ms"]


def refused(status: int, code: str) -> Any:
    return pytest.raises(ServerRefusedError, match=f"^{status} {code}:")


def to_shuffle(match: BlindMatch) -> str:
    """A round opened, both seeds committed (each with its round key) and revealed: the
    service's step is logged and the first seat is asked for its own."""
    round_id = match.open_round()
    first, second = match.seats[0], match.seats[1]
    first.seed(round_id)
    second.seed(round_id)  # the last commitment: its seed is revealed at once
    first.reveal(round_id)
    return round_id


def asked(match: BlindMatch, kind: str) -> tuple[SeatClient, State]:
    """The first seat the pending request of ``kind`` asks, and the state as it reads it."""
    state = match.state()
    request = state.crypto.request if state.crypto is not None else None
    assert request is not None and request.kind == kind, request
    seat = match.seats[request.seats[0]]
    return seat, seat.game_state()


def step_of(seat: SeatClient, state: State) -> dict[str, Any]:
    assert state.round is not None
    events = seat.client.log(seat.table_id).round_events
    step: dict[str, Any] = seat.party(state.round.round_id).step(state, events)
    return step


def shuffle_both(match: BlindMatch) -> None:
    for _ in range(2):
        seat, state = asked(match, SHUFFLE_DUE)
        assert match.round_id is not None
        seat.act(match.round_id, DECK_SHUFFLED, **step_of(seat, state))


def head(match: BlindMatch) -> int:
    return int(match.seats[0].client.sync(match.table_id).head.next_seq)


def kinds(match: BlindMatch) -> list[str]:
    return [kind for kind, _, _ in match.seats[0].client.sync(match.table_id).round_events]


# Seats without a key


def test_a_blind_table_is_neither_created_nor_joined_by_a_keyless_seat(server: Server) -> None:
    client = FairdealClient(server.url)
    with refused(422, "key_required"):
        client.create_table("toto21", OPTIONS, keyless=True)
    creator = client.create_table("toto21", OPTIONS)
    with refused(422, "key_required"):
        FairdealClient(server.url).join(creator.table_id, keyless=True)
    joiner = FairdealClient(server.url).join(creator.table_id)  # with a key: seat 1
    assert joiner.seat == 1


def test_a_blind_table_needs_its_seed_time_of_ten_seconds(server: Server) -> None:
    with refused(422, "invalid_options"):
        FairdealClient(server.url).create_table("toto21", {**OPTIONS, "seed_time_ms": 9_999})


# Hostile answers: refused, and nothing logged


def test_a_stacked_deck_is_refused_and_nothing_is_logged(server: Server) -> None:
    match = BlindMatch.start(server)
    round_id = to_shuffle(match)
    seat, state = asked(match, SHUFFLE_DUE)
    honest = step_of(seat, state)
    stacked = {**honest, "deck": [honest["deck"][1], *honest["deck"][1:]]}  # one card twice
    before = head(match)
    with refused(422, "shuffle_invalid"):
        seat.act(round_id, DECK_SHUFFLED, **stacked)
    assert head(match) == before
    seat.act(round_id, DECK_SHUFFLED, **honest)  # the seat's honest step is still taken
    assert head(match) > before


def test_a_wrong_share_is_refused_and_nothing_is_logged(server: Server) -> None:
    match = BlindMatch.start(server)
    round_id = to_shuffle(match)
    shuffle_both(match)
    seat, state = asked(match, SHARES_DUE)
    honest = seat.party(round_id).shares(state, seat.client.log(seat.table_id).round_events)[
        "shares"
    ]
    assert len(honest) >= 2
    wrong = [{**honest[0], "share": honest[1]["share"]}, *honest[1:]]
    before = head(match)
    with refused(422, "share_invalid"):
        seat.act(round_id, DECRYPTION_SHARES, shares=wrong)
    assert head(match) == before
    assert seat.answer_pending() == [DECRYPTION_SHARES]


def test_a_round_key_without_its_proof_and_a_wrong_revealed_key_are_refused(
    server: Server,
) -> None:
    match = BlindMatch.start(server)
    round_id = match.open_round()
    seat = match.seats[0]
    party = seat.party(round_id)
    another = Party(seat.seat, seat.table_id, round_id)  # another key's proof proves nothing

    def unproved(commitment: str) -> dict[str, Any]:
        data = Party.commitment_data(party, commitment)
        data["round_key"]["proof"] = another.commitment_data(commitment)["round_key"]["proof"]
        return data

    party.commitment_data = unproved  # type: ignore[method-assign]
    with refused(422, "key_invalid"):
        seat.seed(round_id)
    del party.commitment_data
    match.play(until=keys_due)
    seat, _ = asked(match, KEYS_DUE)
    with refused(422, "key_mismatch"):
        seat.act(round_id, ROUND_KEY, secret="01" + "00" * 31)  # 1: a scalar, not its key
    match.play()
    assert not match.in_play()


def test_a_body_over_the_limits_is_413_and_a_shuffle_step_is_not(server: Server) -> None:
    match = BlindMatch.start(server)
    round_id = to_shuffle(match)
    seat, state = asked(match, SHUFFLE_DUE)
    path = f"/v1/rounds/{round_id}/actions"
    headers = {"Authorization": f"Bearer {seat.token}", "Idempotency-Key": "big-1"}
    with refused(413, "request_too_large"):  # a shuffle step is at most 64 KiB
        seat.client.request("POST", path, {"type": DECK_SHUFFLED, "data": {"x": "x" * 70_000}})
    with refused(413, "request_too_large"):
        body = {"type": DECK_SHUFFLED, "data": {"deck": ["x" * 70_000]}}
        seat.client.request("POST", path, body, headers)
    with refused(413, "request_too_large"):  # any other command: the usual 16 KiB
        body = {"type": "hit", "data": {"pad": "x" * 20_000}}
        seat.client.request("POST", path, body, {**headers, "Idempotency-Key": "big-2"})
    before = head(match)
    step = step_of(seat, state)
    assert 16 * 1024 < len(json.dumps(step)) < 64 * 1024
    seat.act(round_id, DECK_SHUFFLED, **step)
    assert head(match) > before


def test_no_blind_table_where_libsodium_is_missing(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    match = BlindMatch.start(server)  # made while it loads
    monkeypatch.setattr(service_module, "ristretto255", lambda: ristretto255("pure"))
    with refused(501, "blind_unavailable"):
        FairdealClient(server.url).create_table("toto21", OPTIONS)
    with refused(501, "blind_unavailable"):
        match.open_round()
    FairdealClient(server.url).create_table("toto21", {})  # a committed table is dealt


# Timeouts: fired by the sweeper, as a move's


def test_a_withheld_step_voids_the_round_at_its_deadline(server: Server) -> None:
    match = BlindMatch.start(server)
    to_shuffle(match)
    asked(match, SHUFFLE_DUE)
    server.clock.advance(SEED_TIME - 1)
    assert server.service.sweep() == 0
    server.clock.advance(1)
    assert server.service.sweep() == 1
    assert kinds(match)[-3:] == [SHUFFLE_TIMEOUT, "round_voided", "round_revealed"]
    assert match.state().score == (0, 0)


def test_a_withheld_share_loses_the_round_at_its_deadline(server: Server) -> None:
    match = BlindMatch.start(server)
    to_shuffle(match)
    shuffle_both(match)
    seat, _ = asked(match, SHARES_DUE)
    assert seat.answer_pending() == [DECRYPTION_SHARES]
    withholder, _ = asked(match, SHARES_DUE)
    server.clock.advance(SEED_TIME)
    assert server.service.sweep() == 1
    assert kinds(match)[-3:] == [SHARES_TIMEOUT, "round_won", "round_revealed"]
    score = match.state().score
    assert score[withholder.seat] == 0 and score[seat.seat] == 1


def test_a_withheld_key_loses_the_round_at_its_deadline(server: Server) -> None:
    match = BlindMatch.start(server)
    round_id = match.open_round()
    match.play(until=keys_due)
    seat, _ = asked(match, KEYS_DUE)
    assert seat.answer_pending() == [ROUND_KEY]
    withholder, _ = asked(match, KEYS_DUE)
    server.clock.advance(SEED_TIME)
    assert server.service.sweep() == 1
    assert kinds(match)[-3:] == [KEYS_TIMEOUT, "round_won", "round_revealed"]
    score = match.state().score
    assert score[withholder.seat] == 0 and score[seat.seat] == 1
    assert match.seats[0].client.verify_round(round_id).verdict == "valid"
