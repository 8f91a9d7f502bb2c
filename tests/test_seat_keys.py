"""Which public keys a seat may bind (SPEC 6.7): a canonical encoding that is not one of
the points of small order. Under a small-order key some signatures verify for every
message, so anyone (the operator too) could sign for the seat, and its moves would prove
nothing. The list the code refuses is checked here against the curve's own arithmetic:
each entry decodes to a point of order dividing 8 (or is not canonical), and together
they are all eight such points."""

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from fairdeal import statements, table
from fairdeal.errors import IllegalActionError
from fairdeal.games.base import Command
from fairdeal.games.toto21 import GAME
from fairdeal.statements import SIGNED, is_strong_key, public_key_hex
from tests.games.driving import T0, fixed_signer

IDENTITY = "01" + "00" * 31  # (0, 1): order 1
ORDER_TWO = "ec" + "ff" * 30 + "7f"  # (0, -1): y = p - 1
NOT_CANONICAL = ["ed" + "ff" * 30 + "7f", "ee" + "ff" * 30 + "7f"]  # y = p, p + 1
NEGATIVE_ZERO = "01" + "00" * 30 + "80"  # x = 0 with the sign bit set


P = 2**255 - 19
D = -121665 * pow(121666, P - 2, P) % P


def _point(key: str) -> tuple[int, int] | None:
    """RFC 8032 5.1.3: the point 32 bytes encode, or None (not canonical, or no point)."""
    encoded = int.from_bytes(bytes.fromhex(key), "little")
    sign, y = encoded >> 255, encoded & ((1 << 255) - 1)
    if y >= P:
        return None
    u, v = (y * y - 1) % P, (D * y * y + 1) % P
    x = u * pow(v, 3, P) * pow(u * pow(v, 7, P), (P - 5) // 8, P) % P
    if v * x * x % P == -u % P:
        x = x * pow(2, (P - 1) // 4, P) % P
    if v * x * x % P != u or (x == 0 and sign):
        return None
    return (P - x if x % 2 != sign else x), y


def _times_8(point: tuple[int, int]) -> tuple[int, int]:
    for _ in range(3):
        x, y = point
        k = D * x * x * y * y % P
        point = 2 * x * y * pow(1 + k, P - 2, P) % P, (y * y + x * x) * pow(1 - k, P - 2, P) % P
    return point


def test_the_refused_keys_are_exactly_the_eight_small_order_points_and_two_non_canonical() -> None:
    refused = statements._SMALL_ORDER
    points = {key: _point(key) for key in refused}
    small = {point for point in points.values() if point is not None}
    assert len(small) == 8 and all(_times_8(point) == (0, 1) for point in small)
    not_canonical = sorted(key for key, point in points.items() if point is None)
    assert not_canonical == sorted(["01" + "00" * 30 + "80", "ec" + "ff" * 31])


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
