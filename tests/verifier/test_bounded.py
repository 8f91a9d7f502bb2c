"""Bounded proofs: bundles of the second format that start at the table_state logged right
after the table's previous head, alone and in exports, honest and tampered."""

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from fairdeal import randomness, table
from fairdeal.events import SignedEvent
from fairdeal.protocol import SERVER, TABLE_STATE
from fairdeal.table import FRESH, Standing
from fairdeal.verifier import Report, Trust, export, verify_bundle
from fairdeal.verifier.inputs import Line

from . import helpers

Bundle = dict[str, Any]
Plain = list[dict[str, Any]]


@pytest.fixture(scope="module")
def tables() -> list[helpers.TableDriver]:
    return [
        helpers.toto21_table("t21", rounds=4),
        helpers.kvitlach_table("kv", rounds=4),
        helpers.kvitlach_table("kv2", rounds=3),
    ]


@pytest.fixture(scope="module")
def log(tables: list[helpers.TableDriver]) -> helpers.Log:
    return helpers.Log().add_all(*tables)


@pytest.fixture(scope="module")
def bounded(log: helpers.Log) -> list[Bundle]:
    return log.bundles(bounded=True)


def _lines(bundles: list[Bundle]) -> list[Line]:
    text = helpers.export_text(bundles).encode()
    return [Line(n, raw) for n, raw in enumerate(text.splitlines(keepends=True), 1)]


def _export(bundles: list[Bundle], trust: Trust, partial: bool = False) -> Report:
    return export.verify(_lines(bundles), trust, export.Pinned(partial=partial))


def _alone(bundle: Bundle, trust: Trust) -> set[str]:
    return set(verify_bundle(bundle, trust).codes())


def _first(bundle: Bundle) -> dict[str, Any]:
    event: dict[str, Any] = bundle["events"][0]["event"]
    return event


def _kvitlach(table_id: str = "kv", rounds: int = 0) -> helpers.TableDriver:
    return helpers.kvitlach_table(table_id, rounds=rounds)


def _tampered(driver: helpers.TableDriver, change: Callable[[Plain], None]) -> helpers.TableDriver:
    """The driver's table as a lying operator rewrites its whole chain: changed, then
    re-linked and re-signed with the operator's key (``helpers.resign``)."""
    signed = helpers.resign(copy.deepcopy([s.to_json() for s in driver.log]), change)
    liar = copy.copy(driver)
    liar.log = [SignedEvent.parse(raw)[0] for raw in signed]
    return liar


def _after_reveal(events: Plain, round_id: str) -> int:
    """Index of the event right after ``round_id``'s reveal: the table_state there."""
    for i, event in enumerate(events):
        if event["type"] == "round_revealed" and event["round"] == round_id:
            assert events[i + 1]["type"] == TABLE_STATE
            return i + 1
    raise AssertionError(f"no reveal of {round_id}")


# -- honest material ---------------------------------------------------------------------


def test_a_bounded_export_of_interleaved_tables_verifies_checking_each_event_once(
    log: helpers.Log, bounded: list[Bundle], trust: Trust
) -> None:
    assert len({b["table_id"] for b in bounded}) == 3
    previous_head: dict[str, int] = {}
    for bundle, (driver, round_id, last) in zip(bounded, log.entries, strict=True):
        first, head = _first(bundle), bundle["events"][-1]["event"]
        assert (bundle["format"], bundle["round_id"]) == ("fairdeal-bundle/2", round_id)
        assert (head["type"], head["seq"]) == ("round_revealed", last)
        if driver.table_id in previous_head:  # every later line starts at a table_state
            assert first["type"] == TABLE_STATE
            assert first["seq"] == previous_head[driver.table_id] + 1
        else:
            assert (first["type"], first["seq"]) == ("table_created", 0)
        previous_head[driver.table_id] = last
    report = _export(bounded, trust)
    assert report.verdict == "valid", report.codes()
    distinct = {(b["table_id"], e["event"]["seq"]) for b in bounded for e in b["events"]}
    assert report.events == len(distinct) == sum(len(b["events"]) for b in bounded)
    assert report.rounds == len(bounded)


def test_the_bounded_export_verifies_on_the_command_line_against_the_latest_checkpoint(
    log: helpers.Log, bounded: list[Bundle], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "export.jsonl").write_text(helpers.export_text(bounded))
    (tmp_path / "checkpoint.txt").write_text(log.checkpoint())
    (tmp_path / "key.pem").write_text(helpers.PEM)
    status, report = helpers.run(
        capsys,
        "--key",
        str(tmp_path / "key.pem"),
        "--key",
        helpers.VERIFIER_KEY,
        "--checkpoint",
        str(tmp_path / "checkpoint.txt"),
        "--jobs",
        "2",
        str(tmp_path / "export.jsonl"),
    )
    assert (status, report["verdict"], helpers.codes(report)) == (0, "valid", set())
    assert report["events"] == sum(len(b["events"]) for b in bounded)


def test_a_single_bounded_bundle_verifies_alone_and_on_the_command_line(
    bounded: list[Bundle], trust: Trust, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bundle = bounded[-1]  # kv2's third round: from the table_state after its second
    assert _first(bundle)["type"] == TABLE_STATE and _first(bundle)["seq"] > 0
    report = verify_bundle(bundle, trust)
    assert (report.verdict, report.events) == ("valid", len(bundle["events"]))
    (tmp_path / "bundle.json").write_text(json.dumps(bundle, indent=2))
    (tmp_path / "key.pem").write_text(helpers.PEM)
    status, cli = helpers.run(
        capsys, "--key", str(tmp_path / "key.pem"), str(tmp_path / "bundle.json")
    )
    assert (status, cli["verdict"], helpers.codes(cli)) == (0, "valid", set())


# -- a lying operator ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "change", [helpers.move_money, helpers.other_banker, helpers.other_options]
)
def test_an_operator_lying_in_a_table_state_is_caught_across_bundles_not_in_one(
    change: Callable[[dict[str, Any]], None], trust: Trust
) -> None:
    liar = helpers.Log().add_all(helpers.lying_table(change))  # a real log and checkpoint over it
    bundles = liar.bundles(bounded=True)
    assert [_first(b)["type"] for b in bundles] == ["table_created", TABLE_STATE, TABLE_STATE]
    # Each bundle alone is valid: a bounded bundle proves its round from the state its
    # table_state states, signed by the operator; only the table's previous bundle can
    # tell that round 1 did not leave that state.
    for bundle in bundles:
        assert _alone(bundle, trust) == set()
    # In the export, round 2's bundle starts at a state round 1's replay does not end in.
    report = _export(bundles, trust)
    assert report.codes() == {"export.state"}
    assert [(f.code, f.round) for f in report.findings] == [("export.state", "kv.2")]
    # A whole-prefix bundle replays round 1 and meets the lying table_state: rules.state.
    whole = liar.bundle(1)
    assert _first(whole)["seq"] == 0
    codes = _alone(whole, trust)
    assert "rules.state" in codes
    expected = (
        {"rules.state", "money.balances"} if change is helpers.move_money else {"rules.state"}
    )
    assert codes == expected


def test_a_bounded_bundle_that_does_not_start_after_the_previous_one_is_export_link(
    bounded: list[Bundle], trust: Trust
) -> None:
    kv = [i for i, b in enumerate(bounded) if b["table_id"] == "kv"]
    dropped = [b for i, b in enumerate(bounded) if i != kv[1]]  # kv's round 2 left out
    report = _export(dropped, trust)
    assert "export.link" in report.codes()
    assert [(f.code, f.round) for f in report.findings if f.code == "export.link"] == [
        ("export.link", "kv.3")
    ]
    # A filtered export misses other tables' leaves, never one of a table's own heads: a
    # table's lines must link there too, or a state could be slipped in between them.
    partial = _export(dropped, trust, partial=True)
    assert partial.codes() == {"export.link"}


def test_a_whole_export_whose_table_starts_at_a_table_state_is_export_link(trust: Trust) -> None:
    """A table whose first rounds the operator keeps out of its log: every leaf is there
    and linked, but the table's events before its first bundle are in none."""
    driver = _kvitlach("late", rounds=3)
    log = helpers.Log()
    for round_id in driver.rounds[1:]:
        log.add(driver, round_id)
    bundles = log.bundles(bounded=True)
    first = bundles[0]["events"]
    opened = next(i for i, e in enumerate(first) if e["event"]["round"] == "late.2")
    assert first[opened - 1]["event"]["type"] == TABLE_STATE
    bundles[0]["events"] = first[opened - 1 :]  # from the table_state after round 1
    assert _alone(bundles[0], trust) == set()
    whole = _export(bundles, trust)
    assert [(f.code, f.round) for f in whole.findings] == [("export.link", "late.2")]
    assert _export(bundles, trust, partial=True).verdict == "valid"


def test_a_bounded_bundle_given_twice_in_an_export_is_export_link(
    bounded: list[Bundle], trust: Trust
) -> None:
    kv = [i for i, b in enumerate(bounded) if b["table_id"] == "kv"]
    twice = [*bounded[: kv[1] + 1], bounded[kv[1]], *bounded[kv[1] + 1 :]]
    assert "export.link" in _export(twice, trust).codes()


# -- malformed starts --------------------------------------------------------------------


def test_a_second_format_bundle_starting_inside_the_chain_is_chain_start(
    bounded: list[Bundle], log: helpers.Log, trust: Trust
) -> None:
    cut = copy.deepcopy(bounded[-1])
    cut["events"] = cut["events"][1:]  # from the round_opened after the table_state
    assert _first(cut)["type"] == "round_opened"
    assert _alone(cut, trust) == {"chain.start"}
    middle = log.bundle(len(log.entries) - 1)  # whole prefix, cut at a seat_joined
    middle["events"] = middle["events"][3:]
    assert _first(middle)["type"] == "seat_joined"
    assert _alone(middle, trust) == {"chain.start"}


def test_a_first_format_bundle_starting_at_a_table_state_is_chain_gap(
    bounded: list[Bundle], trust: Trust
) -> None:
    old = copy.deepcopy(bounded[-1])
    old["format"] = "fairdeal-bundle/1"  # the first format always starts at seq 0
    assert _alone(old, trust) == {"chain.gap"}
    assert _alone(bounded[-1], trust) == set()


class _OddRoundIds(helpers.TableDriver):
    """An operator whose engine names its rounds <table>-<number>, not <table>.<number>."""

    def open_round(self) -> str:
        round_id = f"{self.table_id}-{len(self.rounds) + 1}"
        self.rounds.append(round_id)
        self.secret = helpers.server_seed(round_id)
        commitment = randomness.seed_commitment(self.secret).hex()
        self.do("round_opened", SERVER, {"commitment": commitment}, round_id)
        return round_id


def test_a_round_id_not_table_dot_number_in_a_bounded_chain_is_chain_misplaced(
    trust: Trust,
) -> None:
    # Signed by the operator as its engine plays: renaming a round after the fact would
    # also break its commitment and shuffle (card.*), which hides the point.
    odd = _OddRoundIds("kvitlach", "kv", {})
    for seat in range(3):
        odd.seat(seat, "seat_joined", {"buy_in": 1_000})
    odd.play_round()
    odd.play_round()
    liar = helpers.Log().add_all(odd)
    for bundle in [*liar.bundles(bounded=True), *liar.bundles()]:
        assert _alone(bundle, trust) == {"chain.misplaced"}
    assert _first(liar.bundle(1, bounded=True))["type"] == TABLE_STATE


def _without_balances(events: Plain) -> None:
    del events[_after_reveal(events, "kv.1")]["data"]["balances"]


def _unknown_game(events: Plain) -> None:
    events[_after_reveal(events, "kv.1")]["data"]["game"] = "poker"


@pytest.mark.parametrize(
    ("change", "code"),
    [(_without_balances, "schema.data"), (_unknown_game, "rules.unknown_game")],
)
def test_a_malformed_table_state_a_bundle_starts_at(
    change: Callable[[Plain], None], code: str, trust: Trust
) -> None:
    liar = helpers.Log().add_all(_tampered(_kvitlach(rounds=2), change))
    bundle = liar.bundle(1, bounded=True)
    assert _first(bundle)["type"] == TABLE_STATE
    assert code in _alone(bundle, trust)
    assert _alone(liar.bundle(0, bounded=True), trust) == set()  # round 1: untouched


def test_a_malformed_table_state_inside_a_chain_is_schema_data(trust: Trust) -> None:
    liar = helpers.Log().add_all(_tampered(_kvitlach(rounds=2), _without_balances))
    codes = _alone(liar.bundle(1), trust)  # whole prefix: the replay meets it too
    assert {"schema.data", "rules.state"} <= codes


def test_a_chain_that_drops_a_due_table_state_is_rules_mismatch(trust: Trust) -> None:
    def drop(events: Plain) -> None:
        del events[_after_reveal(events, "kv.2")]
        for seq, event in enumerate(events):
            event["seq"] = seq

    honest = _kvitlach(rounds=3)
    liar = helpers.Log().add_all(_tampered(honest, drop))
    # Nothing follows round 2's head there, so the service serves round 3 from seq 0.
    assert liar.first(2) == 0
    assert _alone(liar.bundle(2), trust) == {"rules.mismatch"}
    assert _alone(liar.bundle(1), trust) == set()
    # From the table_state after round 1, a bounded chain misses it the same way.
    log = helpers.Log().add_all(honest)
    assert _alone(log.bundle(2, bounded=True), trust) == set()
    start = liar.first(1)
    bounded = liar.bundle(2)
    bounded["events"] = bounded["events"][start:]
    assert _first(bounded)["type"] == TABLE_STATE
    assert _alone(bounded, trust) == {"rules.mismatch"}


# -- a table older than table_state -------------------------------------------------------


def _table_from_before_table_state(old_rounds: int, new_rounds: int) -> helpers.TableDriver:
    """A Kvitlach table whose first rounds were logged by an engine from before table_state
    (first format: every run at rest runs without one), then played on by this engine."""
    driver = helpers.TableDriver("kvitlach", "old", {})
    for seat in range(3):
        driver.table = _unlogged(driver.table)
        driver.seat(seat, "seat_joined", {"buy_in": 1_000})
    for _ in range(old_rounds):
        driver.table = _unlogged(driver.table)
        driver.play_round()
    for _ in range(new_rounds):
        driver.play_round()
    return driver


def _unlogged(at_rest: table.Table[Any]) -> table.Table[Any]:
    return table.Table(at_rest.game, at_rest.state, at_rest.head, Standing(FRESH, False))


def test_an_export_of_a_table_from_before_table_state_verifies(trust: Trust) -> None:
    driver = _table_from_before_table_state(old_rounds=2, new_rounds=2)
    assert [s.event.type for s in driver.log].count(TABLE_STATE) == 2  # after rounds 2, 3
    log = helpers.Log().add_all(driver)
    assert [log.first(i) for i in range(4)][:2] == [0, 0]  # as the service serves them
    bundles = log.bundles(bounded=True)
    assert [_first(b)["type"] for b in bundles][2:] == [TABLE_STATE, TABLE_STATE]
    for bundle in bundles:
        assert _alone(bundle, trust) == set()
    report = _export(bundles, trust)
    assert report.verdict == "valid", report.codes()
