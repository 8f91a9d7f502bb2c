"""The cases of the questions an outside implementer of SPEC.md had to guess, each settled
in SPEC's text and held here by a case whose codes tell the answer from the guesses.

Most are small: heads of tables at rest (a seat joining or leaving, a few kilobytes a
bundle) and one Toto21 round voided by the game clock, each in a small log of its own,
changed by the operator (re-signed from where the bundle starts, re-logged) or by
anyone (a member that is not signed). ``generate.py`` calls ``add``; the cases without
files of their own (a witness's file that cannot be read, a consistency proof with no
``--checkpoint``) are with their kind there.
"""

import copy
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from fairdeal import randomness
from fairdeal.protocol import SERVER
from tests.verifier import corpus, helpers, signed

if TYPE_CHECKING:
    from conformance.generate import Suite

Bundle = dict[str, Any]
Events = list[dict[str, Any]]


def _rest_log(heads: list[tuple[helpers.TableDriver, int]]) -> helpers.Log:
    """A log whose leaves are these heads (a driver, the index of the event in its log),
    in this order: a round's reveal, or a table's last event at rest."""
    log = helpers.Log()
    for driver, last in heads:
        log.tree.append(driver.log[last].hash)
        log.entries.append((driver, driver.log[last].event.round, last))
    return log


def _seated(driver: helpers.TableDriver, seats: int) -> list[int]:
    """Seats 0 to ``seats`` - 1 join a Kvitlach table: the index of each one's head."""
    heads = []
    for seat in range(seats):
        driver.seat(seat, "seat_joined", {"buy_in": 1_000})
        heads.append(len(driver.log) - 1)
    return heads


def _forged(bundle: Bundle, change: Callable[[Events], None]) -> Bundle:
    """The operator changes the bundle's events and re-signs them from where the bundle
    starts (its first event's prev kept), then logs it again, alone."""
    events = bundle["events"]
    prev = events[0]["event"]["prev"]
    return corpus.relogged(bundle, helpers.resign(copy.deepcopy(events), change, prev=prev))


def _clock_table(table_id: str, round_id: str | None = None) -> helpers.TableDriver:
    """A Toto21 match whose one round opens a second before the game clock ends, and is
    voided by it before its seal: table_state, round_opened, game_time_up, round_voided,
    match_drawn, round_revealed. ``round_id``: the round's id, if not the service's."""
    driver = helpers.TableDriver(
        "toto21", table_id, {"stake": 3, "target": 10, "game_time_ms": 60_000}
    )
    for seat, type_ in ((0, "seat_joined"), (1, "seat_joined"), (0, "joiner_accepted")):
        driver.seat(seat, type_)
    driver.now += 59_000
    round_id = round_id or f"{table_id}.1"
    driver.rounds.append(round_id)
    driver.secret = helpers.server_seed(round_id)
    commitment = randomness.seed_commitment(driver.secret).hex()
    driver.do("round_opened", SERVER, {"commitment": commitment}, round_id)
    driver.now += 10_000
    due = driver.game.due(driver.table.state, driver.now)
    assert due is not None and due.type == "game_time_up", due
    driver.do(due.type, due.actor, dict(due.data), due.round)
    return driver


def _round_bundle(driver: helpers.TableDriver) -> Bundle:
    """The bundle of the driver's one round, from the table_state before it: the match's
    start is a head of the log before it."""
    started = next(i for i, s in enumerate(driver.log) if s.event.type == "match_started")
    reveal = len(driver.log) - 1
    assert driver.log[reveal].event.type == "round_revealed"
    return _rest_log([(driver, started), (driver, reveal)]).bundle(1, bounded=True)


def add(suite: "Suite", dealt: Bundle) -> None:
    """The cases, in SPEC's order; ``dealt``: a version-1 Toto21 round from its
    table_state, with its deal."""
    kvitlach = helpers.TableDriver("kvitlach", "kvr", {})
    joined = _seated(kvitlach, 3)
    rest = _rest_log([(kvitlach, head) for head in joined]).bundles(bounded=True)
    _restore(suite, rest[1])
    _signed_null(suite)
    _round_ids(suite)
    _unrevealed(suite)
    _relabelled(suite, rest[1])
    _first_event(suite, rest[1])
    _seed_twice(suite, dealt)
    _exports(suite, kvitlach, joined)


# 6.6, 11.9, 12.12: what restore refuses, from the table_state a bundle starts at


def _no_exit_offer_open(events: Events) -> None:
    events[0]["data"]["exit_offer"] = True


def _score_at_target(events: Events) -> None:
    events[0]["data"]["score"] = [10, 0]


def _restore(suite: "Suite", seated: Bundle) -> None:
    id_ = "rules-state-exit-offer-not-open"
    what = (
        "kvitlach: the table_state a bundle starts at states the banker's 4-or-7 exit open "
        "with no term: restore refuses it (the operator)"
    )
    suite.case(id_, what, suite.bundle(id_, _forged(seated, _no_exit_offer_open)), "rules.crashed")
    id_ = "rules-state-score-at-target"
    what = (
        "toto21: the table_state a round's bundle starts at states a score at the target "
        "while the match is played: restore refuses it (the operator)"
    )
    bundle = _forged(_round_bundle(_clock_table("t21s")), _score_at_target)
    suite.case(id_, what, suite.bundle(id_, bundle), "rules.crashed")


# 6.7: "signed": null from a keyless seat


def _signed_null(suite: "Suite") -> None:
    driver = signed.SignedDriver("kvitlach", "kv2r", {}, keys=dict(signed.KEYED))
    heads = _seated(driver, 3)
    driver.seat(1, "seat_left")  # seat 1 is keyless
    heads.append(len(driver.log) - 1)
    bundles = _rest_log([(driver, head) for head in heads]).bundles(bounded=True)

    def signed_null(events: Events) -> None:
        events[-1]["data"]["signed"] = None

    id_ = "v2-keyless-seat-signed-null"
    what = (
        'version 2, kvitlach: keyless seat 1\'s seat_left logged with "signed": null, not '
        "a signature the seat carries: the rules refuse the member (the operator)"
    )
    suite.case(
        id_, what, suite.bundle(id_, _forged(bundles[3], signed_null)), "rules.illegal_action"
    )

    def relabelled(events: Events) -> None:
        for event in events:
            event["version"] = 1

    for index, start in ((0, "seq0"), (1, "from-state")):
        id_ = f"v2-relabelled-version-1-{start}"
        code = "rules.illegal_action" if index == 0 else "rules.crashed"
        what = (
            f"version 2, kvitlach: a seat's head ({start}) re-signed as version 1: the "
            "version-1 rules refuse "
            + ("the seat_joined's key" if index == 0 else "the table_state's seat_keys")
            + " (the operator)"
        )
        suite.case(id_, what, suite.bundle(id_, _forged(bundles[index], relabelled)), code)


# 6.6, step 3: a round id that is not <table id>.<number> in a bounded chain


def _round_ids(suite: "Suite") -> None:
    bundle = _round_bundle(_clock_table("t21n", round_id="t21n.first"))
    id_ = "bundle-round-id-not-numbered"
    what = (
        "toto21: a round opened as t21n.first after a table_state, where the service names "
        "it t21n.1: step 3's alone, the rules take any unused id"
    )
    suite.case(id_, what, suite.bundle(id_, bundle), "chain.misplaced")


# 6.3, step 11: a round missing its reveal


def _unrevealed(suite: "Suite") -> None:
    def unrevealed(events: Events) -> None:
        assert events[-1]["type"] == "round_revealed"
        del events[-1]

    bundle = _forged(_round_bundle(_clock_table("t21v")), unrevealed)
    id_ = "rules-round-without-its-reveal"
    what = (
        "toto21: a round voided by the game clock, logged without its reveal: the rules "
        "refuse the void's run, which needs the server seed (the operator)"
    )
    suite.case(id_, what, suite.bundle(id_, bundle), "round.unfinished", "rules.server_refused")


# 13.1, steps 1 and 3: a bundle's format relabelled, or unknown


def _relabelled(suite: "Suite", seated: Bundle) -> None:
    first = {**seated, "format": "fairdeal-bundle/1"}
    id_ = "bundle-format-2-relabelled-1"
    what = "kvitlach: a bundle from a table_state, its format stated as fairdeal-bundle/1"
    suite.case(id_, what, suite.bundle(id_, first), "chain.gap")
    unknown = {**seated, "format": "fairdeal-bundle/4"}
    id_ = "bundle-format-unknown"
    what = "kvitlach: a bundle from a table_state, its format stated as fairdeal-bundle/4"
    suite.case(id_, what, suite.bundle(id_, unknown), "schema.bundle")


# step 3: where a bundle starts when its first event cannot be read


def _first_event(suite: "Suite", seated: Bundle) -> None:
    bundle = copy.deepcopy(seated)
    del bundle["events"][0]["event"]["actor"]
    id_ = "bundle-first-event-unreadable"
    what = (
        "kvitlach: a bundle whose first event, its table_state, has no actor: the next "
        "event is where it starts"
    )
    suite.case(id_, what, suite.bundle(id_, bundle), "schema.event", "chain.start")


# step 7: a seed event with a finding of step 7, later


def _seed_twice(suite: "Suite", dealt: Bundle) -> None:
    def seed_twice(events: Events) -> None:
        first = corpus.index_of(events, "client_seed", 0)
        again = copy.deepcopy(events[first])
        again["data"]["seed"] = "another"
        events.insert(first + 1, again)
        for seq, event in enumerate(events, events[0]["seq"]):
            event["seq"] = seq

    id_ = "rules-seed-sent-twice"
    what = (
        "toto21: a seat's second client seed logged before the seal: not the seat's seed, "
        "the deck is the first one's (the operator)"
    )
    bundle = _forged(dealt, seed_twice)
    suite.case(id_, what, suite.bundle(id_, bundle), "seed.client", "rules.illegal_action")


# step 17, step 15: across an export's lines


def _exports(suite: "Suite", kvitlach: helpers.TableDriver, joined: list[int]) -> None:
    rest = _rest_log([(kvitlach, head) for head in joined[:2]]).bundles(bounded=True)

    def over_the_limit(events: Events) -> None:
        joined_ = events[1]["data"]
        joined_["buy_in"] = joined_["balances"]["seat:0"] = 10**13

    def less_for_seat_0(events: Events) -> None:
        for event in events:
            event["data"]["balances"]["seat:0"] = 999

    first = helpers.resign(copy.deepcopy(rest[0]["events"]), over_the_limit)
    second = helpers.resign(
        copy.deepcopy(rest[1]["events"]), less_for_seat_0, prev=first[-1]["hash"]
    )
    lines = corpus.relogged_all([(rest[0], first), (rest[1], second)])
    id_ = "export-state-after-a-failed-replay"
    what = (
        "kvitlach: line 1's replay stops at a buy-in over the limit; line 2's table_state "
        "then states another balance: nothing to compare it with (the operator)"
    )
    suite.case(id_, what, suite.export(id_, lines), "rules.over_limit")
    other = helpers.TableDriver("kvitlach", "kvs", {})
    other_head = _seated(other, 1)[0]
    log = _rest_log([(kvitlach, joined[0]), (other, other_head), (kvitlach, joined[1])])
    lines = log.bundles(bounded=True)

    def later(events: Events) -> None:
        events[-1]["time"] += 1

    lines[1] = {**lines[1], "events": helpers.resign(copy.deepcopy(lines[1]["events"]), later)}
    id_ = "export-leaf-is-the-heads-hash"
    what = (
        "kvitlach: line 2's head re-signed a millisecond later, its log member (head_hash, "
        "the leaf the log holds) kept: the line holds no leaf (the operator)"
    )
    suite.case(id_, what, suite.export(id_, lines), "log.head", "log.round_missing")
