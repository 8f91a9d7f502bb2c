"""Toto21's game clock and the reveals (SPEC 6.4, 11.6): the reveals end by the game's end
at the latest, so a seat that withholds its reveal near the end voids the round under its
own name, and the game's end cannot void it unnamed once a seed has been shown."""

from typing import Any

from fairdeal import randomness, table
from fairdeal.events import Event
from fairdeal.games import toto21
from fairdeal.protocol import SERVER
from fairdeal.statements import SIGNED
from tests.games import toto21_helpers
from tests.games.driving import T0

GAME_TIME = 60_000
SEED_TIME = 30_000


def _match() -> toto21_helpers.Driver:
    options: dict[str, Any] = {"target": 4, "game_time_ms": GAME_TIME, "seed_time_ms": SEED_TIME}
    created, signed = table.create(
        toto21.GAME, "t", options, T0, toto21_helpers.SIGNER, version=SIGNED
    )
    match = toto21_helpers.Driver(created, [signed], toto21_helpers.SIGNER)
    match.seat(0, "seat_joined", {"key": None})
    match.seat(1, "seat_joined", {"key": None})
    match.seat(0, "joiner_accepted")  # the game clock starts here
    return match


def _commit(match: toto21_helpers.Driver, seat: int, seed: str, at: int) -> list[Event]:
    assert match.round_id is not None
    opening = randomness.client_seed_commitment(match.round_id, seat, seed).hex()
    return match.do("seed_commitment", f"seat:{seat}", {"commitment": opening}, match.round_id, at)


def _due(match: toto21_helpers.Driver) -> list[Event]:
    command = toto21.GAME.due(match.state, 2**52)
    assert command is not None
    at = command.data["deadline"]
    return match.do(command.type, SERVER, dict(command.data), command.round, at)


def test_a_reveal_withheld_at_the_games_end_voids_the_round_naming_the_seat() -> None:
    match = _match()
    end = match.state.game_deadline
    assert end is not None
    match.open_round(at=end - 25_000)
    _commit(match, 0, "zero", end - 20_000)
    opened = _commit(match, 1, "one", end - 15_000)
    assert opened[-1].data == {"deadline": end}  # not 15 s later: the game ends first
    match.do("client_seed", "seat:0", {"seed": "zero"}, match.round_id, end - 10_000)
    voided = _due(match)  # seat 1 saw seat 0's seed and withheld its own
    assert [e.type for e in voided] == ["seed_timeout", "round_voided", "round_revealed"]
    assert voided[1].data == {"reason": "seed_withheld", "seats": [1]}
    ended = _due(match)  # then the game's end, with no round left to void
    assert ended[0].type == "game_time_up" and "round_voided" not in [e.type for e in ended]


def test_reveals_far_from_the_games_end_keep_the_whole_seed_time() -> None:
    match = _match()
    match.open_round(at=T0 + 1_000)
    _commit(match, 0, "zero", T0 + 2_000)
    opened = _commit(match, 1, "one", T0 + 3_000)
    assert opened[-1].data == {"deadline": T0 + 3_000 + SEED_TIME}
