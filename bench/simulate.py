"""Random legal play through the real rules, for the benchmarks and the tests (not shipped:
the ``fairdeal`` package holds no test-only code).

Pure like the core it drives: the caller passes the random generator, the seeds and the
time. Seats pick uniformly among their legal actions (never leaving the table). Given seat
keys, the table is a version-2 one (SPEC 6.7): those seats bind their keys, sign every
command, and commit to their seeds before revealing them.
"""

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from fairdeal import randomness, statements
from fairdeal.errors import GameError
from fairdeal.events import SignedEvent, actor_seat, seat_actor
from fairdeal.frozen import evolve
from fairdeal.games.base import AnyGame, Command
from fairdeal.keys import Signer
from fairdeal.protocol import CLIENT_SEED, ROUND_REVEALED, SEAT_JOINED, SEED_COMMITMENT, SERVER
from fairdeal.statements import SIGNED
from fairdeal.table import Table, create, execute

SeatKeys = Mapping[int, Ed25519PrivateKey]

MAX_STEPS_PER_ROUND = 1000
# Bots stay seated, and send seeds as client_seed (Played commits a keyed seat's first).
BOTS_NEVER_SEND = frozenset({"seat_left", "seat_joined", "seed_commitment"})


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
    keys: SeatKeys | None = None,
) -> tuple[Table, list[SignedEvent]]:
    """Create a table and run its seating commands, (type, actor, data) each; with seat
    ``keys``, a version-2 table whose seats bind them."""
    version = SIGNED if keys is not None else 1
    table, created = create(game, table_id, options, now, signer, version=version)
    log = [created]
    for kind, actor, data in commands:
        command = signed_by(table, Command(kind, actor, now, data), keys or {})
        table, signed = execute(table, command, None, signer)
        log += signed
    return table, log


def signed_by(table: Table[Any], command: Command, keys: SeatKeys) -> Command:
    """``command`` as its seat sends it: a join with the seat's public key, anything else
    signed under it with the next statement number (none for a seat without a key)."""
    seat = actor_seat(command.actor)
    key = keys.get(seat) if seat is not None else None
    if key is None or seat is None:
        return command
    if command.type == SEAT_JOINED:
        return evolve(command, data={**command.data, "key": statements.public_key_hex(key)})
    n = table.seats[seat].n + 1 if seat in table.seats else 1
    after = {"seq": table.head.next_seq - 1, "hash": table.head.prev}  # the head it sees
    data = statements.signed_data(
        key, table.head.table, command.round, seat, n=n, after=after, kind=command.type,
        data=command.data,
    )  # fmt: skip
    return evolve(command, data=data)


@dataclass
class Played:
    """A round played: the table after it, its signed events, and the commands sent."""

    table: Table[Any]
    log: list[SignedEvent] = field(default_factory=list)
    commands: list[Command] = field(default_factory=list)
    keys: SeatKeys = field(default_factory=dict)
    seeds: dict[int, str] = field(default_factory=dict)  # committed, to reveal

    revealed: bool = False

    def run(self, command: Command, secret: bytes, signer: Signer) -> None:
        command = signed_by(self.table, self._committing(command), self.keys)
        self.table, signed = execute(self.table, command, secret, signer)
        self.log += signed
        self.commands.append(command)
        # Events may follow the reveal in the same run (Toto21's match_won).
        self.revealed = self.revealed or any(s.event.type == ROUND_REVEALED for s in signed)

    def _committing(self, command: Command) -> Command:
        """A keyed seat's seed: committed first, the same seed revealed when asked again."""
        seat = actor_seat(command.actor)
        if command.type != CLIENT_SEED or seat not in self.keys:
            return command
        if seat in self.seeds:
            return evolve(command, data={"seed": self.seeds[seat]})
        self.seeds[seat] = seed = command.data["seed"]
        assert command.round is not None
        opening = randomness.client_seed_commitment(command.round, seat, seed).hex()
        return evolve(command, type=SEED_COMMITMENT, data={"commitment": opening})


def play_round(
    table: Table[Any],
    round_id: str,
    *,
    server_seed: bytes,
    seats: Sequence[int],
    rng: random.Random,
    signer: Signer,
    now: int,
    keys: SeatKeys | None = None,
) -> Played:
    """Open a round, let the seats play at random, and return when it is revealed; the
    seats with ``keys`` sign their commands and commit to their seeds first."""
    commitment = randomness.seed_commitment(server_seed).hex()
    played = Played(table, keys=keys or {})
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
        if kind not in BOTS_NEVER_SEND
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
