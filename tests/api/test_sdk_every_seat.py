"""The SDK checks every seat's statements, not only its own (issue 23): a move the operator
logged for a keyed seat that the seat never signed stops every other seat's SDK, naming the
seat and the seq, though the operator signed and linked its log with the service's own key.

The lying service is the real one, whose answers a man in the middle holding the service's
key (as the operator does) changes into a log relogged from one altered event on."""

from collections.abc import Mapping
from typing import Any

import pytest

from fairdeal.api.client import (
    FairdealClient,
    ReceiptChainError,
    SeatClient,
    SeatStatementError,
)
from tests.api.bots import (
    BotTable,
    await_toto21_move,
    events_of,
    head_seq,
    of_type,
    play_kvitlach_round,
    toto21_round_state,
    toto21_table,
)
from tests.api.conftest import Server
from tests.api.relog import FORGERIES, Change, Relog

KVITLACH = {"bank_funding": 20, "ante": 0, "max_bet": 10}
BUY_IN = {"buy_in": 100}


class Relogged(FairdealClient):
    """The service as its operator shows it after relogging one table from seq ``at`` on
    (tests/api/relog.py): what this client reads is the lying log."""

    def __init__(self, server: Server, table_id: str, at: int, change: Change) -> None:
        self.relog = Relog(server, table_id, at, change)
        super().__init__(server.url)

    def request(
        self, method: str, path: str, body: Any = None, headers: Mapping[str, str] | None = None
    ) -> Any:
        reply = super().request(method, path, body, headers)
        if isinstance(reply, dict) and isinstance(reply.get("events"), list):
            reply["events"] = [self.relog.shown(item) for item in reply["events"]]
        return reply


def _names(error: SeatStatementError, seat: int, seq: int, code: str) -> None:
    assert (error.seat, error.seq, error.code) == (seat, seq, code)
    assert f" seq {seq}: seat {seat}'s " in str(error) and code in str(error)


@pytest.mark.parametrize("name", list(FORGERIES), ids=list(FORGERIES))
def test_a_move_the_other_seat_never_signed_stops_the_honest_seats_sdk_at_its_next_move(
    server: Server, name: str
) -> None:
    change, code = FORGERIES[name]
    game = toto21_table(server.url)
    round_id = await_toto21_move(game)
    turn = toto21_round_state(game.seats[0])["turn"]
    other, honest = game.seats[turn], game.seats[1 - turn]
    at = head_seq(server.url, game.table_id) + 1  # where the other seat's stand is logged
    lying = Relogged(server, game.table_id, at, change)
    me = SeatClient(lying, game.table_id, honest.seat, honest.token, key=honest.key, n=honest.n)
    lying.sync(game.table_id)  # the log up to the stand is true
    stand = other.act(round_id, "stand")["events"][0]["event"]
    assert (stand["seq"], stand["type"]) == (at, "stand")
    with pytest.raises(SeatStatementError) as refused:
        me.act(round_id, "stand")  # its receipt comes after the relogged stand
    _names(refused.value, other.seat, at, code)


def _bigger_bet(event: dict[str, Any]) -> None:
    for data in (event["data"], event["data"]["signed"]["data"]):
        data["amount"] += 1


def test_a_seat_joining_a_table_in_progress_checks_every_statement_before_it(
    server: Server,
) -> None:
    game = BotTable({0: FairdealClient(server.url).create_table("kvitlach", KVITLACH, BUY_IN)})
    game.sit(FairdealClient(server.url).join(game.table_id, BUY_IN))
    play_kvitlach_round(game)
    bet = of_type(events_of(server.url, game.table_id), "bet")[0]["event"]
    lying = Relogged(server, game.table_id, bet["seq"], _bigger_bet)
    with pytest.raises(SeatStatementError) as refused:
        lying.join(game.table_id, BUY_IN)
    _names(refused.value, int(bet["actor"].split(":")[1]), bet["seq"], "signature_invalid")


def _key_dropped(event: dict[str, Any]) -> None:
    del event["data"]["key"]  # the seat would be unbound: keyless, to every other seat


def _member_added(event: dict[str, Any]) -> None:
    event["data"]["signed"]["note"] = "the operator's"


NOT_AS_LOGGED: dict[str, tuple[str, Change]] = {
    "a keyed joiner's seat_joined without its key": ("seat_joined", _key_dropped),
    "a signed with a member the engine does not log": ("joiner_accepted", _member_added),
}


@pytest.mark.parametrize("name", list(NOT_AS_LOGGED), ids=list(NOT_AS_LOGGED))
def test_a_key_or_statement_not_logged_as_the_engine_logs_it_is_a_mismatch(
    server: Server, name: str
) -> None:
    kind, change = NOT_AS_LOGGED[name]
    game = toto21_table(server.url)
    event = of_type(events_of(server.url, game.table_id), kind)[-1]["event"]
    lying = Relogged(server, game.table_id, event["seq"], change)
    with pytest.raises(SeatStatementError) as refused:
        lying.sync(game.table_id)
    _names(refused.value, int(event["actor"].split(":")[1]), event["seq"], "mismatch")


def test_a_table_state_listing_other_seat_keys_than_the_chain_binds_is_refused(
    server: Server,
) -> None:
    game = toto21_table(server.url)
    state = of_type(events_of(server.url, game.table_id), "table_state")[0]["event"]

    def keyless(event: dict[str, Any]) -> None:
        for listed in event["data"]["seat_keys"]:
            listed["key"] = None

    lying = Relogged(server, game.table_id, state["seq"], keyless)
    with pytest.raises(ReceiptChainError, match=f"seq {state['seq']}: table_state"):
        lying.sync(game.table_id)


def test_two_keyed_seats_and_a_keyless_one_play_through_each_following_every_seats_key(
    server: Server,
) -> None:
    game = BotTable({0: FairdealClient(server.url).create_table("kvitlach", KVITLACH, BUY_IN)})
    game.sit(FairdealClient(server.url).join(game.table_id, BUY_IN))
    game.sit(FairdealClient(server.url).join(game.table_id, BUY_IN, keyless=True))
    for _ in range(2):
        play_kvitlach_round(game)
    keyed = {seat: (game.seats[seat].public_key, game.seats[seat].n) for seat in (0, 1)}
    keys = {**keyed, 2: (None, 0)}  # a keyless seat signs nothing
    for client in [*game.seats.values(), None]:
        reader = client.client if client else FairdealClient(server.url)
        log = reader.sync(game.table_id)  # None: a newcomer, who reads the whole log
        assert {seat: (k.key, k.n) for seat, k in log.seats.items()} == keys
