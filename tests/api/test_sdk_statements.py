"""A keyed seat of the SDK keeps its statements current by itself: one made after a head the
table has moved past (signature_stale) or numbered below the seat's last (signature_replayed)
is signed again once, mended; a seed is never sent before the round's reveals open; and a
restarted seat reveals the seeds it was given back."""

from typing import Any

import pytest

from fairdeal.api.client import FairdealClient, RevealNotOpenError, SeatClient, ServerRefusedError
from tests.api.bots import (
    error_of,
    events_of,
    head_of,
    head_seq,
    kvitlach_table,
    of_type,
    raw,
    toto21_table,
    types_of,
    verify_table,
)
from tests.api.conftest import Server

SLOW_SEEDS = {"seed_time_ms": 600_000}


class RefusalsKept(FairdealClient):
    """A FairdealClient that keeps the code of every refusal it received."""

    def __init__(self, base_url: str) -> None:
        self.refusals: list[str] = []
        super().__init__(base_url)

    def request(self, method: str, path: str, body: Any = None, headers: Any = None) -> Any:
        try:
            return super().request(method, path, body, headers)
        except ServerRefusedError as e:
            self.refusals.append(e.code)
            raise


def test_a_statement_older_than_the_last_table_state_is_stale_with_the_tables_head(
    server: Server,
) -> None:
    game = toto21_table(server.url, SLOW_SEEDS)
    round_id = game.seats[0].open_round()
    seat = game.seats[1]
    first = events_of(server.url, game.table_id)[0]
    body = {"commitment": "ab" * 32, "signed": {"n": seat.n + 1, "signature": "00" * 64,
            "after": {"seq": 0, "hash": first["hash"]}}}  # fmt: skip
    before = head_of(server.url, game.table_id)
    reply = raw(server.url, "POST", f"/v1/rounds/{round_id}/seeds", body, token=seat.token)
    assert (reply.status, error_of(reply)["code"]) == (409, "signature_stale"), reply.text
    assert error_of(reply)["details"] == {"head": before}
    assert head_of(server.url, game.table_id) == before


def test_seats_acting_at_rest_one_after_another_unseen_each_catch_up_and_sign_again(
    server: Server,
) -> None:
    """Each leaver's client last saw the table at its own join: the table has moved on (the
    later joins, the other's departure), so its first statement is stale; it fetches the
    events it missed and signs again after the head, once."""
    game = kvitlach_table(server.url, 4, {"bank_funding": 20}, client=RefusalsKept)
    leavers = [game.seats[2], game.seats[1]]
    for leaver in leavers:
        assert types_of(leaver.table_act("seat_left")["events"])[-1] == "seat_left"
    for leaver in leavers:
        assert isinstance(leaver.client, RefusalsKept)
        assert leaver.client.refusals == ["signature_stale"]
        assert leaver.n == 1  # the refused statement used no n
    verify_table(server.url, game.table_id)


def test_a_seat_that_lost_count_of_its_statements_signs_again_above_the_last_n(
    server: Server,
) -> None:
    game = toto21_table(server.url, SLOW_SEEDS, client=RefusalsKept)
    round_id = game.seats[0].open_round()
    seat = game.seats[0]
    assert isinstance(seat.client, RefusalsKept)
    seat.client.refusals.clear()  # its decision was stale: the joiner came after its view
    seat.n = 0  # as a program restarted without its count (its decision was n 1)
    game.keep(seat.seed(round_id))
    assert seat.client.refusals == ["signature_replayed"]
    assert seat.n == 2


def test_the_sdk_refuses_to_reveal_before_the_reveals_open_and_keeps_the_seed(
    server: Server,
) -> None:
    game = toto21_table(server.url, SLOW_SEEDS)
    round_id = game.seats[0].open_round()
    seat = game.seats[0]
    seat.seed(round_id)
    before = head_seq(server.url, game.table_id)
    with pytest.raises(RevealNotOpenError):
        seat.reveal(round_id)
    assert head_seq(server.url, game.table_id) == before  # nothing sent
    assert round_id in seat.seeds
    game.seats[1].seed(round_id)  # the last commitment opens the reveals
    seat.reveal(round_id)
    assert of_type(events_of(server.url, game.table_id), "round_sealed")


def test_a_restarted_seat_given_its_kept_seeds_reveals_them(server: Server) -> None:
    game = toto21_table(server.url, SLOW_SEEDS)
    round_id = game.seats[0].open_round()
    before = game.seats[0]
    before.seed(round_id)
    kept = dict(before.seeds)
    game.seats[1].seed(round_id)  # opens the reveals while seat 0's program is down
    again = SeatClient(
        FairdealClient(server.url), before.table_id, before.seat, before.token,
        key=before.key, n=before.n, seeds=kept,
    )  # fmt: skip
    again.view()  # reveals the kept seed first: the round seals
    assert not again.seeds
    sealed = of_type(events_of(server.url, game.table_id), "round_sealed")
    assert sealed and kept[round_id] in sealed[0]["event"]["data"]["client_seeds"]
