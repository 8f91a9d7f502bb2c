"""Hostile input: each a 4xx with the one error body, and nothing written (every head unchanged).

tests/api/test_errors.py has one case per class of error; these are the attacker's versions
it does not have: huge and odd numbers, bodies with no declared length, repeated keys,
NaN, deep arrays, long ids and headers, and tokens of another table on every kind of write.
They run against the same tables in known states (that module's ``world``).
"""

from collections.abc import Callable
from typing import Any

import pytest

from bench.transport import send_bytes
from tests.api.bots import error_of, head_seq, send
from tests.api.test_errors import World, world

__all__ = ["world"]
Build = Callable[[World], dict[str, Any]]


def _bet(amount: Any = None, *, data: bytes | None = None) -> Build:
    def build(w: World) -> dict[str, Any]:
        spec: dict[str, Any] = {
            "method": "POST",
            "path": f"/v1/rounds/{w.fresh_round}/actions",
            "token": w.token(w.fresh, 1),
        }
        if data is not None:
            spec["data"] = data
        else:
            spec["body"] = {"type": "bet", "data": {"amount": amount}}
        return spec

    return build


def _seed(seed: Any = None, *, data: bytes | None = None) -> Build:
    def build(w: World) -> dict[str, Any]:
        spec: dict[str, Any] = {
            "method": "POST",
            "path": f"/v1/rounds/{w.seeding_round}/seeds",
            "token": w.token(w.seeding, 0),
        }
        spec.update({"data": data} if data is not None else {"body": {"seed": seed}})
        return spec

    return build


def _create(body: Any) -> Build:
    return lambda w: {"method": "POST", "path": "/v1/tables", "body": body}


def _foreign(kind: str) -> Build:
    """A write to the Toto21 tables with a Kvitlach seat's token."""

    def build(w: World) -> dict[str, Any]:
        token = w.token(w.fresh, 0)
        paths = {
            "open": (f"/v1/tables/{w.toto.table_id}/rounds", None),
            "seed": (f"/v1/rounds/{w.seeding_round}/seeds", {"seed": "mine"}),
            "decision": (f"/v1/tables/{w.toto.table_id}/seats/1/decision", {"accept": False}),
            "table action": (f"/v1/tables/{w.toto.table_id}/actions", {"type": "seat_left"}),
        }
        path, body = paths[kind]
        return {"method": "POST", "path": path, "body": body, "token": token}

    return build


CASES: dict[str, tuple[int, str, Build]] = {
    # Numbers
    "a negative bet": (409, "illegal_action", _bet(-5)),
    "a zero bet": (409, "illegal_action", _bet(0)),
    "a bet of 10**30": (422, "over_limit", _bet(10**30)),
    "a bet of 2**63, past any database integer": (422, "over_limit", _bet(2**63)),
    "a bet of 5000 digits": (
        400, "malformed_json", _bet(data=b'{"type":"bet","data":{"amount":' + b"9" * 5000 + b"}}")
    ),
    "a bet of NaN": (400, "malformed_json", _bet(data=b'{"type":"bet","data":{"amount":NaN}}')),
    "a bet of -Infinity": (
        400, "malformed_json", _bet(data=b'{"type":"bet","data":{"amount":-Infinity}}')
    ),
    "a bet of 1e400 (a float, infinite)": (
        409, "illegal_action", _bet(data=b'{"type":"bet","data":{"amount":1e400}}')
    ),
    "a bet of true": (409, "illegal_action", _bet(True)),
    "a bet of null": (409, "illegal_action", _bet(None)),
    "table options of 10**30": (422, "over_limit", _create({"game": "toto21",
                                                                 "options": {"stake": 10**30}})),
    "a negative stake": (422, "invalid_options", _create({"game": "toto21",
                                                          "options": {"stake": -1}})),
    "a buy-in of 2**64": (422, "over_limit", _create({"game": "kvitlach",
                                                      "join": {"buy_in": 2**64}})),
    "a negative buy-in": (422, "over_limit", _create({"game": "kvitlach",
                                                      "join": {"buy_in": -1}})),
    "a seat number past 2**64 in the path": (
        422,
        "over_limit",
        lambda w: {
            "method": "POST",
            "path": f"/v1/tables/{w.toto.table_id}/seats/{10**25}/decision",
            "body": {"accept": True},
            "token": w.token(w.toto, 0),
        },
    ),
    "a round number past 2**64": (
        409,
        "round_not_current",
        lambda w: {
            "method": "POST",
            "path": f"/v1/rounds/{w.toto.table_id}.{10**25}/actions",
            "body": {"type": "stand"},
            "token": w.token(w.toto, 0),
        },
    ),
    # Shapes
    "arrays nested 5000 deep": (400, "malformed_json", _bet(data=b"[" * 5000 + b"]" * 5000)),
    "a repeated key (last-wins would change the move)": (
        400, "malformed_json", _bet(data=b'{"type":"bet","type":"stand","data":{}}')
    ),
    "an unknown field in a move's data": (
        409, "illegal_action", lambda w: {**_bet(5)(w), "body": {"type": "bet",
                                                                 "data": {"amount": 5, "x": 1}}}
    ),
    "an unknown table option": (422, "invalid_options", _create({"game": "toto21",
                                                                 "options": {"jackpot": 1}})),
    "a JSON null body": (422, "invalid_input", _bet(data=b"null")),
    # Seeds
    "a seed of 257 characters": (422, "invalid_input", _seed("s" * 257)),
    "a seed of 100 000 characters": (413, "request_too_large", _seed("s" * 100_000)),
    "a seed with a lone surrogate": (422, "invalid_seed", _seed(data=b'{"seed":"\\ud800"}')),
    "a seed in Latin-1, not UTF-8": (400, "malformed_json", _seed(data=b'{"seed":"caf\xe9"}')),
    "a seed that is a number": (422, "invalid_input", _seed(12345)),
    # Ids, headers, tokens
    "a table id of 5000 characters": (
        404, "not_found", lambda w: {"method": "GET", "path": "/v1/tables/" + "t" * 5000}
    ),
    "a token of 8000 characters": (
        403, "token_invalid", lambda w: {**_bet(5)(w), "token": "A" * 8000}
    ),
    "an Idempotency-Key that is not ASCII": (
        422, "invalid_input", lambda w: {**_bet(5)(w), "headers": {"Idempotency-Key": "cl\xe9"}}
    ),
    "another table's token opening a round": (403, "token_invalid", _foreign("open")),
    "another table's token sending a seed": (403, "token_invalid", _foreign("seed")),
    "another table's token deciding on a joiner": (403, "token_invalid", _foreign("decision")),
    "another table's token leaving the table": (403, "token_invalid", _foreign("table action")),
    "another table's token reading a seat's view": (
        403,
        "token_invalid",
        lambda w: {"method": "GET", "path": f"/v1/rounds/{w.toto_round}",
                   "token": w.token(w.fresh, 0)},
    ),
}  # fmt: skip


@pytest.mark.parametrize("name", list(CASES), ids=list(CASES))
def test_hostile_input_gets_a_clear_4xx_and_writes_nothing(world: World, name: str) -> None:
    status, code, build = CASES[name]
    spec = build(world)
    reply = send(world.url, spec)
    assert (reply.status, error_of(reply)["code"]) == (status, code), reply.text
    assert {t: head_seq(world.url, t) for t in world.tables()} == world.heads


def _send_raw(url: str, head: bytes, body: bytes) -> bytes:
    """One request written to the socket as given; the status line of the answer."""
    host, port = url.removeprefix("http://").split(":")
    return send_bytes(host, int(port), head + b"\r\n\r\n" + body)


def _chunked(body: bytes, size: int = 4096) -> bytes:
    pieces = [body[i : i + size] for i in range(0, len(body), size)]
    return b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in pieces) + b"0\r\n\r\n"


@pytest.mark.parametrize("extra", [0, 50_000], ids=["exactly at the limit", "far over it"])
def test_a_chunked_body_over_the_limit_is_refused_not_cut_short(world: World, extra: int) -> None:
    """Without a Content-Length the server used to read the first 16 KiB and act on them: a
    valid bet padded to the limit, then anything, was placed."""
    prefix = b'{"type": "bet", "data": {"amount": 5}}'
    body = prefix + b" " * (16 * 1024 - len(prefix)) + b"x" * extra
    head = f"POST /v1/rounds/{world.fresh_round}/actions HTTP/1.1\r\nHost: test\r\n"
    head += f"Authorization: Bearer {world.token(world.fresh, 1)}\r\n"
    head += "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close"
    assert b" 413 " in _send_raw(world.url, head.encode(), _chunked(body))
    assert {t: head_seq(world.url, t) for t in world.tables()} == world.heads


def test_a_declared_length_of_ten_gigabytes_is_refused_before_reading(world: World) -> None:
    head = b"POST /v1/tables HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
    head += b"Content-Length: 10000000000\r\nConnection: close"
    assert b" 413 " in _send_raw(world.url, head, b'{"game": "toto21"}')
    assert {t: head_seq(world.url, t) for t in world.tables()} == world.heads
