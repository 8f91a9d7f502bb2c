"""The group of dealer-blind dealing (SPEC 15.2): ristretto255, RFC 9496.

An element is its canonical 32-byte encoding (``bytes``), so elements hash and compare by
value; a scalar is a Python ``int`` taken mod ``ORDER``. ``Group`` is the interface every
backend offers (``fairdeal.blind.algebra.Group`` with bytes for elements; generic there so that
the shuffle proof's tests also run over a small group):

- ``SodiumRistretto255`` (``fairdeal.blind.sodium``): libsodium through ``ctypes``; its point
  operations are constant time. The service and the parties use it.
- ``PureRistretto255`` (``fairdeal.blind.ristretto_pure``): plain integers, **variable time**,
  so that the verifier installs with nothing but ``cryptography``. It is meant to *verify*
  (public data only): by default it refuses the operations on secrets (``secret_safe``).

``ristretto255()`` returns libsodium's when the library loads, else the pure one.

Constant time stops at libsodium's point operations: the scalar arithmetic around them (a
proof's ``k + c·x mod ℓ``, reductions, encodings) is done in Python integers, which are not
constant time on any backend. A party's secrets live for one round; an attacker who can time
the service's process closely enough to exploit that is out of this module's reach.
"""

import hashlib
import re
import secrets
from functools import cache
from typing import TypeAlias

from fairdeal.blind import algebra
from fairdeal.errors import FairdealError

# ℓ, the prime order of ristretto255 (RFC 9496 section 4.1)
ORDER = 2**252 + 27742317777372353535851937790883648493
SCALAR_BYTES = 32
ELEMENT_BYTES = 32
IDENTITY = bytes(ELEMENT_BYTES)
# RFC 9496's generator, B (section 4.4), encoded
GENERATOR = bytes.fromhex("e2f2ae0a6abc4e71a884a961c500515f58e30b6aa582dd8db6a65945e08d2d76")


class BlindError(FairdealError):
    """Dealer-blind data that fails a check (SPEC 15)."""


class BlindEncodingError(BlindError):
    """A value not of its stated form (SPEC 15.2, 15.9): bad hex, a missing member."""


class InvalidElementError(BlindEncodingError):
    """Bytes that are not the canonical encoding of a ristretto255 element (RFC 9496 4.3.1)."""


class IdentityKeyError(InvalidElementError):
    """A round key that is the identity (SPEC 15.3)."""


class InvalidScalarError(BlindEncodingError):
    """Bytes that are not a canonical scalar: not 32 bytes, or a value not below the order."""


# The interface every backend offers: the shuffle proof's generic one, with elements as their
# canonical encodings.
Group: TypeAlias = algebra.Group[bytes]


def scalar_bytes(k: int) -> bytes:
    """``k`` mod the order as 32 bytes, little-endian (SPEC 15.2)."""
    return (k % ORDER).to_bytes(SCALAR_BYTES, "little")


def read_scalar(data: bytes) -> int:
    """The scalar ``data`` encodes; refused unless 32 bytes with a value below the order."""
    if len(data) != SCALAR_BYTES:
        raise InvalidScalarError(f"a scalar is {SCALAR_BYTES} bytes, not {len(data)}")
    k = int.from_bytes(data, "little")
    if k >= ORDER:
        raise InvalidScalarError("a scalar not below the group order")
    return k


def length_prefixed(data: bytes) -> bytes:
    """``u64be(len(data)) ‖ data``: how SPEC 15 writes a context or a string into a hashed input."""
    return len(data).to_bytes(8, "big") + data


def hash_to_scalar(data: bytes) -> int:
    """SHA-512 of ``data``, read little-endian, mod the order (SPEC 15.2)."""
    return int.from_bytes(hashlib.sha512(data).digest(), "little") % ORDER


def random_scalar() -> int:
    """A uniform scalar in [1, order): 64 bytes from the OS generator, mod the order, drawn
    again while 0 (SPEC 15.5). For round keys, nonces and re-encryption factors."""
    while True:
        k = int.from_bytes(secrets.token_bytes(64), "little") % ORDER
        if k:
            return k


_HEX32 = re.compile(r"[0-9a-f]{64}")


def read_hex32(text: object, what: str) -> bytes:
    """The 32 bytes of 64 lowercase hex digits (SPEC 15.2); anything else refused."""
    if not isinstance(text, str) or not _HEX32.fullmatch(text):
        raise BlindEncodingError(f"{what}: not 64 lowercase hex digits")
    return bytes.fromhex(text)


def read_element(group: "Group", text: object, what: str) -> bytes:
    """An element from its JSON form, decoded (refused unless canonical)."""
    return group.decode(read_hex32(text, what))


def read_scalar_hex(text: object, what: str) -> int:
    """A scalar from its JSON form (refused unless canonical)."""
    return read_scalar(read_hex32(text, what))


def ristretto255(backend: str | None = None) -> Group:
    """The group: ``"sodium"``, ``"pure"``, or (None) libsodium when it loads, else pure.

    ``"sodium"`` raises ``OSError`` when libsodium cannot be loaded."""
    if backend not in (None, "sodium", "pure"):
        raise ValueError(f"no backend {backend!r}")
    if backend != "pure":
        try:
            return _sodium()
        except OSError:
            if backend == "sodium":
                raise
    return _pure()


@cache
def _sodium() -> Group:
    from fairdeal.blind.sodium import SodiumRistretto255

    return SodiumRistretto255()


@cache
def _pure() -> Group:
    from fairdeal.blind.ristretto_pure import PureRistretto255

    return PureRistretto255()
