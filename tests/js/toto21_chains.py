"""Python-made Toto21 evidence for the browser port of the rules (api/static/web/js/fairdeal/
games/toto21, tested by toto21.test.mjs).

``chains()``: real tables (version 1 and 2, matches won at the target, ended by the game
clock, a joiner rejected, seeds and moves timed out, a reveal withheld; version 3's
dealer-blind tables, made with tests/blind_table.py: a match to its target, a golden point
claimed falsely and truly, an illegal draw, each request timed out) replayed run by run
through ``fairdeal.table.runs``, as the verifier replays them, with what the rules gave at
every run: the command the game decided (rebuilt from the run's first event), its drafts,
and then the state's snapshot, views, legal actions and due timeouts, and the outcome of
forged commands tried at that state (every command type, by each kind of actor, naming
each kind of round, around each running deadline, with data derived, contradicted or added
to); and the verifier's rules finding on tampered copies of the chain, each event changed
in turn. Written to a temporary file by toto21_test.py.

``cases()``: the named refusals, small, committed as toto21_cases.json (``python -m
tests.js.toto21_chains`` rewrites it; toto21_test.py checks it is what the rules give).
"""

import copy
import hashlib
import json
from bisect import bisect_right
from collections.abc import Callable, Iterator
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

from fairdeal import randomness, statements
from fairdeal.blind.group import scalar_bytes
from fairdeal.canonical import canonical_text
from fairdeal.errors import FairdealError
from fairdeal.events import Event, seat_actor
from fairdeal.games.base import Command, Decision
from fairdeal.games.dealing import missing_seeds
from fairdeal.games.toto21 import GAME, cipher, hands, timing
from fairdeal.games.toto21.options import Options
from fairdeal.games.toto21.party import Logged, Party
from fairdeal.protocol import (
    CARD_OPENED,
    DECK_SHUFFLED,
    DECRYPTION_SHARES,
    GOLDEN_POINT,
    KEYS_DUE,
    KEYS_TIMEOUT,
    ROUND_KEY,
    SEED_COMMITMENT,
    SERVER,
    SHARES_DUE,
    SHARES_TIMEOUT,
    SHUFFLE_DUE,
    SHUFFLE_TIMEOUT,
    TABLE_STATE,
)
from fairdeal.statements import BLIND
from fairdeal.table import runs
from fairdeal.verifier import rules
from fairdeal.verifier.rounds import revealed_seeds
from tests.blind_table import BlindTable, careful
from tests.verifier import helpers, signed

PATH = Path(__file__).with_name("toto21_cases.json")
Json = Any


def outcome(call: Callable[[], Json], message: bool = False) -> dict[str, Json]:
    """``{"ok": value}``, or ``{"error": class}`` for a refusal (``"crash"`` for another
    exception: the verifier's rules.crashed, whatever the exception); with ``message``, a
    refusal's message too (``"message"``), which the port must give word for word."""
    try:
        return {"ok": call()}
    except FairdealError as e:
        return {"error": type(e).__name__, **({"message": str(e)} if message else {})}
    except Exception:
        return {"error": "crash"}


def command_json(command: Command) -> dict[str, Json]:
    """A command as the port takes it: ``table`` only where the engine named it (version 3's
    proofs are bound to it; Python's default, "", is left out)."""
    data = dict(command.data)
    out = {
        "type": command.type,
        "actor": command.actor,
        "time": command.time,
        "data": data,
        "round": command.round,
    }
    if command.table:
        out["table"] = command.table
    return out


def decided(state: Any, command: Command, secret: bytes | None) -> dict[str, Json]:
    """What the rules make of ``command``: its drafts and the snapshot they lead to."""
    decision = GAME.step(state, command, secret)
    return {"drafts": _drafts(decision), "snapshot": GAME.snapshot(decision.state)}


def _drafts(decision: Decision[Any]) -> list[dict[str, Json]]:
    return [
        {"type": d.type, "actor": d.actor, "data": dict(d.data), "round": d.round}
        for d in decision.drafts
    ]


def _hex(secret: bytes | None) -> str | None:
    return None if secret is None else secret.hex()


# The forged commands tried at each state of a chain.

PROBE_ROUND = "probe.r"
PROBE_SECRET = hashlib.sha256(b"toto21 port probe").digest()
PROBE_COMMITMENT = randomness.seed_commitment(PROBE_SECRET).hex()
VIEWERS = (None, 0, 1)
SEAT_TYPES = (
    "seat_joined",
    "joiner_accepted",
    "joiner_rejected",
    "client_seed",
    "seed_commitment",
    "hit",
    "blind",
    "stand",
)
SERVER_TYPES = ("round_opened", "seed_timeout", "move_timeout", "game_time_up")
NOT_COMMANDS = ("card_dealt", "match_won", "move_due", TABLE_STATE, "bogus")


def _deadlines(state: Any) -> list[int]:
    hand, current = state.hand, state.round
    found = [state.game_deadline, current and current.seed_deadline, hand and hand.move_deadline]
    crypto = getattr(state, "crypto", None)
    if crypto is not None and crypto.request is not None:
        found.append(crypto.request.deadline)
    return [d for d in found if d is not None]


def _natural(kind: str, actor: str, state: Any, round_id: str | None) -> dict[str, Json]:
    """The data a sender would give: what the command carries itself, nothing derived; a
    round's opening commits to the seed the drivers give that round (helpers.server_seed)."""
    if kind == "client_seed":
        return {"seed": f"probe-{actor}"}
    if kind == "seed_commitment":
        return {"commitment": "ab" * 32}
    if kind == "round_opened":
        known = round_id not in (None, PROBE_ROUND)
        seed = helpers.server_seed(str(round_id)) if known else PROBE_SECRET
        return {"commitment": randomness.seed_commitment(seed).hex()}
    if kind == "seed_timeout" and state.round is not None:
        return {"deadline": state.round.seed_deadline, "seats": missing_seeds(state.round)}
    return {}


def _variants(kind: str, state: Any) -> list[dict[str, Json]]:
    """Data that contradict or add to what the rules derive, or that the rules refuse."""
    hand, current = state.hand, state.round
    stake = state.options.stake
    out: list[dict[str, Json]] = [{"x": 1}]
    if kind == "seat_joined":
        out += [{"deposit": stake}, {"deposit": True}, {"deposit": stake + 1}, {"seat": 0}]
    elif kind in ("joiner_accepted", "joiner_rejected"):
        out += [{"seat": 1}, {"seat": True}, {"seat": 0}]
    elif kind == "client_seed":
        out += [{"seed": ""}, {"seed": "a\n"}, {"seed": 5}, {}, {"seed": "ok", "x": 1}]
    elif kind == "seed_commitment":
        out += [{"commitment": "AB" * 32}, {}, {"commitment": "ab" * 32, "x": 1}]
    elif kind == "round_opened":
        out += [{}, {"commitment": "00" * 32}, {"commitment": PROBE_COMMITMENT, "number": 99}]
    elif kind == "seed_timeout" and current is not None:
        seats = missing_seeds(current)
        deadline = current.seed_deadline
        out += [
            {},
            {"deadline": deadline, "seats": [bool(s) for s in seats]},
            {"deadline": deadline, "seats": [0, 1]},
            {"deadline": True, "seats": seats},
        ]
    elif kind == "move_timeout" and hand is not None:
        turn, deadline = hand.turn, hand.move_deadline
        out += [
            {"seat": turn, "deadline": deadline},
            {"seat": turn},
            {"deadline": deadline},
            {"seat": 1 - (turn or 0)},
            {"seat": turn, "deadline": True},
        ]
    elif kind == "game_time_up":
        end = state.game_deadline
        out += [{"deadline": end}, {"deadline": None if end is None else end + 1}]
    return out


def probes(state: Any, time: int) -> Iterator[Command]:
    """Forged commands to try at ``state``, the chain's last time being ``time``."""
    current = state.round.round_id if state.round is not None else None
    named = [None, PROBE_ROUND] + ([current] if current is not None else [])
    near = sorted({time} | {d + k for d in _deadlines(state) for k in (-1, 0, 1) if d + k > time})
    due = sorted({time} | {d for d in _deadlines(state) if d > time})
    for kind in SEAT_TYPES:
        for actor in ("seat:0", "seat:1", "seat:2", SERVER):
            for round_id in named:
                yield Command(kind, actor, time, _natural(kind, actor, state, round_id), round_id)
        for actor in ("seat:0", "seat:1"):
            round_id = None if kind in SEAT_TYPES[:3] else current
            for at in near[1:]:
                yield Command(kind, actor, at, _natural(kind, actor, state, round_id), round_id)
            for data in _variants(kind, state):
                yield Command(kind, actor, time, data, round_id)
    for kind in SERVER_TYPES:
        for round_id in named:
            for at in near:
                yield Command(kind, SERVER, at, _natural(kind, SERVER, state, round_id), round_id)
        yield Command(kind, "seat:0", near[-1], _natural(kind, "seat:0", state, current), current)
        for data in _variants(kind, state):
            for at in due:
                yield Command(kind, SERVER, at, data, current)
    for kind in NOT_COMMANDS:
        yield Command(kind, SERVER, time, {}, current)


def _secret(command: Command, seeds: dict[str, bytes]) -> bytes | None:
    """The seed the verifier decides ``command`` with: the revealed seed of the round it
    names (the probe round's own, as if revealed, for a round_opened)."""
    if command.round == PROBE_ROUND:
        return PROBE_SECRET if command.type == "round_opened" else None
    return seeds.get(command.round or "")


def at_rest(
    state: Any, time: int, seeds: dict[str, bytes], blind: "_BlindProbes | None" = None
) -> dict[str, Json]:
    """What the rules give of ``state``: its snapshot, views (of the state the snapshot
    restores too), legal actions, due timeouts and the forged commands' outcomes (at a
    dealer-blind table, ``blind``'s too, with the refusals' messages)."""
    secret = seeds.get(state.round.round_id) if state.round is not None else None
    times = sorted({time, *_deadlines(state), time + 10**9})
    snapshot = GAME.snapshot(state)
    restored = None if snapshot is None else GAME.restore(snapshot)
    tried = []
    commands = probes(state, time)
    if blind is not None:
        commands = blind.probes(state, time, commands)
    for command in commands:
        seed = _secret(command, seeds)
        message = blind is not None and blind.said(command)
        result = outcome(partial(decided, state, command, seed), message=message)
        tried.append({"command": command_json(command), "secret": _hex(seed), **result})
    return {
        "time": time,
        "secret": _hex(secret),
        "snapshot": snapshot,
        "views": [outcome(partial(GAME.view_for, state, s, secret)) for s in VIEWERS],
        "restored_views": restored
        and [outcome(partial(GAME.view_for, restored, s, secret)) for s in VIEWERS],
        "legal": [outcome(partial(GAME.legal_actions, state, s, secret)) for s in (0, 1, 2)],
        "due": [[now, outcome(partial(_due, state, now))] for now in times],
        "probes": tried,
        **({} if blind is None else {"party": blind.party(state)}),
    }


def _due(state: Any, now: int) -> Json:
    due = GAME.due(state, now)
    return None if due is None else command_json(due)


# The chains.


class _Recorder:
    """The game, recording each step the replay takes: the command as the game saw it, the
    seed it was given and the drafts it made."""

    def __init__(self) -> None:
        self.steps: list[dict[str, Json]] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(GAME, name)

    def step(self, state: Any, command: Command, secret: bytes | None) -> Decision[Any]:
        decision = GAME.step(state, command, secret)
        made = {
            "command": command_json(command),
            "secret": _hex(secret),
            "drafts": _drafts(decision),
        }
        self.steps.append(made)
        return decision


def _tables() -> list[tuple[str, helpers.TableDriver]]:
    from tests.js.test_parity import _long_tables

    won, clock = (d for d in _long_tables() if d.game_name == "toto21")
    return [
        ("v1 random play", helpers.toto21_table("t21", rounds=8)),
        ("v1 won at the target", won),
        ("v1 ended by the game clock", clock),
        ("v1 rejected, seeds timed out, ended on time", _rejected_timed_out()),
        ("v2 committed seeds, a reveal withheld", signed.toto21_table("v2t21", rounds=4)),
        ("v2 a reveal withheld at the game's end", _withheld_at_the_end()),
    ]


def _withheld_at_the_end() -> signed.SignedDriver:
    """Seat 0 commits and withholds its reveal, whose deadline the game's end cuts short:
    at that one time the void under its name is due before the game's end."""
    driver = signed.SignedDriver(
        "toto21",
        "v2end",
        {"game_time_ms": 60_000},
        keys=dict(signed.KEYED),
        plain=frozenset({1}),
        withheld=frozenset({0}),
    )
    for seat, kind in ((0, "seat_joined"), (1, "seat_joined"), (0, "joiner_accepted")):
        driver.seat(seat, kind)
    driver.now += 50_000
    driver.play_round()
    driver.now = max(driver.now, driver.table.state.game_deadline)
    due = driver.game.due(driver.table.state, driver.now)
    driver.do(due.type, due.actor, dict(due.data), due.round)
    return driver


def _rejected_timed_out() -> helpers.TableDriver:
    """A joiner rejected and another accepted, seeds timed out (one seat's, then both),
    moves timed out, and the match ended by the game clock with no round in progress."""
    driver = helpers.TableDriver("toto21", "t21d", {"stake": 0, "game_time_ms": 600_000})
    for seat, kind in (
        (0, "seat_joined"),
        (1, "seat_joined"),
        (0, "joiner_rejected"),
        (1, "seat_joined"),
        (0, "joiner_accepted"),
    ):
        driver.seat(seat, kind)
    driver.play_round(seeds=[None, "s"])
    driver.play_round(seeds=[None, None])
    round_id = driver.open_round()
    driver.seed(round_id, [0, 1], ["s", "s"])
    while driver.table.state.in_round():
        driver.now = max(driver.now, driver.table.state.hand.move_deadline)
        due = driver.game.due(driver.table.state, driver.now)
        driver.do(due.type, due.actor, dict(due.data), due.round)
    driver.now = driver.table.state.game_deadline
    due = driver.game.due(driver.table.state, driver.now)
    driver.do(due.type, due.actor, dict(due.data), due.round)
    return driver


def chain(driver: Any, blind: "_BlindProbes | None" = None) -> dict[str, Json]:
    """The driver's log replayed run by run as the verifier does, with what the rules give,
    and the verifier's rules findings on tampered copies of it (a sample of them at a
    dealer-blind table, whose every replay recomputes and checks the round's shuffles)."""
    created, *rest = driver.log
    events = [s.event for s in rest]
    seeds = revealed_seeds(events)
    table, problem = rules.start(created.event, canonical_text(created.event.data), created.hash)
    assert table is not None and problem is None
    recorder = _Recorder()
    out, start = [], 0
    for end, after in runs(replace(table, game=recorder), events, seeds):
        run: dict[str, Json] = {"events": [e.to_json() for e in events[start:end]]}
        if events[start].type != TABLE_STATE:
            run.update(recorder.steps[-1])
        if blind is not None:
            blind.seen(events[start:end])
        run["after"] = at_rest(after.state, events[end - 1].time, seeds, blind)
        out.append(run)
        start = end
    logged = [s.event.to_json() for s in driver.log]
    return {
        "created": created.event.to_json(),
        "runs": out,
        "tampered": tampered(logged) if blind is None else tampered(logged, blind.sample),
    }


# Tampered copies of a chain: one event changed, the chain replayed by fairdeal.verifier.rules
# from table_created or a table_state, as a bundle's would be.

KINDS = ("data", "actor", "type", "round", "time", "member")


def _changed(value: Json) -> Json:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, str):
        return value + "x"
    if isinstance(value, list):
        return value[:-1] if value else [0]
    if isinstance(value, dict):
        return {**value, "x": 1}
    return 0


def _tamper(event: dict[str, Json], kind: str) -> dict[str, Json]:
    """``event`` with one thing changed, as ``kind`` says: a data member's value, the actor,
    the type, the round, the time, or a data member dropped (or one added)."""
    out: dict[str, Json] = json.loads(json.dumps(event))
    data = out["data"]
    first = min(data, default=None)
    if kind == "data" and first is not None:
        data[first] = _changed(data[first])
    elif kind == "actor":
        out["actor"] = {"server": "seat:0", "seat:0": "seat:1"}.get(out["actor"], SERVER)
    elif kind == "type":
        types = {"hit": "stand", "stand": "hit", "blind": "hit", "client_seed": "seed_commitment"}
        out["type"] = types.get(out["type"], "hit")
    elif kind == "round":
        out["round"] = None if out["round"] is not None else "r.x"
    elif kind == "time":
        out["time"] += 1
    elif first is not None:
        del data[first]
    else:
        data["x"] = 1
    return out


def _finding(events: list[dict[str, Json]]) -> Json:
    """The verifier's rules finding ({code, seq} or null) on ``events``, replayed after the
    first (table_created, or a table_state to restart at) with the seeds they reveal."""
    parsed = [Event.parse(e) for e in events]
    first, text = parsed[0][0], parsed[0][2]
    digests = [e.hash() for e, _, _ in parsed]
    begin = rules.start if first.type != TABLE_STATE else rules.restart
    table, problem = begin(first, text, digests[0])
    if table is not None:
        later = [e for e, _, _ in parsed[1:]]
        texts = [t for _, _, t in parsed[1:]]
        table, problem = rules.replay(table, later, texts, digests[1:], revealed_seeds(later))
    return None if problem is None else {"code": problem.code, "seq": problem.seq}


def tampered(
    events: list[dict[str, Json]], sample: Callable[[list[dict[str, Json]]], set[int]] | None = None
) -> list[dict[str, Json]]:
    """The whole chain replayed from table_created, and from each table_state to the end
    of the round after; and each event changed in turn (the kind of change cycling),
    replayed from the last table_state at or before it (so a changed table_state is the one
    restarted at), or from the one before, to the end of its round."""
    starts = [i for i, e in enumerate(events) if i == 0 or e["type"] == TABLE_STATE]

    def after(index: int, rounds: int = 1) -> int:
        """Where the table is at rest again, ``rounds`` times after ``index``."""
        later = starts[bisect_right(starts, index) + rounds - 1 :]
        return later[0] if later else len(events)

    out: list[dict[str, Json]] = [
        {"at": None, "start": s, "end": len(events) if s == 0 else after(s, 2)} for s in starts
    ]
    changed = range(1, len(events))
    if sample is not None:  # the whole chain once, and the events ``sample`` picks
        out = out[:1]
        changed = sorted(sample(events))  # type: ignore[assignment]
    for at in changed:
        last = bisect_right(starts, at) - 1
        start = starts[last if at % 2 else max(last - 1, 0)]
        out.append(
            {
                "at": at,
                "start": start,
                "end": after(at),
                "event": _tamper(events[at], KINDS[at % len(KINDS)]),
            }
        )
    for entry in out:
        replayed = events[entry["start"] : entry["end"]]
        if entry["at"] is not None:
            replayed[entry["at"] - entry["start"]] = entry["event"]
        entry["finding"] = _finding(replayed)
    return out


def chains() -> dict[str, Json]:
    made = {name: chain(driver) for name, driver in _tables()}
    for name, table in _blind_tables():
        made[name] = chain(table, _BlindProbes(table))
    return made


# Dealer-blind tables (version 3, SPEC 15.13), played by tests/blind_table.py's parties.


def _keeping(table: BlindTable) -> dict[str, dict[int, Party]]:
    """Each round's parties, by round id, kept as ``table`` opens rounds (a probe at a
    round's state answers with its parties)."""
    kept: dict[str, dict[int, Party]] = {}
    opening = table.open_round

    def open_round() -> str:
        round_id = opening()
        kept[round_id] = table.parties
        return round_id

    table.open_round = open_round  # type: ignore[method-assign]
    table.kept = kept  # type: ignore[attr-defined]
    return kept


def _new_blind(table_id: str, options: dict[str, Any], strategy: Any = None) -> BlindTable:
    table = BlindTable(table_id=table_id, options=options)
    if strategy is not None:
        table.strategy = strategy
    _keeping(table)
    return table


def _timeout(table: BlindTable) -> None:
    """The timeout due once its deadline passed, as the service logs it."""
    table.now = max(table.now, timing.pending(table.state)[0].time)
    due = GAME.due(table.state, table.now)
    assert due is not None
    table.server(due.type, dict(due.data), due.round)


def _claims(seat: int, seen: list[str], legal: list[str]) -> str:
    """Claims the golden point on a first move under 15 (falsely), else draws up to five
    cards whatever they total (an illegal draw past 21, judged at the showdown)."""
    if "golden_point" in legal and hands.total(seen) < 15:
        return "golden_point"
    return "hit" if len(seen) < 5 and "hit" in legal else "stand"


def _blind_match() -> BlindTable:
    """Rounds played to the target by careful seats."""
    table = _new_blind("v3m", {"target": 2})
    while table.state.phase != "over":
        table.play_round()
    return table


def _blind_claims() -> BlindTable:
    """A false golden point claim or an illegal draw in each round; a true claim where the
    deck can be arranged (``BlindTable.arrange``)."""
    table = _new_blind("v3c", {"target": 10}, _claims)
    for _ in range(3):
        table.play_round()
    if hasattr(table, "arrange"):  # the player's two first cards aces: a true claim
        table.strategy = careful
        table.open_round()
        table.commit_and_reveal()
        table.arrange({0: "AC", 1: "6C", 2: "AD", 3: "7C"})
        while table.step():
            pass
    return table


def _blind_timeouts() -> BlindTable:
    """Each request of a round timed out in turn: the commitments (void), a shuffle step
    (void), the shares (a forfeit), the keys (a forfeit)."""
    table = _new_blind("v3t", {"target": 10})
    table.open_round()
    table.commit_and_reveal(seats=(0,))
    _timeout(table)  # seed_timeout: seat 1 never committed
    table.open_round()
    table.commit_and_reveal()
    _timeout(table)  # shuffle_timeout: seat 0 never shuffled
    table.open_round()
    table.commit_and_reveal()
    _until(table, SHARES_DUE)
    _timeout(table)  # shares_timeout: neither seat sent its shares
    table.open_round()
    table.commit_and_reveal()
    table.answer(_until(table, SHARES_DUE)[0])
    _timeout(table)  # shares_timeout: one seat withheld its shares
    table.open_round()
    table.commit_and_reveal()
    _until(table, KEYS_DUE)
    table.answer(0)
    _timeout(table)  # keys_timeout: seat 1 withheld its key
    return table


def _until(table: BlindTable, kind: str) -> tuple[int, ...]:
    """Play on until a request of ``kind`` is pending: the seats it asks."""
    while True:
        crypto = table.state.crypto
        assert crypto is not None
        if crypto.request is not None and crypto.request.kind == kind:
            return crypto.request.seats
        table.step()


def _blind_tables() -> list[tuple[str, BlindTable]]:
    return [
        ("v3 blind match won at the target", _blind_match()),
        ("v3 blind claims and draws", _blind_claims()),
        ("v3 blind requests timed out", _blind_timeouts()),
    ]


BLIND_SEAT_TYPES = (DECK_SHUFFLED, DECRYPTION_SHARES, GOLDEN_POINT, ROUND_KEY)
BLIND_SERVER_TYPES = (SHUFFLE_TIMEOUT, SHARES_TIMEOUT, KEYS_TIMEOUT)
# The events whose tampered copies are replayed at a blind table, the first of each kind (every
# replay recomputes the service's step and checks the seats': a sample, the committed
# tables' sweep covering every other kind of change)
BLIND_TAMPERED = (
    "seed_commitment",
    DECK_SHUFFLED,
    "card_dealt",
    SHARES_DUE,
    DECRYPTION_SHARES,
    CARD_OPENED,
    GOLDEN_POINT,
    ROUND_KEY,
    SHUFFLE_TIMEOUT,
    SHARES_TIMEOUT,
    KEYS_TIMEOUT,
)


def _as_then(party: Party) -> Party:
    """``party`` as it stood before its key was revealed: the table is played to its end
    before its states are probed, and a party that revealed its key answers nothing more."""
    then = copy.copy(party)
    then._revealed = False
    return then


class _BlindProbes:
    """The forged commands a dealer-blind table adds at each state: its requests answered
    honestly (by the round's party), out of turn and with each kind of wrong answer, the
    golden point claim, the requests' timeouts, round keys and a service key that are not
    the ones the rules take."""

    def __init__(self, table: BlindTable) -> None:
        self.table_id = table.table_id
        self.parties: dict[str, dict[int, Party]] = table.kept  # type: ignore[attr-defined]
        self.events: list[Event] = []
        self.states = 0

    def seen(self, events: list[Event]) -> None:
        self.events.extend(events)
        self.states += 1

    @staticmethod
    def said(command: Command) -> bool:
        """Whether the port must give a refusal of ``command`` word for word: the blind
        commands', and a round key's or service key's (the committed tables' refusals are
        compared by class)."""
        blind = (*BLIND_SEAT_TYPES, *BLIND_SERVER_TYPES)
        return command.type in blind or "round_key" in command.data or "server_key" in command.data

    def _round_events(self, round_id: str) -> list[Logged]:
        return [
            (e.type, e.actor, statements.command_data(BLIND, e.data))
            for e in self.events
            if e.round == round_id
        ]

    def _command(self, kind: str, actor: str, time: int, data: Json, round_id: Any) -> Command:
        return Command(kind, actor, time, data, round_id, table=self.table_id)

    def probes(self, state: Any, time: int, base: Iterator[Command]) -> Iterator[Command]:
        for index, command in enumerate(base):  # a third of the committed tables' probes,
            if index % 3 == self.states % 3:  # another third at the next state
                yield replace(command, table=self.table_id)
        current = state.round
        round_id = current.round_id if current is not None else None
        for seat in (0, 1):
            actor = seat_actor(seat)
            for kind in BLIND_SEAT_TYPES:
                yield self._command(kind, actor, time, {}, round_id)
        for kind in BLIND_SERVER_TYPES:
            yield self._command(kind, "seat:0", time, {}, round_id)
            yield self._command(kind, SERVER, time, {"deadline": time, "seats": [0]}, round_id)
        yield from self._opening(state, time)
        if current is None or round_id not in self.parties or not state.in_round():
            return
        parties = {seat: _as_then(party) for seat, party in self.parties[round_id].items()}
        crypto = state.crypto
        if not current.sealed:
            yield from self._keys(state, time, parties)
        if crypto is None or crypto.request is None:
            return
        request = crypto.request
        due = GAME.due(state, request.deadline)
        if due is not None:  # the timeout at its deadline, and its data contradicted
            yield replace(due, table=self.table_id)
            wrong = {**due.data, "deadline": request.deadline + 1}
            yield self._command(due.type, SERVER, request.deadline, wrong, round_id)
            yield self._command(due.type, SERVER, request.deadline - 1, dict(due.data), round_id)
        events = self._round_events(round_id)
        for seat in request.seats:
            yield from self._answers(state, time, request.kind, seat, parties, events)

    def _opening(self, state: Any, time: int) -> Iterator[Command]:
        """round_opened with a server_key given: right, of another round, not a key."""
        number = state.rounds + 1
        round_id = f"{self.table_id}.{number}"
        seed = helpers.server_seed(round_id)
        commitment = randomness.seed_commitment(seed).hex()
        right = cipher.server_key(seed, self.table_id, round_id)
        other = cipher.server_key(seed, self.table_id, f"{self.table_id}.{number + 1}")
        for key in (right, other, {"key": right["key"]}, None):
            data = {"commitment": commitment, "server_key": key}
            yield self._command("round_opened", SERVER, time, data, round_id)

    def _keys(self, state: Any, time: int, parties: dict[int, Party]) -> Iterator[Command]:
        """seed_commitment with the seat's round key, another party's, a key proved for
        another seat's context, and a key of the wrong form."""
        for seat in (0, 1):
            actor = seat_actor(seat)
            mine = parties[seat].commitment_data("ab" * 32)
            theirs = parties[1 - seat].commitment_data("ab" * 32)
            key = mine["round_key"]
            server_key = {"key": state.crypto.server_key, "proof": key["proof"]}
            for round_key in (
                key,
                theirs["round_key"],
                server_key,
                {"key": key["key"]},
                {"key": key["key"], "proof": {"c": key["proof"]["c"]}},
                {"key": "ab" * 32, "proof": key["proof"]},
                {"key": "AB" * 32, "proof": key["proof"]},
                {"key": key["key"], "proof": {"c": "ff" * 32, "s": key["proof"]["s"]}},
            ):
                data = {"commitment": "ab" * 32, "round_key": round_key}
                yield self._command(SEED_COMMITMENT, actor, time, data, state.round.round_id)

    def _answers(
        self,
        state: Any,
        time: int,
        kind: str,
        seat: int,
        parties: dict[int, Party],
        events: list[Logged],
    ) -> Iterator[Command]:
        """``seat``'s honest answer to the request ``kind``, by it and by the other seat, and
        each kind of wrong answer."""
        party, round_id = parties[seat], state.round.round_id
        actor, other = seat_actor(seat), seat_actor(1 - seat)
        if kind == SHUFFLE_DUE:
            answer = party.step(state, events)
            step = len(state.crypto.decks)
            previous = list(state.crypto.deck())
            wrong: list[Json] = [
                {**answer, "step": step},
                {**answer, "step": step + 1},
                {**answer, "step": True},
                {"deck": previous, "proof": answer["proof"]},
                {"deck": answer["deck"][:-1], "proof": answer["proof"]},
                {"deck": answer["deck"], "proof": {**answer["proof"], "s1": "ff" * 32}},
                {"deck": answer["deck"], "proof": {**answer["proof"], "t1": "AB" * 32}},
                {"deck": answer["deck"], "proof": {**answer["proof"], "c": []}},
                {"deck": answer["deck"]},
                {**answer, "x": 1},
            ]
            name = DECK_SHUFFLED
        elif kind == SHARES_DUE:
            answer = party.shares(state, events)
            entries = answer["shares"]
            first = entries[0]
            swapped = {
                **first,
                "share": entries[-1]["share"] if len(entries) > 1 else first["proof"]["c"],
            }
            wrong = [
                {"shares": [swapped, *entries[1:]]},
                {"shares": [*entries[::-1], first]},
                {"shares": [{**first, "x": 1}, *entries[1:]]},
                {"shares": [{**first, "share": "AB" * 32}, *entries[1:]]},
                {"shares": [{**first, "proof": {"c": first["proof"]["c"]}}, *entries[1:]]},
                {"shares": [{**first, "position": True}, *entries[1:]]},
                {"shares": {}},
                {"shares": entries, "x": 1},
            ]
            name = DECRYPTION_SHARES
        else:
            answer = party.reveal(state, events)
            theirs = {"secret": scalar_bytes(parties[1 - seat]._x).hex()}
            wrong = [
                theirs,
                {"secret": "00" * 32},
                {"secret": "ff" * 32},
                {"secret": answer["secret"].upper()},
                {"secret": answer["secret"], "x": 1},
                {},
            ]
            name = ROUND_KEY
        yield self._command(name, actor, time, answer, round_id)
        yield self._command(name, other, time, answer, round_id)
        yield self._command(name, actor, state.crypto.request.deadline, answer, round_id)
        for data in wrong:
            yield self._command(name, actor, time, data, round_id)

    def party(self, state: Any) -> dict[str, Json] | None:
        """What a fresh party of each seat (a key the log does not hold) makes of ``state``:
        each answer refused as Python's party refuses it, word for word (an answer given:
        ``{"ok": true}``, its values being random). Its step only at a round's first
        shuffle_due of the chain's first round (it checks every logged step first)."""
        current = state.round
        if current is None:
            return None
        events = self._round_events(current.round_id)
        request = state.crypto.request if state.crypto is not None else None
        out: dict[str, Json] = {}
        for seat in (0, 1):
            fresh = Party(seat, self.table_id, current.round_id)
            calls: dict[str, Callable[[], Any]] = {
                "shares": partial(fresh.shares, state, events),
                "reveal": partial(fresh.reveal, state, events),
                "own_cards": partial(fresh.own_cards, state, events),
            }
            if current.number == 1 and request is not None and request.kind == SHUFFLE_DUE:
                calls["step"] = partial(fresh.step, state, events)
            for name, call in calls.items():
                result = outcome(call, message=True)
                out[f"{seat} {name}"] = {"ok": True} if "ok" in result else result
        return out

    def sample(self, events: list[dict[str, Json]]) -> set[int]:
        """The events tampered with: the first of each kind BLIND_TAMPERED names."""
        picked: dict[str, int] = {}
        for at, event in enumerate(events):
            if at and event["type"] in BLIND_TAMPERED:
                picked.setdefault(event["type"], at)
        return set(picked.values())


# The named cases: refusals on a short table of the game's own, as toto21.test.mjs names them.

OPTION_CASES: list[tuple[str, Json]] = [
    ("the defaults", {}),
    ("the full form", Options(2, 5_000, 60_000, 10**12, 1_000).to_json()),
    ("a target not among 2, 4, 6, 8, 10", {"target": 3}),
    ("a boolean stake", {"stake": True}),
    ("a null target", {"target": None}),
    ("a negative stake", {"stake": -1}),
    ("a stake over 10^12", {"stake": 10**12 + 1}),
    ("a game time under a minute", {"game_time_ms": 59_999}),
    ("an unknown option", {"zeta": 1, "alpha": 2}),
    ("options that are a list", []),
    ("options that are text", "target=4"),
    ("a dealer-blind table", {"dealing": "blind", "seed_time_ms": 10_000}),
    ("committed dealing named", {"dealing": "committed"}),
    ("a blind table's seeds under 10 s", {"dealing": "blind", "seed_time_ms": 9_999}),
    ("a blind table's default seed time", {"dealing": "blind"}),
    ("an unknown dealing", {"dealing": "open"}),
    ("a dealing that is not text", {"dealing": 1}),
]


class _Script:
    """A table played by the game's own ``step``, commands logged, cases tried on the way."""

    def __init__(self, options: dict[str, Any]) -> None:
        self.options = options
        self.state: Any = GAME.new(options)
        self.commands: list[dict[str, Json]] = []
        self.secrets: dict[str, str] = {}
        self.cases: list[dict[str, Json]] = []
        self.now = helpers.T0

    def secret(self, round_id: str | None) -> bytes | None:
        return bytes.fromhex(self.secrets[round_id]) if round_id in self.secrets else None

    def do(self, kind: str, actor: str, data: dict[str, Json], round_id: str | None = None) -> None:
        command = Command(kind, actor, self.now, data, round_id)
        self.state = GAME.step(self.state, command, self.secret(round_id)).state
        self.commands.append(command_json(command))

    def open(self, round_id: str) -> None:
        seed = helpers.server_seed(round_id)
        self.secrets[round_id] = seed.hex()
        commitment = randomness.seed_commitment(seed).hex()
        self.do("round_opened", SERVER, {"commitment": commitment}, round_id)

    def case(
        self,
        name: str,
        kind: str,
        actor: str,
        data: dict[str, Json],
        round_id: str | None = None,
        time: int | None = None,
    ) -> None:
        command = Command(kind, actor, self.now if time is None else time, data, round_id)
        result = outcome(partial(decided, self.state, command, self.secret(round_id)))
        self.cases.append(
            {
                "name": name,
                "at": len(self.commands),
                "command": command_json(command),
                "error": result.get("error"),
            }
        )

    def json(self) -> dict[str, Json]:
        return {
            "options": self.options,
            "secrets": self.secrets,
            "commands": self.commands,
            "cases": self.cases,
        }


def _script() -> _Script:
    t = _Script({"stake": 5, "target": 2, "game_time_ms": 600_000})
    t.case("a joiner before the creator is out of turn", "seat_joined", "seat:1", {})
    t.case("the server taking a seat is out of turn", "seat_joined", SERVER, {})
    t.case("a seat joining a round is illegal", "seat_joined", "seat:0", {}, "r")
    t.case("a deposit other than the stake is illegal", "seat_joined", "seat:0", {"deposit": 6})
    t.case("a seat of false for 0 is illegal: no integer", "seat_joined", "seat:0", {"seat": False})
    t.case("an answer before any joiner is illegal", "joiner_accepted", "seat:0", {})
    t.do("seat_joined", "seat:0", {})
    t.do("seat_joined", "seat:1", {})
    t.case("the joiner accepting itself is out of turn", "joiner_accepted", "seat:1", {})
    t.case("a third seat is out of turn", "seat_joined", "seat:2", {})
    t.case(
        "a round before the match is illegal",
        "round_opened",
        SERVER,
        {"commitment": "ab" * 32},
        "r",
    )
    t.do("joiner_accepted", "seat:0", {})
    t.case(
        "a round opened by a seat is illegal",
        "round_opened",
        "seat:0",
        {"commitment": "ab" * 32},
        "r",
    )
    t.secrets["t.1"] = helpers.server_seed("t.1").hex()  # the next case checks against it
    t.case(
        "a commitment that is not the seed's is illegal",
        "round_opened",
        SERVER,
        {"commitment": "00" * 32},
        "t.1",
    )
    t.case("a time-up before the game's end is not due", "game_time_up", SERVER, {})
    t.case("a consequence event as a command is illegal", "match_won", SERVER, {})
    t.now += 1_000
    t.open("t.1")
    t.case(
        "a second round while one is open is illegal",
        "round_opened",
        SERVER,
        {"commitment": "ab" * 32},
        "t.2",
    )
    t.case(
        "a seed timeout before its deadline is not due",
        "seed_timeout",
        SERVER,
        {"deadline": t.now + 30_000, "seats": [0, 1]},
        "t.1",
    )
    t.case("an empty seed is invalid", "client_seed", "seat:0", {"seed": ""}, "t.1")
    t.case("a seed of another seat is out of turn", "client_seed", "seat:2", {"seed": "s"}, "t.1")
    t.case(
        "a seed at its deadline is illegal",
        "client_seed",
        "seat:0",
        {"seed": "s"},
        "t.1",
        t.now + 30_000,
    )
    t.case("a hit before the deal is out of turn", "hit", "seat:0", {}, "t.1")
    t.do("client_seed", "seat:0", {"seed": "alpha"}, "t.1")
    t.case(
        "a second seed of one seat is illegal", "client_seed", "seat:0", {"seed": "again"}, "t.1"
    )
    t.do("client_seed", "seat:1", {"seed": "beta"}, "t.1")  # the seal and the deal
    hand = t.state.hand
    player, dealer = f"seat:{hand.player}", f"seat:{hand.dealer}"
    t.case("a seed after the seal is late", "client_seed", "seat:1", {"seed": "late"}, "t.1")
    t.case("the dealer moving on the player's turn is out of turn", "hit", dealer, {}, "t.1")
    t.case("a hit with data is illegal", "hit", player, {"card": "AS"}, "t.1")
    t.case("a hit at the move deadline is illegal", "hit", player, {}, "t.1", hand.move_deadline)
    t.case("a move timeout before its deadline is not due", "move_timeout", SERVER, {}, "t.1")
    t.case(
        "a move timeout by a seat is illegal", "move_timeout", player, {}, "t.1", hand.move_deadline
    )
    t.case(
        "a time-up during a dealt round is not due",
        "game_time_up",
        SERVER,
        {},
        None,
        t.state.game_deadline,
    )
    t.case("a move naming another round is illegal", "stand", player, {}, "t.0")
    t.do("blind", player, {}, "t.1")
    t.case("a second blind card is illegal", "blind", player, {}, "t.1")
    t.do("stand", player, {}, "t.1")
    t.case("the dealer taking the blind card is out of turn", "blind", dealer, {}, "t.1")
    t.case("the player moving on the dealer's turn is out of turn", "stand", player, {}, "t.1")
    t.do("stand", dealer, {}, "t.1")  # the showdown and the reveal
    t.case("a move after the reveal is illegal", "hit", player, {}, "t.1")
    t.case("a seed for the revealed round is late", "client_seed", "seat:0", {"seed": "s"}, "t.1")
    t.case(
        "a round id used before is illegal",
        "round_opened",
        SERVER,
        {"commitment": randomness.seed_commitment(helpers.server_seed("t.1")).hex()},
        "t.1",
    )
    end = t.state.game_deadline
    t.now = end - 10_000  # the seed deadline falls after the game's end
    t.open("t.2")
    t.case("a time-up naming another round is illegal", "game_time_up", SERVER, {}, "t.9", end)
    t.case(
        "a seed timeout when the game's end is due first is illegal",
        "seed_timeout",
        SERVER,
        {"deadline": t.state.round.seed_deadline, "seats": [0, 1]},
        "t.2",
        end + 40_000,
    )
    return t


def _boolean_seat(members: dict[str, Json]) -> None:
    """A seat false for 0, with the account its name would have in JavaScript."""
    members["seats"] = [False, 1]
    members["balances"] = {"pot": 0, "seat:false": 5, "seat:1": 5}


# Forged snapshots: each a change to the table's snapshot while ``deciding`` or ``playing``.
REST_CASES: list[tuple[str, str, Callable[[dict[str, Json]], None]]] = [
    ("a member missing", "playing", lambda m: m.pop("worth")),
    ("a member more", "playing", lambda m: m.update(banker=0)),
    ("an unknown phase", "playing", lambda m: m.update(phase="paused")),
    ("one seat while playing", "playing", lambda m: m.update(seats=[0])),
    ("a boolean seat", "deciding", _boolean_seat),
    ("a score at the target while playing", "playing", lambda m: m.update(score=[2, 0])),
    ("a score of one seat", "playing", lambda m: m.update(score=[0])),
    ("a boolean score", "playing", lambda m: m.update(score=[True, 0])),
    ("a point before the match", "deciding", lambda m: m.update(score=[0, 1])),
    ("a worth of 0", "playing", lambda m: m.update(worth=0)),
    ("a worth of 2 before the match", "deciding", lambda m: m.update(worth=2)),
    ("no game clock while playing", "playing", lambda m: m.update(game_deadline=None)),
    ("a game clock before the match", "deciding", lambda m: m.update(game_deadline=5)),
    ("a round before the match", "deciding", lambda m: m.update(rounds=1)),
    ("a last round of a bad id", "playing", lambda m: m.update(last_round="no spaces")),
    ("a last round of a table that opened none", "deciding", lambda m: m.update(last_round="r.1")),
    (
        "the stakes out of the pot while playing",
        "playing",
        lambda m: m.update(balances={"pot": 0, "seat:0": 5, "seat:1": 5}),
    ),
    (
        "the stakes in the pot before the match",
        "deciding",
        lambda m: m.update(balances={"pot": 10, "seat:0": 0, "seat:1": 0}),
    ),
    ("balances without the pot", "playing", lambda m: m["balances"].pop("pot")),
    ("options with a bad target", "playing", lambda m: m["options"].update(target=3)),
    ("options that are a list", "playing", lambda m: m.update(options=[])),
]


def cases() -> dict[str, Json]:
    script = _script()
    return {
        "options": [
            {"name": n, "raw": raw, **outcome(partial(GAME.options, raw))}
            for n, raw in OPTION_CASES
        ],
        "table": script.json(),
        "restore": _rest_cases(script),
    }


def _rest_cases(script: _Script) -> dict[str, Json]:
    """The script's table at rest in each phase (the last time: while playing, after round
    t.1), forged snapshots of it, and what ``restore`` makes of each."""
    bases: dict[str, Json] = {}
    state = GAME.new(script.options)
    for c in script.commands:
        command = Command(c["type"], c["actor"], c["time"], c["data"], c["round"])
        state = GAME.step(state, command, script.secret(c["round"])).state
        members = GAME.snapshot(state)
        if members is not None:
            bases[state.phase] = members  # the table's last at rest in each phase
    forged = []
    for name, base, change in REST_CASES:
        copy = json.loads(json.dumps(bases[base]))
        change(copy)
        result = outcome(partial(_restored, copy))
        forged.append({"name": name, "members": copy, **result})
    return {"members": list(bases.values()), "forged": forged}


def _restored(members: dict[str, Json]) -> Json:
    return GAME.snapshot(GAME.restore(members))


def text() -> str:
    return json.dumps(cases(), indent=1, sort_keys=True) + "\n"


if __name__ == "__main__":
    PATH.write_text(text())
