"""Exports: a table's later bundles reuse what was verified, but never blindly."""

import copy
import io
from collections.abc import Callable
from typing import Any

import pytest

from fairdeal.verifier import Report, Trust, bundle, export
from fairdeal.verifier.chain import ChainChecker
from fairdeal.verifier.inputs import Line, loads_noting_duplicates
from fairdeal.verifier.progress import Progress

from . import helpers


def _lines(bundles: list[dict[str, Any]]) -> list[Line]:
    text = helpers.export_text(bundles).encode()
    return [Line(n, raw) for n, raw in enumerate(text.splitlines(keepends=True), 1)]


def test_a_tampered_prefix_in_a_later_bundle_is_checked_again_not_trusted(
    bundles: list[dict[str, Any]], trust: Trust
) -> None:
    later = max(i for i, b in enumerate(bundles) if b["table_id"] == bundles[0]["table_id"])
    tampered = copy.deepcopy(bundles)
    tampered[later]["events"][2]["event"]["time"] += 1  # inside the already verified prefix
    report = export.verify(_lines(tampered), trust, export.Pinned())
    assert "sig.hash_mismatch" in report.codes()
    assert export.verify(_lines(bundles), trust, export.Pinned()).verdict == "valid"


@pytest.mark.parametrize(
    ("member", "change", "code"),
    [
        (
            "signature",
            lambda text: ("1" if text[0] != "1" else "2") + text[1:],
            "sig.bad_signature",
        ),
        ("signature", str.upper, "schema.event"),
        ("signature", lambda text: text + "00", "schema.event"),
        ("key_id", lambda text: "0" * 32, "sig.unknown_key"),
        ("key_id", lambda text: text + "0", "schema.event"),
        ("hash", lambda text: ("1" if text[0] != "1" else "2") + text[1:], "sig.hash_mismatch"),
    ],
)
def test_a_later_bundle_reuses_a_prefix_only_when_each_signed_event_is_the_verified_one(
    bundles: list[dict[str, Any]],
    trust: Trust,
    monkeypatch: pytest.MonkeyPatch,
    member: str,
    change: Callable[[str], str],
    code: str,
) -> None:
    checked = []
    check = ChainChecker.check
    monkeypatch.setattr(
        ChainChecker,
        "check",
        lambda self, raws, dup: check(self, checked.extend(raws) or raws, dup),
    )
    assert export.verify(_lines(bundles), trust, export.Pinned()).verdict == "valid"
    assert len(checked) < sum(len(b["events"]) for b in bundles)  # prefixes were reused
    later = max(i for i, b in enumerate(bundles) if b["table_id"] == bundles[0]["table_id"])
    tampered = copy.deepcopy(bundles)
    signed = tampered[later]["events"][2]  # inside the already verified prefix
    signed[member] = change(signed[member])
    assert code in export.verify(_lines(tampered), trust, export.Pinned()).codes()


def test_a_finished_match_verifies_though_match_won_follows_the_reveal(trust: Trust) -> None:
    driver = helpers.TableDriver("toto21", "tm", {"stake": 5, "target": 2})
    driver.seat(0, "seat_joined")
    driver.seat(1, "seat_joined")
    driver.seat(0, "joiner_accepted")
    while not any(s.event.type == "match_won" for s in driver.log):
        driver.play_round()
    log = helpers.Log()
    for round_id in driver.rounds:
        log.add(driver, round_id)
    report = export.verify(_lines(log.bundles()), trust, export.Pinned())
    assert report.verdict == "valid", [f.line() for f in report.findings]


def test_the_progress_bar_draws_only_on_a_terminal() -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    quiet, tty = io.StringIO(), Terminal()
    for stream in (quiet, tty):
        bar = Progress(1000, stream)
        bar._last = -1.0  # draw now, whatever the clock says
        bar.update(3, 500)
        bar.close()
    assert quiet.getvalue() == "" and "50.0%" in tty.getvalue()


# A line's text as read: a member name repeated anywhere, a float, an integer past 2**53 or a
# member name escaped out of ASCII is found, with its code.

_FIRST_SEAT = '"seat": 0, '
_TEXT_CASES = {
    "a repeated member deep in an event's data": (
        lambda text: text.replace(_FIRST_SEAT, _FIRST_SEAT * 2, 1),
        "canonical.duplicate_key",
    ),
    "a repeated member, its colon made up by an escaped one": (
        lambda text: text.replace(_FIRST_SEAT, _FIRST_SEAT * 2, 1).replace(
            '"current": true', '"current": true, "note": "a\\u003Ab"', 1
        ),
        "canonical.duplicate_key",
    ),
    "a repeated member of a signed event": (
        lambda text: text.replace('"key_id": ', '"key_id": "x", "key_id": ', 1),
        "canonical.duplicate_key",
    ),
    "a repeated member of the log": (
        lambda text: text.replace('"tree_size": ', '"tree_size": 0, "tree_size": ', 1),
        "input.malformed_json",
    ),
    "a repeated member of the bundle": (
        lambda text: text.replace('"format": ', '"format": "x", "format": ', 1),
        "input.malformed_json",
    ),
    "a float in an event's data": (
        lambda text: text.replace(_FIRST_SEAT, '"seat": 0.0, ', 1),
        "canonical.encoding",
    ),
    "an integer past 2**53 in an event's data": (
        lambda text: text.replace(_FIRST_SEAT, f'"seat": {2**53}, ', 1),
        "canonical.encoding",
    ),
    "a non-ASCII member name written as an escape": (
        lambda text: text.replace(_FIRST_SEAT, '"s\\u00e9at": 0, ', 1),
        "canonical.encoding",
    ),
}


@pytest.mark.parametrize("case", sorted(_TEXT_CASES))
def test_a_line_edited_in_its_text_is_found_with_its_code(
    bundles: list[dict[str, Any]], trust: Trust, case: str
) -> None:
    change, code = _TEXT_CASES[case]
    text = helpers.export_text([bundles[0]])
    changed = change(text)
    assert changed != text
    result = export.LineChecker(trust).check(Line(1, changed.encode()))
    assert code in {f.code for f in result.findings}


# A bundle given alone is checked as it was read, not as a one-line export: the same report as
# the export's line 1 (one leaf of the log), without the export's lines and workers.


def _alone(data: bytes, trust: Trust) -> Report:
    obj, duplicates = loads_noting_duplicates(data)
    report = Report()
    export.verify_alone(obj, duplicates, trust, export.Pinned(), report)
    return report


@pytest.mark.parametrize("case", ["unchanged", *sorted(_TEXT_CASES)])
def test_a_bundle_alone_has_the_report_of_a_one_line_exports_line(
    bundles: list[dict[str, Any]], trust: Trust, case: str
) -> None:
    text = helpers.export_text([bundles[-1]])
    data = (text if case == "unchanged" else _TEXT_CASES[case][0](text)).encode()
    as_a_line = export.verify([Line(1, data)], trust, export.Pinned(partial=True))
    assert _alone(data, trust) == as_a_line


def test_a_bundle_alone_whose_checks_raise_is_a_finding_not_a_traceback(
    bundles: list[dict[str, Any]], trust: Trust, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: Any) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(bundle, "check", broken)
    data = helpers.export_text([bundles[0]]).encode()
    as_a_line = export.verify([Line(1, data)], trust, export.Pinned(partial=True))
    report = _alone(data, trust)
    assert report == as_a_line
    assert [f.reason for f in report.findings] == [
        "line 1 could not be checked: RuntimeError: a bug"
    ]


def test_fairdeal_verify_checks_a_bundle_without_the_exports_lines(
    capsys: pytest.CaptureFixture[str], files: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_export(*args: Any) -> None:
        raise AssertionError("a bundle went through the export's lines")

    monkeypatch.setattr(export, "results", no_export)
    status, report = helpers.run(capsys, "--key", files["key"], files["bundle"])
    assert (status, report["rounds"], report["checked"]) == (0, 1, ["bundle bundle.json"])
