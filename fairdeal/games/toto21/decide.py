"""Which function decides each Toto21 command; anything else is refused.

Consequence-only events (card_dealt, dealer_chosen, move_due, cards_shown, round_won,
round_double_bust, match_started, seat_left, match_won, ...) have no entry here, so a
forged log cannot inject them as commands.
"""

from collections.abc import Callable

from fairdeal.errors import IllegalActionError
from fairdeal.games.base import Command, Decision
from fairdeal.games.toto21 import play, rounds, seating, timing
from fairdeal.games.toto21.state import State

Decider = Callable[[State, Command, bytes | None], Decision[State]]

COMMANDS: dict[str, Decider] = {
    "seat_joined": seating.join,
    "joiner_accepted": seating.accept,
    "joiner_rejected": seating.reject,
    "round_opened": rounds.open_round,
    "client_seed": rounds.client_seed,
    "seed_timeout": rounds.seed_timeout,
    "hit": play.hit,
    "blind": play.blind,
    "stand": play.stand,
    "move_timeout": play.move_timeout,
    "game_time_up": timing.game_time_up,
}


def decide(state: State, command: Command, secret: bytes | None) -> Decision[State]:
    decider = COMMANDS.get(command.type)
    if decider is None:
        raise IllegalActionError(f"{command.type!r} is not a toto21 command")
    return decider(state, command, secret)
