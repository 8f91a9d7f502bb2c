"""Every named tampering is rejected with its finding; every untampered bundle verifies."""

import copy
from typing import Any

import pytest

from fairdeal.events import Event
from fairdeal.verifier import Trust, load_trust, verify_bundle

from . import corpus, helpers, witnessed
from .corpus import Fixture


def test_every_untampered_bundle_verifies(bundles: list[dict[str, Any]], trust: Trust) -> None:
    for bundle in bundles:
        report = verify_bundle(bundle, trust)
        assert report.verdict == "valid", [f.line() for f in report.findings]


def test_the_corpus_names_at_least_thirty_attacks() -> None:
    assert len(corpus.NAMED) >= 29  # plus the export, checkpoint and input attacks elsewhere


@pytest.mark.parametrize("name", sorted(corpus.NAMED))
def test_named_tampering_is_rejected(name: str, fixture: Fixture, trust: Trust) -> None:
    which, attack, code = corpus.NAMED[name]
    tampered = attack(corpus.fixture_of(fixture, which))
    report = verify_bundle(tampered, trust)
    assert code in report.codes(), [f.line() for f in report.findings]


def test_an_untouched_operator_rewrite_still_verifies(fixture: Fixture, trust: Trust) -> None:
    """The corpus's re-sign and re-log machinery alone changes nothing that matters."""
    report = verify_bundle(corpus.operator(fixture.kvitlach, lambda events: None), trust)
    assert report.verdict == "valid", [f.line() for f in report.findings]


def test_findings_keep_the_order_of_their_events_though_signatures_are_verified_last(
    fixture: Fixture, trust: Trust
) -> None:
    """Within an event: its links, then its hash or signature, then its time."""
    tampered = copy.deepcopy(fixture.kvitlach)
    events = tampered["events"]
    events[3]["signature"] = corpus._flip_hex(events[3]["signature"])
    events[5]["key_id"] = "0" * 32
    events[6]["event"]["prev"] = corpus._flip_hex(events[6]["event"]["prev"])
    events[9]["signature"] = corpus._flip_hex(events[9]["signature"])
    events[10]["signature"] = corpus._flip_hex(events[10]["signature"])
    events[12]["event"]["time"] -= 10**6  # stated with its new hash: the signature fails
    events[12]["hash"] = Event.from_json(events[12]["event"]).hash().hex()
    events[14]["event"]["time"] -= 10**6
    found = [(f.seq, f.code) for f in verify_bundle(tampered, trust).findings]
    assert found == [
        (3, "sig.bad_signature"),
        (5, "sig.unknown_key"),
        (6, "chain.fork"),
        (6, "sig.hash_mismatch"),
        (7, "chain.fork"),
        (9, "sig.bad_signature"),
        (10, "sig.bad_signature"),
        (12, "sig.bad_signature"),
        (12, "time.went_back"),
        (13, "chain.fork"),
        (14, "sig.hash_mismatch"),
        (14, "time.went_back"),
        (15, "chain.fork"),
    ]


def _field_cases() -> list[tuple[str, str]]:
    return [(which, field) for which in ("toto21", "kvitlach") for field in corpus.FIELD_CODES]


@pytest.mark.parametrize(("which", "field"), _field_cases())
def test_a_changed_byte_in_each_field_of_each_event_type_is_caught(
    which: str, field: str, fixture: Fixture, trust: Trust
) -> None:
    bundle = corpus.fixture_of(fixture, which)
    for event_type, index in corpus.first_of_each_type(bundle).items():
        if field == "seq" and index == len(bundle["events"]) - 1:
            continue  # a last event's seq has no successor to break; its hash still does
        report = verify_bundle(corpus.field_attack(bundle, index, field), trust)
        expected = corpus.FIELD_CODES[field]
        assert expected in report.codes(), (event_type, [f.line() for f in report.findings])


def _at_rest(bundle: dict[str, Any], end: int) -> dict[str, Any]:
    """The table's head after its first ``end`` events, logged as a table at rest."""
    rest = corpus.relogged(bundle, bundle["events"][:end])
    rest["round_id"] = None
    return rest


def _first(events: list[dict[str, Any]], type_: str) -> int:
    return next(i for i, e in enumerate(events) if e["event"]["type"] == type_)


def test_a_table_at_rest_verifies_and_is_told(fixture: Fixture, trust: Trust) -> None:
    from fairdeal.verifier.explain import explain

    events = fixture.kvitlach["events"]
    seated, after_first = _first(events, "round_opened"), _first(events, "round_revealed") + 1
    for end in (seated, after_first):  # no round open either time
        report = verify_bundle(_at_rest(fixture.kvitlach, end), trust)
        assert report.verdict == "valid", [f.line() for f in report.findings]
    story = explain(_at_rest(fixture.kvitlach, seated))
    assert f"at rest at seq {seated - 1}: no round open" in story
    assert "seat 2: seat joined" in story
    assert "seat:2: 0 -> 1000 (+1000)" in story  # a buy-in, since the table was made
    assert f"The table's head (seq {seated - 1})'s times are the operator's own claims" in story
    at_rest = witnessed.witnessed(_at_rest(fixture.kvitlach, seated), witnessed.ALICE)
    given = load_trust([helpers.VERIFIER_KEY], witnesses=[witnessed.ALICE.verifier_key()])
    told = explain(at_rest, trust=given)
    assert f"The table's head (seq {seated - 1}) was in the log no later than" in told


@pytest.mark.parametrize("last", ["round_opened", "round_sealed", "card_dealt"])
def test_a_bundle_naming_no_round_that_ends_inside_one_is_unfinished(
    last: str, fixture: Fixture, trust: Trust
) -> None:
    bundle = _at_rest(fixture.toto21, _first(fixture.toto21["events"], last) + 1)
    report = verify_bundle(bundle, trust)
    assert "round.unfinished" in report.codes(), [f.line() for f in report.findings]
