"""Logs written under an earlier rule that issue 11 changed: each is reported, at the run
the rule now decides otherwise, with the finding SPEC.md states for it."""

from dataclasses import replace
from typing import Any

from fairdeal.events import Draft
from fairdeal.games import dealing
from fairdeal.games.toto21.ending import by_points
from fairdeal.protocol import SERVER
from fairdeal.verifier import Report, Trust, verify_bundle

from . import corpus, helpers

Events = list[dict[str, Any]]


def _lines(report: Report) -> list[str]:
    return [f.line() for f in report.findings]


# Finding 2: a newcomer in a departed seat played the term without its ante.

ANTE = 50  # the default: half the bank's funding of 100


def _newcomer_in_a_departed_seat() -> tuple[helpers.TableDriver, str]:
    """Seat 1 pays the term's ante, leaves, and a newcomer takes seat 1 in the same term."""
    driver = helpers.TableDriver("kvitlach", "kv-ante", {"banker_must_draw": "none"})
    for seat in range(3):
        driver.seat(seat, "seat_joined", {"buy_in": 1_000})
    driver.play_round()
    driver.seat(1, "seat_left")
    driver.seat(1, "seat_joined", {"buy_in": 1_000})
    return driver, driver.play_round()


def _ante_evaded(events: Events) -> None:
    """The log the earlier rule wrote: no ante from the newcomer, so no bank_funded, and
    every later balance with the ante still in seat 1's account instead of the bank."""
    funded = corpus.index_of(events, "bank_funded")
    assert events[funded]["data"]["paid"] == [1]
    del events[funded]
    for event in events[funded:]:
        event["seq"] -= 1
        balances = event["data"].get("balances")
        if balances is not None:
            balances["seat:1"] += ANTE
            balances["bank"] -= ANTE


def test_finding_2_an_old_log_where_a_newcomer_evaded_the_ante_is_reported(trust: Trust) -> None:
    driver, round_id = _newcomer_in_a_departed_seat()
    honest = helpers.Log().add_all(driver).bundle(1)
    assert verify_bundle(honest, trust).verdict == "valid"

    report = verify_bundle(corpus.operator(honest, _ante_evaded), trust)

    assert report.verdict == "invalid"
    (finding,) = report.findings  # the money adds up: only the rules object
    assert (finding.code, finding.round) == ("rules.mismatch", round_id)
    assert "the rules give bank_funded" in finding.reason, _lines(report)


# Finding 7: the game clock voided a dealt Toto21 round.

GAME_TIME = 60_000


def _dealt_round_at_the_game_end() -> tuple[helpers.TableDriver, str]:
    """A Toto21 round dealt and waiting for a move when the game time ends."""
    options = {"stake": 5, "game_time_ms": GAME_TIME, "move_time_ms": 600_000}
    driver = helpers.TableDriver("toto21", "t21-clock", options)
    for seat in (0, 1):
        driver.seat(seat, "seat_joined")
    driver.seat(0, "joiner_accepted")
    round_id = driver.open_round()
    for seat in (0, 1):
        driver.do("client_seed", f"seat:{seat}", {"seed": f"seed-{seat}"}, round_id)
    assert driver.table.state.hand.turn is not None  # dealt, no golden point: a move awaited
    return driver, round_id


def _voided_by_the_clock(driver: helpers.TableDriver, round_id: str) -> None:
    """What the earlier rule logged at the game's end: the dealt round voided, the match
    decided on the score before it, the seed revealed."""
    state = driver.table.state
    end = state.game_deadline
    drafts = [
        Draft("game_time_up", SERVER, {"deadline": end}, round_id),
        dealing.voided_draft(state.round, "game_time_up"),
        by_points(state),
        dealing.revealed_draft(state.round, driver.secret),
    ]
    head, signed = driver.table.head.extend(drafts, end, helpers.SIGNER)
    driver.table = replace(driver.table, head=head)
    driver.log.extend(signed)


def test_finding_7_an_old_log_where_the_game_clock_voided_a_dealt_round_is_reported(
    trust: Trust,
) -> None:
    driver, round_id = _dealt_round_at_the_game_end()
    _voided_by_the_clock(driver, round_id)
    voided = helpers.Log()
    voided.add(driver, round_id)

    report = verify_bundle(voided.bundle(0), trust)

    assert report.verdict == "invalid"
    (finding,) = report.findings
    assert (finding.code, finding.round) == ("rules.not_due", round_id)
    assert "game_time_up" in finding.reason and "dealt round" in finding.reason, _lines(report)
