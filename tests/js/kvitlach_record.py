"""Records what the Python rules of Kvitlach answer, call by call, while real tables are
played and verified, for the browser port's test (kvitlach.test.mjs), which asks the port
the same questions and must get the same answers.

Every call of the plug-in (``GAME``: options, new, step, apply, legal_actions, view_for,
due, snapshot, restore) is one JSON line: its arguments, its result (a step's drafts, a
refusal's error class) and, for each state it makes, that state's snapshot and public view.
States are named by number, so the port follows the same states from call to call. The
calls come from the helper tables (both rule sets, options varied, long terms, seats that
leave, two decks, version-2 tables), from the Python verifier replaying their bundles (the
operators' forgeries of the tamper corpus too), from forged commands tried at every state
of some of their chains, from named refusals, and from the rules' own tests (tests/games).
A call whose arguments no logged event can hold (a tuple, a float, bytes) is left out, and
so is every later call on the states it makes. Besides the calls: the version-1 chains
(events and revealed seeds) and the bundles with fairdeal-verify's verdict and codes.

``python -m tests.js.kvitlach_record OUT`` writes them to OUT (generated: never committed).
"""

import contextlib
import hashlib
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from fairdeal import randomness, table
from fairdeal.canonical import MAX_SAFE_INTEGER
from fairdeal.errors import FairdealError
from fairdeal.events import Draft, Event
from fairdeal.games import dealing
from fairdeal.games.base import Command
from fairdeal.games.kvitlach import GAME
from fairdeal.games.kvitlach.play import BANKER_MOVES, PLAYER_MOVES
from fairdeal.protocol import SERVER, TABLE_STATE
from fairdeal.verifier import load_trust, verify_bundle
from fairdeal.verifier.rounds import revealed_seeds
from tests.games.kvitlach_helpers import seated
from tests.verifier import corpus, helpers, signed

# The rules' tests whose calls are recorded too (pytest's arguments): the rules case by
# case. Not the random plays (properties, restored tables playing on): hundreds of MB, which
# random play on the tables below (TABLES, their options varied alike) covers in less.
RULES_TESTS = [
    *(f"tests/games/test_kvitlach_{name}.py" for name in ("bank", "classic", "hands", "options")),
    *(f"tests/games/test_kvitlach_{name}.py" for name in ("pressburg", "time", "corrections")),
    "tests/games/test_seed_commitments.py",
    "tests/games/test_rest.py",
    "-k",
    "not restored_tables_play_on_alike",
]


def portable(value: Any) -> bool:
    """Whether ``value`` is a JSON value a logged event can hold (SPEC 1.1's domain)."""
    if value is None or isinstance(value, bool | str):
        return True
    if type(value) is int:
        return abs(value) <= MAX_SAFE_INTEGER
    if type(value) is list:
        return all(portable(v) for v in value)
    if type(value) is dict:
        return all(type(k) is str and portable(v) for k, v in value.items())
    return False


def _command(command: Command) -> dict[str, Any]:
    fields = ("type", "actor", "time", "round")
    return {**{k: getattr(command, k) for k in fields}, "data": dict(command.data)}


def _draft(draft: Draft) -> dict[str, Any]:
    """A draft as the port makes it: ``earlier`` only where there are earlier forms."""
    made = {"type": draft.type, "actor": draft.actor, "round": draft.round, "data": draft.data}
    return {**made, "earlier": list(draft.earlier)} if draft.earlier else made


def _event(event: Event) -> dict[str, Any]:
    fields = ("type", "actor", "time", "round")
    return {**{k: getattr(event, k) for k in fields}, "data": dict(event.data)}


def _error(error: BaseException) -> dict[str, Any]:
    """A refusal by its class (a GameError's, an EventSchemaError's), any other exception
    as a crash: the port must throw there too, anything but the rules' own errors."""
    if isinstance(error, FairdealError):
        return {"class": type(error).__name__}
    return {"crash": type(error).__name__}


def _secret(secret: bytes | None) -> str | None:
    return None if secret is None else secret.hex()


class Recorder:
    """GAME's calls, as JSON lines, under the name of what is being played (``group``)."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.group = ""
        self.states: dict[int, tuple[Any, int]] = {}  # id -> (the state, kept alive; its number)
        self.original = {name: getattr(GAME, name) for name in self.CALLS}

    CALLS = ("options", "new", "step", "apply", "legal_actions", "view_for", "due", "snapshot",
             "restore")  # fmt: skip

    def install(self) -> None:
        for name in self.CALLS:
            setattr(GAME, name, getattr(self, f"_{name}"))

    def number(self, state: Any) -> int | None:
        known = self.states.get(id(state))
        return known[1] if known is not None and known[0] is state else None

    def keep(self, state: Any) -> dict[str, Any]:
        """The state's number (a new one unless known) with its snapshot and public view."""
        number = self.number(state)
        if number is None:
            number = len(self.states)
            self.states[id(state)] = (state, number)
        after = {
            "snapshot": self.original["snapshot"](state),
            "view": self.original["view_for"](state, None, None),
        }
        return {"out": number, "after": after}

    def call(
        self, op: str, args: dict[str, Any], run: Callable[[], Any], result: Callable[[Any], Any]
    ) -> Any:
        """Run the original call; record it unless an argument has no JSON form."""
        entry = {"group": self.group, "op": op, **args}
        known = args.get("in", 0) is not None
        recordable = known and portable({k: v for k, v in args.items() if k != "in"})
        try:
            value = run()
        except Exception as e:
            if recordable:
                self.write({**entry, "error": _error(e)})
            raise
        if recordable:
            self.write({**entry, **result(value)})
        return value

    def write(self, entry: dict[str, Any]) -> None:
        self.lines.append(json.dumps(entry, separators=(",", ":")))

    def _options(self, raw: Any) -> Any:
        run = lambda: self.original["options"](raw)  # noqa: E731
        return self.call("options", {"raw": raw}, run, lambda v: {"result": v})

    def _new(self, raw: Any) -> Any:
        return self.call("new", {"raw": raw}, lambda: self.original["new"](raw), self.keep)

    def _step(self, state: Any, command: Command, secret: bytes | None) -> Any:
        args = {"in": self.number(state), "command": _command(command), "secret": _secret(secret)}
        run = lambda: self.original["step"](state, command, secret)  # noqa: E731
        made = lambda d: {"drafts": [_draft(x) for x in d.drafts], **self.keep(d.state)}  # noqa: E731
        return self.call("step", args, run, made)

    def _apply(self, state: Any, event: Event) -> Any:
        args = {"in": self.number(state), "event": _event(event)}
        return self.call("apply", args, lambda: self.original["apply"](state, event), self.keep)

    def _legal_actions(self, state: Any, seat: int, secret: bytes | None) -> Any:
        args = {"in": self.number(state), "seat": seat, "secret": _secret(secret)}
        run = lambda: self.original["legal_actions"](state, seat, secret)  # noqa: E731
        return self.call("legal_actions", args, run, lambda v: {"result": v})

    def _view_for(self, state: Any, seat: int | None, secret: bytes | None) -> Any:
        args = {"in": self.number(state), "seat": seat, "secret": _secret(secret)}
        run = lambda: self.original["view_for"](state, seat, secret)  # noqa: E731
        return self.call("view_for", args, run, lambda v: {"result": v})

    def _due(self, state: Any, now: int) -> Any:
        args = {"in": self.number(state), "now": now}
        run = lambda: self.original["due"](state, now)  # noqa: E731
        return self.call("due", args, run, lambda v: {"result": v and _command(v)})

    def _snapshot(self, state: Any) -> Any:
        run = lambda: self.original["snapshot"](state)  # noqa: E731
        return self.call("snapshot", {"in": self.number(state)}, run, lambda v: {"result": v})

    def _restore(self, members: Any) -> Any:
        run = lambda: self.original["restore"](members)  # noqa: E731
        return self.call("restore", {"members": members}, run, self.keep)


def _timeout() -> helpers.TableDriver:
    driver = helpers.TableDriver("kvitlach", "kvt", {})
    for seat in range(3):
        driver.seat(seat, "seat_joined", {"buy_in": 1_000})
    driver.play_round(seeds=["a", "b", None])
    return driver


def _two_decks() -> helpers.TableDriver:
    driver = helpers.TableDriver("kvitlach", "kv2", {"decks": 2, "banker_exit": "optional"})
    for seat in range(5):
        driver.seat(seat, "seat_joined", {"buy_in": 1_000})
    for _ in range(6):
        driver.play_round()
    return driver


def _leaving() -> helpers.TableDriver:
    driver = helpers.kvitlach_table("kvs", rounds=2)
    driver.seat(2, "seat_left")
    driver.seat(1, "seat_left")  # the banker alone: term_ended, no_players
    driver.seat(1, "seat_joined", {"buy_in": 500})
    driver.play_round()
    return driver


# The helper tables (SPEC 12 end to end), as tests/js/test_parity.py plays them, and more.
TABLES: dict[str, Callable[[], helpers.TableDriver]] = {
    "classic, 3 rounds": lambda: helpers.kvitlach_table("kv", rounds=3),
    "pressburg, 2 rounds": lambda: helpers.kvitlach_table("kp", rounds=2, rule_set="pressburg"),
    "a seed timed out": _timeout,
    "two decks, 5 seats, optional exit": _two_decks,
    "classic, 12 rounds, max_bet 50": lambda: helpers.kvitlach_table("kvl", rounds=12, max_bet=50),
    "pressburg, 9 rounds, no ante": lambda: helpers.kvitlach_table(
        "kpl", rounds=9, rule_set="pressburg", ante=0
    ),
    "seats that leave, the banker alone": _leaving,
    "pressburg, 2 decks, must draw 15, exit off": lambda: helpers.kvitlach_table(
        "kpd", rounds=6, rule_set="pressburg", decks=2, banker_must_draw="15", banker_exit="off"
    ),
    "classic, a bank of 20, alternate order, optional exit": lambda: helpers.kvitlach_table(
        "kva", rounds=8, bank_funding=20, order="alternate", banker_exit="optional"
    ),
    "pressburg, a bank of 2, must draw 16, 3 seats": lambda: helpers.kvitlach_table(
        "kpt", rounds=4, rule_set="pressburg", bank_funding=2, banker_must_draw="16", max_seats=3
    ),
    "version 2, classic": lambda: signed.kvitlach_table("v2kv"),
    "version 2, pressburg": lambda: signed.kvitlach_table("v2kp", silent=1, rule_set="pressburg"),
}
# The tables whose every state is asked every question, forged commands too.
PROBED = (
    "classic, 3 rounds",
    "pressburg, 2 rounds",
    "seats that leave, the banker alone",
    "version 2, classic",
)


# Forged commands, tried at each state of a chain as the verifier replays it.

PROBE_ROUND = "probe.r"
PROBE_SECRET = hashlib.sha256(b"kvitlach port probe").digest()
PROBE_COMMITMENT = randomness.seed_commitment(PROBE_SECRET).hex()
SEAT_TYPES = ("seat_joined", "seat_left", "banker_exit", "client_seed", "seed_commitment",
              *PLAYER_MOVES, *BANKER_MOVES)  # fmt: skip
SERVER_TYPES = ("round_opened", "seed_timeout", "move_timeout")
NOT_COMMANDS = ("card_dealt", "hand_won", "round_settled", "term_ended", TABLE_STATE, "bogus")
TABLE_LEVEL = ("seat_joined", "seat_left", "banker_exit")


def _deadlines(state: Any) -> list[int]:
    current, play = state.round, state.play
    found = [current and current.seed_deadline, play and play.deadline]
    return [d for d in found if d is not None]


def _natural(kind: str, actor: str, state: Any, round_id: str | None) -> dict[str, Any]:
    """The data a sender would give: what the command carries itself, nothing derived."""
    current, play = state.round, state.play
    if kind == "seat_joined":
        return {"buy_in": 100}
    if kind == "client_seed":
        return {"seed": f"probe-{actor}"}
    if kind == "seed_commitment":
        return {"commitment": "ab" * 32}
    if kind == "bet":
        return {"amount": 1}
    if kind == "round_opened":
        seed = (
            helpers.server_seed(round_id) if round_id not in (None, PROBE_ROUND) else PROBE_SECRET
        )
        return {"commitment": randomness.seed_commitment(seed).hex()}
    if kind == "seed_timeout" and current is not None:
        return {"deadline": current.seed_deadline, "seats": dealing.missing_seeds(current)}
    if kind == "move_timeout" and play is not None:
        return {"seat": play.turn, "deadline": play.deadline}
    return {}


def _variants(kind: str, state: Any) -> list[dict[str, Any]]:
    """Data that contradict or add to what the rules derive, or that the rules refuse."""
    current, play = state.round, state.play
    out: list[dict[str, Any]] = [{"x": 1}]
    if kind == "seat_joined":
        out += [
            {},
            {"buy_in": True},
            {"buy_in": 0},
            {"buy_in": 10**12 + 1},
            {"buy_in": 1, "balances": {}},
        ]
    elif kind == "seat_left":
        out += [{"withdrawal": 0}, {"balances": {}}]
    elif kind == "bet":
        out += [
            {},
            {"amount": True},
            {"amount": 0},
            {"amount": "1"},
            {"amount": 50},
            {"amount": 51},
        ]
    elif kind == "elvaroon":
        out += [{"raise": 0}, {"raise": True}, {"raise": -1}, {"raise": 5}, {"raise": 10**9}]
    elif kind == "client_seed":
        out += [{}, {"seed": ""}, {"seed": 5}, {"seed": "ok", "x": 1}]
    elif kind == "seed_commitment":
        out += [{}, {"commitment": "AB" * 32}]
    elif kind == "round_opened":
        out += [{}, {"commitment": "00" * 32}, {"commitment": PROBE_COMMITMENT, "number": 99}]
        out += [
            {"commitment": PROBE_COMMITMENT, "banker": True},
            {"commitment": PROBE_COMMITMENT, "order": []},
        ]
    elif kind == "seed_timeout" and current is not None:
        seats, deadline = dealing.missing_seeds(current), current.seed_deadline
        out += [
            {},
            {"deadline": True, "seats": seats},
            {"deadline": deadline, "seats": [bool(s) for s in seats]},
        ]
    elif kind == "move_timeout" and play is not None:
        turn, deadline = play.turn, play.deadline
        out += [{"seat": turn}, {"deadline": deadline}, {"seat": True, "deadline": deadline}]
        out += [{"seat": turn, "deadline": True}, {"seat": (turn or 0) + 1, "deadline": deadline}]
    return out


def _probes(state: Any, time: int) -> Iterator[Command]:
    """Forged commands to try at ``state``, the chain's last time being ``time``: every type,
    by each kind of actor, naming each kind of round, around each running deadline."""
    current = state.round.round_id if state.round is not None else None
    named = [None, PROBE_ROUND] + ([current] if current is not None else [])
    near = sorted({time} | {d + k for d in _deadlines(state) for k in (-1, 0, 1) if d + k > time})
    due = sorted({time} | {d for d in _deadlines(state) if d > time})
    play = state.play
    movers = sorted(
        {f"seat:{state.banker}", f"seat:{play.turn if play and play.turn is not None else 1}"}
    )
    for kind in SEAT_TYPES:
        for actor in ("seat:0", "seat:1", "seat:2", "seat:3", SERVER):
            for round_id in named:
                yield Command(kind, actor, time, _natural(kind, actor, state, round_id), round_id)
        round_id = None if kind in TABLE_LEVEL else current
        for actor in movers:
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


def _ask(state: Any, time: int, seeds: dict[str, bytes]) -> None:
    """Every question the rules answer of ``state`` (each call recorded): the views and legal
    actions of every seat, the timeouts due around each deadline, the snapshot and the
    state it restores, and the forged commands' outcomes."""
    secret = seeds.get(state.round.round_id) if state.round is not None else None
    seats = range(state.options.max_seats)
    for seat in (None, *seats):
        GAME.view_for(state, seat, secret)
    GAME.view_for(state, state.banker, None)
    for seat in seats:
        GAME.legal_actions(state, seat, secret)
    for now in sorted({time, *(d + k for d in _deadlines(state) for k in (-1, 0))}):
        GAME.due(state, now)
    snapshot = GAME.snapshot(state)
    if snapshot is not None:
        GAME.restore(snapshot)
    for command in _probes(state, time):
        if command.round == PROBE_ROUND:
            seed = PROBE_SECRET if command.type == "round_opened" else None
        else:
            seed = seeds.get(command.round or "")
        with contextlib.suppress(Exception):
            GAME.step(state, command, seed)


def _probed(driver: helpers.TableDriver) -> None:
    """The driver's chain replayed as the verifier does (fairdeal.table.runs), every state
    it passes asked every question (``_ask``)."""
    created, *events = [s.event for s in driver.log]
    game, state = table.started({GAME.name: GAME}, created.data, created.version)
    seeds = revealed_seeds(events)
    replayed = table.Replayed(game, state, table.CREATED, created.version)
    _ask(state, created.time, seeds)
    for end, after in table.runs(replayed, events, seeds):
        _ask(after.state, events[end - 1].time, seeds)


def _chain(name: str, driver: helpers.TableDriver) -> dict[str, Any]:
    """A version-1 table's log as a verifier reads it: the events and the revealed seeds."""
    events = [json.loads(json.dumps(s.to_json()))["event"] for s in driver.log]
    seeds = {e["round"]: e["data"]["server_seed"] for e in events if e["type"] == "round_revealed"}
    return {"chain": name, "events": events, "seeds": seeds}


def _verify(recorder: Recorder, drivers: dict[str, helpers.TableDriver]) -> list[dict[str, Any]]:
    """The Python verifier on every round's bundle from its table_state, on each table's
    whole chain (its last round's bundle from seq 0), and on the Kvitlach operators' forgeries
    of the tamper corpus (re-signed: the rules find them): each replay's calls recorded, each
    bundle with its verdict, codes and rules findings. (tests/js/test_parity.py has the rest
    of the corpus, which the chain's own checks find.)"""
    trust = load_trust([helpers.VERIFIER_KEY])
    log = helpers.Log().add_all(*drivers.values())
    bundles = {}
    last = {driver.rounds[-1] for driver in drivers.values()}
    for index, (_, round_id, _) in enumerate(log.entries):
        if round_id in last:
            bundles[f"{round_id} from seq 0"] = log.bundle(index)
        bundles[f"{round_id} from its table_state"] = log.bundle(index, bounded=True)
    by_round = {round_id: i for i, (_, round_id, _) in enumerate(log.entries)}
    fixture = corpus.Fixture(
        toto21=log.bundle(by_round["kv.1"]),  # the Kvitlach corpus only: Toto21 is not ours
        kvitlach=log.bundle(by_round["kv.2"]),
        timeout=log.bundle(by_round["kvt.1"]),
    )
    for name, (which, attack, _) in corpus.NAMED.items():
        if which != "toto21":
            bundles[f"tampered: {name}"] = attack(corpus.fixture_of(fixture, which))
    out = []
    for name, bundle in bundles.items():
        recorder.group = f"verifier: {name}"
        report = verify_bundle(bundle, trust)
        rules = sorted((f.code, f.seq) for f in report.findings if f.code.startswith("rules."))
        codes = sorted(report.codes())
        out.append(
            {
                "bundle": name,
                "text": json.dumps(bundle),  # read as the verify page reads a file
                "verdict": report.verdict,
                "codes": codes,
                "rules": rules,
            }
        )
    return out


def _named(recorder: Recorder) -> None:
    """Refusals by name (SPEC 12.1, 12.5, 12.9, 6.4): each call's class is the test's."""

    def named(name: str, attempt: Callable[[], object]) -> None:
        recorder.group = f"named: {name}"
        try:
            attempt()
        except FairdealError:
            return
        raise AssertionError(f"{name}: not refused")

    for raw in ({"decks": 3}, {"decks": True}, {"rule_set": "x"}, {"bank_funding": 101}, {"x": 1}):
        named(f"bad options {json.dumps(raw)}", lambda raw=raw: GAME.options(raw))
    driver = seated(players=2)
    driver.deal()
    named("out of turn", lambda: driver.seat(2, "bet", {"amount": 10}))
    named("over the maximum bet", lambda: driver.seat(1, "bet", {"amount": 51}))
    named("a bet of true", lambda: driver.seat(1, "bet", {"amount": True}))
    named(
        "a consequence as a command", lambda: driver.do("card_dealt", "server", {}, driver.round_id)
    )
    named("a seed after the seal", lambda: driver.seat(1, "client_seed", {"seed": "late"}))
    play = driver.state.play
    assert play is not None and play.deadline is not None
    timeout = {"seat": play.turn, "deadline": play.deadline}
    named(
        "a move timeout not yet due",
        lambda: driver.do("move_timeout", "server", timeout, driver.round_id),
    )
    # 1 == True in Python: the data pass as the pending deadline's, so the timeout is not due
    # yet; once it is, record() refuses true by its type.
    data = {"seat": True, "deadline": play.deadline}
    named(
        "a move timeout naming seat true, not due",
        lambda: driver.do("move_timeout", "server", data, driver.round_id),
    )
    late = play.deadline + 1
    named(
        "a move timeout naming seat true",
        lambda: driver.do("move_timeout", "server", data, driver.round_id, late),
    )
    bank = seated(players=2, bank_funding=100, max_bet=100, ante=0)
    bank.deal()
    bank.seat(1, "bet", {"amount": 60})
    bank.seat(1, "stand")
    named("over the bank's uncovered funds", lambda: bank.seat(2, "bet", {"amount": 41}))
    fresh = seated(players=1)
    fresh.open_round()
    current = fresh.state.round
    assert current is not None
    missing = {"deadline": current.seed_deadline, "seats": dealing.missing_seeds(current)}
    named(
        "a seed timeout not yet due",
        lambda: fresh.do("seed_timeout", "server", missing, fresh.round_id),
    )
    named("a banker_exit never offered", lambda: seated().seat(0, "banker_exit"))
    named("a joiner not at the lowest free seat", lambda: seated().join(3))


def _rules_tests(recorder: Recorder) -> None:
    class Plugin:
        @staticmethod
        def pytest_runtest_setup(item: pytest.Item) -> None:
            recorder.group = f"rules: {item.nodeid}"

    # In this process (-n 0, not the xdist workers of pyproject's addopts): the recorder
    # hears the rules only here.
    arguments = ["-q", "-n", "0", "-p", "no:cacheprovider", *RULES_TESTS]
    code = pytest.main(arguments, plugins=[Plugin()])
    assert code == 0, "the rules' tests fail in Python"


def record() -> list[str]:
    recorder = Recorder()
    recorder.install()
    lines = [json.dumps({"operator_key": helpers.PEM})]
    drivers = {}
    for name, build in TABLES.items():
        recorder.group = f"table: {name}"
        drivers[name] = driver = build()
        if driver.version == 1:
            lines.append(json.dumps(_chain(name, driver)))
    for bundle in _verify(recorder, drivers):
        lines.append(json.dumps(bundle))
    for name in PROBED:
        recorder.group = f"probed: {name}"
        _probed(drivers[name])
    _named(recorder)
    _rules_tests(recorder)
    return [*recorder.lines, *lines]


if __name__ == "__main__":
    Path(sys.argv[1]).write_text("\n".join(record()) + "\n")
