"""Version 2 (issue 15) against a lying operator, who re-signs, re-links and re-logs any
event it likes but holds no seat's key: each attack on the seats' signed statements, the
seed commitments or the withheld-reveal rule is a named finding with its stable code.
Honest version-2 tables (Toto21, and Kvitlach under both rule sets) with keyed and
keyless seats, commitments and a withheld reveal verify, and so do the version-1 vectors."""

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from fairdeal import statements, table
from fairdeal.events import Draft
from fairdeal.protocol import SERVER, TABLE_STATE
from fairdeal.statements import SIGNED
from fairdeal.verifier import Report, Trust, export, load_trust, verify_bundle
from fairdeal.verifier.cli import main
from fairdeal.verifier.explain import explain
from fairdeal.verifier.inputs import Line
from tests.vectors import legacy

from . import corpus, helpers, signed

Bundle = dict[str, Any]
Plain = list[dict[str, Any]]
OPERATORS_OWN = signed.seat_key("a seat key the operator made for itself")
VECTORS = Path(__file__).resolve().parents[1] / "vectors"


@pytest.fixture(scope="module")
def tables() -> dict[str, signed.SignedDriver]:
    return {
        "toto21": signed.toto21_table("v2t21"),
        "classic": signed.kvitlach_table("v2kv"),
        "pressburg": signed.kvitlach_table("v2kp", silent=1, rule_set="pressburg"),
    }


@pytest.fixture(scope="module")
def v2_log(tables: dict[str, signed.SignedDriver]) -> helpers.Log:
    return helpers.Log().add_all(*tables.values())


def _lines(bundles: list[Bundle]) -> list[Line]:
    text = helpers.export_text(bundles).encode()
    return [Line(n, raw) for n, raw in enumerate(text.splitlines(keepends=True), 1)]


def _export(bundles: list[Bundle], trust: Trust) -> Report:
    return export.verify(_lines(bundles), trust, export.Pinned())


def _lines_of(report: Report) -> list[str]:
    return [finding.line() for finding in report.findings]


# -- honest material -----------------------------------------------------------------------


def test_the_honest_tables_have_keyed_and_keyless_seats_commitments_and_a_withheld_reveal(
    tables: dict[str, signed.SignedDriver],
) -> None:
    for driver in tables.values():
        events = [s.event for s in driver.log]
        assert {e.version for e in events} == {SIGNED}
        keys = [e.data["key"] for e in events if e.type == "seat_joined"]
        assert None in keys and any(key is not None for key in keys)
        types = {e.type for e in events}
        assert {"seed_commitment", "seeds_committed", "seed_timeout", "round_voided"} <= types
        withholder = 0 if driver.game.name == "toto21" else 2
        voided = [e.data for e in events if e.type == "round_voided"]
        assert voided == [{"reason": "seed_withheld", "seats": [withholder]}]
        assert any("signed" in e.data for e in events)
    options = tables["pressburg"].table.state.options
    assert (options.rule_set, options.order) == ("pressburg", "alternate")
    first = [s.event for s in tables["pressburg"].log if s.event.round == "v2kp.1"]
    timeout = next(i for i, e in enumerate(first) if e.type == "seed_timeout")
    assert first[timeout].data["seats"] == [1]  # before the commitments were all in
    assert first[timeout + 1].type == "seeds_committed"
    seeds = [e for e in tables["toto21"].log if e.event.type == "client_seed"]
    assert any(e.event.actor == "seat:1" and "signed" not in e.event.data for e in seeds)


def test_honest_version_2_tables_verify_bundle_by_bundle_and_as_an_export(
    v2_log: helpers.Log, trust: Trust
) -> None:
    bundles = v2_log.bundles()
    for bundle in bundles:
        report = verify_bundle(bundle, trust)
        assert report.verdict == "valid", (bundle["round_id"], _lines_of(report))
    report = _export(bundles, trust)
    assert report.verdict == "valid", _lines_of(report)


def test_bounded_bundles_of_version_2_tables_verify_alone_and_as_an_export(
    tables: dict[str, signed.SignedDriver], trust: Trust
) -> None:
    """Each from the table_state after its table's previous head: after a withheld
    reveal's void too, the round before it left unsealed."""
    bounded = helpers.Log().add_all(*tables.values()).bundles(bounded=True)
    assert {b["events"][0]["event"]["type"] for b in bounded} == {"table_created", TABLE_STATE}
    for bundle in bounded:
        report = verify_bundle(bundle, trust)
        assert report.verdict == "valid", (bundle["round_id"], _lines_of(report))
    report = _export(bounded, trust)
    assert report.verdict == "valid", _lines_of(report)


def test_a_version_2_export_verifies_on_the_command_line_and_explain_names_the_keyless_seats(
    v2_log: helpers.Log, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bundles = v2_log.bundles()
    (tmp_path / "key.pem").write_text(helpers.PEM)
    (tmp_path / "export.jsonl").write_text(helpers.export_text(bundles))
    key = ["--key", str(tmp_path / "key.pem")]
    status, report = helpers.run(capsys, *key, str(tmp_path / "export.jsonl"))
    assert (status, report["verdict"], report["rounds"]) == (0, "valid", len(bundles))
    kvitlach = next(b for b in bundles if b["round_id"] == "v2kv.3")
    (tmp_path / "round.json").write_text(json.dumps(kvitlach))
    assert main([*key, str(tmp_path / "round.json"), "--explain"]) == 0
    out = capsys.readouterr().out
    assert "seat 1 has no key: its moves are attested by the operator alone" in out
    for seat in (0, 2):
        key_hex = statements.public_key_hex(signed.KEYED[seat])
        assert f"seat {seat}'s moves are signed by the seat, with its key {key_hex}" in out


def test_explain_says_a_seat_that_sent_its_seed_in_the_clear_trusted_the_operator() -> None:
    """Seat 1 of this Toto21 table is keyless and sends its seed at once; seat 0 commits."""
    log = helpers.Log().add_all(signed.toto21_table("v2clear", rounds=2))
    for bundle in log.bundles():
        if not bundle["round_id"]:
            continue
        story = explain(bundle, as_json=True)
        assert isinstance(story, dict)
        said = [line for line in story["moves_attested"] if "in the clear" in line]
        assert said == [
            f"seat 1 sent its seed for round {bundle['round_id']} in the clear, with no "
            "commitment first: it trusted the operator with the deck (the operator, who knows "
            "the server seed, could have chosen the other seeds against it, or told someone "
            "its seed)"
        ]


def test_explain_says_a_version_1_tables_moves_are_attested_by_the_operator_alone(
    bundles: list[Bundle],
) -> None:
    story = explain(bundles[-1], as_json=True)
    assert isinstance(story, dict)
    assert story["moves_attested"] == [
        "a version-1 table: every seat's moves are attested by the operator alone"
    ]


def test_the_version_1_vectors_still_verify() -> None:
    """The bounded export of SPEC 9 and the frozen export of the release before it."""
    vector = json.loads((VECTORS / "fairdeal-bundle-2.json").read_text(encoding="utf-8"))
    assert {e["event"]["version"] for b in vector["export"] for e in b["events"]} == {1}
    report = _export(vector["export"], load_trust([vector["verifier_key"]]))
    assert report.verdict == "valid", _lines_of(report)
    lines = legacy.OUTPUT.read_bytes().splitlines(keepends=True)
    numbered = [Line(n, raw) for n, raw in enumerate(lines, 1)]
    report = export.verify(numbered, load_trust([legacy.KEY.read_text().strip()]), export.Pinned())
    assert report.verdict == "valid", _lines_of(report)


# -- the operator's attacks, on whole chains ----------------------------------------------


def _event(
    events: Plain, type_: str, round_id: str | None, actor: str | None = None, nth: int = 0
) -> dict[str, Any]:
    """The nth event of that type, round (and actor)."""
    found = [
        e
        for e in events
        if e["type"] == type_ and e["round"] == round_id and actor in (None, e["actor"])
    ]
    return found[nth]


def _signature(
    key: Any, event: dict[str, Any], n: int, after: dict[str, Any], data: dict[str, Any]
) -> str:
    """``key``'s signature over the statement the event's seat would sign for it."""
    seat = int(event["actor"].removeprefix("seat:"))
    kind, round_id, table_id = event["type"], event["round"], event["table"]
    message = statements.statement(table_id, round_id, seat, n=n, after=after, kind=kind, data=data)
    return str(key.sign(message).hex())


def _renumbered(events: Plain) -> None:
    for seq, event in enumerate(events):
        event["seq"] = seq


# (a) a forged move: one the seat never signed


def _stand_unsigned(events: Plain) -> None:
    del _event(events, "stand", "v2t21.3", "seat:0")["data"]["signed"]


def _stand_signed_by_another_key(events: Plain) -> None:
    stand = _event(events, "stand", "v2t21.3", "seat:0")
    statement = stand["data"]["signed"]
    statement["signature"] = _signature(
        OPERATORS_OWN, stand, statement["n"], statement["after"], statement["data"]
    )


def _hit_logged_as_a_stand(events: Plain) -> None:
    _event(events, "hit", "v2t21.3", "seat:0")["type"] = "stand"


def _keyless_move_signed(events: Plain) -> None:
    stand = _event(events, "stand", "v2t21.3", "seat:1")
    after = {"seq": stand["seq"] - 1, "hash": "ab" * 32}
    stand["data"]["signed"] = {
        "n": 1,
        "after": after,
        "data": {},
        "signature": _signature(OPERATORS_OWN, stand, 1, after, {}),
    }


def _bad_key_at_seating(events: Plain) -> None:
    _event(events, "seat_joined", None, "seat:0")["data"]["key"] = "not a key"


def _small_order_key_at_seating(events: Plain) -> None:
    """The identity point: R = identity, S = 0 then verifies for every statement."""
    _event(events, "seat_joined", None, "seat:0")["data"]["key"] = "01" + "00" * 31


# (b) a statement replayed: from another round, or twice


def _later_rounds_stand_in_an_earlier_round(events: Plain) -> None:
    later = _event(events, "stand", "v2t21.3", "seat:0")["data"]["signed"]
    _event(events, "stand", "v2t21.1", "seat:0")["data"]["signed"] = copy.deepcopy(later)


def _earlier_rounds_stand_in_a_later_round(events: Plain) -> None:
    earlier = _event(events, "stand", "v2t21.1", "seat:0")["data"]["signed"]
    _event(events, "stand", "v2t21.3", "seat:0")["data"]["signed"] = copy.deepcopy(earlier)


def _hit_replayed_within_the_round(events: Plain) -> None:
    first = _event(events, "hit", "v2kv.3", "seat:2", 0)["data"]["signed"]
    _event(events, "hit", "v2kv.3", "seat:2", 1)["data"]["signed"] = copy.deepcopy(first)


# (c) an altered amount


def _bet_altered_in_the_event(events: Plain) -> None:
    _event(events, "bet", "v2kv.3", "seat:2")["data"]["amount"] = 20


def _bet_altered_in_the_statement_too(events: Plain) -> None:
    bet = _event(events, "bet", "v2kv.3", "seat:2")["data"]
    bet["amount"] = bet["signed"]["data"]["amount"] = 20


# (e) a commitment or reveal out of the protocol's order, or a reveal that does not open


def _commitment_twice(events: Plain) -> None:
    commitment = _event(events, "seed_commitment", "v2kv.3", "seat:1")  # keyless: no n to reuse
    events.insert(events.index(commitment) + 1, copy.deepcopy(commitment))
    _renumbered(events)


def _reveals_opened_before_the_last_commitment(events: Plain) -> None:
    opening = events.index(_event(events, "seeds_committed", "v2kv.3"))
    events.insert(opening - 1, events.pop(opening))
    _renumbered(events)


def _reveal_timeout_naming_a_revealed_seat(events: Plain) -> None:
    _event(events, "seed_timeout", "v2kv.2")["data"]["seats"] = [0, 2]
    _event(events, "round_voided", "v2kv.2")["data"]["seats"] = [0, 2]


def _reveal_not_opening(events: Plain) -> None:
    _event(events, "client_seed", "v2kv.3", "seat:1")["data"]["seed"] = "chosen-by-the-operator"
    _event(events, "round_sealed", "v2kv.3")["data"]["client_seeds"][1] = "chosen-by-the-operator"


def _reveal_before_the_reveals_open(events: Plain) -> None:
    opening = events.index(_event(events, "seeds_committed", "v2kv.3"))
    events.insert(opening + 1, events.pop(opening))  # after the first reveal
    _renumbered(events)


# (f) a withheld reveal not attributed


def _void_naming_another_seat(events: Plain) -> None:
    _event(events, "round_voided", "v2kv.2")["data"]["seats"] = [1]


def _void_naming_no_seat(events: Plain) -> None:
    del _event(events, "round_voided", "v2kv.2")["data"]["seats"]


def _void_without_a_timeout(events: Plain) -> None:
    events.remove(_event(events, "seed_timeout", "v2kv.2"))
    _renumbered(events)


def _withheld_reveal_not_voided(events: Plain) -> None:
    events.remove(_event(events, "round_voided", "v2kv.2"))
    _renumbered(events)


# (g) a statement taken out of the log the seat saw (SPEC 6.7's after)


def _reveal_relogged_as_a_plain_seed(events: Plain) -> None:
    """The operator drops seat 0's commitment and the seeds_committed, and logs its
    reveal as a plain seed sent first, where it could have ground seat 1's against it:
    the reveal names the seeds_committed's seq, which this chain has not reached yet."""
    commitment = _event(events, "seed_commitment", "v2t21.3", "seat:0")
    reveal = _event(events, "client_seed", "v2t21.3", "seat:0")
    events.remove(_event(events, "seeds_committed", "v2t21.3"))
    events.remove(reveal)
    events[events.index(commitment)] = {**reveal, "time": commitment["time"]}
    _renumbered(events)


def _statement_without_its_data(events: Plain) -> None:
    del _event(events, "stand", "v2t21.3", "seat:0")["data"]["signed"]["data"]


def _void_without_its_reveal(events: Plain) -> None:
    """SPEC 6.3: the withheld reveal's void logged without the round_revealed its run
    needs the server seed for: the server's seed_timeout is refused, not a crash."""
    assert events[-1]["type"] == "round_revealed"
    del events[-1]


# the chain's version


def _one_event_of_version_1(events: Plain) -> None:
    _event(events, "round_opened", "v2kv.3")["version"] = 1


# name: (the round whose whole-chain bundle is changed, how, exactly the codes it raises)
ATTACKS: dict[str, tuple[str, Callable[[Plain], None], set[str]]] = {
    "a_move_without_the_seats_signature": ("v2t21.3", _stand_unsigned, {"sig.seat_missing"}),
    "a_move_signed_by_another_key": ("v2t21.3", _stand_signed_by_another_key, {"sig.seat_bad"}),
    "a_move_the_seat_signed_as_another": ("v2t21.3", _hit_logged_as_a_stand, {"sig.seat_bad"}),
    "a_keyless_seats_move_signed": ("v2t21.3", _keyless_move_signed, {"sig.seat_unexpected"}),
    "a_seat_bound_to_a_malformed_key": ("v2t21.3", _bad_key_at_seating, {"sig.seat_key"}),
    "a_seat_bound_to_a_small_order_key": ("v2t21.3", _small_order_key_at_seating, {"sig.seat_key"}),
    "a_move_replayed_from_a_later_round": (
        "v2t21.3",
        _later_rounds_stand_in_an_earlier_round,  # made after an event not yet logged there
        {"sig.seat_stale"},
    ),
    "a_move_replayed_from_an_earlier_round": (
        "v2t21.3",
        _earlier_rounds_stand_in_a_later_round,
        {"sig.seat_replayed"},
    ),
    "a_move_replayed_within_the_round": (
        "v2kv.3",
        _hit_replayed_within_the_round,
        {"sig.seat_replayed"},
    ),
    "a_bet_amount_altered_in_the_event": ("v2kv.3", _bet_altered_in_the_event, {"rules.mismatch"}),
    "a_bet_amount_altered_in_the_statement": (
        "v2kv.3",
        _bet_altered_in_the_statement_too,
        {"sig.seat_bad"},
    ),
    "a_seat_committing_twice": (
        "v2kv.3",
        _commitment_twice,
        {"seed.client", "rules.illegal_action"},
    ),
    "the_reveals_opened_before_every_seat_committed": (
        "v2kv.3",
        _reveals_opened_before_the_last_commitment,  # so the late seat's reveal is one too
        {"seed.client", "seed.reveal", "rules.server_refused"},
    ),
    "a_revealed_seat_named_as_withholding": (
        "v2kv.3",
        _reveal_timeout_naming_a_revealed_seat,
        {"seed.client", "seed.withheld", "rules.server_refused"},
    ),
    "a_reveal_that_does_not_open_its_commitment": (
        "v2kv.3",
        _reveal_not_opening,  # and the cards dealt are not the deck of the seeds logged
        {"seed.reveal", "rules.illegal_action", "card.commitment", "card.shown"},
    ),
    "a_reveal_before_the_reveals_open": (
        "v2kv.3",
        _reveal_before_the_reveals_open,
        {"seed.reveal", "rules.mismatch"},
    ),
    "a_withheld_reveal_blamed_on_another_seat": (
        "v2kv.3",
        _void_naming_another_seat,
        {"seed.withheld", "rules.mismatch"},
    ),
    "a_withheld_reveal_blamed_on_no_seat": (
        "v2kv.3",
        _void_naming_no_seat,
        {"seed.withheld", "rules.mismatch"},
    ),
    "a_void_for_a_withheld_reveal_without_its_timeout": (
        "v2kv.3",
        _void_without_a_timeout,
        {"seed.withheld", "rules.server_refused"},
    ),
    "a_withheld_reveal_not_voided": (
        "v2kv.3",
        _withheld_reveal_not_voided,
        {"seed.withheld", "rules.mismatch"},
    ),
    "an_event_of_another_version": ("v2kv.3", _one_event_of_version_1, {"chain.version"}),
    "a_reveal_relogged_as_a_plain_seed_in_a_fork": (
        "v2t21.3",
        _reveal_relogged_as_a_plain_seed,
        {"sig.seat_stale"},
    ),
    "a_logged_statement_without_the_data_the_seat_signed": (
        "v2t21.3",
        _statement_without_its_data,
        {"sig.seat_bad"},
    ),
    "a_withheld_reveal_voided_without_the_reveal": (
        "v2t21.2",
        _void_without_its_reveal,
        {"round.unfinished", "rules.server_refused"},
    ),
}


def _whole(v2_log: helpers.Log, round_id: str) -> Bundle:
    """The bundle of ``round_id`` with its table's whole chain, from seq 0."""
    return v2_log.bundle(next(i for i, e in enumerate(v2_log.entries) if e[1] == round_id))


@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_an_attack_on_a_version_2_chain_is_its_named_finding(
    name: str, v2_log: helpers.Log, trust: Trust
) -> None:
    round_id, change, codes = ATTACKS[name]
    report = verify_bundle(corpus.operator(_whole(v2_log, round_id), change), trust)
    assert report.codes() == codes, _lines_of(report)


def test_an_untouched_rewrite_of_a_version_2_chain_still_verifies(
    v2_log: helpers.Log, trust: Trust
) -> None:
    """The attacks' re-sign and re-log machinery alone changes nothing that matters."""
    for round_id in ("v2t21.3", "v2kv.3"):
        report = verify_bundle(corpus.operator(_whole(v2_log, round_id), lambda e: None), trust)
        assert report.verdict == "valid", _lines_of(report)


def test_a_version_1_table_takes_no_seed_commitment(fixture: corpus.Fixture, trust: Trust) -> None:
    def commit_first(events: Plain) -> None:
        seed = events[corpus.index_of(events, "client_seed", 0)]
        commitment = {**copy.deepcopy(seed), "type": "seed_commitment"}
        commitment["data"] = {"commitment": "ab" * 32}
        events.insert(events.index(seed), commitment)
        _renumbered(events)

    report = verify_bundle(corpus.operator(fixture.kvitlach, commit_first), trust)
    assert {"seed.client", "rules.illegal_action"} <= report.codes(), _lines_of(report)


# (d) a seat's key swapped after seating


def _key_swapped_table() -> signed.SignedDriver:
    """A Kvitlach table whose operator, after round 1, logs a table_state binding seat 2
    to a key of its own, then plays rounds 2 and 3 on from it, signing seat 2's moves
    with that key, as its engine would: every later event is what the rules decide from
    the lie, so nothing after it gives it away."""
    driver = signed.kvitlach_table("v2ks", rounds=1)
    true = table.state_draft(driver.game, driver.table.state, driver.table.seats)
    assert true is not None
    data = json.loads(json.dumps(dict(true.data)))
    bound = next(item for item in data["seat_keys"] if item["seat"] == 2)
    bound["key"] = statements.public_key_hex(OPERATORS_OWN)
    state, seats = table.restored(driver.game, data, SIGNED)
    now = driver.table.head.time
    head, logged = driver.table.head.extend([Draft(TABLE_STATE, SERVER, data)], now, driver.signer)
    standing = driver.table.standing.after([TABLE_STATE])
    seen = driver.table.seen.then(logged[0].event, logged[0].hash.hex())
    driver.table = table.Table(driver.game, state, head, standing, seats, seen)
    driver.log.extend(logged)
    driver.keys[2] = OPERATORS_OWN
    driver.play_round()
    driver.play_round()
    return driver


def test_a_seat_key_swapped_in_a_table_state_is_export_state_and_rules_state(
    trust: Trust,
) -> None:
    liar = helpers.Log().add_all(_key_swapped_table())
    bundles = liar.bundles(bounded=True)
    assert [b["events"][0]["event"]["type"] for b in bundles] == [
        "table_created",
        TABLE_STATE,
        TABLE_STATE,
    ]
    for bundle in bundles:  # each proves its round from the state it starts at
        assert verify_bundle(bundle, trust).codes() == set()
    report = _export(bundles, trust)
    assert [(f.code, f.round) for f in report.findings] == [("export.state", "v2ks.2")]
    whole = verify_bundle(liar.bundle(1), trust)
    assert whole.codes() == {"rules.state"}, _lines_of(whole)


def _malformed_key(keys: list[dict[str, Any]]) -> None:
    keys[0]["key"] = "not a key"


def _no_keys(keys: list[dict[str, Any]]) -> None:
    keys.clear()
    keys.append({"seat": 0})


@pytest.mark.parametrize("change", [_malformed_key, _no_keys])
def test_a_bundle_starting_at_a_table_state_with_malformed_seat_keys_is_sig_seat_key(
    change: Callable[[list[dict[str, Any]]], None],
    tables: dict[str, signed.SignedDriver],
    trust: Trust,
) -> None:
    bundle = helpers.Log().add_all(tables["classic"]).bundle(2, bounded=True)
    assert bundle["events"][0]["event"]["type"] == TABLE_STATE
    tampered = corpus.operator(bundle, lambda events: change(events[0]["data"]["seat_keys"]))
    report = verify_bundle(tampered, trust)
    assert report.codes() == {"sig.seat_key"}, _lines_of(report)


# (g) a statement out of the log the seat saw: a fork, a departure held back or replayed


def _twin(driver: signed.SignedDriver) -> signed.SignedDriver:
    """Another run of the same table from here: the same seats, keys and bot."""
    twin = copy.copy(driver)
    twin.log, twin.rounds = list(driver.log), list(driver.rounds)
    twin.numbers, twin.keys = dict(driver.numbers), dict(driver.keys)
    twin.rng = copy.deepcopy(driver.rng)
    return twin


def _whole_chain(driver: signed.SignedDriver) -> Bundle:
    """The bundle of the driver's last round, from seq 0."""
    log = helpers.Log()
    log.add(driver, driver.rounds[-1])
    return log.bundle(0)


def test_a_stand_the_seat_signed_in_another_fork_of_the_round_is_sig_seat_bad(
    trust: Trust,
) -> None:
    """The operator plays round 3 with seat 0 (fork a), then publishes another run of it
    (fork b: the same moves, opened a millisecond later), logging seat 0's stand from
    fork a at the very same seq. Its signature is good and its n is the next, but its
    after names fork a's event at that seq: not this chain's."""
    played = signed.toto21_table("v2fk", rounds=2)
    seen, published = _twin(played), _twin(played)
    published.now += 1
    seen.play_round()
    published.play_round()

    def stand(driver: signed.SignedDriver) -> dict[str, Any]:
        found = [s.event for s in driver.log if s.event.type == "stand"]
        return next(e.to_json() for e in found if e.actor == "seat:0" and e.round == "v2fk.3")

    shown, logged = stand(seen), stand(published)
    assert shown["seq"] == logged["seq"]
    assert shown["data"]["signed"]["n"] == logged["data"]["signed"]["n"]
    assert shown["data"]["signed"]["after"] != logged["data"]["signed"]["after"]

    def reuse(events: Plain) -> None:
        _event(events, "stand", "v2fk.3", "seat:0")["data"]["signed"] = shown["data"]["signed"]

    assert verify_bundle(_whole_chain(published), trust).codes() == set()
    report = verify_bundle(corpus.operator(_whole_chain(published), reuse), trust)
    assert report.codes() == {"sig.seat_bad"}, _lines_of(report)


def _held(driver: signed.SignedDriver, seat: int, kind: str) -> dict[str, Any]:
    """The ``signed`` of the statement ``seat`` would send now, not sent (its n not used)."""
    head, key = driver.table.head, driver.keys[seat]
    assert key is not None
    after = {"seq": head.next_seq - 1, "hash": head.prev}
    n = driver.numbers[seat] + 1
    data = statements.signed_data(
        key, driver.table_id, None, seat, n=n, after=after, kind=kind, data={}
    )
    return {**data["signed"], "data": {}}


def _swapped_departure(
    driver: signed.SignedDriver, held: dict[str, Any], nth: int, trust: Trust
) -> Bundle:
    """The whole-chain bundle of the driver's next round, its ``nth`` seat_left of seat 2
    logged with the statement ``held`` instead of the one the seat sent."""
    driver.play_round()
    honest = _whole_chain(driver)
    assert verify_bundle(honest, trust).codes() == set()

    def swap(events: Plain) -> None:
        _event(events, "seat_left", None, "seat:2", nth)["data"]["signed"] = held

    return corpus.operator(honest, swap)


def test_a_departure_held_back_past_another_seats_is_sig_seat_stale(trust: Trust) -> None:
    """Seat 2 signs its seat_left at rest; the operator logs seat 1's departure first (a
    table_state before each), then seat 2's statement: made after an event before the
    last table_state. (The service answers signature_stale, and the seat signs again.)"""
    driver = signed.kvitlach_table("v2kh", rounds=1)
    held = _held(driver, 2, "seat_left")
    driver.seat(1, "seat_left")
    driver.seat(2, "seat_left")  # signed again, after seat 1's departure: the same n
    driver.seat(1, "seat_joined", {"buy_in": 1_000})  # someone to play the next round
    report = verify_bundle(_swapped_departure(driver, held, 0, trust), trust)
    assert report.codes() == {"sig.seat_stale"}, _lines_of(report)


def test_an_old_departure_replayed_after_the_same_key_rejoins_is_sig_seat_stale(
    trust: Trust,
) -> None:
    """Seat 2 leaves, sits down again with the same key (its n starts over at 0), and
    the operator logs its old seat_left once more as a second departure: the n is above
    0 again, but the statement was made before the table_state the engine logged since."""
    driver = signed.kvitlach_table("v2kr", rounds=1)
    old = _held(driver, 2, "seat_left")
    driver.seat(2, "seat_left")
    assert driver.log[-1].event.data["signed"] == old  # the statement it sent
    driver.seat(2, "seat_joined", {"buy_in": 1_000})
    assert old["n"] > driver.table.seats[2].n == 0
    driver.seat(2, "seat_left")
    report = verify_bundle(_swapped_departure(driver, old, 1, trust), trust)
    assert report.codes() == {"sig.seat_stale"}, _lines_of(report)
