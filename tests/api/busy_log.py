"""A log long enough to cross a tile boundary, played over HTTP, and what names each leaf.

Rounds of both games, then Toto21 tables seated and left at rest: each seating logs three
heads (created, joined, accepted) in about 25 ms, where a round takes about 80 ms.
"""

import json
import random
from dataclasses import dataclass

from tests.api.bots import (
    kvitlach_table,
    play_kvitlach_round,
    play_toto21_round,
    raw,
    toto21_table,
)
from tests.api.conftest import OPERATOR_TOKEN

SEATING = 3  # heads at rest a Toto21 table logs while being seated


@dataclass(frozen=True)
class Leaf:
    index: int
    head_hash: str
    query: str  # what names its head to /v1/log/inclusion


def fill_log(url: str, rounds: int, seated_tables: int) -> None:
    """``rounds`` rounds of each game, then ``seated_tables`` more tables seated."""
    rng = random.Random(7)
    toto21 = toto21_table(url, {"target": 10}, keyless=True)
    kvitlach = kvitlach_table(url, 2, {"max_bet": 10}, keyless=True)
    for _ in range(rounds):
        play_toto21_round(toto21, rng)
        play_kvitlach_round(kvitlach)
    for _ in range(seated_tables):
        toto21_table(url, keyless=True)


def logged_leaves(url: str) -> list[Leaf]:
    """Every leaf in log order, from the operator's export."""
    reply = raw(url, "GET", "/v1/export", token=OPERATOR_TOKEN)
    assert reply.status == 200, reply.text
    leaves = []
    for line in reply.text.splitlines():
        bundle = json.loads(line)
        if bundle["round_id"] is not None:
            query = f"round={bundle['round_id']}"
        else:
            query = f"table={bundle['table_id']}&seq={bundle['events'][-1]['event']['seq']}"
        log = bundle["log"]
        leaves.append(Leaf(log["leaf_index"], log["head_hash"], query))
    assert [leaf.index for leaf in leaves] == list(range(len(leaves)))
    return leaves
