"""``decide``: the drafts a command causes, the command itself first.

Consequence-only event types are refused as commands, so a forged log cannot
inject a deal, a win or a settlement.
"""

from collections.abc import Callable

from fairdeal.errors import IllegalActionError
from fairdeal.events import actor_seat
from fairdeal.games.base import Command, Decision, unknown_command
from fairdeal.games.kvitlach import play, rounds, seating, views
from fairdeal.games.kvitlach.apply import apply_at
from fairdeal.games.kvitlach.run import Run
from fairdeal.games.kvitlach.state import State
from fairdeal.protocol import (
    CARD_DEALT,
    CLIENT_SEED,
    ROUND_OPENED,
    ROUND_REVEALED,
    ROUND_SEALED,
    ROUND_VOIDED,
    SEAT_JOINED,
    SEAT_LEFT,
    SEED_COMMITMENT,
    SEED_TIMEOUT,
    SEEDS_COMMITTED,
    TABLE_CREATED,
)

CONSEQUENCES = frozenset(
    {
        TABLE_CREATED, "bank_funded", ROUND_SEALED, CARD_DEALT, "card_burned",
        "cards_shown", "hand_won", "hand_lost", "hand_closed", "round_settled",
        "term_ended", ROUND_REVEALED, ROUND_VOIDED, SEEDS_COMMITTED,
    }
)  # fmt: skip

_Handler = Callable[[Run, Command, bytes | None], None]


def _table(handler: Callable[[Run, Command], None]) -> _Handler:
    return lambda run, command, secret: handler(run, command)


_COMMANDS: dict[str, _Handler] = {
    SEAT_JOINED: _table(seating.seat_joined),
    SEAT_LEFT: _table(seating.seat_left),
    "banker_exit": _table(seating.banker_exit),
    ROUND_OPENED: rounds.round_opened,
    SEED_COMMITMENT: rounds.seeding,
    CLIENT_SEED: rounds.seeding,
    SEED_TIMEOUT: rounds.seeding,
    "move_timeout": play.move_timeout,
    **{kind: play.player_move for kind in play.PLAYER_MOVES},
    **{kind: play.banker_move for kind in play.BANKER_MOVES},
}
_ROUND_COMMANDS = frozenset(_COMMANDS) - {SEAT_JOINED, SEAT_LEFT, "banker_exit", ROUND_OPENED}


def decide(state: State, command: Command, secret: bytes | None) -> Decision[State]:
    if command.type in CONSEQUENCES:
        raise IllegalActionError(f"{command.type} is the rules' consequence, never a command")
    handler = _COMMANDS.get(command.type)
    if handler is None:
        seat = actor_seat(command.actor)
        legal = [] if seat is None else views.legal_actions(state, seat, secret)
        raise unknown_command("Kvitlach", command.type, _COMMANDS, legal)
    if command.type in _ROUND_COMMANDS and (
        state.round is None or command.round != state.round.round_id
    ):
        raise IllegalActionError(f"{command.type} must name the round in progress")
    run = Run(state, command.time, apply_at)
    handler(run, command, secret)
    return run.decision()
