"""Which function decides each Toto21 command; anything else is refused.

Consequence-only events (card_dealt, dealer_chosen, move_due, cards_shown, round_won,
round_double_bust, match_started, seat_left, match_won, ...) have no entry here, so a
forged log cannot inject them as commands.
"""

from collections.abc import Callable

from fairdeal.events import actor_seat
from fairdeal.games.base import Command, Decision, unknown_command
from fairdeal.games.toto21 import blind_round, play, rounds, seating, timing, views
from fairdeal.games.toto21.state import State
from fairdeal.protocol import (
    CLIENT_SEED,
    DECK_SHUFFLED,
    DECRYPTION_SHARES,
    GOLDEN_POINT,
    JOINER_ACCEPTED,
    JOINER_REJECTED,
    KEYS_TIMEOUT,
    ROUND_KEY,
    ROUND_OPENED,
    SEAT_JOINED,
    SEED_COMMITMENT,
    SEED_TIMEOUT,
    SHARES_TIMEOUT,
    SHUFFLE_TIMEOUT,
)

Decider = Callable[[State, Command, bytes | None], Decision[State]]

COMMANDS: dict[str, Decider] = {
    SEAT_JOINED: seating.join,
    JOINER_ACCEPTED: seating.accept,
    JOINER_REJECTED: seating.reject,
    ROUND_OPENED: rounds.open_round,
    SEED_COMMITMENT: rounds.seeding,
    CLIENT_SEED: rounds.seeding,
    SEED_TIMEOUT: rounds.seeding,
    "hit": play.hit,
    "blind": play.blind,
    "stand": play.stand,
    "move_timeout": play.move_timeout,
    "game_time_up": timing.game_time_up,
    # a dealer-blind table's (SPEC 15.13); refused at any other
    DECK_SHUFFLED: blind_round.shuffled,
    SHUFFLE_TIMEOUT: blind_round.shuffle_timeout,
    DECRYPTION_SHARES: blind_round.shares,
    SHARES_TIMEOUT: blind_round.shares_timeout,
    GOLDEN_POINT: blind_round.golden_point,
    ROUND_KEY: blind_round.round_key,
    KEYS_TIMEOUT: blind_round.keys_timeout,
}


def decide(state: State, command: Command, secret: bytes | None) -> Decision[State]:
    decider = COMMANDS.get(command.type)
    if decider is None:
        seat = actor_seat(command.actor)
        legal = [] if seat is None else views.legal_actions(state, seat, secret)
        raise unknown_command("Toto21", command.type, COMMANDS, legal)
    return decider(state, command, secret)
