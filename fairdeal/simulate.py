"""Random legal play through the real rules, for benchmarks, the demo and property tests.

Pure like the rest of the core: the caller passes the random generator, the seeds
and the time. Seats pick uniformly among their legal actions (never leaving the table).
"""

import random
from collections.abc import Mapping, Sequence
from typing import Any

from fairdeal import randomness
from fairdeal.errors import GameError
from fairdeal.events import SERVER, SignedEvent, seat_actor
from fairdeal.games.base import Command, Game
from fairdeal.keys import Signer
from fairdeal.table import ROUND_REVEALED, Table, create, execute

MAX_STEPS_PER_ROUND = 1000
_NEVER = frozenset({"seat_left", "seat_joined"})


class NoProgressError(RuntimeError):
    """A round that did not end within the step bound: a rules bug, never a bad bot."""


def set_up(
    game: Game,
    table_id: str,
    options: Mapping[str, Any],
    commands: Sequence[tuple[str, str, Mapping[str, Any]]],
    signer: Signer,
    now: int,
) -> tuple[Table, list[SignedEvent]]:
    """Create a table and run its seating commands, (type, actor, data) each."""
    table, created = create(game, table_id, options, now, signer)
    log = [created]
    for kind, actor, data in commands:
        table, signed = execute(table, Command(kind, actor, now, data), None, signer)
        log += signed
    return table, log


def play_round(
    table: Table,
    round_id: str,
    server_seed: bytes,
    seats: Sequence[int],
    rng: random.Random,
    signer: Signer,
    now: int,
) -> tuple[Table, list[SignedEvent]]:
    """Open a round, let the seats play at random, and return when it is revealed."""
    commitment = randomness.seed_commitment(server_seed).hex()
    opening = Command("round_opened", SERVER, now, {"commitment": commitment}, round_id)
    table, log = execute(table, opening, server_seed, signer)
    for _ in range(MAX_STEPS_PER_ROUND):
        if log[-1].event.type == ROUND_REVEALED:
            return table, log
        command = random_command(table, seats, server_seed, rng, now, round_id)
        if command is None:
            raise NoProgressError(f"round {round_id}: nobody may act and it has not ended")
        table, signed = _execute_or_fall_back(table, command, server_seed, signer)
        log += signed
    raise NoProgressError(f"round {round_id} did not end in {MAX_STEPS_PER_ROUND} steps")


def random_command(
    table: Table,
    seats: Sequence[int],
    secret: bytes,
    rng: random.Random,
    now: int,
    round_id: str,
) -> Command | None:
    game, state = table.game, table.state
    choices = [
        (seat, kind)
        for seat in seats
        for kind in game.legal_actions(state, seat, secret)
        if kind not in _NEVER
    ]
    if not choices:
        return None
    seat, kind = rng.choice(choices)
    return Command(kind, seat_actor(seat), now, _data_for(kind, rng), round_id)


def _data_for(kind: str, rng: random.Random) -> dict[str, Any]:
    if kind == "client_seed":
        return {"seed": f"bot-{rng.getrandbits(64):016x}"}
    if kind == "bet":
        return {"amount": rng.randint(1, 5)}
    return {}


def _execute_or_fall_back(
    table: Table, command: Command, secret: bytes, signer: Signer
) -> tuple[Table, list[SignedEvent]]:
    """A bet the bank or the balance cannot cover is retried as the smallest bet."""
    try:
        return execute(table, command, secret, signer)
    except GameError:
        if command.type != "bet":
            raise
        smallest = Command(command.type, command.actor, command.time, {"amount": 1}, command.round)
        return execute(table, smallest, secret, signer)
