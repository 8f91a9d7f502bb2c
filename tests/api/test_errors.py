"""Every class of bad request: its own 4xx and stable code, the one error body, nothing written.

The cases share one service holding tables in known states; after each case every
table's head seq must be where it was.
"""

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from fairdeal.api.client import Response
from tests.api.bots import (
    KvitlachTable,
    Toto21Table,
    error_of,
    head_seq,
    kvitlach_table,
    raw,
    send,
    start_kvitlach_round,
    toto21_at_move,
    toto21_table,
)
from tests.api.conftest import OPERATOR_TOKEN, Server, serving

KVITLACH = {"rule_set": "classic", "bank_funding": 20, "ante": 0, "max_bet": 15}


@dataclass
class World:
    url: str
    toto: Toto21Table  # a sealed round, the player to move
    toto_round: str
    turn: int
    seeding: Toto21Table  # a round opened, no seed yet
    seeding_round: str
    fresh: KvitlachTable  # the first player to move, nothing bet
    fresh_round: str
    covered: KvitlachTable  # seat 1 bet 15 of the bank's 20 and stood; seat 2 to move
    covered_round: str
    heads: dict[str, int] = field(default_factory=dict)

    def tables(self) -> list[str]:
        games = (self.toto, self.seeding, self.fresh, self.covered)
        return [game.table_id for game in games]

    def token(self, game: Toto21Table | KvitlachTable, seat: int) -> str:
        return game.seats[seat].token


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    with serving(tmp_path_factory.mktemp("errors")) as running:
        url = running.url
        # Keyless seats: the raw requests below test the rules, which a keyed seat's
        # unsigned command never reaches (test_signed_seats.py has those).
        toto, toto_round, state = toto21_at_move(url)
        turn = state["turn"]
        seeding = toto21_table(url, keyless=True)
        seeding_round = seeding.seats[0].open_round()
        fresh = kvitlach_table(url, 3, KVITLACH, keyless=True)
        fresh_round = start_kvitlach_round(fresh)
        covered = kvitlach_table(url, 3, KVITLACH, keyless=True)
        covered_round = start_kvitlach_round(covered)
        covered.seats[1].act(covered_round, "bet", amount=15)
        covered.seats[1].act(covered_round, "stand")
        found = World(
            url,
            toto,
            toto_round,
            turn,
            seeding,
            seeding_round,
            fresh,
            fresh_round,
            covered,
            covered_round,
        )
        found.heads = {table_id: head_seq(url, table_id) for table_id in found.tables()}
        yield found


@dataclass(frozen=True)
class Case:
    status: int
    code: str
    request: Callable[[World], dict[str, Any]]


def _toto_move(kind: str, seat: str = "turn", **data: Any) -> Callable[[World], dict[str, Any]]:
    def build(w: World) -> dict[str, Any]:
        number = w.turn if seat == "turn" else 1 - w.turn
        return {
            "method": "POST",
            "path": f"/v1/rounds/{w.toto_round}/actions",
            "body": {"type": kind, "data": data},
            "token": w.token(w.toto, number),
        }

    return build


def _bet(table: str, seat: int, amount: Any) -> Callable[[World], dict[str, Any]]:
    def build(w: World) -> dict[str, Any]:
        game, round_id = (
            (w.fresh, w.fresh_round) if table == "fresh" else (w.covered, w.covered_round)
        )
        return {
            "method": "POST",
            "path": f"/v1/rounds/{round_id}/actions",
            "body": {"type": "bet", "data": {"amount": amount}},
            "token": w.token(game, seat),
        }

    return build


def _nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = {"a": value}
    return value


CASES: dict[str, Case] = {
    # Bad JSON
    "a body that is not JSON is malformed_json": Case(
        400,
        "malformed_json",
        lambda w: {"method": "POST", "path": "/v1/tables", "data": b'{"game": '},
    ),
    "a body that is not UTF-8 is malformed_json": Case(
        400,
        "malformed_json",
        lambda w: {"method": "POST", "path": "/v1/tables", "data": b'{"game": "\xff"}'},
    ),
    "JSON nested deeper than the log allows is malformed_json": Case(
        400,
        "malformed_json",
        lambda w: {**_toto_move("hit")(w), "body": {"type": "hit", "data": _nested(40)}},
    ),
    "a body sent as text/plain is bad_request": Case(
        400,
        "bad_request",
        lambda w: {**_toto_move("hit")(w), "content_type": "text/plain"},
    ),
    "a body over the size limit is request_too_large": Case(
        413,
        "request_too_large",
        _toto_move("hit", pad="x" * 20_000),
    ),
    # Wrong shapes and types
    "a JSON array where an object belongs is invalid_input": Case(
        422, "invalid_input", lambda w: {**_toto_move("hit")(w), "body": []}
    ),
    "a string where a boolean belongs is invalid_input": Case(
        422,
        "invalid_input",
        lambda w: {
            "method": "POST",
            "path": f"/v1/tables/{w.toto.table_id}/seats/1/decision",
            "body": {"accept": "yes"},
            "token": w.token(w.toto, 0),
        },
    ),
    "an unknown field is invalid_input": Case(
        422,
        "invalid_input",
        lambda w: {**_toto_move("stand")(w), "body": {"type": "stand", "extra": 1}},
    ),
    "a command type that is not a name is invalid_input": Case(
        422, "invalid_input", lambda w: {**_toto_move("stand")(w), "body": {"type": "Stand!"}}
    ),
    "an empty client seed is invalid_input": Case(
        422,
        "invalid_input",
        lambda w: {
            "method": "POST",
            "path": f"/v1/rounds/{w.seeding_round}/seeds",
            "body": {"seed": ""},
            "token": w.token(w.seeding, 0),
        },
    ),
    "a client seed that is not printable ASCII is invalid_seed": Case(
        422,
        "invalid_seed",
        lambda w: {
            "method": "POST",
            "path": f"/v1/rounds/{w.seeding_round}/seeds",
            "body": {"seed": "sé\u0000d"},
            "token": w.token(w.seeding, 0),
        },
    ),
    "a query number that is not an integer is invalid_input": Case(
        422,
        "invalid_input",
        lambda w: {"method": "GET", "path": f"/v1/tables/{w.toto.table_id}/events?from_seq=1.5"},
    ),
    "a query number beyond 2**53 is invalid_input": Case(
        422,
        "invalid_input",
        lambda w: {
            "method": "GET",
            "path": f"/v1/tables/{w.toto.table_id}/events?from_seq={10**30}",
        },
    ),
    "an Idempotency-Key over 128 characters is invalid_input": Case(
        422,
        "invalid_input",
        lambda w: {**_toto_move("stand")(w), "headers": {"Idempotency-Key": "k" * 129}},
    ),
    "table options out of range are invalid_options": Case(
        422,
        "invalid_options",
        lambda w: {
            "method": "POST",
            "path": "/v1/tables",
            "body": {"game": "toto21", "options": {"target": 3}},
        },
    ),
    "a creator's buy-in the rules refuse is over_limit": Case(
        422,
        "over_limit",
        lambda w: {
            "method": "POST",
            "path": "/v1/tables",
            "body": {"game": "kvitlach", "join": {"buy_in": 0}},
        },
    ),
    "a creator's join data with a field the rules do not know is illegal_action": Case(
        409,
        "illegal_action",
        lambda w: {
            "method": "POST",
            "path": "/v1/tables",
            "body": {"game": "toto21", "join": {"colour": "red"}},
        },
    ),
    # Unknown ids and paths
    "an unknown table is not_found": Case(
        404, "not_found", lambda w: {"method": "GET", "path": "/v1/tables/t0000000000000000"}
    ),
    "a move at an unknown table is not_found": Case(
        404,
        "not_found",
        lambda w: {**_toto_move("stand")(w), "path": "/v1/rounds/t0000000000000000.1/actions"},
    ),
    "an unknown round is not_found": Case(
        404, "not_found", lambda w: {"method": "GET", "path": "/v1/rounds/no-such-round"}
    ),
    "the events of an unknown round are not_found": Case(
        404, "not_found", lambda w: {"method": "GET", "path": "/v1/rounds/t0.1/events"}
    ),
    "an unknown path is not_found": Case(
        404, "not_found", lambda w: {"method": "GET", "path": "/v1/no/such/thing"}
    ),
    "a method the path does not take is method_not_allowed": Case(
        405,
        "method_not_allowed",
        lambda w: {"method": "DELETE", "path": f"/v1/tables/{w.toto.table_id}"},
    ),
    "a move naming a round that is not the table's current one is round_not_current": Case(
        409,
        "round_not_current",
        lambda w: {**_toto_move("stand")(w), "path": f"/v1/rounds/{w.toto.table_id}.7/actions"},
    ),
    # Tokens
    "a move without a token is token_missing": Case(
        401, "token_missing", lambda w: {**_toto_move("stand")(w), "token": None}
    ),
    "a move with another scheme than Bearer is token_missing": Case(
        401,
        "token_missing",
        lambda w: {
            **_toto_move("stand")(w),
            "token": None,
            "headers": {"Authorization": "Basic c2VhdDowOnNlY3JldA=="},
        },
    ),
    "a move with a made-up token is token_invalid": Case(
        403, "token_invalid", lambda w: {**_toto_move("stand")(w), "token": "not-a-token"}
    ),
    "a move with another table's seat token is token_invalid": Case(
        403, "token_invalid", lambda w: {**_toto_move("stand")(w), "token": w.token(w.fresh, 0)}
    ),
    "a view with a made-up token is token_invalid": Case(
        403,
        "token_invalid",
        lambda w: {"method": "GET", "path": f"/v1/tables/{w.toto.table_id}", "token": "nope"},
    ),
    "the export without a token is token_missing": Case(
        401, "token_missing", lambda w: {"method": "GET", "path": "/v1/export"}
    ),
    "the export with a seat token is operator_only": Case(
        403,
        "operator_only",
        lambda w: {"method": "GET", "path": "/v1/export", "token": w.token(w.toto, 0)},
    ),
    "the export with a near-miss of the operator token is operator_only": Case(
        403,
        "operator_only",
        lambda w: {"method": "GET", "path": "/v1/export", "token": OPERATOR_TOKEN + "x"},
    ),
    # The rules
    "a seat moving out of turn is out_of_turn": Case(
        409, "out_of_turn", _toto_move("hit", "other")
    ),
    "the joiner deciding on the joiner is out_of_turn": Case(
        409,
        "out_of_turn",
        lambda w: {
            "method": "POST",
            "path": f"/v1/tables/{w.toto.table_id}/seats/1/decision",
            "body": {"accept": True},
            "token": w.token(w.toto, 1),
        },
    ),
    "a command the game does not have is illegal_action": Case(
        409, "illegal_action", _toto_move("fold")
    ),
    "a server's command sent by a seat is illegal_action": Case(
        409, "illegal_action", _toto_move("move_timeout", seat=0, deadline=0)
    ),
    "a second round while one is in progress is illegal_action": Case(
        409,
        "illegal_action",
        lambda w: {
            "method": "POST",
            "path": f"/v1/tables/{w.toto.table_id}/rounds",
            "token": w.token(w.toto, 0),
        },
    ),
    "a seed after the seal is round_sealed": Case(
        409,
        "round_sealed",
        lambda w: {
            "method": "POST",
            "path": f"/v1/rounds/{w.toto_round}/seeds",
            "body": {"seed": "late"},
            "token": w.token(w.toto, 0),
        },
    ),
    "a join to a full Toto21 table is table_full": Case(
        409,
        "table_full",
        lambda w: {"method": "POST", "path": f"/v1/tables/{w.toto.table_id}/seats", "body": {}},
    ),
    "a join while a Kvitlach round runs is illegal_action": Case(
        409,
        "illegal_action",
        lambda w: {
            "method": "POST",
            "path": f"/v1/tables/{w.fresh.table_id}/seats",
            "body": {"join": {"buy_in": 50}},
        },
    ),
    "a bet over the table's maximum is over_limit": Case(422, "over_limit", _bet("fresh", 1, 16)),
    "a bet over the bank's uncovered funds is over_limit": Case(
        422, "over_limit", _bet("covered", 2, 6)
    ),
    "a bet that is not an integer is illegal_action": Case(
        409, "illegal_action", _bet("fresh", 1, 1.5)
    ),
    "a bet given as a numeric string is illegal_action": Case(
        409, "illegal_action", _bet("fresh", 1, "5")
    ),
    "a bet by a seat whose turn it is not is out_of_turn": Case(
        409, "out_of_turn", _bet("fresh", 2, 5)
    ),
    "a classic hit before any bet is illegal_action": Case(
        409,
        "illegal_action",
        lambda w: {
            "method": "POST",
            "path": f"/v1/rounds/{w.fresh_round}/actions",
            "body": {"type": "hit"},
            "token": w.token(w.fresh, 1),
        },
    ),
    # The log
    "a bundle before the reveal is round_not_finished": Case(
        409,
        "round_not_finished",
        lambda w: {"method": "GET", "path": f"/v1/rounds/{w.toto_round}/bundle"},
    ),
    "an inclusion proof of an unfinished round is round_not_finished": Case(
        409,
        "round_not_finished",
        lambda w: {"method": "GET", "path": f"/v1/log/inclusion?round={w.toto_round}"},
    ),
    "an inclusion proof of an unknown round is not_found": Case(
        404,
        "not_found",
        lambda w: {"method": "GET", "path": "/v1/log/inclusion?round=no-such-round"},
    ),
    "a consistency proof with from above to is invalid_input": Case(
        422, "invalid_input", lambda w: {"method": "GET", "path": "/v1/log/consistency?from=2&to=1"}
    ),
    "a consistency proof beyond the log's size is a conflict": Case(
        409, "conflict", lambda w: {"method": "GET", "path": "/v1/log/consistency?from=1&to=999999"}
    ),
}


@pytest.mark.parametrize("name", list(CASES), ids=list(CASES))
def test_a_bad_request_gets_its_own_status_and_code_and_changes_nothing(
    world: World, name: str
) -> None:
    case = CASES[name]
    spec = case.request(world)
    reply: Response = send(world.url, spec)
    assert reply.status == case.status, reply.text
    assert reply.headers.get("Content-Type", "").startswith("application/json")
    assert error_of(reply)["code"] == case.code
    assert {t: head_seq(world.url, t) for t in world.tables()} == world.heads


# Ids the service never makes: a NUL byte reached PostgreSQL, which refuses it in text (a 500),
# while SQLite answered 404.

_NUL_TABLE, _NUL_ROUND = "t%00x", "t%00x.1"
_STAND, _SEED = {"type": "stand"}, {"seed": "s"}
_SHAPELESS_IDS: dict[str, tuple[str, str, dict[str, Any] | None]] = {
    "a table's view": ("GET", f"/v1/tables/{_NUL_TABLE}", None),
    "a table's events": ("GET", f"/v1/tables/{_NUL_TABLE}/events", None),
    "a table's bundle": ("GET", f"/v1/tables/{_NUL_TABLE}/bundle", None),
    "a join": ("POST", f"/v1/tables/{_NUL_TABLE}/seats", {}),
    "a decision": ("POST", f"/v1/tables/{_NUL_TABLE}/seats/1/decision", {"accept": True}),
    "a table action": ("POST", f"/v1/tables/{_NUL_TABLE}/actions", _STAND),
    "a round opening": ("POST", f"/v1/tables/{_NUL_TABLE}/rounds", None),
    "a round's view": ("GET", f"/v1/rounds/{_NUL_ROUND}", None),
    "a round's events": ("GET", f"/v1/rounds/{_NUL_ROUND}/events", None),
    "a round's bundle": ("GET", f"/v1/rounds/{_NUL_ROUND}/bundle", None),
    "a seed": ("POST", f"/v1/rounds/{_NUL_ROUND}/seeds", _SEED),
    "a round action": ("POST", f"/v1/rounds/{_NUL_ROUND}/actions", _STAND),
    "a well-shaped table id ending in NUL": ("GET", "/v1/tables/t0123456789abcdef%00", None),
    "a round's inclusion proof": ("GET", f"/v1/log/inclusion?round={_NUL_ROUND}", None),
    "a table head's inclusion proof": ("GET", f"/v1/log/inclusion?table={_NUL_TABLE}&seq=0", None),
    "an export of one table": ("GET", f"/v1/export?table={_NUL_TABLE}", None),
}


def test_finding_5_an_id_with_a_nul_byte_is_not_found_on_both_backends(
    any_server: Server,
) -> None:
    wrong: dict[str, str] = {}
    for name, (method, path, body) in _SHAPELESS_IDS.items():
        reply = raw(any_server.url, method, path, body, token=OPERATOR_TOKEN)
        json_reply = reply.headers["Content-Type"].startswith("application/json")
        if reply.status != 404 or not json_reply:
            wrong[name] = f"{reply.status}: {reply.text[:80]}"
        else:
            assert error_of(reply)["code"] == "not_found"
    assert not wrong


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [
        ("DELETE", "/v1/tables/t0000000000000000", {"GET", "HEAD", "OPTIONS"}),
        ("PUT", "/v1/tables", {"POST", "OPTIONS"}),
        ("TRACE", "/v1/keys", {"GET", "HEAD", "OPTIONS"}),
    ],
    ids=["a table's view", "the tables", "the keys"],
)
def test_a_method_the_path_does_not_take_is_answered_with_the_methods_it_does(
    world: World, method: str, path: str, allowed: set[str]
) -> None:
    """RFC 9110 15.5.6: a 405 lists the allowed methods in Allow (found by schemathesis: the
    one error body had dropped the header), and still has the one error body."""
    reply = raw(world.url, method, path)
    assert reply.status == 405
    assert {m.strip() for m in reply.headers["Allow"].split(",")} == allowed
    assert reply.headers["Content-Type"].startswith("application/json")
    assert error_of(reply)["code"] == "method_not_allowed"
