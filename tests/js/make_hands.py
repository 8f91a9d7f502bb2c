"""Writes tests/js/hands.json: hands of both games with what fairdeal's rules make of them
(Toto21 totals and round outcomes; Kvitlach totals, best total, 21, bust, the win's
reason), for the browser module's hand tests (hands.test.mjs), which hold each game's
hands.js to them. Reproducible: a fixed seed. ``python -m tests.js.make_hands`` rewrites it;
test_hands_drift checks it."""

import json
import random
from pathlib import Path
from typing import Any

from fairdeal import cards
from fairdeal.games.kvitlach import hands as kv
from fairdeal.games.toto21 import hands as t21

PATH = Path(__file__).with_name("hands.json")


def _toto21(rng: random.Random) -> dict[str, Any]:
    deck = list(cards.toto21_deck())
    aces = [c for c in deck if c.startswith("A")]
    hands = [rng.sample(deck, rng.randint(1, 7)) for _ in range(300)]
    hands += [aces[:2], aces[:3], aces, [*aces[:2], "KS"], ["10H", "AS"], ["AS", "10H", "AD"]]
    totals = [{"cards": h, "total": t21.total(h)} for h in hands]
    rounds = []
    for i in range(300):
        dealt = rng.sample(deck, 10)
        if i % 10 == 0:  # the player's two aces, sometimes the dealer's too
            dealt = [*aces[:2], *(aces[2:] if i % 20 == 0 else dealt[:2]), *dealt[4:]]
        player = [dealt[0], dealt[1], *dealt[4 : 4 + rng.randint(0, 3)]]
        dealer = [dealt[2], dealt[3], *dealt[7 : 7 + rng.randint(0, 3)]]
        seat = rng.randint(0, 1)
        outcome = t21.golden_point(seat, 1 - seat, player[:2], dealer[:2])
        outcome = outcome or t21.showdown(seat, 1 - seat, player, dealer)
        rounds.append(
            {
                "player": seat,
                "player_cards": player,
                "dealer_cards": dealer,
                "winner": outcome.winner,
                "reason": outcome.reason,
            }
        )
    return {"totals": totals, "rounds": rounds}


def _kvitlach(rng: random.Random) -> list[dict[str, Any]]:
    deck = list(cards.kvitlach_deck(2))
    hands = [rng.sample(deck, rng.randint(1, 5)) for _ in range(400)]
    hands += [["2", "2"], ["2", "11"], ["11", "11"], ["12", "12"], ["12", "9"], ["1", "12"]]
    hands += [["12", "12", "12"], ["11", "10"], ["2", "11", "8"], ["2", "2", "12"]]
    return [
        {
            "cards": h,
            "totals": sorted(kv.totals(h)),
            "best": kv.best(h),
            "bust": kv.is_bust(h),
            "twenty_one": kv.is_twenty_one(h),
            "reason": kv.win_reason(h) if kv.is_twenty_one(h) else None,
        }
        for h in hands
    ]


def table() -> dict[str, Any]:
    rng = random.Random(17)
    return {"toto21": _toto21(rng), "kvitlach": _kvitlach(rng)}


def text() -> str:
    return json.dumps(table(), separators=(",", ":"), sort_keys=True) + "\n"


if __name__ == "__main__":
    PATH.write_text(text())
