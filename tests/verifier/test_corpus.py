"""Every named tampering is rejected with its finding; every untampered bundle verifies."""

from typing import Any

import pytest

from verifier import Trust, verify_bundle

from . import corpus
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
