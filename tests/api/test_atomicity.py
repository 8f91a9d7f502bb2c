"""A request's events, the table's state and (when a round ends) its Merkle leaf and
checkpoint are written together or not at all."""

import pytest

from fairdeal.merkle import MerkleError
from tests.api.bots import (
    error_of,
    events_of,
    head_seq,
    raw,
    toto21_at_move,
)
from tests.api.conftest import Server


def _last_move(server: Server) -> tuple[str, str, str, str]:
    """A round where the dealer's stand ends it: (table, round, dealer's token, player's)."""
    game, round_id, state = toto21_at_move(server.url)  # raw moves below
    player, dealer = game.seats[state["player"]], game.seats[state["dealer"]]
    player.act(round_id, "stand")
    return game.table_id, round_id, dealer.token, player.token


@pytest.mark.parametrize(
    "failure",
    [MerkleError("the log failed"), RuntimeError("the disk failed")],
    ids=["a core error from the log", "any other error from the log"],
)
def test_a_round_whose_log_entry_fails_is_not_written_at_all(
    server: Server, monkeypatch: pytest.MonkeyPatch, failure: Exception
) -> None:
    table_id, round_id, dealer, _ = _last_move(server)
    before = head_seq(server.url, table_id)
    # A golden point can end an earlier round at its deal (await_toto21_move then opens
    # another), so count from the log's size now, not from zero.
    logged = raw(server.url, "GET", "/v1/log/checkpoint").json["size"]
    log = server.service.log

    def broken(*args: object) -> int:
        raise failure

    monkeypatch.setattr(log, "append_head", broken)
    path = f"/v1/rounds/{round_id}/actions"
    failed = raw(server.url, "POST", path, {"type": "stand"}, token=dealer)
    assert failed.status == 500 and error_of(failed)["code"] == "internal_error"
    assert head_seq(server.url, table_id) == before
    assert raw(server.url, "GET", "/v1/log/checkpoint").json["size"] == logged
    assert raw(server.url, "GET", f"/v1/rounds/{round_id}/bundle").status == 409

    monkeypatch.undo()
    done = raw(server.url, "POST", path, {"type": "stand"}, token=dealer)
    assert done.status == 200, done.text
    assert events_of(server.url, table_id)[-1]["event"]["type"] in ("round_revealed", "match_won")
    assert raw(server.url, "GET", "/v1/log/checkpoint").json["size"] == logged + 1
    inclusion = raw(server.url, "GET", f"/v1/log/inclusion?round={round_id}").json
    assert inclusion["leaf_index"] == logged
