"""Exports: a table's later bundles reuse what was verified, but never blindly."""

import copy
import io
from collections.abc import Callable
from typing import Any

import pytest

from verifier import Trust, export
from verifier.chain import ChainChecker
from verifier.inputs import Line
from verifier.progress import Progress

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
