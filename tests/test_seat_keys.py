"""Which public keys a seat may bind (SPEC 6.7): an Ed25519 point, canonically encoded,
of large order. Under a small-order key some signatures verify for every message, so
anyone (the operator too) could sign for the seat, and its moves would prove nothing."""

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from fairdeal import table
from fairdeal.errors import IllegalActionError
from fairdeal.games.base import Command
from fairdeal.games.toto21 import GAME
from fairdeal.statements import SIGNED, is_strong_key, public_key_hex
from tests.games.driving import T0, fixed_signer

IDENTITY = "01" + "00" * 31  # (0, 1): order 1
ORDER_TWO = "ec" + "ff" * 30 + "7f"  # (0, -1): y = p - 1
NOT_CANONICAL = ["ed" + "ff" * 30 + "7f", "ee" + "ff" * 30 + "7f"]  # y = p, p + 1
NEGATIVE_ZERO = "01" + "00" * 30 + "80"  # x = 0 with the sign bit set


def test_keys_made_by_ed25519_are_strong() -> None:
    for _ in range(200):
        assert is_strong_key(public_key_hex(Ed25519PrivateKey.generate()))


@pytest.mark.parametrize("key", [IDENTITY, ORDER_TWO, *NOT_CANONICAL, NEGATIVE_ZERO])
def test_small_order_and_non_canonical_keys_are_not(key: str) -> None:
    assert not is_strong_key(key)


def test_under_the_identity_key_one_signature_verifies_for_any_message() -> None:
    """Why the check exists: R = identity, S = 0 satisfies the verification equation."""
    forged = bytes.fromhex("01" + "00" * 63)
    public = Ed25519PublicKey.from_public_bytes(bytes.fromhex(IDENTITY))
    for message in (b"stand", b"hit", b"leave the table"):
        public.verify(forged, message)  # raises if it does not verify


@pytest.mark.parametrize("key", [IDENTITY, ORDER_TWO])
def test_the_engine_refuses_to_bind_a_small_order_key(key: str) -> None:
    created, _ = table.create(GAME, "t", {"target": 4}, T0, fixed_signer(4), version=SIGNED)
    with pytest.raises(IllegalActionError, match="large order"):
        table.execute(
            created, Command("seat_joined", "seat:0", T0, {"key": key}), None, fixed_signer(4)
        )
