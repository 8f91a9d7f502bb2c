"""The monitor on dealer-blind Toto21 rounds (SPEC 15.13): their cards are not derived from
seeds but opened with the three revealed round keys, and a round whose keys were not all
revealed has no open deck, so none of its decisions is observed."""

from fairdeal.games.toto21 import hands
from fairdeal.monitor.observations import NEXT_CARD
from fairdeal.monitor.replay import Replayer
from fairdeal.monitor.toto21 import LIMIT
from tests.blind_table import BlindTable
from tests.verifier import helpers


def _export(t: BlindTable, rounds: list[str]) -> list[dict]:
    log = helpers.Log()
    for round_id in rounds:
        log.add(t, round_id)
    return log.bundles()


def test_a_blind_rounds_next_card_is_the_card_the_round_opened() -> None:
    """Each draw's next-card observation is judged with the card the round opened there:
    the drawing seat's visible cards then, and the card it drew, from the shown cards."""
    t = BlindTable("blind-mon", {"target": 4})
    rounds = [t.play_round() for _ in range(3)]
    replayer = Replayer()
    found = [o for b in _export(t, rounds) for o in replayer.add(b)]
    events = [s.event for s in t.log]
    opened = {
        (e.round, c["position"]): c["card"]
        for e in events if e.type in ("cards_shown", "card_opened")
        for c in (e.data["cards"] if e.type == "cards_shown" else [e.data])
    }  # fmt: skip
    draws = [o for o in found if o.kind == NEXT_CARD and o.drew]
    assert draws and replayer.decisions > 0
    for observation in draws:
        event = next(e for e in events if e.seq == observation.seq)
        dealt = [e.data for e in events if e.type == "card_dealt" and e.round == event.round]
        before = [
            d
            for d in dealt
            if d["position"] < len([x for x in dealt if _seq(events, x) < event.seq])
        ]
        seat = int(event.actor.removeprefix("seat:"))
        seen = [
            opened[(event.round, d["position"])]
            for d in before
            if d["seat"] == seat and d["face"] != "blind"
        ]
        drawn = opened[(event.round, len(before))]
        assert observation.good == (hands.total([*seen, drawn]) <= LIMIT)


def _seq(events: list, data: dict) -> int:
    return next(e.seq for e in events if e.data is data)


def test_a_round_whose_keys_were_not_all_revealed_is_not_observed() -> None:
    t = BlindTable(
        "blind-mon2",
        strategy=lambda seat, seen, legal: "hit" if len(seen) < 3 and "hit" in legal else "stand",
    )
    t.open_round()
    t.commit_and_reveal()
    while t.state.crypto.request is None or t.state.crypto.request.kind != "keys_due":
        t.step()
    t.answer(0)
    t.now = t.state.crypto.request.deadline
    due = t.table.game.due(t.state, t.now)
    t.server(due.type, dict(due.data))
    replayer = Replayer()
    found = [o for b in _export(t, [str(t.round_id)]) for o in replayer.add(b)]
    assert found == [] and replayer.decisions == 0
