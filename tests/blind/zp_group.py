"""The order-q subgroup of Z_p^*, written additively, for the shuffle proof's tests.

Not ristretto255: a multiplicative group of integers, as Haenni et al. and CHVote write their
examples, so a test can run fairdeal's shuffle proof on their numbers (``TINY``: p = 11, q = 5,
g = 3, the CHVote proof of concept's hand-worked example) and on a group large enough for
tampering to be caught with certainty (``SAFE_128``, a 128-bit safe prime). ``add`` is the
paper's multiplication, ``mul(x, k)`` its x^k. Variable time: for tests only.
"""

import hashlib
from dataclasses import dataclass


@dataclass(frozen=True)
class ZpGroup:
    """The elements x of Z_p^* with x^q = 1 (q prime, q | p − 1), as ints."""

    p: int
    q: int
    g: int
    secret_safe: bool = True  # a test group: it proves, so that the tests can make proofs

    @property
    def order(self) -> int:
        return self.q

    @property
    def identity(self) -> int:
        return 1

    @property
    def generator(self) -> int:
        return self.g

    def add(self, x: int, y: int) -> int:
        return x * y % self.p

    def sub(self, x: int, y: int) -> int:
        return x * pow(y, -1, self.p) % self.p

    def neg(self, x: int) -> int:
        return pow(x, -1, self.p)

    def mul(self, x: int, k: int) -> int:
        return pow(x, k % self.q, self.p)

    def base(self, k: int) -> int:
        return pow(self.g, k % self.q, self.p)

    def multi_mul(self, points: list[int], scalars: list[int]) -> int:
        total = 1
        for x, k in zip(points, scalars, strict=True):
            total = total * pow(x, k % self.q, self.p) % self.p
        return total

    @property
    def size(self) -> int:
        return (self.p.bit_length() + 7) // 8

    def encode(self, x: int) -> bytes:
        return x.to_bytes(self.size, "big")

    def decode(self, data: bytes) -> int:
        x = int.from_bytes(data, "big")
        if len(data) != self.size or not 0 < x < self.p or pow(x, self.q, self.p) != 1:
            raise ValueError("not an element of the order-q subgroup")
        return x

    def hash_to_element(self, data: bytes) -> int:
        """SHA-512 mod p, raised to the cofactor: in the subgroup (the identity, at 1/q, is
        refused, as no generator may be it)."""
        x = int.from_bytes(hashlib.sha512(data).digest(), "big") % self.p
        element = pow(x, (self.p - 1) // self.q, self.p)
        if element in (0, 1):
            raise ValueError("hashed to the identity")
        return element


# The CHVote proof of concept's worked example (MixingAuthorityTests.md): p = 11, q = 5, g = 3.
TINY = ZpGroup(p=11, q=5, g=3)
# p = 2q + 1 with q = 2^127 + 6225 prime; 4 = 2² generates the squares, of order q.
SAFE_128 = ZpGroup(
    p=2 * (2**127 + 6225) + 1,
    q=2**127 + 6225,
    g=4,
)
