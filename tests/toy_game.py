"""High card: a toy game that exists to prove the plug-in contract (fairdeal/games/README.md).

Two seats buy in; each round deals one card face up to each, and the higher card takes
the table's stake from the other. The deck is the numbers 1 to 13 once each, so there
are no ties. It is built from the shared round events (``games.dealing``) and the money
fields the verifier reads, and nothing outside this module knows it: a test registers
``GAME`` with ``fairdeal.games.register`` and unregisters it afterwards.
"""

from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from fairdeal.errors import EventSchemaError, IllegalActionError, OptionsError, OutOfTurnError
from fairdeal.events import Draft, Event, actor_seat, seat_actor
from fairdeal.games import dealing, money
from fairdeal.games.base import Command, Decision, Logged, Plugin, Run, deck_rules, record
from fairdeal.games.money import Transfer
from fairdeal.protocol import (
    CARD_DEALT,
    CLIENT_SEED,
    ROUND_OPENED,
    ROUND_REVEALED,
    ROUND_SEALED,
    ROUND_VOIDED,
    SEAT_JOINED,
    SEED_COMMITMENT,
    SEED_TIMEOUT,
    SEEDS_COMMITTED,
    SERVER,
)

NAME = "highcard"
DECK = tuple(str(number) for number in range(1, 14))
SEATS = (0, 1)
ROUND_WON = "round_won"


@dataclass(frozen=True)
class Options:
    stake: int = 10
    seed_time_ms: int = 30_000

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def parse(raw: Mapping[str, Any]) -> Options:
    unknown = sorted(set(raw) - {"stake", "seed_time_ms"})
    if unknown:
        raise OptionsError(f"{NAME} has no option {unknown[0]!r}")
    options = Options(**raw)
    for name, value in options.to_json().items():
        if type(value) is not int or not 1 <= value <= 10**6:
            raise OptionsError(f"{name} must be an integer from 1 to 1000000")
    return options


@dataclass(frozen=True)
class State:
    options: Options
    seats: tuple[int, ...] = ()
    balances: Mapping[str, int] = field(default_factory=dict)
    rounds: int = 0
    round_ids: frozenset[str] = frozenset()
    round: dealing.RoundState | None = None
    dealt: int = 0

    def in_round(self) -> bool:
        return self.round is not None and not self.round.revealed


# decide


def step(state: State, command: Command, secret: bytes | None) -> Decision[State]:
    decider = _COMMANDS.get(command.type)
    if decider is None:
        raise IllegalActionError(f"{command.type!r} is not a {NAME} command")
    run = Run(state, command.time, apply_at)
    decider(run, command, secret)
    return run.decision()


def _join(run: Run[State], command: Command, secret: bytes | None) -> None:
    state, seat = run.state, actor_seat(command.actor)
    if seat != len(state.seats) or seat not in SEATS:
        raise OutOfTurnError("the next free seat joins")
    if command.round is not None or state.in_round():
        raise IllegalActionError("a seat joins between rounds")
    buy_in = command.data.get("buy_in")
    if type(buy_in) is not int or not state.options.stake <= buy_in <= 10**6:
        raise IllegalActionError("buy_in is an integer from the stake to 1000000")
    balances = money.after_deposit(state.balances, seat_actor(seat), buy_in)
    run.emit(record(command, {"buy_in": buy_in, "balances": balances}))


def _open(run: Run[State], command: Command, secret: bytes | None) -> None:
    state = run.state
    if state.seats != SEATS or state.in_round() or command.round in state.round_ids:
        raise IllegalActionError("a round opens with both seats taken, after the last one")
    if min(state.balances.values()) < state.options.stake:
        raise IllegalActionError("a seat cannot cover the stake")
    seed_time = state.options.seed_time_ms
    run.emit(dealing.opened(command, secret, state.rounds + 1, SEATS, seed_time))


def _seeding(run: Run[State], command: Command, secret: bytes | None) -> None:
    current = run.state.round
    if current is None or not run.state.in_round() or command.round != current.round_id:
        raise IllegalActionError(f"{command.type} names the round in progress")
    drafts, then = dealing.seeding(current, command, run.state.options.seed_time_ms)
    for draft in drafts:
        run.emit(draft)
    if then == dealing.SEAL:
        _deal_and_settle(run, secret)
    elif then == dealing.VOID:
        run.emit(dealing.revealed_draft(_round(run), secret))


def _round(run: Run[State]) -> dealing.RoundState:
    assert run.state.round is not None
    return run.state.round


def _deal_and_settle(run: Run[State], secret: bytes | None) -> None:
    run.emit(dealing.sealed_draft(_round(run)))
    current = _round(run)  # sealed now
    deck = current.deck(secret, deck_rules(NAME))
    cards = {}
    for seat in SEATS:
        cards[seat] = int(deck.card(run.state.dealt))
        run.emit(dealing.deal_draft(current, deck, run.state.dealt, seat, dealing.UP))
    winner = max(SEATS, key=cards.__getitem__)
    loser = SEATS[1 - winner]
    pay = [Transfer(seat_actor(loser), seat_actor(winner), run.state.options.stake)]
    data = {"winner": winner, **money.settlement(run.state.balances, pay)}
    run.emit(Draft(ROUND_WON, SERVER, data, current.round_id))
    run.emit(dealing.revealed_draft(current, secret))


_COMMANDS: dict[str, Callable[[Run[State], Command, bytes | None], None]] = {
    SEAT_JOINED: _join,
    ROUND_OPENED: _open,
    SEED_COMMITMENT: _seeding,
    CLIENT_SEED: _seeding,
    SEED_TIMEOUT: _seeding,
}


# apply


def apply(state: State, event: Event) -> State:
    return apply_at(state, event, event.time)


def apply_at(state: State, event: Logged, time: int) -> State:
    data, current = event.data, state.round
    if event.type == SEAT_JOINED:
        seat = actor_seat(event.actor)
        assert seat is not None
        return replace(state, seats=(*state.seats, seat), balances=data["balances"])
    if event.type == ROUND_OPENED:
        opened = dealing.apply_opened(event)
        round_ids = state.round_ids | {opened.round_id}
        return replace(state, round=opened, rounds=state.rounds + 1, round_ids=round_ids, dealt=0)
    assert current is not None
    return _ROUND_APPLIERS[event.type](state, current, event)


_ROUND_APPLIERS: dict[str, Callable[[State, dealing.RoundState, Logged], State]] = {
    **{
        kind: lambda s, r, e: replace(s, round=dealing.apply_seeding(r, e))
        for kind in (SEED_COMMITMENT, SEEDS_COMMITTED, CLIENT_SEED, SEED_TIMEOUT)
    },
    ROUND_VOIDED: lambda s, r, e: s,
    ROUND_SEALED: lambda s, r, e: replace(s, round=dealing.apply_sealed(r)),
    CARD_DEALT: lambda s, r, e: replace(s, dealt=s.dealt + 1),
    ROUND_WON: lambda s, r, e: replace(s, balances=e.data["balances"]),
    ROUND_REVEALED: lambda s, r, e: replace(s, round=dealing.apply_revealed(r)),
}


# views and deadlines


def legal_actions(state: State, seat: int, secret: bytes | None) -> list[str]:
    current = state.round
    if not state.in_round():
        return [SEAT_JOINED] if seat == len(state.seats) and seat in SEATS else []
    assert current is not None
    return [CLIENT_SEED] if seat in dealing.missing_seeds(current) and not current.sealed else []


def view_for(state: State, seat: int | None, secret: bytes | None) -> dict[str, Any]:
    """Everything is public: every card is dealt face up."""
    current = state.round
    return {
        "game": NAME,
        "options": state.options.to_json(),
        "seats": list(state.seats),
        "balances": dict(sorted(state.balances.items())),
        "rounds": state.rounds,
        "round": None if current is None else {"id": current.round_id, "sealed": current.sealed},
    }


def due(state: State, now: int) -> Command | None:
    current = state.round
    if current is None or not state.in_round() or current.sealed:
        return None
    if current.seed_deadline is None or now < current.seed_deadline:
        return None
    data = {"deadline": current.seed_deadline, "seats": dealing.missing_seeds(current)}
    return Command(SEED_TIMEOUT, SERVER, now, data, current.round_id)


# at rest


def snapshot(state: State) -> dict[str, Any] | None:
    if state.in_round():
        return None
    members = {"seats": list(state.seats), "balances": dict(state.balances)}
    return {"options": state.options.to_json(), **members, "rounds": state.rounds}


def restore(members: Mapping[str, Any]) -> State:
    if set(members) != {"options", "seats", "balances", "rounds"}:
        raise EventSchemaError("a highcard snapshot has options, seats, balances and rounds")
    seats, balances, rounds = members["seats"], members["balances"], members["rounds"]
    if not (isinstance(seats, list) and all(type(s) is int for s in seats)):
        raise EventSchemaError("seats is a list of seat numbers")
    if not (isinstance(balances, dict) and all(type(v) is int for v in balances.values())):
        raise EventSchemaError("balances map accounts to integers")
    if type(rounds) is not int:
        raise EventSchemaError("rounds is an integer")
    return State(parse(members["options"]), tuple(seats), dict(balances), rounds)


GAME: Plugin[State, Options] = Plugin(
    name=NAME,
    decks={1: DECK},
    parse=parse,
    start=State,
    step=step,
    apply=apply,
    legal_actions=legal_actions,
    view_for=view_for,
    due=due,
    snapshot=snapshot,
    restore=restore,
)
