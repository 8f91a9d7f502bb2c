"""Both games' snapshots at rest (``rest.snapshot`` and ``rest.restore``): a restored table
decides every later command, timeout and legal action as the table it was taken of did,
its snapshot is the one it was restored from, anything else is refused, and the size
does not grow with the table's age."""

import copy
import random
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import pytest

from fairdeal import randomness
from fairdeal.canonical import json_text
from fairdeal.errors import EventSchemaError, GameError, OptionsError
from fairdeal.games import kvitlach, toto21
from fairdeal.games.base import AnyGame, Command
from fairdeal.games.kvitlach import rest as kvitlach_rest
from fairdeal.games.kvitlach.play import raise_limit, stake_limit
from fairdeal.games.toto21 import rest as toto21_rest
from fairdeal.games.toto21 import timing as toto21_timing
from fairdeal.protocol import SERVER
from fairdeal.table import restored
from tests.games.driving import T0, labelled_seed

Snapshot = Callable[[Any], dict[str, Any] | None]
Restore = Callable[[Mapping[str, Any]], Any]
Change = Callable[[dict[str, Any]], None]


@dataclass(frozen=True)
class Rest:
    game: AnyGame
    snapshot: Snapshot
    restore: Restore
    seats: int  # seat numbers 0..seats-1 to ask about


def through_the_engine(game: AnyGame) -> Restore:
    """The game's restore as the engine calls it: the snapshot of what it restores must be
    exactly the members (``fairdeal.table.restored``)."""

    def restore(members: Any) -> Any:
        if not isinstance(members, Mapping):  # no event's data: the game refuses it itself
            return game.restore(members)
        return restored(game, {"game": game.name, **members})[0]

    return restore


TOTO21 = Rest(toto21.GAME, toto21_rest.snapshot, through_the_engine(toto21.GAME), 2)
KVITLACH = Rest(kvitlach.GAME, kvitlach_rest.snapshot, through_the_engine(kvitlach.GAME), 4)


def kvitlach_rest_of(options: Mapping[str, Any]) -> Rest:
    seats = kvitlach.GAME.parse(options).max_seats
    return Rest(kvitlach.GAME, kvitlach_rest.snapshot, through_the_engine(kvitlach.GAME), seats)


def secret_of(round_id: str | None) -> bytes | None:
    return None if round_id is None else labelled_seed("rest", round_id)


def commitment(round_id: str) -> str:
    secret = secret_of(round_id)
    assert secret is not None
    return randomness.seed_commitment(secret).hex()


@dataclass
class Game:
    """A table played by bots: its states, and the command that led from each to the next."""

    rest: Rest
    states: list[Any]
    commands: list[Command] = field(default_factory=list)
    now: int = T0
    rounds: int = 0

    @property
    def state(self) -> Any:
        return self.states[-1]

    def do(self, command: Command) -> None:
        decision = self.rest.game.step(self.state, command, secret_of(command.round))
        self.states.append(decision.state)
        self.commands.append(command)

    def attempt(self, command: Command) -> bool:
        try:
            self.do(command)
        except GameError:
            return False
        return True

    def open_round(self) -> bool:
        round_id = f"r{self.rounds + 1:04}"
        data = {"commitment": commitment(round_id)}
        if not self.attempt(Command("round_opened", SERVER, self.now, data, round_id)):
            return False
        self.rounds += 1
        return True

    def round_id(self) -> str:
        return f"r{self.rounds:04}"

    def time_out(self, later: int) -> bool:
        command = self.rest.game.due(self.state, self.now + later)
        if command is None:
            return False
        self.now = command.time
        self.do(command)
        return True


def new_game(rest: Rest, options: Mapping[str, Any]) -> Game:
    return Game(rest, [rest.game.new(options)])


# Outcomes, compared between a table and its restored copy.


def outcome(rest: Rest, state: Any, command: Command) -> Any:
    """The drafts and the snapshot after, or the refusal's kind and reason."""
    try:
        decision = rest.game.step(state, command, secret_of(command.round))
    except GameError as e:
        return ("refused", type(e).__name__, str(e))
    drafts = [(d.type, d.actor, d.round, json_text(dict(d.data))) for d in decision.drafts]
    return ("decided", drafts, json_text(rest.snapshot(decision.state)))


def asked(rest: Rest, state: Any, now: int, secret: bytes | None) -> Any:
    """What a verifier or a bot asks of a table besides its decisions: timeouts, legal
    actions and the snapshot."""
    dues = [rest.game.due(state, now + later) for later in (0, 1, 10**6, 10**10)]
    legal = [rest.game.legal_actions(state, seat, secret) for seat in range(rest.seats)]
    return (dues, legal, json_text(rest.snapshot(state)))


def probes(rest: Rest, state: Any, now: int, last_round: str) -> Iterator[Command]:
    """Every kind of command, by every seat and the server, naming the last round, a new
    one or none, now and far later (timeouts claimed at their own deadline too)."""
    new_round = "probe-new"
    for time in (now, now + 10**10):
        due = rest.game.due(state, time)
        if due is not None:
            yield due
        for actor in [SERVER, *(f"seat:{seat}" for seat in range(rest.seats))]:
            for kind, data in _PROBE_DATA[rest.game.name]:
                for round_id in (None, last_round, new_round):
                    if kind == "round_opened" and round_id == last_round:
                        continue  # a reused round id: the one allowed difference
                    opening = {"commitment": commitment(new_round)}
                    yield Command(
                        kind, actor, time, opening if kind == "round_opened" else data, round_id
                    )


_PROBE_DATA: dict[str, list[tuple[str, dict[str, Any]]]] = {
    "toto21": [
        ("seat_joined", {}),
        ("joiner_accepted", {}),
        ("joiner_rejected", {}),
        ("round_opened", {}),
        ("client_seed", {"seed": "late"}),
        ("seed_timeout", {}),
        ("hit", {}),
        ("blind", {}),
        ("stand", {}),
        ("move_timeout", {}),
        ("game_time_up", {}),
    ],
    "kvitlach": [
        ("seat_joined", {"buy_in": 1_000}),
        ("seat_joined", {"buy_in": 3}),
        ("seat_left", {}),
        ("banker_exit", {}),
        ("round_opened", {}),
        ("client_seed", {"seed": "late"}),
        ("seed_timeout", {}),
        ("bet", {"amount": 1}),
        ("hit", {}),
        ("open_card", {}),
        ("stand", {}),
        ("elvaroon", {}),
        ("reject", {}),
        ("banker_draw", {}),
        ("banker_stop", {}),
        ("move_timeout", {}),
        ("bank_funded", {}),
    ],
}

CHECKED: dict[str, int] = {"rest points": 0, "commands": 0, "probes": 0}


def check_every_rest_point(game: Game) -> None:
    """From each state at rest: the snapshot round-trips, every probe is decided alike,
    and the rest of the game goes the same from the state and from its restored copy."""
    rest = game.rest
    last_round: str | None = None
    for index, state in enumerate(game.states):
        if index:
            last_round = game.commands[index - 1].round or last_round
        members = rest.snapshot(state)
        if members is None:
            continue
        CHECKED["rest points"] += 1
        restored = rest.restore(copy.deepcopy(members))
        assert json_text(rest.snapshot(restored)) == json_text(members)
        now = game.commands[index - 1].time if index else T0
        for command in probes(rest, state, now, last_round or "none"):
            CHECKED["probes"] += 1
            assert outcome(rest, restored, command) == outcome(rest, state, command), command
        _continue_alike(rest, state, restored, game.commands[index:], now)
    assert CHECKED["rest points"] > 1


def _continue_alike(rest: Rest, state: Any, restored: Any, tail: list[Command], now: int) -> None:
    for command in tail:
        secret = secret_of(command.round)
        assert asked(rest, restored, now, secret) == asked(rest, state, now, secret)
        CHECKED["commands"] += 1
        first = rest.game.step(state, command, secret)
        second = rest.game.step(restored, command, secret)
        assert json_text([d.__dict__ for d in second.drafts]) == json_text(
            [d.__dict__ for d in first.drafts]
        )
        state, restored, now = first.state, second.state, command.time
    assert asked(rest, restored, now, None) == asked(rest, state, now, None)


# Toto21 tables played by bots.


def play_toto21(rng: random.Random, max_rounds: int, **options: Any) -> Game:
    game = new_game(TOTO21, {"move_time_ms": 5_000, "seed_time_ms": 1_000, **options})
    for _ in range(400):
        state = game.state
        if state.phase == "over":
            return game
        game.now += rng.randint(0, 2_000)
        if state.phase == "open":
            game.do(Command("seat_joined", f"seat:{len(state.seats)}", game.now))
        elif state.phase == "deciding":
            answer = "joiner_rejected" if rng.random() < 0.3 else "joiner_accepted"
            game.do(Command(answer, "seat:0", game.now))
        elif not state.in_round() and game.rounds < max_rounds and rng.random() < 0.9:
            if not game.open_round():
                game.time_out(0)
        elif not state.in_round():
            game.now = max(game.now, state.game_deadline)
            game.time_out(0)
        else:
            _toto21_move(game, rng)
    raise AssertionError("the match did not end")


def _toto21_move(game: Game, rng: random.Random) -> None:
    secret = secret_of(game.round_id())
    moves = [
        (seat, kind)
        for seat in (0, 1)
        for kind in toto21.GAME.legal_actions(game.state, seat, secret)
        if kind != "seed_commitment"  # seeds go in the clear
    ]
    if not moves or rng.random() < 0.15:
        pending = toto21_timing.pending(game.state)
        game.now = max(game.now, pending[0].time)
        game.time_out(0)
        return
    pending = toto21_timing.pending(game.state)
    if pending:
        game.now = min(game.now, pending[0].time - 1)
    seat, kind = rng.choice(moves)
    data = {"seed": f"s{rng.randint(0, 99)}"} if kind == "client_seed" else {}
    game.do(Command(kind, f"seat:{seat}", game.now, data, game.round_id()))


@pytest.mark.parametrize("seed", range(12))
def test_toto21_restored_tables_play_on_alike(seed: int) -> None:
    rng = random.Random(seed)
    options = {"stake": rng.choice([0, 10, 1_000]), "target": rng.choice([2, 4])}
    game = play_toto21(rng, rng.randint(1, 6), game_time_ms=60_000, **options)
    check_every_rest_point(game)


def test_toto21_tables_end_each_way() -> None:
    """The bots above reach matches won, matches drawn, rejected joiners and voided rounds."""
    seen: set[str] = set()
    for seed in range(12):
        rng = random.Random(seed)
        options = {"stake": rng.choice([0, 10, 1_000]), "target": rng.choice([2, 4])}
        game = play_toto21(rng, rng.randint(1, 6), game_time_ms=60_000, **options)
        seen |= {command.type for command in game.commands}
        for state in game.states:
            seen |= {"voided"} if state.round is not None and not state.round.sealed else set()
    drafts = seen
    assert {"joiner_rejected", "game_time_up", "move_timeout", "seed_timeout"} <= drafts


# Kvitlach tables played by bots, seats coming and going between rounds.


def play_kvitlach(rng: random.Random, rounds: int, options: Mapping[str, Any]) -> Game:
    rest = kvitlach_rest_of(options)
    game = new_game(rest, options)
    game.do(Command("seat_joined", "seat:0", game.now, {"buy_in": 1_000}))
    for _ in range(rounds):
        _kvitlach_between_rounds(game, rng)
        if not game.open_round():
            continue
        for _ in range(300):
            if not kvitlach.state.in_round(game.state):
                break
            _kvitlach_move(game, rng)
    return game


def _kvitlach_between_rounds(game: Game, rng: random.Random) -> None:
    for seat in range(game.rest.seats):
        actor = f"seat:{seat}"
        legal = kvitlach.GAME.legal_actions(game.state, seat, None)
        if "banker_exit" in legal and rng.random() < 0.5:
            game.do(Command("banker_exit", actor, game.now))
        elif "seat_left" in legal and rng.random() < 0.15:
            game.do(Command("seat_left", actor, game.now))
        elif "seat_joined" in legal and rng.random() < 0.6:
            buy_in = rng.choice([5, 60, 300, 1_000])
            game.do(Command("seat_joined", actor, game.now, {"buy_in": buy_in}))


def _kvitlach_move(game: Game, rng: random.Random) -> None:
    state, round_id = game.state, game.round_id()
    secret = secret_of(round_id)
    moves = [
        (seat, kind)
        for seat in state.seats
        for kind in kvitlach.GAME.legal_actions(state, seat, secret)
        if kind not in ("seat_left", "seat_joined", "banker_exit", "seed_commitment")
    ]
    if not moves or rng.random() < 0.1:
        assert game.time_out(10**6), "a round in progress always awaits someone"
        return
    seat, kind = rng.choice(moves)
    data: dict[str, Any] = {}
    if kind == "client_seed":
        data = {"seed": f"s{rng.randint(0, 99)}"}
    elif kind in ("bet", "elvaroon"):
        hand = state.play.hands[seat]
        limit = stake_limit(state, hand) if kind == "bet" else raise_limit(state, hand)
        data = {"amount" if kind == "bet" else "raise": rng.randint(kind == "bet", limit)}
    game.now += rng.randint(0, 1_000)
    game.do(Command(kind, f"seat:{seat}", game.now, data, round_id))


def kvitlach_options(rng: random.Random) -> dict[str, Any]:
    return {
        "rule_set": rng.choice(["classic", "pressburg"]),
        "decks": rng.choice([1, 2]),
        "bank_funding": rng.choice([2, 20, 100]),
        "banker_exit": rng.choice(["mandatory", "optional", "optional", "off"]),
        "banker_must_draw": rng.choice(["none", "15", "16"]),
    }


@pytest.mark.parametrize("seed", range(16))
def test_kvitlach_restored_tables_play_on_alike(seed: int) -> None:
    rng = random.Random(seed)
    game = play_kvitlach(rng, 12, kvitlach_options(rng))
    check_every_rest_point(game)


def test_kvitlach_tables_reach_every_kind_of_rest() -> None:
    """The bots above end terms every way, take the 4-or-7 exit and seat newcomers."""
    reasons: set[str] = set()
    kinds: set[str] = set()
    for seed in range(16):
        rng = random.Random(seed)
        game = play_kvitlach(rng, 12, kvitlach_options(rng))
        kinds |= {command.type for command in game.commands}
        for before, after in zip(game.states, game.states[1:], strict=False):
            if before.term is not None and after.term is None:
                reasons.add("term ended")
            if after.exit_offer:
                reasons.add("exit offered")
    assert {"term ended", "exit offered"} <= reasons
    assert {"banker_exit", "seat_left", "seat_joined", "move_timeout"} <= kinds


# At rest or not.


def test_no_snapshot_while_a_round_is_open() -> None:
    rng = random.Random(1)
    for game in (play_toto21(rng, 3, game_time_ms=60_000), play_kvitlach(rng, 4, {})):
        rest = game.rest
        opened = [
            state for state in game.states if state.round is not None and not state.round.revealed
        ]
        assert opened and all(rest.snapshot(state) is None for state in opened)
        assert all(
            isinstance(rest.snapshot(state), dict)
            for state in game.states
            if state.round is None or state.round.revealed
        )


def test_snapshots_leave_the_game_to_the_engine_and_keep_the_full_options() -> None:
    toto = play_toto21(random.Random(2), 2, game_time_ms=60_000)
    kvit = play_kvitlach(random.Random(2), 3, {"rule_set": "pressburg"})
    for game in (toto, kvit):
        members = game.rest.snapshot(game.state)
        assert members is not None and "game" not in members and "round_ids" not in members
        assert members["options"] == game.state.options.to_json()
        assert members["balances"] == dict(game.state.balances)


# Size: bounded by the table's seats and options, not by its age.


def _shape(value: Any) -> Any:
    """The value with every integer 0: what is left once counters and money are set aside."""
    if isinstance(value, dict):
        return {key: _shape(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_shape(item) for item in value]
    return 0 if type(value) is int else value


def test_toto21_snapshot_does_not_grow_with_rounds() -> None:
    game = new_game(TOTO21, {"target": 10, "game_time_ms": 86_400_000})
    for seat in (0, 1):
        game.do(Command("seat_joined", f"seat:{seat}", game.now))
    game.do(Command("joiner_accepted", "seat:0", game.now))
    sizes = []
    for _ in range(9):  # each round won by one point: the match is still on
        assert game.open_round()
        while game.state.in_round():  # the seeds time out, then each seat stands
            assert game.time_out(10**5)
        members = TOTO21.snapshot(game.state)
        assert members is not None and members["phase"] == "playing"
        sizes.append(len(json_text(_shape(members))))
    assert max(sizes) <= sizes[0]


def test_kvitlach_snapshot_does_not_grow_with_rounds() -> None:
    options = {"bank_funding": 10**6, "banker_exit": "off", "max_bet": 1}
    rest = kvitlach_rest_of(options)
    game = new_game(rest, options)
    for seat in range(3):
        game.do(Command("seat_joined", f"seat:{seat}", game.now, {"buy_in": 10**9}))
    sizes = []
    for _ in range(40):
        assert game.open_round()
        while kvitlach.state.in_round(game.state):
            game.time_out(10**6)
        members = rest.snapshot(game.state)
        assert members is not None and members["term"] is not None
        sizes.append(len(json_text(_shape(members))))
    assert max(sizes) <= sizes[0]


# Refusals: anything that is not exactly a snapshot's shape.


def _toto21_snapshot() -> dict[str, Any]:
    game = new_game(TOTO21, {"stake": 10})
    for seat in (0, 1):
        game.do(Command("seat_joined", f"seat:{seat}", game.now))
    game.do(Command("joiner_accepted", "seat:0", game.now))
    assert game.open_round()
    while game.state.in_round():
        assert game.time_out(10**5)
    members = TOTO21.snapshot(game.state)
    assert members is not None
    return members


def _kvitlach_snapshot() -> dict[str, Any]:
    options = {"banker_exit": "optional"}
    game = new_game(kvitlach_rest_of(options), options)
    for seat in range(3):
        game.do(Command("seat_joined", f"seat:{seat}", game.now, {"buy_in": 1_000}))
    for _ in range(2):
        assert game.open_round()
        while kvitlach.state.in_round(game.state):
            assert game.time_out(10**6)
    members = game.rest.snapshot(game.state)
    assert members is not None and members["term"] is not None
    return members


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(members: dict[str, Any]) -> None:
        *outer, last = path.split(".")
        target = members
        for name in outer:
            target = target[name]
        target[last] = value

    return change


def _drop(name: str) -> Callable[[dict[str, Any]], None]:
    return lambda members: members.pop(name)


def _options_without(name: str) -> Callable[[dict[str, Any]], None]:
    return lambda members: members["options"].pop(name)


COMMON: dict[str, Change] = {
    "missing member": _drop("balances"),
    "extra member": _set("game", "x"),
    "round_ids": _set("round_ids", []),
    "options not in full form": _options_without("seed_time_ms"),
    "options with a bad value": _set("options.seed_time_ms", -1),
    "options with an unknown member": _set("options.colour", 1),
    "options not an object": _set("options", []),
    "balances not an object": _set("balances", [["seat:0", 1]]),
    "negative money": _set("balances.seat:0", -1),
    "money as a bool": _set("balances.seat:1", True),
    "money as text": _set("balances.seat:1", "5"),
    "money as a float": _set("balances.seat:1", 5.0),
    "an extra account": _set("balances.seat:3", 0),
    "a missing account": lambda members: members["balances"].pop("seat:1"),
    "seats out of range": _set("seats", [0, 1, 9]),
    "seats not a list": _set("seats", "01"),
    "seats as a tuple": _set("seats", (0, 1)),
    "rounds negative": _set("rounds", -1),
    "rounds as a bool": _set("rounds", True),
    "last_round not a round id": _set("last_round", 7),
    "last_round empty": _set("last_round", ""),
    "not an object": lambda members: members.clear(),
}

TOTO21_ONLY: dict[str, Change] = {
    "unknown phase": _set("phase", "paused"),
    "phase before the match": _set("phase", "open"),
    "seats unsorted": _set("seats", [1, 0]),
    "score of one": _set("score", [1]),
    "score negative": _set("score", [-1, 0]),
    "score as bools": _set("score", [False, True]),
    "score at the target in play": _set("score", [4, 0]),
    "worth zero": _set("worth", 0),
    "game_deadline null in play": _set("game_deadline", None),
    "game_deadline as text": _set("game_deadline", "soon"),
    "money not conserved": _set("balances.pot", 21),
    "pot emptied in play": lambda members: members["balances"].update({"pot": 0, "seat:0": 20}),
}

KVITLACH_ONLY: dict[str, Change] = {
    "seats unsorted": lambda members: members["seats"].reverse(),
    "seats repeated": lambda members: members["seats"].append(members["seats"][-1]),
    "banker out of range": _set("banker", 99),
    "banker as a bool": _set("banker", False),
    "exit_offer as an integer": _set("exit_offer", 1),
    "exit_offer before the term's 4th round": _set("exit_offer", True),
    "term without rounds": _set("term.rounds", 0),
    "term with more rounds than the table": _set("term.rounds", 99),
    "term's paid with the banker": lambda members: members["term"]["paid"].append(
        members["banker"]
    ),
    "term's paid not a list": _set("term.paid", {}),
    "term with an extra member": _set("term.banker", 0),
    "no term with a funded bank": _set("term", None),
    "bank account missing": lambda members: members["balances"].pop("bank"),
    "options of a rule set's other defaults": _set("options.order", "sideways"),
}


@pytest.mark.parametrize("change", [*COMMON, *TOTO21_ONLY])
def test_toto21_refuses_what_is_not_a_snapshot(change: str) -> None:
    members = _toto21_snapshot()
    assert TOTO21.restore(copy.deepcopy(members)) is not None
    {**COMMON, **TOTO21_ONLY}[change](members)
    with pytest.raises((EventSchemaError, OptionsError)):
        TOTO21.restore(members)


@pytest.mark.parametrize("change", [*COMMON, *KVITLACH_ONLY])
def test_kvitlach_refuses_what_is_not_a_snapshot(change: str) -> None:
    members = _kvitlach_snapshot()
    assert KVITLACH.restore(copy.deepcopy(members)) is not None
    {**COMMON, **KVITLACH_ONLY}[change](members)
    with pytest.raises((EventSchemaError, OptionsError)):
        KVITLACH.restore(members)


def test_restore_refuses_what_is_not_an_object() -> None:
    for restore in (toto21_rest.restore, kvitlach_rest.restore):
        values: list[Any] = [None, [], "{}", 3]
        for value in values:
            with pytest.raises(EventSchemaError):
                restore(value)


def _mutations(rng: random.Random, value: Any) -> Any:
    """``value`` with one leaf, somewhere, changed to a random JSON value."""
    if isinstance(value, dict) and value and rng.random() < 0.8:
        key = rng.choice(sorted(value))
        return {**value, key: _mutations(rng, value[key])}
    if isinstance(value, list) and value and rng.random() < 0.8:
        index = rng.randrange(len(value))
        return [*value[:index], _mutations(rng, value[index]), *value[index + 1 :]]
    return rng.choice(
        [None, True, False, 0, 1, 2, 3, -1, 10**6, "", "r0001", [], [0], [0, 1], {}, "seat:0"]
    )


def test_a_lying_snapshot_never_restores_into_another() -> None:
    """Random changes anywhere: refused, or restored into a state whose snapshot is it."""
    rng = random.Random(7)
    restored = 0
    for members, rest in ((_toto21_snapshot(), TOTO21), (_kvitlach_snapshot(), KVITLACH)):
        for _ in range(2_000):
            changed = _mutations(rng, members)
            try:
                state = rest.restore(copy.deepcopy(changed))
            except (EventSchemaError, OptionsError):
                continue
            restored += 1
            assert json_text(rest.snapshot(state)) == json_text(changed)
    assert restored  # some changes are other tables at rest (a balance moved, say)
