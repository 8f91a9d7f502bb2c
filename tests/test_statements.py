"""Seat keys and signed statements (SPEC 6.7), as the engine checks them in ``execute`` and
again in replay: each refusal has its own error and code."""

from collections.abc import Callable
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from fairdeal import randomness, statements, table
from fairdeal.canonical import canonical_bytes
from fairdeal.errors import (
    EventSchemaError,
    IllegalActionError,
    SeatSignatureError,
    SignatureMissingError,
    SignatureReplayedError,
    SignatureStaleError,
    SignatureUnexpectedError,
)
from fairdeal.games.base import Command
from fairdeal.games.kvitlach import GAME as KVITLACH
from fairdeal.games.toto21 import GAME
from fairdeal.statements import SIGNED, SeatKey
from tests.games.driving import T0, fixed_signer
from tests.replay import replay

SIGNER = fixed_signer(9)
ALICE = Ed25519PrivateKey.from_private_bytes(bytes(range(1, 33)))
BOB = Ed25519PrivateKey.from_private_bytes(bytes(range(2, 34)))
MALLORY = Ed25519PrivateKey.from_private_bytes(bytes(range(3, 35)))


def test_the_statement_is_the_tag_then_the_canonical_object() -> None:
    after = {"seq": 4, "hash": "ab" * 32}
    data = {"b": 1, "a": "x"}
    message = statements.statement("t", "t.1", 1, n=7, after=after, kind="hit", data=data)
    body = {"after": after, "data": {"a": "x", "b": 1}, "n": 7, "round": "t.1", "seat": 1}
    expected = b"fairdeal/v2/seat-statement\x00" + canonical_bytes(
        {**body, "table": "t", "type": "hit"}
    )
    assert message == expected
    assert message.startswith(b'fairdeal/v2/seat-statement\x00{"after":{"hash":"abab')


class Seated:
    """A version-2 Toto21 match: seat 0 with ALICE's key, seat 1 with ``key_1``."""

    def __init__(self, key_1: Ed25519PrivateKey | None = BOB) -> None:
        self.table, created = table.create(GAME, "ts", {"target": 4}, T0, SIGNER, version=SIGNED)
        self.log = [created]
        self.keys = {0: ALICE, 1: key_1}
        for seat in (0, 1):
            key = self.keys[seat]
            self.send(seat, "seat_joined", {"key": statements.public_key_hex(key) if key else None})

    def send(self, seat: int, kind: str, data: dict[str, Any], round_id: str | None = None) -> None:
        command = Command(kind, f"seat:{seat}", T0 + len(self.log), data, round_id)
        self.table, signed = table.execute(self.table, command, None, SIGNER)
        self.log += signed

    @property
    def head(self) -> dict[str, Any]:
        """The last event of the chain, as a seat looking at it names it."""
        return self.at(-1)

    def at(self, index: int) -> dict[str, Any]:
        event = self.log[index]
        return {"seq": event.event.seq, "hash": event.hash.hex()}

    def signed(
        self,
        seat: int,
        kind: str,
        data: dict[str, Any],
        *,
        n: int,
        by: Any = None,
        after: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        key, after = by or self.keys[seat], after or self.head
        return statements.signed_data(key, "ts", None, seat, n=n, after=after, kind=kind, data=data)


def test_seating_binds_each_seats_key_and_a_signed_accept_is_logged_with_what_was_signed() -> None:
    match = Seated()
    assert match.table.seats[0] == SeatKey(statements.public_key_hex(ALICE), 0)
    joined = [e.event for e in match.log if e.event.type == "seat_joined"]
    assert [e.data["key"] for e in joined] == [statements.public_key_hex(k) for k in (ALICE, BOB)]
    head = match.head
    match.send(0, "joiner_accepted", match.signed(0, "joiner_accepted", {}, n=1))
    accepted = next(e.event for e in match.log if e.event.type == "joiner_accepted")
    assert set(accepted.data["signed"]) == {"n", "after", "data", "signature"}
    assert accepted.data["signed"]["n"] == 1 and accepted.data["signed"]["data"] == {}
    assert accepted.data["signed"]["after"] == head  # the event before the table_state
    assert match.log[accepted.seq - 1].event.type == "table_state"
    assert match.table.seats[0].n == 1
    again = replay({GAME.name: GAME}, [e.event for e in match.log])
    assert again.seats == match.table.seats and again.state == match.table.state


Head = dict[str, Any]
ZERO = "00" * 64
MALFORMED: dict[str, Callable[[Head], dict[str, Any]]] = {
    "no signed member": lambda head: {},
    "no signature member": lambda head: {"signed": {"n": 1, "after": head}},
    "no after member": lambda head: {"signed": {"n": 1, "signature": ZERO}},
    "n 0": lambda head: {"signed": {"n": 0, "after": head, "signature": ZERO}},
    "n true": lambda head: {"signed": {"n": True, "after": head, "signature": ZERO}},
    "not its signature": lambda head: {"signed": {"n": 1, "after": head, "signature": ZERO}},
    "after a list": lambda head: {"signed": {"n": 1, "after": [1, "ab"], "signature": ZERO}},
    "after without hash": lambda head: {
        "signed": {"n": 1, "after": {"seq": head["seq"]}, "signature": ZERO}
    },
    "after's seq text": lambda head: {
        "signed": {"n": 1, "after": {**head, "seq": str(head["seq"])}, "signature": ZERO}
    },
    "after's hash uppercase": lambda head: {
        "signed": {"n": 1, "after": {**head, "hash": head["hash"].upper()}, "signature": ZERO}
    },
    "text": lambda head: {"signed": "yes"},
}


@pytest.mark.parametrize("name", list(MALFORMED))
def test_a_keyed_seats_command_without_a_valid_signature_is_refused(name: str) -> None:
    match = Seated()
    with pytest.raises(SeatSignatureError) as caught:
        match.send(0, "joiner_accepted", MALFORMED[name](match.head))
    missing = name == "no signed member"
    assert isinstance(caught.value, SignatureMissingError) == missing
    assert caught.value.code == ("signature_missing" if missing else "signature_invalid")
    assert match.table.seats[0].n == 0  # nothing changed


def test_a_statement_signed_by_another_key_or_for_another_table_seat_or_type_is_refused() -> None:
    match = Seated()
    head = match.head

    def accept(table_id: str, round_id: str | None, seat: int) -> dict[str, Any]:
        return statements.signed_data(
            ALICE, table_id, round_id, seat, n=1, after=head, kind="joiner_accepted", data={}
        )

    forged = [
        match.signed(0, "joiner_accepted", {}, n=1, by=MALLORY),
        accept("other", None, 0),
        accept("ts", None, 1),
        accept("ts", "ts.1", 0),
        match.signed(0, "joiner_rejected", {}, n=1),
    ]
    for data in forged:
        with pytest.raises(SeatSignatureError) as caught:
            match.send(0, "joiner_accepted", data)
        assert caught.value.code == "signature_invalid"


def test_a_statement_number_used_before_is_refused_as_replayed() -> None:
    match = Seated()
    match.send(0, "joiner_accepted", match.signed(0, "joiner_accepted", {}, n=5))  # a gap is fine
    for n in (5, 4):
        with pytest.raises(SignatureReplayedError) as caught:
            match.send(0, "joiner_accepted", match.signed(0, "joiner_accepted", {}, n=n))
        assert caught.value.code == "signature_replayed"
    with pytest.raises(IllegalActionError) as refused:  # each seat its own n: the rules refuse
        match.send(1, "joiner_rejected", match.signed(1, "joiner_rejected", {}, n=1))
    assert not isinstance(refused.value, SeatSignatureError)


def test_a_keyless_seat_plays_unsigned_and_refuses_a_signature() -> None:
    match = Seated(key_1=None)
    assert match.table.seats[1] == SeatKey(None, 0)
    with pytest.raises(SignatureUnexpectedError):
        match.send(1, "seat_left", match.signed(1, "seat_left", {}, n=1, by=BOB))


@pytest.mark.parametrize("key", ["AB" * 32, "ab" * 31, "ab" * 33, 7, ""])
def test_a_seat_key_that_is_no_ed25519_public_key_is_refused_at_seating(key: Any) -> None:
    created, _ = table.create(GAME, "ts", {"target": 4}, T0, SIGNER, version=SIGNED)
    command = Command("seat_joined", "seat:0", T0, {"key": key})
    with pytest.raises(IllegalActionError):
        table.execute(created, command, None, SIGNER)


def test_a_version_1_table_takes_no_key() -> None:
    created, _ = table.create(GAME, "ts", {"target": 4}, T0, SIGNER)
    command = Command("seat_joined", "seat:0", T0, {"key": statements.public_key_hex(ALICE)})
    with pytest.raises(IllegalActionError):
        table.execute(created, command, None, SIGNER)


def test_seat_keys_round_trip_and_anything_else_is_refused() -> None:
    keys = {3: SeatKey("ab" * 32, 4), 1: SeatKey(None, 0)}
    logged = statements.to_json(keys)
    assert logged == [{"seat": 1, "key": None, "n": 0}, {"seat": 3, "key": "ab" * 32, "n": 4}]
    assert dict(statements.from_json(logged)) == keys
    for bad in [
        "x",
        [logged[1], logged[0]],
        [logged[0], logged[0]],
        [{**logged[0], "n": -1}],
        [{**logged[0], "key": "AB" * 32}],
        [{**logged[0], "extra": 1}],
    ]:
        with pytest.raises(EventSchemaError):
            statements.from_json(bad)


# -- after: the statement holds in the one log the seat saw (SPEC 6.7) ----------------------


def test_a_command_at_rest_names_the_event_before_its_table_state() -> None:
    """The engine logs a table_state before the command: the statement names the head
    the seat saw, the event just before that table_state; an older one is stale, and the
    refused command uses no n."""
    match = Seated()
    before, head = len(match.log), match.head
    stale = match.signed(0, "joiner_accepted", {}, n=1, after=match.at(-2))
    with pytest.raises(SignatureStaleError) as caught:
        match.send(0, "joiner_accepted", stale)
    assert caught.value.code == "signature_stale"
    assert len(match.log) == before and match.table.seats[0].n == 0  # nothing logged
    match.send(0, "joiner_accepted", match.signed(0, "joiner_accepted", {}, n=1, after=head))
    assert match.log[before].event.type == "table_state"
    assert match.log[before + 1].event.data["signed"]["after"] == head


def test_a_statement_after_an_event_not_yet_logged_is_stale() -> None:
    match = Seated()
    beyond = {"seq": match.head["seq"] + 2, "hash": match.head["hash"]}  # the table_state's next
    with pytest.raises(SignatureStaleError):
        match.send(0, "joiner_accepted", match.signed(0, "joiner_accepted", {}, n=1, after=beyond))


def test_a_statement_after_an_event_of_another_log_is_invalid() -> None:
    """The right seq with another hash: the seat saw another chain (a fork)."""
    match = Seated()
    fork = {**match.head, "hash": "ab" * 32}
    with pytest.raises(SeatSignatureError) as caught:
        match.send(0, "joiner_accepted", match.signed(0, "joiner_accepted", {}, n=1, after=fork))
    assert caught.value.code == "signature_invalid"


def test_n_is_checked_before_after_and_after_before_the_signature() -> None:
    """SPEC 6.7's order: a replayed n is signature_replayed whatever it names; a stale
    after is signature_stale whatever the signature."""
    match = Seated()
    match.send(0, "joiner_accepted", match.signed(0, "joiner_accepted", {}, n=3))
    stale = match.at(0)
    with pytest.raises(SignatureReplayedError):
        match.send(0, "joiner_accepted", match.signed(0, "joiner_accepted", {}, n=3, after=stale))
    forged = match.signed(0, "joiner_accepted", {}, n=4, after=stale, by=MALLORY)
    with pytest.raises(SignatureStaleError):
        match.send(0, "joiner_accepted", forged)


def _round_with_reveals(match: Seated) -> str:
    """Open a round and have both seats commit: the reveals are open."""
    secret = bytes(32)
    opening = {"commitment": randomness.seed_commitment(secret).hex()}
    match.table, signed = table.execute(
        match.table, Command("round_opened", "server", T0 + 99, opening, "ts.1"), None, SIGNER
    )
    match.log += signed
    for seat, key in ((0, ALICE), (1, BOB)):
        digest = randomness.client_seed_commitment("ts.1", seat, f"seed {seat}").hex()
        data = statements.signed_data(
            key, "ts", "ts.1", seat, n=10, after=match.head, kind="seed_commitment",
            data={"commitment": digest},
        )  # fmt: skip
        match.send(seat, "seed_commitment", data, "ts.1")
    assert match.log[-1].event.type == "seeds_committed"
    return "ts.1"


def test_a_reveal_names_the_seeds_committed_or_a_later_event() -> None:
    """A reveal made after an event before the reveals opened is stale: it was made
    against a view in which they were not open (a fork, or a plain seed relogged)."""
    match = Seated()
    match.send(0, "joiner_accepted", match.signed(0, "joiner_accepted", {}, n=1))
    round_id = _round_with_reveals(match)
    opened = len(match.log) - 1

    def reveal(after: dict[str, Any]) -> dict[str, Any]:
        return statements.signed_data(
            ALICE, "ts", round_id, 0, n=11, after=after, kind="client_seed",
            data={"seed": "seed 0"},
        )  # fmt: skip

    for before in (opened - 1, opened - 2):  # the commitments' events
        with pytest.raises(SignatureStaleError):
            match.send(0, "client_seed", reveal(match.at(before)), round_id)
    match.send(0, "client_seed", reveal(match.at(opened)), round_id)
    assert match.log[-1].event.data["signed"]["after"] == match.at(opened)


def test_an_old_seat_left_cannot_be_replayed_after_the_same_key_rejoins() -> None:
    """Kvitlach: seat 1 leaves, then sits down again with the same key (its n starts
    over): the old seat_left's n is above 0 again, but its after is older than the
    table_state the engine logs now, so it is stale."""
    created, first = table.create(KVITLACH, "tk", {}, T0, SIGNER, version=SIGNED)
    log = [first]
    kv = created

    def send(seat: int, kind: str, data: dict[str, Any]) -> None:
        nonlocal kv
        command = Command(kind, f"seat:{seat}", T0 + len(log), data)
        kv, logged = table.execute(kv, command, None, SIGNER)
        log.extend(logged)

    def head() -> dict[str, Any]:
        return {"seq": log[-1].event.seq, "hash": log[-1].hash.hex()}

    for seat in (0, 1):
        send(seat, "seat_joined", {"buy_in": 100, "key": statements.public_key_hex(BOB)})
    left = statements.signed_data(BOB, "tk", None, 1, n=1, after=head(), kind="seat_left", data={})
    send(1, "seat_left", left)
    send(1, "seat_joined", {"buy_in": 100, "key": statements.public_key_hex(BOB)})
    assert kv.seats[1] == SeatKey(statements.public_key_hex(BOB), 0)
    with pytest.raises(SignatureStaleError):
        send(1, "seat_left", left)


def test_a_logged_signed_without_the_data_the_seat_signed_is_signature_invalid() -> None:
    logged = {"n": 1, "after": {"seq": 0, "hash": "ab" * 32}, "signature": "00" * 64}
    for bad in ({**logged}, {**logged, "data": "text"}):
        with pytest.raises(SeatSignatureError) as caught:
            statements.as_sent(Command("stand", "seat:0", T0, {"signed": bad}, "ts.1"))
        assert caught.value.code == "signature_invalid"
    command = Command("stand", "seat:0", T0, {"signed": {**logged, "data": {}}}, "ts.1")
    assert statements.as_sent(command).data == {"signed": logged}
