"""The bound on a table's money, over HTTP (issue 11, finding 3): a buy-in that would take
the table past it is refused with a stable code, and the table plays on at the bound."""

from typing import Any

from fairdeal import table
from fairdeal.api.service.tokens import new_token, token_hash
from fairdeal.games.kvitlach import GAME
from fairdeal.games.money import MAX_TABLE_TOTAL, total
from tests.api.bots import error_of, events_of, raw, types_of
from tests.api.conftest import Server
from tests.games.driving import T0
from tests.games.kvitlach_helpers import ANTES_PILING_UP, LARGEST, Driver, fill_with_antes

PAST_EVERY_DEADLINE = 60_000  # ms: the seed and move times are 30 s


def _stored_near_the_bound(server: Server) -> tuple[str, str]:
    """A table the service holds whose antes have piled up near the bound, and its banker's
    token. Its ~6,500 events, one request each, would take this test ten seconds: they are
    decided by the rules, signed with the service's key and stored as the service stores a
    table's events, at times before the service's clock."""
    table_id, banker = "t00000000000000b1", new_token()
    signer = server.service.keys.signer
    created, signed = table.create(GAME, table_id, ANTES_PILING_UP, T0, signer)
    driver = Driver(created, [signed], signer)
    driver.join(0, LARGEST)
    fill_with_antes(driver)
    with server.service.store.transaction() as txn:
        txn.create_table(table_id, GAME.name, T0)
        txn.append_events(table_id, [s.to_json() for s in driver.log])
        txn.put_token(table_id, 0, token_hash(banker))
    return table_id, banker


def _view(server: Server, table_id: str) -> dict[str, Any]:
    """The public view (with the deadlines passed applied in memory)."""
    reply = raw(server.url, "GET", f"/v1/tables/{table_id}")
    assert reply.status == 200, reply.text
    view: dict[str, Any] = reply.json["view"]
    return view


def _room(server: Server, table_id: str) -> int:
    return MAX_TABLE_TOTAL - total(_view(server, table_id)["balances"])


def _join(server: Server, table_id: str, buy_in: int) -> Any:
    return raw(server.url, "POST", f"/v1/tables/{table_id}/seats", {"join": {"buy_in": buy_in}})


def _time_out_a_round(server: Server, table_id: str, banker: str) -> None:
    """Open a round and let its seeds and every move time out, each logged by the sweeper."""
    opened = raw(server.url, "POST", f"/v1/tables/{table_id}/rounds", token=banker)
    assert opened.status == 201, opened.text
    while not _view(server, table_id)["round"]["revealed"]:
        server.clock.advance(PAST_EVERY_DEADLINE)
        server.service.sweep()


def _leave(server: Server, table_id: str, token: str) -> None:
    body = {"type": "seat_left", "data": {}}
    reply = raw(server.url, "POST", f"/v1/tables/{table_id}/actions", body, token=token)
    assert reply.status == 200, reply.text


def test_finding_3_a_buy_in_past_the_tables_total_is_refused_over_http(server: Server) -> None:
    table_id, banker = _stored_near_the_bound(server)
    stored = len(events_of(server.url, table_id))
    tokens = []
    while (room := _room(server, table_id)) >= LARGEST:
        tokens.append(_join(server, table_id, LARGEST).json["token"])

    refused = _join(server, table_id, room + 1)

    assert refused.status == 422
    error = error_of(refused)
    assert error["code"] == "over_limit"
    assert f"at most {room} more may come in" in error["message"]
    tokens.append(_join(server, table_id, room).json["token"])
    assert _room(server, table_id) == 0
    _time_out_a_round(server, table_id, banker)  # at the bound, every timeout is logged
    for token in tokens:
        _leave(server, table_id, token)
    logged = types_of(events_of(server.url, table_id, stored))
    assert {"seed_timeout", "move_timeout", "round_revealed"} <= set(logged)
    # The term ends once no seat left can play (SPEC 12.7): the last joiner, short of the
    # ante, never could, so it may still be seated then.
    assert logged.count("seat_left") == len(tokens) and logged.count("term_ended") == 1
    assert logged[logged.index("term_ended") - 1] == "seat_left"
