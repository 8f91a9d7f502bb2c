"""Deadlines: which server timeout is due, refusing any other, and the game clock's end.

Pending deadlines are the game's end, the seed deadline of an unsealed round, at a
dealer-blind table the deadline of the request pending (a shuffle step, shares, keys), and
the move deadline of the seat to move. The earliest passed one is due first (the game's
end first on equal times), and ``decide`` accepts no other, so the server cannot pick
the order of timeouts to its liking. The game's end waits while a dealt round is in
play: that round is finished by moves and move timeouts, so a seat that sees a losing
hand cannot have it voided by letting the game clock run out.
"""

from dataclasses import dataclass

from fairdeal.errors import IllegalActionError, NotDueError
from fairdeal.frozen import evolve
from fairdeal.games import dealing
from fairdeal.games.base import Command, Decision, record
from fairdeal.games.toto21.cipher import Request
from fairdeal.games.toto21.ending import by_points
from fairdeal.games.toto21.run import Run, require_server
from fairdeal.games.toto21.state import PLAYING, State
from fairdeal.protocol import (
    KEYS_DUE,
    KEYS_TIMEOUT,
    SEED_TIMEOUT,
    SERVER,
    SHARES_DUE,
    SHARES_TIMEOUT,
    SHUFFLE_DUE,
    SHUFFLE_TIMEOUT,
)

VOID_REASON = "game_time_up"


@dataclass(frozen=True)
class Deadline:
    time: int
    rank: int  # breaks ties: the reveals' end (-1), the game's end (0), a round's others (1)
    command: Command


def pending(state: State) -> list[Deadline]:
    """Every deadline now running, earliest first."""
    if state.phase != PLAYING or state.game_deadline is None:
        return []
    found = []
    if not dealt_round_in_play(state):
        end = state.game_deadline
        game_end = Command("game_time_up", SERVER, end, {"deadline": end}, game_end_round(state))
        found.append(Deadline(end, 0, game_end))
    current, hand = state.round, state.hand
    if current is not None and state.in_round() and not current.sealed:
        assert current.seed_deadline is not None
        data = {"deadline": current.seed_deadline, "seats": dealing.missing_seeds(current)}
        command = Command(SEED_TIMEOUT, SERVER, current.seed_deadline, data, current.round_id)
        # The reveals end by the game's end (rounds.seeding): at that same time, the void
        # of a withheld reveal comes first, so that it names the withholding seats.
        rank = -1 if current.revealing else 1
        found.append(Deadline(current.seed_deadline, rank, command))
    elif current is not None and state.crypto is not None and state.crypto.request is not None:
        found.append(_request_deadline(current.round_id, state.crypto.request))
    elif current is not None and hand is not None and hand.move_deadline is not None:
        data = {"seat": hand.turn, "deadline": hand.move_deadline}
        command = Command("move_timeout", SERVER, hand.move_deadline, data, current.round_id)
        found.append(Deadline(hand.move_deadline, 1, command))
    return sorted(found, key=lambda deadline: (deadline.time, deadline.rank))


_TIMEOUTS = {SHUFFLE_DUE: SHUFFLE_TIMEOUT, SHARES_DUE: SHARES_TIMEOUT, KEYS_DUE: KEYS_TIMEOUT}


def _request_deadline(round_id: str, request: Request) -> Deadline:
    """A dealer-blind round's pending request: its timeout names the seats that owe an
    answer (the one asked for its step), SPEC 15.13.8."""
    data: dict[str, object] = {"deadline": request.deadline}
    if request.kind == SHUFFLE_DUE:
        data["seat"] = request.seats[0]
    else:
        data["seats"] = list(request.seats)
    command = Command(_TIMEOUTS[request.kind], SERVER, request.deadline, data, round_id)
    return Deadline(request.deadline, 1, command)


def dealt_round_in_play(state: State) -> bool:
    """A round is sealed, and so dealt (the seal's run deals), and not yet revealed."""
    return state.round is not None and state.in_round() and state.round.sealed


def game_end_round(state: State) -> str | None:
    """The round ``game_time_up`` names: the one it voids (never a dealt one), if any."""
    return state.round.round_id if state.round is not None and state.in_round() else None


def due(state: State, now: int) -> Command | None:
    """The server command for the earliest deadline passed at ``now``, stamped ``now``."""
    first = next(iter(pending(state)), None)
    if first is None or first.time > now:
        return None
    return evolve(first.command, time=now)


def check_due(state: State, command: Command) -> None:
    """A timeout is accepted only when its deadline passed and no other came first."""
    passed = [d for d in pending(state) if d.time <= command.time]
    if all(d.command.type != command.type for d in passed):
        raise NotDueError(f"no {command.type} is due at {command.time}")
    if passed[0].command.type != command.type:
        raise IllegalActionError(f"{passed[0].command.type} is due first")


def game_time_up(state: State, command: Command, secret: bytes | None) -> Decision[State]:
    """Void the unsealed round in progress, decide the match by points, then reveal the
    seed. A dealt round is never voided: the game's end waits until it is revealed.

    With a round in progress the command names it, so a replay has the seed to check
    the reveal with; otherwise it names no round.
    """
    require_server(command)
    if state.phase != PLAYING:
        raise IllegalActionError("the game clock runs only during the match")
    if dealt_round_in_play(state):
        raise NotDueError("the game time ends the match only once the dealt round is finished")
    round_id = game_end_round(state)
    if command.round not in (None, round_id):
        raise IllegalActionError("game_time_up names the round in progress, or none")
    check_due(state, command)
    run = Run(state, command)
    run.emit(record(command, {"deadline": state.game_deadline}, round_id))
    # The match's settlement comes before the reveal, so that the round head (the reveal,
    # a leaf of the transparency log) covers the money too.
    voiding = state.round is not None and state.in_round()
    if voiding:
        run.emit(dealing.voided_draft(run.round(), VOID_REASON))
    run.emit(by_points(run.state))
    if voiding:
        run.emit(dealing.revealed_draft(run.round(), secret))
    return run.decision()
