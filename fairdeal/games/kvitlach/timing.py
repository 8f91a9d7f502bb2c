"""Deadlines: which server timeout is due. The rules then check the timeout as any
other command (its data names the deadline passed)."""

from fairdeal.games import dealing
from fairdeal.games.base import Command
from fairdeal.games.kvitlach.state import BANKER, PLAYERS, State, in_round
from fairdeal.protocol import SEED_TIMEOUT, SERVER


def due(state: State, now: int) -> Command | None:
    """The seed timeout or the move timeout whose deadline has passed, if any."""
    if not in_round(state) or state.round is None or state.play is None:
        return None
    current, play = state.round, state.play
    if not current.sealed and current.seed_deadline is not None and now >= current.seed_deadline:
        data = {"deadline": current.seed_deadline, "seats": dealing.missing_seeds(current)}
        return Command(SEED_TIMEOUT, SERVER, now, data, current.round_id)
    if play.phase in (PLAYERS, BANKER) and play.deadline is not None and now >= play.deadline:
        data = {"seat": play.turn, "deadline": play.deadline}
        return Command("move_timeout", SERVER, now, data, current.round_id)
    return None
