"""What the shuffle proof needs of a group and of a source of randomness.

``fairdeal.blind.group.Group`` is ristretto255's interface, elements as bytes. This is the same
interface generic in the element's type, so that the shuffle proof also runs over a tiny
multiplicative group in the tests and reproduces numbers worked by hand elsewhere
(tests/blind/zp_group.py). Notation is additive: ``add``, ``mul(x, k)`` = k·x.
"""

import secrets
from typing import Protocol, TypeVar

E = TypeVar("E")


class Group(Protocol[E]):
    """A cyclic group of prime order, elements of type ``E``, written additively."""

    @property
    def order(self) -> int: ...

    @property
    def identity(self) -> E: ...

    @property
    def generator(self) -> E: ...

    @property
    def secret_safe(self) -> bool:
        """False for a variable-time backend: nothing secret may be computed with it."""
        ...

    def add(self, x: E, y: E) -> E: ...

    def sub(self, x: E, y: E) -> E: ...

    def neg(self, x: E) -> E: ...

    def mul(self, x: E, k: int) -> E:
        """k·x, with k taken mod the order (the identity or k = 0 give the identity)."""
        ...

    def base(self, k: int) -> E:
        """k·generator."""
        ...

    def decode(self, data: bytes) -> E:
        """The element ``data`` encodes; raises on anything but a canonical encoding."""
        ...

    def encode(self, x: E) -> bytes: ...

    def hash_to_element(self, data: bytes) -> E:
        """An element nobody knows the discrete logarithm of, derived from ``data``."""
        ...

    def multi_mul(self, points: list[E], scalars: list[int]) -> E:
        """Σ scalars[i]·points[i]."""
        ...


class Randomness(Protocol):
    """Uniform integers. The system's by default; a fixed script in vectors and tests."""

    def below(self, bound: int) -> int:
        """A uniform integer in [0, bound)."""
        ...


class SystemRandomness:
    """The operating system's generator (``secrets``)."""

    def below(self, bound: int) -> int:
        return secrets.randbelow(bound)


SYSTEM_RANDOMNESS = SystemRandomness()
