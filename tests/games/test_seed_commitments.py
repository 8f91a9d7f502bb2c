"""Seeds in version 2 (SPEC 6.4): commitments before any seed is shown, reveals that must
open them, and a withheld reveal that voids the round under the withholding seat's name.
Keyless seats here, so that the seed rules are tested apart from signatures."""

from typing import Any

import pytest

from fairdeal import randomness, table
from fairdeal.errors import CommitmentError, IllegalActionError, OutOfTurnError
from fairdeal.events import Event
from fairdeal.games import kvitlach, toto21
from fairdeal.protocol import SERVER
from fairdeal.statements import SIGNED
from tests.games import toto21_helpers
from tests.games.driving import T0
from tests.replay import replay


class Match(toto21_helpers.Driver):
    def commit(self, seat: int, seed: str) -> list[Event]:
        assert self.round_id is not None
        opening = randomness.client_seed_commitment(self.round_id, seat, seed).hex()
        return self.seat(seat, "seed_commitment", {"commitment": opening})

    def reveal(self, seat: int, seed: str) -> list[Event]:
        return self.seat(seat, "client_seed", {"seed": seed})

    def time_out(self) -> list[Event]:
        due = self.table.game.due(self.table.state, 2**52)
        assert due is not None
        return self.do(due.type, SERVER, dict(due.data), due.round, due.data["deadline"])

    def types(self, events: list[Event]) -> list[str]:
        return [event.type for event in events]

    def verified(self) -> Any:
        return replay({toto21.GAME.name: toto21.GAME}, self.events())


def started_v2(version: int = SIGNED) -> Match:
    created, signed = table.create(
        toto21.GAME, "t2", {"target": 4}, T0, toto21_helpers.SIGNER, version=version
    )
    match = Match(created, [signed], toto21_helpers.SIGNER)
    match.seat(0, "seat_joined", {"key": None} if version >= SIGNED else {})
    match.seat(1, "seat_joined", {"key": None} if version >= SIGNED else {})
    match.seat(0, "joiner_accepted")
    match.open_round()
    return match


def test_legal_actions_say_commit_first_then_reveal_what_was_committed() -> None:
    match = started_v2()
    legal = lambda seat: toto21.GAME.legal_actions(match.state, seat, None)  # noqa: E731
    assert legal(0) == legal(1) == ["seed_commitment", "client_seed"]
    match.commit(0, "zero")
    assert (legal(0), legal(1)) == ([], ["seed_commitment", "client_seed"])
    match.commit(1, "one")  # the reveals open
    assert legal(0) == legal(1) == ["client_seed"]
    match.reveal(1, "one")
    assert (legal(0), legal(1)) == (["client_seed"], [])


def test_the_last_commitment_opens_the_reveals_and_the_last_reveal_seals() -> None:
    match = started_v2()
    assert match.types(match.commit(0, "zero")) == ["seed_commitment"]
    opened = match.commit(1, "one")
    assert match.types(opened) == ["seed_commitment", "seeds_committed"]
    seed_time = match.state.options.seed_time_ms
    assert opened[1].data == {"deadline": opened[1].time + seed_time}
    assert match.state.round is not None and match.state.round.revealing
    assert match.types(match.reveal(1, "one")) == ["client_seed"]
    sealed = match.reveal(0, "zero")
    assert match.types(sealed)[:2] == ["client_seed", "round_sealed"]
    assert sealed[1].data == {"client_seeds": ["zero", "one"]}  # in seat order


def test_a_seed_sent_straight_away_needs_no_reveal_and_all_such_seal_at_once() -> None:
    match = started_v2()
    match.reveal(0, "zero")
    sealed = match.reveal(1, "one")
    assert "seeds_committed" not in match.types(sealed)
    assert match.types(sealed)[:2] == ["client_seed", "round_sealed"]


def test_one_early_seed_and_one_commitment_open_the_reveals_for_the_committed_seat() -> None:
    match = started_v2()
    match.reveal(0, "zero")
    assert match.types(match.commit(1, "one")) == ["seed_commitment", "seeds_committed"]
    assert match.types(match.reveal(1, "one"))[:2] == ["client_seed", "round_sealed"]


@pytest.mark.parametrize(
    ("steps", "error"),
    [
        ([("commit", 0, "a"), ("reveal", 0, "a")], IllegalActionError),  # before the reveals
        ([("commit", 0, "a"), ("commit", 0, "b")], IllegalActionError),  # twice
        ([("reveal", 0, "a"), ("commit", 0, "a")], IllegalActionError),  # after its seed
        ([("commit", 0, "a"), ("commit", 1, "b"), ("reveal", 0, "b")], CommitmentError),
        ([("reveal", 0, "a"), ("commit", 1, "b"), ("commit", 0, "c")], IllegalActionError),
        ([("reveal", 0, "a"), ("commit", 1, "b"), ("reveal", 0, "c")], IllegalActionError),
    ],
    ids=[
        "reveal before every seat committed",
        "second commitment",
        "commitment after a seed",
        "a reveal that does not open the commitment",
        "commitment once the reveals are open",
        "a seed from a seat that did not commit, during the reveals",
    ],
)
def test_the_seed_rules_refuse(steps: list[tuple[str, int, str]], error: type[Exception]) -> None:
    match = started_v2()
    *before, (last_step, seat, seed) = steps
    for step, each, value in before:
        getattr(match, step)(each, value)
    with pytest.raises(error):
        getattr(match, last_step)(seat, seed)


def test_a_commitment_opens_for_its_round_and_seat_only() -> None:
    match = started_v2()
    assert match.round_id is not None
    other_seat = randomness.client_seed_commitment(match.round_id, 1, "zero").hex()
    match.seat(0, "seed_commitment", {"commitment": other_seat})
    match.commit(1, "one")
    with pytest.raises(CommitmentError):
        match.reveal(0, "zero")


def test_a_malformed_commitment_and_a_seat_outside_the_round_are_refused() -> None:
    match = started_v2()
    with pytest.raises(IllegalActionError):
        match.seat(0, "seed_commitment", {"commitment": "AB" * 32})
    with pytest.raises(IllegalActionError):
        match.seat(0, "seed_commitment", {"commitment": "ab" * 32, "seed": "x"})
    with pytest.raises(OutOfTurnError):
        match.seat(5, "seed_commitment", {"commitment": "ab" * 32})


def test_a_seat_that_does_not_commit_in_time_is_out_and_the_other_reveals() -> None:
    match = started_v2()
    match.commit(0, "zero")
    timed_out = match.time_out()
    assert match.types(timed_out) == ["seed_timeout", "seeds_committed"]
    assert timed_out[0].data["seats"] == [1]
    sealed = match.reveal(0, "zero")
    assert sealed[1].data == {"client_seeds": ["zero", ""]}
    with pytest.raises(IllegalActionError):  # too late for the seat that timed out
        match.reveal(1, "one")


def test_nobody_committing_in_time_seals_with_empty_seeds_as_in_version_1() -> None:
    match = started_v2()
    timed_out = match.time_out()
    assert match.types(timed_out)[:2] == ["seed_timeout", "round_sealed"]
    assert timed_out[1].data == {"client_seeds": ["", ""]}


def test_a_withheld_reveal_voids_the_round_naming_exactly_the_withholding_seats() -> None:
    match = started_v2()
    balances = dict(match.state.balances)
    match.commit(0, "zero")
    match.commit(1, "one")
    match.reveal(0, "zero")
    ended = match.time_out()
    assert match.types(ended) == ["seed_timeout", "round_voided", "round_revealed"]
    assert ended[0].data["seats"] == [1]
    assert ended[1].data == {"reason": "seed_withheld", "seats": [1]}
    assert dict(match.state.balances) == balances  # no money moves
    assert not match.state.in_round()
    match.open_round()  # the match goes on
    assert match.verified().state == match.state


def test_both_withholding_are_both_named() -> None:
    match = started_v2()
    match.commit(0, "zero")
    match.commit(1, "one")
    ended = match.time_out()
    assert ended[1].data == {"reason": "seed_withheld", "seats": [0, 1]}


def test_a_version_1_table_takes_no_commitment() -> None:
    match = started_v2(version=1)
    with pytest.raises(IllegalActionError, match="version-1"):
        match.commit(0, "zero")


def test_a_kvitlach_round_voided_for_a_withheld_seed_moves_no_money_and_keeps_the_term() -> None:
    created, signed = table.create(
        kvitlach.GAME, "kv", {}, T0, toto21_helpers.SIGNER, version=SIGNED
    )
    driver = Match(created, [signed], toto21_helpers.SIGNER)
    for seat in (0, 1):
        driver.seat(seat, "seat_joined", {"buy_in": 500, "key": None})
    driver.open_round()
    state = driver.table.state
    balances, term = dict(state.balances), state.term
    driver.commit(0, "zero")
    driver.commit(1, "one")
    ended = driver.time_out()
    assert [e.type for e in ended] == ["seed_timeout", "round_voided", "round_revealed"]
    after = driver.table.state
    assert dict(after.balances) == balances and after.term == term
    assert replay({kvitlach.GAME.name: kvitlach.GAME}, driver.events()).state == after
