"""Decisions read from an export played through the real rules and signing: the export
verifies, each hidden fact is what the revealed cards say, and the replay takes an export
as the service writes it, or in the first bundle format, or filtered."""

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bench.monitor import (
    SEED_MOVES,
    SIGNER,
    Bundled,
    export,
    kvitlach_group,
    seat_of,
    toto21_group,
)
from fairdeal.events import SignedEvent
from fairdeal.games.toto21.hands import total
from fairdeal.keys import public_key_pem
from fairdeal.monitor import KINDS, Observation, Replayer, UnreadableBundleError, observations
from fairdeal.monitor.observations import (
    NEXT_CARD,
    ONCE_A_ROUND,
    OPPONENT_CARD,
    OPPONENT_HANDS,
    PARTNER_CARD,
    PARTNER_HANDS,
)
from fairdeal.verifier import monitor_cli

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def toto21() -> list[Bundled]:
    seats = [seat_of("a", "random", 0.0), seat_of("b", "threshold", 0.0)]
    return toto21_group(seats, 12, random.Random(3), "t")


@pytest.fixture(scope="module")
def kvitlach() -> list[Bundled]:
    seats = [seat_of(name, "random", 0.0) for name in ("k0", "k1", "k2")]
    return kvitlach_group(seats, 12, random.Random(4), "k")


def test_the_bench_export_verifies(tmp_path: Path, toto21: list[Bundled]) -> None:
    path, key = tmp_path / "export.jsonl", tmp_path / "key.pem"
    path.write_text("".join(json.dumps(b) + "\n" for b in export(toto21)))
    key.write_bytes(public_key_pem(SIGNER.public_key))
    command = [sys.executable, "-m", "fairdeal.verifier", str(path), "--key", str(key)]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout[-1000:] + done.stderr[-1000:]


def _shown(bundled: Bundled) -> dict[int, str]:
    return {
        c["position"]: c["card"]
        for s in bundled.events
        if s.event.type == "cards_shown"
        for c in s.event.data["cards"]
    }


def test_each_next_card_drawn_is_good_exactly_when_it_keeps_the_visible_hand(
    toto21: list[Bundled],
) -> None:
    """Read from the log alone: the card the decision drew (the next event) and the cards
    the seat held then, all shown at the showdown."""
    found = [o for o in observations(export(toto21)) if o.kind == NEXT_CARD and o.drew]
    assert found
    rounds = {b.round: b for b in toto21}
    for o in found:
        bundled = rounds[o.round]
        cards, by_seq = _shown(bundled), {s.event.seq: s.event for s in bundled.events}
        drawn = by_seq[o.seq + 1].data["position"]
        seat = by_seq[o.seq].actor
        held = [
            e.data["position"]
            for e in by_seq.values()
            if e.type == "card_dealt" and e.seq < o.seq and f"seat:{e.data['seat']}" == seat
            and e.data["face"] != "blind"
        ]  # fmt: skip
        visible = [cards.get(p) or _up(bundled, p) for p in held]
        assert o.good == (total([*visible, cards[drawn]]) <= 21)


def _up(bundled: Bundled, position: int) -> str:
    for s in bundled.events:
        if s.event.type == "card_dealt" and s.event.data["position"] == position:
            return str(s.event.data["card"])
    raise AssertionError(position)


def test_observations_have_their_shape(toto21: list[Bundled], kvitlach: list[Bundled]) -> None:
    for bundled in (toto21, kvitlach):
        found = list(observations(export(bundled)))
        assert {o.kind for o in found} <= set(KINDS)
        for o in found:
            assert o.seat.startswith("key:")
            if o.chance is not None:
                numerator, denominator = map(int, o.stratum.removeprefix("p=").split("/"))
                assert o.chance == pytest.approx(numerator / denominator)
        once = [(o.seat, o.kind, o.partner, o.round) for o in found if o.kind in ONCE_A_ROUND]
        assert len(once) == len(set(once))


def _first_format(bundles: list[Bundled]) -> list[dict[str, Any]]:
    """Each bundle repeating its table's events from table_created, as the first format."""
    lines: list[dict[str, Any]] = []
    before: list[SignedEvent] = []
    for line, bundled in zip(export(bundles), bundles, strict=True):
        before = (before if bundled.events[0].event.seq else []) + bundled.events
        lines.append({**line, "events": [s.to_json() for s in before]})
    return lines


def test_the_first_bundle_format_reads_the_same(kvitlach: list[Bundled]) -> None:
    assert list(observations(_first_format(kvitlach))) == list(observations(export(kvitlach)))


def test_a_filtered_export_starts_at_a_table_state(kvitlach: list[Bundled]) -> None:
    whole: list[Observation] = list(observations(export(kvitlach)))
    later = list(observations(export(kvitlach)[3:]))
    assert later and later == [o for o in whole if o.round in {b.round for b in kvitlach[3:]}]


def test_a_table_met_again_after_a_gap_goes_on_from_its_table_state(
    kvitlach: list[Bundled],
) -> None:
    lines = export(kvitlach)
    whole = list(observations(lines))
    gapped = list(observations(lines[:2] + lines[5:]))
    skipped = {b.round for b in kvitlach[2:5]}
    assert gapped == [o for o in whole if o.round not in skipped]


def test_a_bundle_that_starts_mid_table_is_refused(kvitlach: list[Bundled]) -> None:
    line = export(kvitlach)[2]
    cut = {**line, "events": line["events"][1:]}
    with pytest.raises(UnreadableBundleError):
        Replayer().add(cut)
    with pytest.raises(UnreadableBundleError):
        Replayer().add({"table_id": "t", "events": []})


def test_the_command_reports_text_and_json(
    tmp_path: Path, toto21: list[Bundled], capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "export.jsonl"
    path.write_text("".join(json.dumps(b) + "\n" for b in export(toto21)))
    assert monitor_cli.main([str(path)]) == 0
    assert "0 flagged at family-wise level 0.001 (holm)" in capsys.readouterr().out
    assert monitor_cli.main([str(path), "--json", "--all"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["rounds"] == 12 and report["flagged"] == 0 and report["tests"]
    (tmp_path / "bad.jsonl").write_text("{not json\n")
    assert monitor_cli.main([str(tmp_path / "bad.jsonl")]) == 2


def _denominator(stratum: str) -> int:
    return int(stratum.rpartition("/")[2])


def test_chances_are_over_the_cards_nobody_acted_on(toto21: list[Bundled]) -> None:
    """The player's choices: the undealt cards (32 at its first), a blind card and the
    dealer's hole card (the dealer has not moved). The dealer's: the undealt cards and a
    blind card, never the player's own (the player played on them)."""
    found = list(observations(export(toto21)))
    by_place = {(o.round, o.seq, o.kind): o for o in found}
    rounds = {b.round: b for b in toto21}
    checked = 0
    for o in found:
        following = by_place.get((o.round, o.seq, NEXT_CARD))
        if following is None or o.kind not in (OPPONENT_CARD, OPPONENT_HANDS):
            continue
        events = [s.event for s in rounds[o.round].events if s.event.seq < o.seq]
        dealt = [e for e in events if e.round == o.round and e.type == "card_dealt"]
        blind = sum(e.data["face"] == "blind" for e in dealt)
        pool = 36 - len(dealt) + blind + (o.kind == OPPONENT_CARD)
        assert pool % _denominator(following.stratum) == 0, (o, pool)
        checked += 1
    assert checked > 5


def test_a_partner_card_is_a_waiting_players_first_card_and_good_when_high(
    kvitlach: list[Bundled],
) -> None:
    """Read from the log alone: the partner's first card (shown at the showdown), dealt to
    a player that had not moved yet; a partner that had is judged on its hidden cards."""
    seats = {seat_of(name, "random", 0.0).key_name: n for n, name in enumerate(("k0", "k1", "k2"))}
    rounds = {b.round: b for b in kvitlach}
    found = list(observations(export(kvitlach)))
    partnered = [o for o in found if o.kind in (PARTNER_CARD, PARTNER_HANDS)]
    assert {o.kind for o in partnered} == {PARTNER_CARD, PARTNER_HANDS}
    checked = 0
    for o in partnered:
        assert o.partner in seats and o.partner != o.seat
        events = [s.event for s in rounds[o.round].events if s.event.round == o.round]
        partner = seats[o.partner]
        moved = any(
            e.actor == f"seat:{partner}" and e.seq < o.seq and e.type not in SEED_MOVES
            for e in events
        )
        assert moved == (o.kind == PARTNER_HANDS)
        if o.kind == PARTNER_CARD:
            first = next(e for e in events if e.type == "card_dealt" and e.data["seat"] == partner)
            card = _shown(rounds[o.round]).get(first.data["position"])
            if card is not None:
                assert o.good == (int(card) >= 7) and o.chance is not None
                checked += 1
    assert checked > 3
