"""No response shows another seat's hidden card, a blind card before the showdown, or a
server seed before its reveal.

Every response body each seat (and the public) received is kept; once the rounds are
revealed, their seeds give every card and salt, and each body is scanned for what it
should not have held at the point of the log it speaks of.
"""

import json
import random
from collections.abc import Callable

from tests.api.bots import (
    KvitlachTable,
    RecordingClient,
    Toto21Table,
    events_of,
    hidden_cards,
    kvitlach_move,
    kvitlach_table,
    leaks,
    start_kvitlach_round,
    start_toto21_round,
    toto21_move,
    toto21_round_state,
    toto21_table,
)
from tests.api.conftest import Server

ROUNDS = 3


def _public_looks(client: RecordingClient, table_id: str, round_id: str) -> None:
    """What anyone may read without a token, at this moment."""
    for path in (
        f"/v1/tables/{table_id}",
        f"/v1/tables/{table_id}/events",
        f"/v1/rounds/{round_id}",
        f"/v1/rounds/{round_id}/events",
    ):
        client.request("GET", path)


def _own_looks(game: Toto21Table | KvitlachTable, round_id: str) -> None:
    for seat in game.seats.values():
        headers = {"Authorization": f"Bearer {seat.token}"}
        seat.client.request("GET", f"/v1/rounds/{round_id}", headers=headers)


def _scan(game: Toto21Table | KvitlachTable, public: RecordingClient, url: str) -> None:
    events = events_of(url, game.table_id)
    for number, seat in game.seats.items():
        assert isinstance(seat.client, RecordingClient)
        assert leaks(seat.client.bodies, number, events) == []
    assert leaks(public.bodies, None, events) == []


def _play(
    game: Toto21Table | KvitlachTable,
    public: RecordingClient,
    start: Callable[[], str],
    move: Callable[[str], object],
    revealed: Callable[[], bool],
) -> None:
    for _ in range(ROUNDS):
        round_id = start()
        while True:
            _public_looks(public, game.table_id, round_id)
            _own_looks(game, round_id)
            if revealed():
                break
            move(round_id)


def test_no_toto21_response_shows_what_its_reader_may_not_see(server: Server) -> None:
    game = toto21_table(server.url, {"target": 10}, client=RecordingClient)
    public = RecordingClient(server.url)
    rng = random.Random(7)
    _play(
        game,
        public,
        lambda: start_toto21_round(game),
        lambda round_id: toto21_move(game, round_id, rng, blind=1.0),
        lambda: bool(toto21_round_state(game.seats[0])["revealed"]),
    )
    events = events_of(server.url, game.table_id)
    faces = {card.face for card in hidden_cards(events)[0]}
    assert faces == {"down", "blind"}, "the rounds must have dealt blind cards to look for"
    _scan(game, public, server.url)


def test_no_kvitlach_response_shows_what_its_reader_may_not_see(server: Server) -> None:
    options = {"rule_set": "classic", "bank_funding": 20, "ante": 0}
    game = kvitlach_table(server.url, 3, options, client=RecordingClient)
    public = RecordingClient(server.url)
    _play(
        game,
        public,
        lambda: start_kvitlach_round(game),
        lambda round_id: kvitlach_move(game, round_id),
        lambda: bool(game.seats[0].view()["view"]["round"]["revealed"]),
    )
    _scan(game, public, server.url)


def test_the_scan_finds_a_seats_own_cards_when_shown_to_the_other_seat(server: Server) -> None:
    """The scan is not vacuous: each seat's own responses, read as the other's, leak."""
    game = toto21_table(server.url, client=RecordingClient)
    rng = random.Random(8)
    _play(
        game,
        RecordingClient(server.url),
        lambda: start_toto21_round(game),
        lambda round_id: toto21_move(game, round_id, rng, blind=0.0),
        lambda: bool(toto21_round_state(game.seats[0])["revealed"]),
    )
    events = events_of(server.url, game.table_id)
    for number, seat in game.seats.items():
        assert isinstance(seat.client, RecordingClient)
        found = leaks(seat.client.bodies, 1 - number, events)
        assert any("salt" in problem for problem in found)
        assert any("value" in problem for problem in found)
    seed = events[-1]["event"]["data"]["server_seed"]
    early = json.dumps({"events": [], "note": seed})
    assert leaks([early], None, events) == [
        f"response 0: the server seed of {events[-1]['event']['round']}"
    ]
