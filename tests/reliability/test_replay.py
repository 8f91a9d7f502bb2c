"""Random sequences of legal and illegal requests, after which the service is its log's replay.

Hypothesis draws a game and a sequence of requests: any seat (or a stranger) sending any
command — the games' own, ones they lack, bets of any size — to the current round, a past
one or one that never was. Each answer must be a 2xx or a 4xx with the one error body. Then
the round under way is played to its end (its deadlines passed if no one can move), and
``tests.replay.replay`` over the table's logged events must give exactly the state the
service holds, and every seat's view and legal moves over HTTP must be the replayed ones.
"""

import random
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.harness import Bot, Seated
from bench.transport import Http, Stats
from fairdeal.events import SignedEvent
from fairdeal.games import registry
from fairdeal.verifier.rounds import revealed_seeds
from tests.api.bots import error_of, events_of, raw
from tests.api.conftest import Server, serving
from tests.replay import replay

KINDS = [
    "open_round", "client_seed", "decision", "banker_exit",
    "hit", "stand", "blind", "bet", "raise", "open_card", "elvaroon", "reject",
    "banker_draw", "banker_stop", "fold", "move_timeout",
]  # fmt: skip
ROUNDS = ["current", "previous", "never"]
step = st.tuples(
    st.integers(0, 3),  # the seat; 3 is a stranger with a made-up token
    st.sampled_from(KINDS + ["legal"] * len(KINDS)),  # half of them a legal move
    st.one_of(st.integers(-3, 40), st.sampled_from([0, 10**13, 2**63])),
    st.sampled_from(ROUNDS),
    st.booleans(),
)


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with serving(tmp_path_factory.mktemp("replay")) as server:
        yield server


def _legal(bot: Bot, seated: Seated) -> None:
    """A legal move of some seat, or a new round if none is under way."""
    view = bot.http.call("GET", f"/v1/tables/{seated.table_id}").json
    current = view["current_round"]
    move = bot.next_move(seated, current) if current else None
    if move is None:
        bot.post(seated, f"/v1/tables/{seated.table_id}/rounds", {}, min(seated.tokens))
    else:
        bot.send(seated, current, *move)


def _request(
    url: str, seated: Seated, seat: int, kind: str, amount: int, which: str, accept: bool
) -> Any:
    table_id = seated.table_id
    token = seated.tokens.get(seat, "a-stranger's-token")
    current = raw(url, "GET", f"/v1/tables/{table_id}").json["current_round"] or f"{table_id}.1"
    number = int(current.rsplit(".", 1)[1])
    round_id = {"current": current, "previous": f"{table_id}.{max(number - 1, 1)}",
                "never": f"{table_id}.{number + 7}"}[which]  # fmt: skip
    if kind == "open_round":
        return raw(url, "POST", f"/v1/tables/{table_id}/rounds", token=token)
    if kind == "client_seed":
        return raw(url, "POST", f"/v1/rounds/{round_id}/seeds", {"seed": f"s{amount}"}, token=token)
    if kind == "decision":
        path = f"/v1/tables/{table_id}/seats/1/decision"
        return raw(url, "POST", path, {"accept": accept}, token=token)
    if kind == "banker_exit":
        return raw(url, "POST", f"/v1/tables/{table_id}/actions", {"type": kind}, token=token)
    data = {"amount": amount} if kind in ("bet", "raise") else {}
    body = {"type": kind, "data": data}
    return raw(url, "POST", f"/v1/rounds/{round_id}/actions", body, token=token)


def _finish(server: Server, seated: Seated) -> None:
    """Play the round under way to its reveal; pass deadlines when nobody can move."""
    port = int(server.url.rsplit(":", 1)[1])
    bot = Bot(Http([port], Stats(), random.Random(0)), "finish", seated.game, 1e18)
    live = {s: t for s, t in seated.tokens.items() if _seated(server.url, seated, s)}
    playing = Seated(seated.table_id, seated.game, live)
    for _ in range(4):
        if not live or bot.resume(playing):
            return
        server.clock.advance(15 * 60_000)
        server.service.sweep()
    raise AssertionError(f"{seated.table_id}: the round under way cannot be finished")


def _seated(url: str, seated: Seated, seat: int) -> bool:
    return raw(url, "GET", f"/v1/tables/{seated.table_id}", token=seated.tokens[seat]).status == 200


def _assert_is_its_replay(server: Server, seated: Seated) -> None:
    events = events_of(server.url, seated.table_id)
    replayed = replay(registry(), [SignedEvent.from_json(e).event for e in events])
    live = server.service.live[seated.table_id].table  # what the service holds
    assert live.head == replayed.head
    assert live.state == replayed.state
    seeds = revealed_seeds(SignedEvent.from_json(e).event for e in events)
    for seat, token in seated.tokens.items():
        reply = raw(server.url, "GET", f"/v1/tables/{seated.table_id}", token=token)
        if reply.status != 200:
            continue  # a seat that was rejected or left
        shown = reply.json
        secret = seeds.get(shown["current_round"] or "")
        game = replayed.game
        assert shown["view"] == _as_json(game.view_for(replayed.state, seat, secret))
        assert shown["legal_actions"] == game.legal_actions(replayed.state, seat, secret)


def _as_json(value: Any) -> Any:
    import json

    return json.loads(json.dumps(value))


@given(game=st.sampled_from(["toto21", "kvitlach"]), steps=st.lists(step, min_size=5, max_size=40))
@settings(
    max_examples=15,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
def test_after_any_requests_the_service_is_the_replay_of_its_log(
    running: Server, game: str, steps: list[tuple[int, str, int, str, bool]]
) -> None:
    port = int(running.url.rsplit(":", 1)[1])
    stats = Stats()
    bot = Bot(Http([port], stats, random.Random(len(steps))), "steps", game, 1e18)
    seated = bot.seat()
    assert seated is not None
    for seat, kind, amount, which, accept in steps:
        if kind == "legal":
            _legal(bot, seated)
            continue
        reply = _request(running.url, seated, seat, kind, amount, which, accept)
        assert reply.status < 500, reply.text
        if reply.status >= 400:
            error_of(reply)
    assert not stats.errors, stats.errors
    _finish(running, seated)
    _assert_is_its_replay(running, seated)


@pytest.mark.slow
@given(game=st.sampled_from(["toto21", "kvitlach"]), steps=st.lists(step, max_size=60))
@settings(
    max_examples=150,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
def test_longer_random_sequences_too(
    running: Server, game: str, steps: list[tuple[int, str, int, str, bool]]
) -> None:
    test_after_any_requests_the_service_is_the_replay_of_its_log.hypothesis.inner_test(  # type: ignore[attr-defined]
        running, game, steps
    )
