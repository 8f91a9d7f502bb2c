"""Deadlines: a passed one is applied as a logged event naming it, by the next request that
touches the table or by the sweeper, and the chain still replays by the rules."""

import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from fairdeal.verifier.cli import main as verify_main
from tests.api.bots import (
    Toto21Table,
    error_of,
    events_of,
    finish_kvitlach_round,
    finish_toto21_round,
    kvitlach_table,
    of_type,
    play_toto21_round,
    raw,
    start_kvitlach_round,
    toto21_at_move,
    toto21_table,
    types_of,
    verify_table,
)
from tests.api.conftest import OPERATOR_TOKEN, Server

MOVE_MS = 5_000
OPTIONS = {"move_time_ms": MOVE_MS, "seed_time_ms": 2_000, "game_time_ms": 60_000, "stake": 10}


def _moving(server: Server) -> tuple[Toto21Table, str, int, int]:
    """A sealed Toto21 round of keyless seats (raw moves below): the table, the round, the
    seat to move and its deadline."""
    game, round_id, state = toto21_at_move(server.url, OPTIONS)
    turn = state["turn"]
    due = of_type(events_of(server.url, game.table_id), "move_due")[-1]["event"]["data"]
    assert due["seat"] == turn
    return game, round_id, turn, due["deadline"]


def _past(server: Server, deadline: int) -> None:
    server.clock.advance(deadline - server.clock() + 1)


VIEWS: dict[str, Callable[[Server, Toto21Table, str, int], Any]] = {
    "the public view": lambda s, g, r, turn: raw(s.url, "GET", f"/v1/tables/{g.table_id}"),
    "the late seat's own view": lambda s, g, r, turn: raw(
        s.url, "GET", f"/v1/tables/{g.table_id}", token=g.seats[turn].token
    ),
    "the round's view": lambda s, g, r, turn: raw(s.url, "GET", f"/v1/rounds/{r}"),
}


def test_a_passed_move_deadline_is_applied_by_the_next_write_as_a_logged_move_timeout(
    server: Server,
) -> None:
    game, round_id, turn, deadline = _moving(server)
    _past(server, deadline)
    assert not of_type(events_of(server.url, game.table_id), "move_timeout")

    game.seats[1 - turn].act(round_id, "stand")

    (timeout,) = of_type(events_of(server.url, game.table_id), "move_timeout")
    event = timeout["event"]
    assert (event["actor"], event["round"]) == ("server", round_id)
    assert event["data"] == {"seat": turn, "deadline": deadline}
    assert event["time"] >= deadline
    finish_toto21_round(game, round_id, random.Random(1))
    verify_table(server.url, game.table_id)  # the timeout replays by the rules


@pytest.mark.parametrize("view", list(VIEWS), ids=list(VIEWS))
def test_a_view_shows_a_passed_deadline_applied_without_logging_it(
    server: Server, view: str
) -> None:
    game, round_id, turn, deadline = _moving(server)
    before = VIEWS[view](server, game, round_id, turn).json
    chain = events_of(server.url, game.table_id)
    _past(server, deadline)

    seen = VIEWS[view](server, game, round_id, turn).json

    assert events_of(server.url, game.table_id) == chain  # a read writes nothing
    assert seen["head"] == before["head"]  # the logged head
    assert seen["view"] != before["view"]
    server.service.sweep()  # the sweeper logs the timeout the view showed
    assert of_type(events_of(server.url, game.table_id), "move_timeout")
    logged = VIEWS[view](server, game, round_id, turn).json
    assert (seen["view"], seen["legal_actions"]) == (logged["view"], logged["legal_actions"])


def test_the_late_seats_move_is_refused_but_its_timeout_is_kept(server: Server) -> None:
    game, round_id, turn, deadline = _moving(server)
    _past(server, deadline)
    path = f"/v1/rounds/{round_id}/actions"
    late = raw(server.url, "POST", path, {"type": "hit"}, token=game.seats[turn].token)
    assert late.status == 409 and error_of(late)["code"] == "out_of_turn"
    assert types_of(events_of(server.url, game.table_id))[-2:] == ["move_timeout", "move_due"]


def test_the_sweeper_applies_a_passed_deadline_without_any_request(server: Server) -> None:
    game, _round_id, _turn, deadline = _moving(server)
    other, _, _, other_deadline = _moving(server)
    assert server.service.sweep() == 0
    _past(server, max(deadline, other_deadline))

    assert server.service.sweep() == 2

    for table in (game, other):
        (timeout,) = of_type(events_of(server.url, table.table_id), "move_timeout")
        assert timeout["event"]["data"]["deadline"] in (deadline, other_deadline)
    assert server.service.sweep() == 0  # the next deadlines are in the future


def test_a_seat_that_does_not_commit_in_time_is_left_out_and_the_others_reveal(
    server: Server,
) -> None:
    game = toto21_table(server.url, OPTIONS, keyless=True)  # a raw late seed below
    round_id = game.seats[0].open_round()
    game.seats[0].seed(round_id, "seat zero's seed")  # committed, kept by the SDK
    opened = of_type(events_of(server.url, game.table_id), "round_opened")[-1]
    deadline = opened["event"]["data"]["seed_deadline"]
    _past(server, deadline)

    server.service.sweep()

    chain = events_of(server.url, game.table_id)
    (timeout,) = of_type(chain, "seed_timeout")
    assert timeout["event"]["data"] == {"deadline": deadline, "seats": [1]}
    (committed,) = of_type(chain, "seeds_committed")
    reveal_by = timeout["event"]["time"] + OPTIONS["seed_time_ms"]
    assert committed["event"]["data"] == {"deadline": reveal_by}
    assert not of_type(chain, "round_sealed")
    game.seats[0].view()  # the seat's next call reveals its seed: the last, it seals
    (sealed,) = of_type(events_of(server.url, game.table_id), "round_sealed")
    assert sealed["event"]["data"]["client_seeds"] == ["seat zero's seed", ""]
    late = raw(
        server.url, "POST", f"/v1/rounds/{round_id}/seeds", {"seed": "x"}, token=game.seats[1].token
    )
    assert late.status == 409 and error_of(late)["code"] == "round_sealed"
    finish_toto21_round(game, round_id, random.Random(2))
    verify_table(server.url, game.table_id)


@pytest.mark.parametrize("game_name", ["toto21", "kvitlach"])
def test_a_withheld_reveal_voids_the_round_under_the_seats_name(
    server: Server, game_name: str
) -> None:
    if game_name == "toto21":
        game = toto21_table(server.url, OPTIONS)
    else:
        game = kvitlach_table(server.url, 3, {"rule_set": "classic", "seed_time_ms": 2_000})
    withholder = game.seats[0]
    round_id = withholder.open_round()
    before = withholder.view()["view"]["balances"]  # a Kvitlach term's funding is in the bank
    for seat in sorted(game.seats):
        game.keep(game.seats[seat].seed(round_id))  # the last to commit reveals at once
    for seat in sorted(game.seats)[1:]:
        if round_id in game.seats[seat].seeds:
            game.keep(game.seats[seat].reveal(round_id))
    chain = events_of(server.url, game.table_id)
    (committed,) = of_type(chain, "seeds_committed")
    deadline = committed["event"]["data"]["deadline"]
    assert withholder.seeds.keys() == {round_id}  # seat 0 keeps its seed to itself
    _past(server, deadline)

    server.service.sweep()

    chain = events_of(server.url, game.table_id)
    assert types_of(chain)[-3:] == ["seed_timeout", "round_voided", "round_revealed"]
    timeout, voided = chain[-3]["event"], chain[-2]["event"]
    assert timeout["data"] == {"deadline": deadline, "seats": [0]}
    assert voided["data"] == {"reason": "seed_withheld", "seats": [0]}
    assert not of_type(chain, "round_sealed")
    assert withholder.view()["view"]["balances"] == before  # no money moved
    assert withholder.seeds == {}  # the round went on without it: forgotten
    verify_table(server.url, game.table_id)
    assert withholder.client.verify_round(round_id).verdict == "valid"


def test_the_game_time_ending_waits_for_the_dealt_round_then_decides_the_match(
    server: Server,
) -> None:
    game, round_id, _, _ = _moving(server)
    chain = events_of(server.url, game.table_id)
    game_deadline = of_type(chain, "match_started")[0]["event"]["data"]["game_deadline"]
    _past(server, game_deadline)

    assert game.seats[0].view()["view"]["phase"] == "playing"  # the dealt round plays on
    finish_toto21_round(game, round_id, random.Random(4))
    view = game.seats[0].view()["view"]
    server.service.sweep()  # the view showed the game's end; the sweeper logs it

    chain = events_of(server.url, game.table_id)
    assert not of_type(chain, "round_voided")
    (ended,) = of_type(chain, "game_time_up")
    assert ended["event"]["data"] == {"deadline": game_deadline}
    assert ended["event"]["round"] is None  # after the round's reveal, between rounds
    assert types_of(chain)[-2:] in (["game_time_up", "match_won"], ["game_time_up", "match_drawn"])
    assert view["phase"] == "over"
    assert view["balances"]["pot"] == 0
    assert view["balances"]["seat:0"] + view["balances"]["seat:1"] == 20
    assert raw(server.url, "GET", f"/v1/rounds/{round_id}/bundle").status == 200
    verify_table(server.url, game.table_id)


def test_a_match_ending_on_the_game_clock_between_rounds_is_a_head_in_the_log(
    server: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game = toto21_table(server.url, {**OPTIONS, "target": 10})
    play_toto21_round(game, random.Random(3))
    chain = events_of(server.url, game.table_id)
    game_deadline = of_type(chain, "match_started")[0]["event"]["data"]["game_deadline"]
    _past(server, game_deadline)

    assert game.seats[0].view()["view"]["phase"] == "over"
    server.service.sweep()  # the view showed the game's end; the sweeper logs it

    chain = events_of(server.url, game.table_id)
    assert types_of(chain)[-2] == "game_time_up"
    assert types_of(chain)[-1] in ("match_won", "match_drawn")  # who gets the pot
    assert chain[-1]["event"]["round"] is None
    bundle = raw(server.url, "GET", f"/v1/tables/{game.table_id}/bundle").json
    # from the table_state logged after the round's head: the timeout and the settlement
    assert (bundle["round_id"], bundle["events"]) == (None, chain[-3:])
    assert types_of(chain)[-3] == "table_state"
    checkpoint = raw(server.url, "GET", "/v1/log/checkpoint").json
    assert bundle["log"]["leaf_index"] == checkpoint["size"] - 1  # the latest leaf

    # An auditor's export holds the settlement and verifies; without it, the checkpoint
    # tells that a leaf is missing.
    export = raw(server.url, "GET", "/v1/export", token=OPERATOR_TOKEN).text.splitlines()
    assert json.loads(export[-1]) == bundle
    files = {
        "key": tmp_path / "key.pem",
        "checkpoint": tmp_path / "checkpoint.txt",
        "whole": tmp_path / "whole.jsonl",
        "dropped": tmp_path / "dropped.jsonl",
    }
    keys = raw(server.url, "GET", "/v1/keys").json
    files["key"].write_text(keys["keys"][0]["public_key_pem"])
    files["checkpoint"].write_text(checkpoint["note"])
    files["whole"].write_text("\n".join(export) + "\n")
    files["dropped"].write_text("\n".join(export[:-1]) + "\n")
    pinned = ["--key", str(files["key"]), "--key", keys["log"]["verifier_key"]]
    pinned += ["--checkpoint", str(files["checkpoint"]), "--json", "--jobs", "1"]
    assert verify_main([*pinned, str(files["whole"])]) == 0
    capsys.readouterr()
    assert verify_main([*pinned, str(files["dropped"])]) == 1
    report = json.loads(capsys.readouterr().out)
    assert "log.round_missing" in {f["code"] for f in report["findings"]}


def test_timeouts_applied_before_a_retried_request_still_log_the_table_at_rest(
    server: Server,
) -> None:
    game, round_id, state = toto21_at_move(server.url, {**OPTIONS, "target": 10})
    turn = state["turn"]
    path, headers = f"/v1/rounds/{round_id}/actions", {"Idempotency-Key": "stand-1"}
    token = game.seats[turn].token
    first = raw(server.url, "POST", path, {"type": "stand"}, token=token, headers=headers)
    assert first.status == 200, first.text
    finish_toto21_round(game, round_id, random.Random(5))
    chain = events_of(server.url, game.table_id)
    game_deadline = of_type(chain, "match_started")[0]["event"]["data"]["game_deadline"]
    logged = raw(server.url, "GET", "/v1/log/checkpoint").json["size"]
    _past(server, game_deadline)

    again = raw(server.url, "POST", path, {"type": "stand"}, token=token, headers=headers)

    assert (again.status, again.json) == (200, first.json)
    chain = events_of(server.url, game.table_id)
    assert types_of(chain)[-2:] in (["game_time_up", "match_won"], ["game_time_up", "match_drawn"])
    assert raw(server.url, "GET", "/v1/log/checkpoint").json["size"] == logged + 1
    bundle = raw(server.url, "GET", f"/v1/tables/{game.table_id}/bundle").json
    assert bundle["events"] == chain[-3:]  # table_state, game_time_up, the settlement


def test_a_kvitlach_player_who_lets_the_move_time_pass_sits_the_round_out(server: Server) -> None:
    options = {"rule_set": "classic", "bank_funding": 20, "ante": 0, "move_time_ms": 1_000}
    game = kvitlach_table(server.url, 3, options)
    round_id = start_kvitlach_round(game)
    current = game.seats[0].view()["view"]["round"]
    _past(server, current["deadline"])

    server.service.sweep()

    chain = events_of(server.url, game.table_id)
    (timeout,) = of_type(chain, "move_timeout")
    assert timeout["event"]["data"] == {"seat": current["turn"], "deadline": current["deadline"]}
    closed = of_type(chain, "hand_closed")[0]["event"]
    assert (closed["round"], closed["data"]) == (
        round_id,
        {"seat": current["turn"], "status": "out"},
    )
    finish_kvitlach_round(game, round_id)
    verify_table(server.url, game.table_id)
