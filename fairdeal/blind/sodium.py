"""ristretto255 (RFC 9496) from libsodium (≥ 1.0.18), through ``ctypes``.

PyNaCl binds no ristretto255 function and ``cryptography`` has no point arithmetic, so this
loads the system's libsodium (Debian: ``libsodium23``) and calls its
``crypto_core_ristretto255_*`` and ``crypto_scalarmult_ristretto255*``. Loading a shared
library is the only thing done outside the process's memory; no file or network is read.

Three behaviours of libsodium are made to fit SPEC 15.2 here:

- its scalar multiplications return -1 when the result is the identity (a zero scalar, the
  identity point): that is mapped to the identity, after the input point is validated;
- they clear the scalar's bit 255 and nothing else (no clamping): scalars are passed reduced
  mod the order (< 2^253), so every scalar is used whole (tests/blind check it);
- libsodium 1.0.18 accepts an encoding whose top bit (bit 255) is set, reading it as the same
  encoding with that bit clear: a second encoding of one element, which RFC 9496 refuses (its
  field element is not canonical). Every input is checked for it here before libsodium reads
  it, so that an element has one encoding (tests/blind agree it with the pure backend).
"""

import ctypes
import ctypes.util
import hashlib

from fairdeal.blind.group import (
    ELEMENT_BYTES,
    GENERATOR,
    IDENTITY,
    ORDER,
    InvalidElementError,
    scalar_bytes,
)


def _load() -> ctypes.CDLL:
    name = ctypes.util.find_library("sodium")
    if name is None:
        raise OSError("libsodium is not installed (Debian: apt-get install libsodium23)")
    lib = ctypes.CDLL(name)
    if lib.sodium_init() < 0:
        raise OSError("libsodium failed to initialise")
    if not hasattr(lib, "crypto_core_ristretto255_from_hash"):
        raise OSError("libsodium older than 1.0.18: no ristretto255")
    arguments = {  # how many pointers each takes: output first, then inputs
        "crypto_core_ristretto255_is_valid_point": 1,
        "crypto_core_ristretto255_from_hash": 2,
        "crypto_core_ristretto255_add": 3,
        "crypto_core_ristretto255_sub": 3,
        "crypto_scalarmult_ristretto255": 3,
        "crypto_scalarmult_ristretto255_base": 2,
    }
    for function_name, count in arguments.items():
        function = getattr(lib, function_name)
        function.argtypes, function.restype = [ctypes.c_char_p] * count, ctypes.c_int
    return lib


def _readable(data: bytes) -> bytes:
    """``data`` if libsodium may read it: 32 bytes (it reads 32 whatever it is given), the
    top bit clear (1.0.18 ignores that bit: module docstring)."""
    if len(data) != ELEMENT_BYTES or data[31] & 0x80:
        raise InvalidElementError("not the canonical encoding of a group element")
    return bytes(data)


class SodiumRistretto255:
    """ristretto255 from libsodium; constant-time point operations."""

    order = ORDER
    identity = IDENTITY
    generator = GENERATOR
    secret_safe = True

    def __init__(self) -> None:
        self._lib = _load()

    def _element(self, data: bytes) -> bytes:
        """``data``, validated (RFC 9496 4.3.1's decode)."""
        if not self._lib.crypto_core_ristretto255_is_valid_point(_readable(data)):
            raise InvalidElementError("not the canonical encoding of a group element")
        return bytes(data)

    def _two(self, function_name: str, x: bytes, y: bytes) -> bytes:
        # libsodium validates both inputs and returns -1 for an invalid one
        out = ctypes.create_string_buffer(ELEMENT_BYTES)
        if getattr(self._lib, function_name)(out, _readable(x), _readable(y)) != 0:
            raise InvalidElementError("not the canonical encoding of a group element")
        return out.raw

    def add(self, x: bytes, y: bytes) -> bytes:
        return self._two("crypto_core_ristretto255_add", x, y)

    def sub(self, x: bytes, y: bytes) -> bytes:
        return self._two("crypto_core_ristretto255_sub", x, y)

    def neg(self, x: bytes) -> bytes:
        return self.sub(IDENTITY, x)

    def mul(self, x: bytes, k: int) -> bytes:
        out = ctypes.create_string_buffer(ELEMENT_BYTES)
        if self._lib.crypto_scalarmult_ristretto255(out, scalar_bytes(k), _readable(x)) != 0:
            # -1: an invalid point, or the identity as the result (SPEC 15.2's O)
            self._element(x)
            return IDENTITY
        return out.raw

    def base(self, k: int) -> bytes:
        out = ctypes.create_string_buffer(ELEMENT_BYTES)
        if self._lib.crypto_scalarmult_ristretto255_base(out, scalar_bytes(k)) != 0:
            return IDENTITY  # k = 0 mod the order
        return out.raw

    def encode(self, x: bytes) -> bytes:
        return x  # an element is its encoding

    def decode(self, data: bytes) -> bytes:
        return self._element(data)

    def hash_to_element(self, data: bytes) -> bytes:
        return self.from_uniform_bytes(hashlib.sha512(data).digest())

    def from_uniform_bytes(self, data: bytes) -> bytes:
        """RFC 9496 4.3.4's element derivation of 64 bytes (its vectors' input)."""
        if len(data) != 64:
            raise ValueError("element derivation takes 64 bytes")
        out = ctypes.create_string_buffer(ELEMENT_BYTES)
        self._lib.crypto_core_ristretto255_from_hash(out, bytes(data))
        return out.raw

    def multi_mul(self, points: list[bytes], scalars: list[int]) -> bytes:
        if len(points) != len(scalars):
            raise ValueError("as many scalars as points")
        total = IDENTITY
        for point, k in zip(points, scalars, strict=True):
            total = self.add(total, self.mul(point, k))
        return total
