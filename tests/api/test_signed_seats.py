"""Protocol version 2 through the API (issue 15): seats bound to their own keys sign every
command, seeds are committed before any is revealed, and every hostile variation of a
signed request is refused with its stable code, never a 500, and writes nothing."""

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from fairdeal import randomness, statements
from fairdeal.api.client import SeatClient
from tests.api.bots import (
    BotTable,
    error_of,
    events_of,
    head_of,
    head_seq,
    kvitlach_table,
    of_type,
    play_kvitlach_round,
    play_toto21_match,
    raw,
    toto21_table,
    types_of,
    verify_table,
)
from tests.api.conftest import Server

KVITLACH = {"bank_funding": 20, "ante": 0, "max_bet": 10}


def _signed_by_their_seats(server: Server, game: BotTable) -> None:
    """Every command of a seat in the chain carries its statement, verified here under the
    key its seat_joined bound: the moves are the seats', not the operator's word."""
    chain = [e["event"] for e in events_of(server.url, game.table_id)]
    keys = {
        e["actor"]: e["data"]["key"] for e in chain if e["type"] == "seat_joined"
    }  # one each: no seat is taken twice here
    assert set(keys.values()) == {seat.public_key for seat in game.seats.values()}
    own = [e for e in chain if e["actor"] in keys and e["type"] != "seat_joined"]
    assert {"seed_commitment", "client_seed"} <= {e["type"] for e in own}
    for event in own:
        signed = event["data"]["signed"]
        seat = int(event["actor"].split(":")[1])
        message = statements.statement(
            event["table"],
            event["round"],
            seat,
            n=signed["n"],
            after=signed["after"],
            kind=event["type"],
            data=signed["data"],
        )
        assert statements.verifies(keys[event["actor"]], message, signed["signature"]), event


def test_a_player_signed_toto21_match_runs_end_to_end_and_every_round_verifies(
    server: Server,
) -> None:
    game = toto21_table(server.url, {"target": 2})
    rounds = play_toto21_match(game, random.Random(15))
    _signed_by_their_seats(server, game)
    verify_table(server.url, game.table_id)
    client = game.seats[0].client
    for round_id in rounds:
        assert client.verify_round(round_id).verdict == "valid"


@pytest.mark.parametrize("rule_set", ["classic", "pressburg"])
def test_a_player_signed_kvitlach_table_runs_end_to_end_and_every_round_verifies(
    server: Server, rule_set: str
) -> None:
    game = kvitlach_table(server.url, 3, {"rule_set": rule_set, **KVITLACH})
    rounds = [play_kvitlach_round(game)[0] for _ in range(3)]
    banker = game.seats[0].view()["view"]["banker"]
    leaver = game.seats[2 if banker != 2 else 1]  # the banker stays until its term ends
    assert types_of(leaver.table_act("seat_left")["events"])[-1] == "seat_left"
    _signed_by_their_seats(server, game)
    verify_table(server.url, game.table_id)
    for round_id in rounds:
        assert game.seats[0].client.verify_round(round_id).verdict == "valid"


# Hostile requests: each names the stable code it gets, and changes nothing.


@dataclass
class Seated:
    """A Toto21 table of two keyed seats, whose keys the test holds, in a round opened."""

    url: str
    table_id: str
    round_id: str
    seats: dict[int, SeatClient]

    def token(self, seat: int) -> str:
        return self.seats[seat].token

    def signed(self, seat: int, kind: str, data: dict[str, Any], **changes: Any) -> Any:
        """The seat's ``signed`` {n, after, signature} over ``kind`` of ``data`` in this
        round, at its next n, after the table's head; ``changes`` alter what is signed
        (another table, round, n, head, key)."""
        holder = self.seats[seat]
        key = changes.pop("key", holder.key)
        statement = {
            "table": self.table_id,
            "round_id": self.round_id,
            "n": holder.n + 1,
            **changes,
        }
        after = statement.get("after") or head_of(self.url, self.table_id)
        sent = statements.signed_data(
            key,
            statement["table"],
            statement["round_id"],
            seat,
            n=statement["n"],
            after=after,
            kind=kind,
            data=data,
        )
        return sent[statements.SIGNATURE]


@pytest.fixture
def seated(server: Server) -> Seated:
    game = toto21_table(server.url, {"seed_time_ms": 600_000})
    round_id = game.seats[0].open_round()
    return Seated(server.url, game.table_id, round_id, game.seats)


def _commitment(seated: Seated, seat: int, seed: str) -> str:
    return randomness.client_seed_commitment(seated.round_id, seat, seed).hex()


def _forked(seated: Seated) -> dict[str, Any]:
    """The head's seq, with a hash no event of this table has: another log's event there."""
    return {**head_of(seated.url, seated.table_id), "hash": "0f" * 32}


def _before_table_state(seated: Seated) -> dict[str, Any]:
    """table_created, older than the event before the round's table_state."""
    return {"seq": 0, "hash": events_of(seated.url, seated.table_id)[0]["hash"]}


def _seeds(seated: Seated) -> str:
    return f"/v1/rounds/{seated.round_id}/seeds"


def _commit_body(seated: Seated, seat: int, seed: str, **changes: Any) -> dict[str, Any]:
    data = {"commitment": _commitment(seated, seat, seed)}
    return {**data, "signed": seated.signed(seat, "seed_commitment", data, **changes)}


Request = Callable[[Seated], dict[str, Any]]


def _post(path: Callable[[Seated], str], body: Request, seat: int = 0) -> Request:
    return lambda s: {"method": "POST", "path": path(s), "body": body(s), "token": s.token(seat)}


HOSTILE: dict[str, tuple[int, str, Request]] = {
    "a command without the signature its seat's key asks for is signature_missing": (
        403,
        "signature_missing",
        _post(_seeds, lambda s: {"commitment": _commitment(s, 0, "x")}),
    ),
    "a signature by another key is signature_invalid": (
        403,
        "signature_invalid",
        _post(_seeds, lambda s: _commit_body(s, 0, "x", key=Ed25519PrivateKey.generate())),
    ),
    "a statement signed for another table is signature_invalid": (
        403,
        "signature_invalid",
        _post(_seeds, lambda s: _commit_body(s, 0, "x", table="t0000000000000000")),
    ),
    "a statement signed for another round is signature_invalid": (
        403,
        "signature_invalid",
        _post(_seeds, lambda s: _commit_body(s, 0, "x", round_id=s.table_id + ".9")),
    ),
    "a statement signed for other data is signature_invalid": (
        403,
        "signature_invalid",
        _post(
            _seeds,
            lambda s: {
                "commitment": _commitment(s, 0, "y"),
                "signed": _commit_body(s, 0, "x")["signed"],
            },
        ),
    ),
    "another seat's statement sent with this seat's token is signature_invalid": (
        403,
        "signature_invalid",
        _post(_seeds, lambda s: _commit_body(s, 1, "x", n=9), seat=0),
    ),
    "a statement made after another log's event (the head's seq, another hash) is "
    "signature_invalid": (
        403,
        "signature_invalid",
        _post(_seeds, lambda s: _commit_body(s, 0, "x", after=_forked(s))),
    ),
    "a statement made after an event older than the last table_state is signature_stale": (
        409,
        "signature_stale",
        _post(_seeds, lambda s: _commit_body(s, 0, "x", after=_before_table_state(s))),
    ),
    "a statement without the event it was made after is invalid_input": (
        422,
        "invalid_input",
        _post(
            _seeds,
            lambda s: {
                **_commit_body(s, 0, "x"),
                "signed": {**_commit_body(s, 0, "x")["signed"], "after": {"seq": 1}},
            },
        ),
    ),
    "a statement numbered at the seat's last n is signature_replayed": (
        409,
        "signature_replayed",
        _post(_seeds, lambda s: _commit_body(s, 0, "x", n=s.seats[0].n)),
    ),
    "a signature that is not 128 hex is invalid_input": (
        422,
        "invalid_input",
        _post(
            _seeds,
            lambda s: {
                **_commit_body(s, 0, "x"),
                "signed": {**_commit_body(s, 0, "x")["signed"], "signature": "zz"},
            },
        ),
    ),
    "a statement number of 0 is invalid_input": (
        422,
        "invalid_input",
        _post(_seeds, lambda s: _commit_body(s, 0, "x", n=0)),
    ),
    "a statement number given as text is invalid_input": (
        422,
        "invalid_input",
        _post(
            _seeds,
            lambda s: {
                **_commit_body(s, 0, "x"),
                "signed": {**_commit_body(s, 0, "x")["signed"], "n": "1"},
            },
        ),
    ),
    "a seed and a commitment at once is invalid_input": (
        422,
        "invalid_input",
        _post(_seeds, lambda s: {**_commit_body(s, 0, "x"), "seed": "x"}),
    ),
    "a commitment that is not 64 hex is invalid_input": (
        422,
        "invalid_input",
        _post(_seeds, lambda s: {"commitment": "ab" * 31}),
    ),
    "a signature inside an action's data is invalid_input": (
        422,
        "invalid_input",
        _post(
            lambda s: f"/v1/rounds/{s.round_id}/actions",
            lambda s: {"type": "stand", "data": {"signed": {"n": 1, "signature": "00" * 64}}},
        ),
    ),
    "a key that is not 64 hex is invalid_input": (
        422,
        "invalid_input",
        lambda s: {"method": "POST", "path": "/v1/tables", "body": {"game": "toto21", "key": "a"}},
    ),
    "a key inside the join data is invalid_input": (
        422,
        "invalid_input",
        lambda s: {
            "method": "POST",
            "path": f"/v1/tables/{s.table_id}/seats",
            "body": {"join": {"key": "ab" * 32}},
        },
    ),
}


@pytest.mark.parametrize("name", list(HOSTILE), ids=list(HOSTILE))
def test_a_hostile_signed_request_gets_its_stable_code_and_changes_nothing(
    seated: Seated, name: str
) -> None:
    status, code, request = HOSTILE[name]
    before = head_seq(seated.url, seated.table_id)
    spec = request(seated)
    reply = raw(seated.url, spec["method"], spec["path"], spec["body"], token=spec.get("token"))
    assert (reply.status, error_of(reply)["code"]) == (status, code), reply.text
    assert head_seq(seated.url, seated.table_id) == before


def test_a_replayed_statement_is_refused_with_the_seats_last_n(seated: Seated) -> None:
    seat = seated.seats[0]
    n = seat.n + 1  # after the creator's signed decision
    body = _commit_body(seated, 0, "x")
    first = raw(seated.url, "POST", _seeds(seated), body, token=seat.token)
    assert first.status == 200, first.text
    again = raw(seated.url, "POST", _seeds(seated), body, token=seat.token)
    assert again.status == 409
    assert error_of(again) == {
        "code": "signature_replayed",
        "message": f"seat 0's statements are numbered above {n}",
        "details": {"seat": 0, "last_n": n},
    }


def test_a_signature_from_a_keyless_seat_is_signature_unexpected(server: Server) -> None:
    game = toto21_table(server.url, keyless=True)
    round_id = game.seats[0].open_round()
    before = head_seq(server.url, game.table_id)
    stranger = Ed25519PrivateKey.generate()
    data = {"seed": "mine"}
    after = head_of(server.url, game.table_id)
    sent = statements.signed_data(stranger, game.table_id, round_id, 0, n=1, after=after,
                                  kind="client_seed", data=data)  # fmt: skip
    path = f"/v1/rounds/{round_id}/seeds"
    reply = raw(server.url, "POST", path, sent, token=game.seats[0].token)
    assert (reply.status, error_of(reply)["code"]) == (403, "signature_unexpected")
    assert head_seq(server.url, game.table_id) == before


def test_a_reveal_that_does_not_open_its_commitment_is_commitment_mismatch(
    seated: Seated,
) -> None:
    for seat in (0, 1):
        seated.seats[seat].seed(seated.round_id, f"seat {seat}'s seed")
    # seat 1 committed last and revealed at once; seat 0 keeps its seed, and lies instead
    before = head_seq(seated.url, seated.table_id)
    data = {"seed": "another seed"}
    body = {**data, "signed": seated.signed(0, "client_seed", data)}
    reply = raw(seated.url, "POST", _seeds(seated), body, token=seated.token(0))
    assert (reply.status, error_of(reply)["code"]) == (422, "commitment_mismatch")
    assert head_seq(seated.url, seated.table_id) == before
    seated.seats[0].reveal(seated.round_id)  # the true seed still opens it
    assert of_type(events_of(seated.url, seated.table_id), "round_sealed")
