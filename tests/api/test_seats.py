"""Seats and their bearer tokens: one per seat, stored hashed, deciding what a seat may do."""

from pathlib import Path

from fairdeal.api.service.tokens import token_hash
from tests.api.bots import error_of, kvitlach_table, raw, toto21_table, types_of
from tests.api.conftest import Server


def test_each_seat_gets_its_own_token_and_the_store_keeps_only_its_hash(server: Server) -> None:
    game = toto21_table(server.url)
    tokens = {seat: client.token for seat, client in game.seats.items()}
    assert len(set(tokens.values())) == 2

    with server.service.store.transaction() as txn:
        for seat, token in tokens.items():
            assert txn.seat_for_token(game.table_id, token_hash(token)) == seat
    files = Path(server.config.instance_path).glob("fairdeal.sqlite3*")
    stored = b"".join(path.read_bytes() for path in files)
    assert stored and not any(token.encode() in stored for token in tokens.values())


def test_a_seat_sees_itself_by_its_token_and_the_public_sees_no_seat(server: Server) -> None:
    game = toto21_table(server.url)
    for seat, client in game.seats.items():
        assert client.view()["seat"] == seat
    public = raw(server.url, "GET", f"/v1/tables/{game.table_id}").json
    assert public["seat"] is None and public["legal_actions"] == []


def test_only_the_creators_token_decides_on_the_joiner(server: Server) -> None:
    creator = server.client().create_table("toto21")
    joiner = server.client().join(creator.table_id, keyless=True)  # a raw decision below
    path = f"/v1/tables/{creator.table_id}/seats/1/decision"
    refused = raw(server.url, "POST", path, {"accept": True}, token=joiner.token)
    assert refused.status == 409 and error_of(refused)["code"] == "out_of_turn"
    accepted = creator.decide(1, True)
    assert [e["event"]["type"] for e in accepted["events"]] == [
        "table_state",  # the table at rest before the decision (SPEC 6.6)
        "joiner_accepted",
        "match_started",
    ]


def _rejected(server: Server) -> tuple[str, str]:
    """A Toto21 table whose creator turned the first joiner away; the joiner's token."""
    creator = server.client().create_table("toto21", {"stake": 10})
    joiner = server.client().join(creator.table_id)
    kinds = [e["event"]["type"] for e in creator.decide(1, False)["events"]]
    assert kinds == ["table_state", "joiner_rejected", "seat_left"]
    return creator.table_id, joiner.token


def test_a_rejected_joiners_token_never_speaks_for_the_seats_next_occupant(server: Server) -> None:
    table_id, old_token = _rejected(server)
    reply = raw(server.url, "POST", f"/v1/tables/{table_id}/seats", {})
    assert reply.status == 201, reply.text
    assert reply.json["seat"] == 1
    stale = raw(server.url, "GET", f"/v1/tables/{table_id}", token=old_token)
    assert stale.status == 403


def test_a_seat_freed_by_a_rejection_can_be_taken_by_a_new_joiner(server: Server) -> None:
    table_id, _ = _rejected(server)
    newcomer = server.client().join(table_id)
    assert newcomer.seat == 1


def test_finding_6_a_departed_seats_token_is_revoked_with_its_departure(
    any_server: Server,
) -> None:
    game = kvitlach_table(any_server.url, 3, {"bank_funding": 100})
    leaver = game.seats[2]
    left = leaver.table_act("seat_left")
    assert types_of(left["events"]) == ["table_state", "seat_left"]

    table = f"/v1/tables/{game.table_id}"
    assert raw(any_server.url, "GET", table, token=leaver.token).status == 403
    reopened = raw(any_server.url, "POST", f"{table}/rounds", token=leaver.token)
    assert reopened.status == 403 and error_of(reopened)["code"] == "token_invalid"
    assert game.seats[0].view()["seat"] == 0


def test_finding_6_a_rejected_joiner_cannot_sit_again_with_its_old_token(
    any_server: Server,
) -> None:
    table_id, old_token = _rejected(any_server)
    table = f"/v1/tables/{table_id}"
    assert raw(any_server.url, "GET", table, token=old_token).status == 403
    body = {"type": "seat_joined"}
    again = raw(any_server.url, "POST", f"{table}/actions", body, token=old_token)
    assert again.status == 403 and error_of(again)["code"] == "token_invalid"
    assert raw(any_server.url, "GET", table).json["view"]["seats"] == [0]
