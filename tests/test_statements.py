"""Seat keys and signed statements (SPEC 6.7), as the engine checks them in ``execute`` and
again in replay: each refusal has its own error and code."""

from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from fairdeal import statements, table
from fairdeal.canonical import canonical_bytes
from fairdeal.errors import (
    EventSchemaError,
    IllegalActionError,
    SeatSignatureError,
    SignatureMissingError,
    SignatureReplayedError,
    SignatureUnexpectedError,
)
from fairdeal.games.base import Command
from fairdeal.games.toto21 import GAME
from fairdeal.statements import SIGNED, SeatKey
from tests.games.driving import T0, fixed_signer
from tests.replay import replay

SIGNER = fixed_signer(9)
ALICE = Ed25519PrivateKey.from_private_bytes(bytes(range(1, 33)))
BOB = Ed25519PrivateKey.from_private_bytes(bytes(range(2, 34)))
MALLORY = Ed25519PrivateKey.from_private_bytes(bytes(range(3, 35)))


def test_the_statement_is_the_tag_then_the_canonical_object() -> None:
    message = statements.statement("t", "t.1", 1, n=7, kind="hit", data={"b": 1, "a": "x"})
    body = {"data": {"a": "x", "b": 1}, "n": 7, "round": "t.1", "seat": 1, "table": "t"}
    expected = b"fairdeal/v2/seat-statement\x00" + canonical_bytes({**body, "type": "hit"})
    assert message == expected


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

    def signed(
        self, seat: int, kind: str, data: dict[str, Any], *, n: int, by: Any = None
    ) -> dict[str, Any]:
        key = by or self.keys[seat]
        return statements.signed_data(key, "ts", None, seat, n=n, kind=kind, data=data)


def test_seating_binds_each_seats_key_and_a_signed_accept_is_logged_with_what_was_signed() -> None:
    match = Seated()
    assert match.table.seats[0] == SeatKey(statements.public_key_hex(ALICE), 0)
    joined = [e.event for e in match.log if e.event.type == "seat_joined"]
    assert [e.data["key"] for e in joined] == [statements.public_key_hex(k) for k in (ALICE, BOB)]
    match.send(0, "joiner_accepted", match.signed(0, "joiner_accepted", {}, n=1))
    accepted = next(e.event for e in match.log if e.event.type == "joiner_accepted")
    assert accepted.data["signed"]["n"] == 1 and accepted.data["signed"]["data"] == {}
    assert match.table.seats[0].n == 1
    again = replay({GAME.name: GAME}, [e.event for e in match.log])
    assert again.seats == match.table.seats and again.state == match.table.state


@pytest.mark.parametrize(
    ("data", "error"),
    [
        ({}, SignatureMissingError),
        ({"signed": {"n": 1}}, SeatSignatureError),
        ({"signed": {"n": 0, "signature": "00" * 64}}, SeatSignatureError),
        ({"signed": {"n": True, "signature": "00" * 64}}, SeatSignatureError),
        ({"signed": {"n": 1, "signature": "00" * 64}}, SeatSignatureError),
        ({"signed": "yes"}, SeatSignatureError),
    ],
    ids=["no signature", "no signature member", "n 0", "n true", "not its signature", "text"],
)
def test_a_keyed_seats_command_without_a_valid_signature_is_refused(
    data: dict[str, Any], error: type[Exception]
) -> None:
    match = Seated()
    with pytest.raises(error):
        match.send(0, "joiner_accepted", data)
    assert match.table.seats[0].n == 0  # nothing changed


def test_a_statement_signed_by_another_key_or_for_another_table_seat_or_type_is_refused() -> None:
    match = Seated()
    forged = [
        match.signed(0, "joiner_accepted", {}, n=1, by=MALLORY),
        statements.signed_data(ALICE, "other", None, 0, n=1, kind="joiner_accepted", data={}),
        statements.signed_data(ALICE, "ts", None, 1, n=1, kind="joiner_accepted", data={}),
        statements.signed_data(ALICE, "ts", "ts.1", 0, n=1, kind="joiner_accepted", data={}),
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
