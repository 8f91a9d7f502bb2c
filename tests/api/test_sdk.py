"""The client SDK raises its named error the moment a receipt and the signed log disagree.

The tampered receipts are made from a real round's events: changed after signing,
re-signed by a stranger's key, or (with the service's own key, as a lying server would)
signed but not linking to the chain the client has already checked.
"""

import copy
import random
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from fairdeal import statements
from fairdeal.api.client import (
    CardCommitmentError,
    FairdealClient,
    ReceiptChainError,
    ReceiptError,
    ReceiptMismatchError,
    ReceiptSignatureError,
    SeatClient,
    SeatStatementError,
    StatementMismatchError,
)
from fairdeal.events import Event, sign
from fairdeal.keys import Signer
from tests.api.bots import await_toto21_move, events_of, play_toto21_round, toto21_table
from tests.api.conftest import Server

Events = list[dict[str, Any]]


@pytest.fixture
def played(server: Server) -> tuple[Server, str, Events]:
    """A table with one whole Toto21 round, and its public chain."""
    game = toto21_table(server.url)
    play_toto21_round(game, random.Random(5))
    return server, game.table_id, events_of(server.url, game.table_id)


def _resign(item: dict[str, Any], signer: Signer, **changes: Any) -> dict[str, Any]:
    event = replace(Event.from_json(item["event"]), **changes)
    return sign(event, signer).to_json()


def _changed_data(events: Events, signer: Signer) -> Events:
    events[3]["event"]["data"]["seat"] = 7
    return events


def _rehashed(events: Events, signer: Signer) -> Events:
    events[3]["event"]["data"]["seat"] = 7
    events[3]["hash"] = Event.from_json(events[3]["event"]).hash().hex()
    return events


def _stranger_key(events: Events, signer: Signer) -> Events:
    events[3] = _resign(events[3], Signer(Ed25519PrivateKey.generate()))
    return events


def _stranger_claims_pinned_id(events: Events, signer: Signer) -> Events:
    forged = _resign(events[3], Signer(Ed25519PrivateKey.generate()))
    forged["key_id"] = events[3]["key_id"]
    events[3] = forged
    return events


def _left_out(events: Events, signer: Signer) -> Events:
    del events[3]
    return events


def _swapped(events: Events, signer: Signer) -> Events:
    events[3], events[4] = events[4], events[3]
    return events


def _other_table(events: Events, signer: Signer) -> Events:
    events[3] = _resign(events[3], signer, table="t0000000000000000")
    return events


def _fork(events: Events, signer: Signer) -> Events:
    events[3] = _resign(events[3], signer, data={**events[3]["event"]["data"], "forged": True})
    return events


def _time_back(events: Events, signer: Signer) -> Events:
    events[-1] = _resign(events[-1], signer, time=events[-2]["event"]["time"] - 1)
    return events


def _not_an_event(events: Events, signer: Signer) -> Events:
    events[3] = {"event": events[3]["event"], "hash": "zz"}
    return events


TAMPERS: dict[str, tuple[Callable[[Events, Signer], Events], type[ReceiptError]]] = {
    "an event changed after it was signed": (_changed_data, ReceiptSignatureError),
    "an event changed and rehashed but not re-signed": (_rehashed, ReceiptSignatureError),
    "an event signed by a key the client never pinned": (_stranger_key, ReceiptSignatureError),
    "an event signed by a stranger under the pinned key id": (
        _stranger_claims_pinned_id,
        ReceiptSignatureError,
    ),
    "an event left out of the chain": (_left_out, ReceiptChainError),
    "two events swapped": (_swapped, ReceiptChainError),
    "an event of another table, signed by the service": (_other_table, ReceiptChainError),
    "a second version of an event, signed by the service": (_fork, ReceiptChainError),
    "an event stamped before the one it follows": (_time_back, ReceiptChainError),
    "a receipt that is not a signed event": (_not_an_event, ReceiptError),
}


def test_the_sdk_accepts_the_genuine_chain(played: tuple[Server, str, Events]) -> None:
    server, table_id, events = played
    client = server.client()
    assert len(client.check_receipts(table_id, events)) == len(events)
    assert client.tables[table_id].head.next_seq == len(events)


@pytest.mark.parametrize("name", list(TAMPERS), ids=list(TAMPERS))
def test_the_sdk_raises_its_named_error_for_a_tampered_chain(
    played: tuple[Server, str, Events], name: str
) -> None:
    server, table_id, events = played
    tamper, error = TAMPERS[name]
    tampered = tamper(copy.deepcopy(events), server.service.keys.signer)
    with pytest.raises(error):
        server.client().check_receipts(table_id, tampered)


def test_a_receipt_sent_again_must_be_the_event_already_checked_at_its_seq(
    played: tuple[Server, str, Events],
) -> None:
    server, table_id, events = played
    client = server.client()
    client.check_receipts(table_id, events)
    client.check_receipts(table_id, events[5:7])  # the same receipts again: fine
    forged = _resign(events[5], server.service.keys.signer, data={"seat": 0, "x": 1})
    with pytest.raises(ReceiptChainError):
        client.check_receipts(table_id, [forged])


def _shown_card(events: Events, seat: int) -> tuple[str, dict[str, Any]]:
    """A face-down card of ``seat`` as the seat's view shows it (from the revealed round)."""
    shown = next(
        card
        for e in events
        if e["event"]["type"] == "cards_shown" and e["event"]["data"]["seat"] == seat
        for card in e["event"]["data"]["cards"]
    )
    return events[-1]["event"]["round"] or "", dict(shown)


@pytest.mark.parametrize(
    "change",
    [
        {"card": "AS"},
        {"salt": "00" * 32},
        {"salt": "not hex"},
        {"salt": "abcd"},
        {"card": None},
    ],
    ids=[
        "another card under the same salt",
        "the right card under another salt",
        "a salt that is not hex",
        "a salt of the wrong length",
        "no card at all",
    ],
)
def test_a_private_card_that_does_not_open_its_commitment_is_a_card_commitment_error(
    played: tuple[Server, str, Events], change: Mapping[str, Any]
) -> None:
    server, table_id, events = played
    round_id = next(e["event"]["round"] for e in events if e["event"]["type"] == "round_opened")
    seat = next(e["event"]["data"]["seat"] for e in events if e["event"]["type"] == "cards_shown")
    _, card = _shown_card(events, seat)
    client = server.client()
    assert client.check_private_cards(table_id, round_id, {"cards": [card]}) == 1
    if card["card"] == change.get("card"):
        change = {"card": "6C"}
    with pytest.raises(CardCommitmentError):
        client.check_private_cards(table_id, round_id, {"cards": [{**card, **change}]})


class _Tampering(FairdealClient):
    """A man in the middle: changes the answers to requests whose path ends with ``where``."""

    def __init__(self, url: str, where: str, change: Callable[[Any], Any]) -> None:
        super().__init__(url)
        self.where, self.change = where, change

    def request(
        self, method: str, path: str, body: Any = None, headers: Mapping[str, str] | None = None
    ) -> Any:
        reply = super().request(method, path, body, headers)
        return self.change(reply) if method == "POST" and path.endswith(self.where) else reply


def _seated(server: Server, client: FairdealClient) -> tuple[SeatClient, str, SeatClient]:
    """Both seats of a table with a sealed round; the first is the one to move."""
    game = toto21_table(server.url)
    round_id = await_toto21_move(game)
    turn = game.seats[0].view()["view"]["round"]["turn"]
    seat = game.seats[turn]
    mine = SeatClient(client, game.table_id, turn, seat.token, key=seat.key, n=seat.n)
    return mine, round_id, game.seats[1 - turn]


def _bump_data(reply: Any) -> Any:
    reply["events"][0]["event"]["data"]["injected"] = True
    return reply


def test_a_receipt_changed_in_transit_raises_at_the_move_that_received_it(server: Server) -> None:
    seat, round_id, _ = _seated(server, _Tampering(server.url, "/actions", _bump_data))
    with pytest.raises(ReceiptSignatureError):
        seat.act(round_id, "stand")


def test_a_success_without_a_receipt_is_a_receipt_mismatch(server: Server) -> None:
    seat, round_id, _ = _seated(
        server, _Tampering(server.url, "/actions", lambda r: {"events": []})
    )
    with pytest.raises(ReceiptMismatchError):
        seat.act(round_id, "stand")


class _Canned(FairdealClient):
    """A lying server: answers POSTs to paths ending with ``where`` with a canned reply."""

    def __init__(self, url: str, where: str, answer: Any) -> None:
        super().__init__(url)
        self.where, self.answer = where, answer

    def request(
        self, method: str, path: str, body: Any = None, headers: Mapping[str, str] | None = None
    ) -> Any:
        if method == "POST" and path.endswith(self.where):
            return copy.deepcopy(self.answer)
        return super().request(method, path, body, headers)


def test_a_receipt_for_another_seats_move_is_a_receipt_mismatch(server: Server) -> None:
    """The server answers a stand with the genuine receipt of the other seat's stand."""
    seat, round_id, other = _seated(server, server.client())
    genuine = seat.act(round_id, "stand")
    liar = _Canned(server.url, "/actions", genuine)
    fooled = SeatClient(liar, other.table_id, other.seat, other.token, key=other.key, n=other.n)
    liar.sync(other.table_id)
    with pytest.raises(ReceiptMismatchError):
        fooled.act(round_id, "stand")


def test_a_round_opened_with_another_commitment_than_logged_is_a_receipt_mismatch(
    server: Server,
) -> None:
    def other_commitment(reply: Any) -> Any:
        return {**reply, "commitment": "00" * 32}

    game = toto21_table(server.url)
    tampering = _Tampering(server.url, "/rounds", other_commitment)
    seat = SeatClient(tampering, game.table_id, 0, game.seats[0].token)
    with pytest.raises(ReceiptMismatchError):
        seat.open_round()


def _relinked(reply: Any, signer: Signer, change: Callable[[dict[str, Any]], None]) -> Any:
    """The reply with its command's receipt (the first but a table_state) changed by
    ``change`` and every receipt from it on signed again by ``signer`` and linked anew: what a
    lying server holding the service's key sends, which no chain check can tell."""
    events = reply["events"]
    first = next(i for i, e in enumerate(events) if e["event"]["type"] != "table_state")
    change(events[first]["event"]["data"])
    prev = events[first]["event"]["prev"]
    for index in range(first, len(events)):
        event = replace(Event.from_json(events[index]["event"]), prev=prev)
        events[index] = sign(event, signer).to_json()
        prev = events[index]["hash"]
    return reply


def _statement_data_changed(data: dict[str, Any]) -> None:
    data["signed"]["data"]["forged"] = True


def _statement_numbered_again(data: dict[str, Any]) -> None:
    data["signed"]["n"] += 1


def _another_signature(data: dict[str, Any]) -> None:
    data["signed"]["signature"] = "00" * 64


def _statement_dropped(data: dict[str, Any]) -> None:
    del data["signed"]


STATEMENT_CHANGES = {
    "the data the seat signed changed": (_statement_data_changed, "signature_invalid"),
    "another statement number": (_statement_numbered_again, "signature_invalid"),
    "another signature": (_another_signature, "signature_invalid"),
    "no statement logged": (_statement_dropped, "signature_missing"),
}


@pytest.mark.parametrize("name", list(STATEMENT_CHANGES), ids=list(STATEMENT_CHANGES))
def test_a_receipt_that_does_not_log_the_statement_the_seat_signed_is_refused(
    server: Server, name: str
) -> None:
    """Refused as any seat's statement is (test_sdk_every_seat.py), before the receipt is
    compared with what this seat sent."""
    signer = server.service.keys.signer
    change, code = STATEMENT_CHANGES[name]
    lying = _Tampering(server.url, "/actions", lambda r: _relinked(r, signer, change))
    seat, round_id, _ = _seated(server, lying)
    lying.sync(seat.table_id)  # the lie begins at the receipt: the chain up to it is true
    with pytest.raises(SeatStatementError) as refused:
        seat.act(round_id, "stand")
    assert (refused.value.seat, refused.value.code) == (seat.seat, code)


def test_a_receipt_logging_another_statement_the_seat_signed_is_a_statement_mismatch(
    server: Server,
) -> None:
    """A statement under the seat's key that any seat's SDK takes (as one the seat signed
    and the service refused might be), but not the one this command sent."""
    signer = server.service.keys.signer
    held: list[Any] = []

    def another_statement(data: dict[str, Any]) -> None:
        seat, round_id = held
        logged = data["signed"]
        n, after = logged["n"] + 1, logged["after"]
        key, table_id = seat.key, seat.table_id
        sent = statements.signed_data(
            key, table_id, round_id, seat.seat, n=n, after=after, kind="stand", data={}
        )
        data["signed"] = {**sent["signed"], "data": {}}

    lying = _Tampering(server.url, "/actions", lambda r: _relinked(r, signer, another_statement))
    seat, round_id, _ = _seated(server, lying)
    held += [seat, round_id]
    lying.sync(seat.table_id)
    with pytest.raises(StatementMismatchError):
        seat.act(round_id, "stand")


def test_a_seat_joined_receipt_binding_another_key_is_refused(server: Server) -> None:
    signer = server.service.keys.signer
    stranger = Ed25519PrivateKey.generate()

    def swap_key(data: dict[str, Any]) -> None:
        data["key"] = statements.public_key_hex(stranger)

    lying = _Tampering(server.url, "/seats", lambda r: _relinked(r, signer, swap_key))
    creator = server.client().create_table("toto21")
    lying.sync(creator.table_id)
    with pytest.raises(StatementMismatchError):
        lying.join(creator.table_id)


def test_a_keyed_seat_signs_every_command_and_its_receipts_log_each_statement(
    server: Server,
) -> None:
    game = toto21_table(server.url)
    play_toto21_round(game, random.Random(8))
    chain = events_of(server.url, game.table_id)
    for seat, client in game.seats.items():
        (joined,) = [e for e in chain if e["event"]["type"] == "seat_joined"
                     and e["event"]["actor"] == f"seat:{seat}"]  # fmt: skip
        assert joined["event"]["data"]["key"] == client.public_key
        own = [e["event"] for e in chain if e["event"]["actor"] == f"seat:{seat}"]
        numbers = [e["data"]["signed"]["n"] for e in own if e["type"] != "seat_joined"]
        assert numbers == list(range(1, client.n + 1)) and client.n >= 2  # a commit, a reveal
