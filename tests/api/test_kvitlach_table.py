"""A Kvitlach table over HTTP: rounds until the bank passes to another seat, and on."""

from typing import Any

from fairdeal.games.money import total
from tests.api.bots import (
    MAX_ROUNDS,
    events_of,
    kvitlach_table,
    of_type,
    play_kvitlach_round,
    verify_table,
)
from tests.api.conftest import Server

BUY_IN = 100
# A small bank that one bet can empty, so that terms end often.
OPTIONS: dict[str, Any] = {"rule_set": "classic", "bank_funding": 4, "ante": 0, "max_bet": 4}


def test_a_kvitlach_table_plays_through_a_banker_change_and_money_is_conserved(
    any_server: Server,
) -> None:
    game = kvitlach_table(any_server.url, 3, OPTIONS, BUY_IN)
    for _ in range(MAX_ROUNDS):
        _, kinds = play_kvitlach_round(game)
        if "term_ended" in kinds:
            break
    else:
        raise AssertionError(f"no banker change in {MAX_ROUNDS} rounds")
    round_id, _ = play_kvitlach_round(game)  # a whole round under the new banker

    chain = events_of(any_server.url, game.table_id)
    ended = of_type(chain, "term_ended")[0]
    old, new = ended["event"]["data"]["banker"], ended["event"]["data"]["next_banker"]
    assert old == 0 and new != old
    opened = of_type(chain, "round_opened")
    assert opened[-1]["event"]["round"] == round_id
    assert opened[-1]["event"]["data"]["banker"] == new
    assert all(e["event"]["seq"] < ended["event"]["seq"] for e in opened[:-1])
    assert {e["event"]["data"]["banker"] for e in opened[:-1]} == {old}

    view = game.seats[0].view()["view"]
    assert total(view["balances"]) == 3 * BUY_IN
    replayed = verify_table(any_server.url, game.table_id)
    assert replayed.state.banker == view["banker"]
