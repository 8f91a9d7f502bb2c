"""The game clock: when the total game time ends, the match ends by points."""

from fairdeal.errors import IllegalActionError, NotDueError
from fairdeal.games import dealing
from fairdeal.games.base import Command, Decision, record
from fairdeal.games.toto21 import timing
from fairdeal.games.toto21.ending import by_points
from fairdeal.games.toto21.run import Run, require_server
from fairdeal.games.toto21.state import PLAYING, Toto21State

VOID_REASON = "game_time_up"


def game_time_up(state: Toto21State, command: Command, secret: bytes | None) -> Decision:
    """Void the unsealed round in progress, decide the match by points, then reveal the
    seed. A dealt round is never voided: the game's end waits until it is revealed.

    With a round in progress the command names it, so a replay has the seed to check
    the reveal with; otherwise it names no round.
    """
    require_server(command)
    if state.phase != PLAYING:
        raise IllegalActionError("the game clock runs only during the match")
    if timing.dealt_round_in_play(state):
        raise NotDueError("the game time ends the match only once the dealt round is finished")
    round_id = timing.game_end_round(state)
    if command.round not in (None, round_id):
        raise IllegalActionError("game_time_up names the round in progress, or none")
    timing.check_due(state, command)
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
