"""Idempotency-Key: a retried request is answered with the first answer and written once."""

import pytest

from fairdeal.api.client import Response, ServerRefusedError
from tests.api.bots import (
    error_of,
    head_seq,
    raw,
    toto21_at_move,
    toto21_round_state,
    toto21_table,
    types_of,
)
from tests.api.conftest import Server


def _to_move(server: Server) -> tuple[str, str, str, str]:
    """A sealed round of keyless seats, for raw requests: (table, round, the moving seat's
    token, the other seat's token)."""
    game, round_id, state = toto21_at_move(server.url)
    turn = state["turn"]
    return game.table_id, round_id, game.seats[turn].token, game.seats[1 - turn].token


def test_a_retried_action_returns_the_same_receipt_and_is_logged_once(server: Server) -> None:
    table_id, round_id, token, _ = _to_move(server)
    before = head_seq(server.url, table_id)
    path, body = f"/v1/rounds/{round_id}/actions", {"type": "stand"}
    headers = {"Idempotency-Key": "stand-1"}

    first = raw(server.url, "POST", path, body, token=token, headers=headers)
    again = raw(server.url, "POST", path, body, token=token, headers=headers)

    assert first.status == again.status == 200
    assert again.json == first.json
    assert head_seq(server.url, table_id) == before + len(first.json["events"])


def test_an_applied_command_sent_again_after_a_restart_is_refused_not_applied_twice(
    server: Server,
) -> None:
    game, round_id, state = toto21_at_move(server.url, keyless=False)
    seat = game.seats[state["turn"]]
    seat.act(round_id, "stand", idempotency_key="sdk-stand")
    before = head_seq(server.url, game.table_id)
    seat.n -= 1  # as a program restarted before the answer came: the same command again,
    # whose statement now names the head its first copy moved on
    with pytest.raises(ServerRefusedError) as refused:
        seat.act(round_id, "stand", idempotency_key="sdk-stand")
    assert refused.value.code == "idempotency_key_reused"
    assert head_seq(server.url, game.table_id) == before


def test_a_retried_round_opening_opens_one_round(server: Server) -> None:
    game = toto21_table(server.url)
    first = game.seats[0].open_round(idempotency_key="open-1")
    assert game.seats[0].open_round(idempotency_key="open-1") == first
    assert toto21_round_state(game.seats[1])["number"] == 1


def test_the_same_key_with_another_body_is_refused_and_writes_nothing(server: Server) -> None:
    table_id, round_id, token, _ = _to_move(server)
    path, headers = f"/v1/rounds/{round_id}/actions", {"Idempotency-Key": "k"}
    # A stand is always legal for the seat to move (a hit is not at 21, and a refusal keeps no key).
    first = raw(server.url, "POST", path, {"type": "stand"}, token=token, headers=headers)
    assert first.status == 200, first.text
    before = head_seq(server.url, table_id)

    reply = raw(server.url, "POST", path, {"type": "hit"}, token=token, headers=headers)

    assert reply.status == 409
    assert error_of(reply)["code"] == "idempotency_key_reused"
    assert head_seq(server.url, table_id) == before


def test_another_seat_using_a_key_gets_its_own_answer_not_the_first_seats_receipt(
    server: Server,
) -> None:
    table_id, round_id, token, other = _to_move(server)
    path, headers = f"/v1/rounds/{round_id}/actions", {"Idempotency-Key": "same"}
    first = raw(server.url, "POST", path, {"type": "stand"}, token=token, headers=headers)
    before = head_seq(server.url, table_id)

    reply = raw(server.url, "POST", path, {"type": "stand"}, token=other, headers=headers)

    assert reply.status == 200, reply.text
    assert reply.json != first.json
    assert reply.json["events"][0]["event"]["seq"] == before + 1


def test_finding_8_idempotency_keys_are_scoped_per_seat(any_server: Server) -> None:
    game = toto21_table(any_server.url, keyless=True)  # seeds sent in the clear, unsigned
    round_id = game.seats[0].open_round()
    path, headers = f"/v1/rounds/{round_id}/seeds", {"Idempotency-Key": "move-1"}

    def seed(seat: int) -> Response:
        token = game.seats[seat].token
        return raw(any_server.url, "POST", path, {"seed": f"s{seat}"}, token=token, headers=headers)

    first, second = seed(0), seed(1)
    assert first.status == second.status == 200, second.text
    assert "round_sealed" in types_of(second.json["events"])
    assert seed(1).json == second.json and seed(0).json == first.json


def test_a_refused_request_is_not_remembered_under_its_key(server: Server) -> None:
    _table_id, round_id, token, other = _to_move(server)
    path, headers = f"/v1/rounds/{round_id}/actions", {"Idempotency-Key": "early"}
    early = raw(server.url, "POST", path, {"type": "stand"}, token=other, headers=headers)
    assert early.status == 409 and error_of(early)["code"] == "out_of_turn"

    raw(server.url, "POST", path, {"type": "stand"}, token=token)  # now it is the other's move
    retried = raw(server.url, "POST", path, {"type": "stand"}, token=other, headers=headers)
    assert retried.status == 200
    assert retried.json["events"][0]["event"]["type"] == "stand"


def test_creating_or_joining_refuses_an_idempotency_key_rather_than_ignore_it(
    server: Server,
) -> None:
    headers = {"Idempotency-Key": "join-1"}
    created = raw(server.url, "POST", "/v1/tables", {"game": "toto21"}, headers=headers)
    assert created.status == 422 and error_of(created)["code"] == "invalid_input"
    table = raw(server.url, "POST", "/v1/tables", {"game": "toto21"})
    joined = raw(
        server.url, "POST", f"/v1/tables/{table.json['table_id']}/seats", {}, headers=headers
    )
    assert joined.status == 422 and error_of(joined)["code"] == "invalid_input"
