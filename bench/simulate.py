"""Random legal play through the real rules, for the benchmarks and the tests (not shipped:
the ``fairdeal`` package holds no test-only code).

Pure like the core it drives: the caller passes the random generator, the seeds and the
time. Seats pick uniformly among their legal actions (never leaving the table).
"""

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from fairdeal import randomness
from fairdeal.errors import GameError
from fairdeal.events import SignedEvent, seat_actor
from fairdeal.frozen import evolve
from fairdeal.games.base import AnyGame, Command
from fairdeal.keys import Signer
from fairdeal.protocol import ROUND_REVEALED, SERVER
from fairdeal.table import Table, create, execute

MAX_STEPS_PER_ROUND = 1000
_NEVER = frozenset({"seat_left", "seat_joined"})


class NoProgressError(RuntimeError):
    """A round that did not end within the step bound: a rules bug, never a bad bot."""


def set_up(
    game: AnyGame,
    table_id: str,
    options: Mapping[str, Any],
    commands: Sequence[tuple[str, str, Mapping[str, Any]]],
    *,
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


@dataclass
class Played:
    """A round played: the table after it, its signed events, and the commands sent."""

    table: Table[Any]
    log: list[SignedEvent] = field(default_factory=list)
    commands: list[Command] = field(default_factory=list)

    revealed: bool = False

    def run(self, command: Command, secret: bytes, signer: Signer) -> None:
        self.table, signed = execute(self.table, command, secret, signer)
        self.log += signed
        self.commands.append(command)
        # Events may follow the reveal in the same run (Toto21's match_won).
        self.revealed = self.revealed or any(s.event.type == ROUND_REVEALED for s in signed)


def play_round(
    table: Table[Any],
    round_id: str,
    *,
    server_seed: bytes,
    seats: Sequence[int],
    rng: random.Random,
    signer: Signer,
    now: int,
) -> Played:
    """Open a round, let the seats play at random, and return when it is revealed."""
    commitment = randomness.seed_commitment(server_seed).hex()
    played = Played(table)
    opening = Command("round_opened", SERVER, now, {"commitment": commitment}, round_id)
    played.run(opening, server_seed, signer)
    for _ in range(MAX_STEPS_PER_ROUND):
        if played.revealed:
            return played
        command = random_command(
            played.table, seats, secret=server_seed, rng=rng, now=now, round_id=round_id
        )
        if command is None:
            raise NoProgressError(f"round {round_id}: nobody may act and it has not ended")
        try:
            played.run(command, server_seed, signer)
        except GameError:
            if command.type != "bet":
                raise
            # A bet the bank or the balance cannot cover is retried as the smallest bet.
            played.run(evolve(command, data={"amount": 1}), server_seed, signer)
    raise NoProgressError(f"round {round_id} did not end in {MAX_STEPS_PER_ROUND} steps")


def random_command(
    table: Table[Any],
    seats: Sequence[int],
    *,
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
    return Command(kind, seat_actor(seat), now, data_for(kind, rng), round_id)


def data_for(kind: str, rng: random.Random) -> dict[str, Any]:
    if kind == "client_seed":
        return {"seed": f"bot-{rng.getrandbits(64):016x}"}
    if kind == "bet":
        return {"amount": rng.randint(1, 5)}
    return {}
