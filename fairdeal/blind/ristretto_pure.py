"""ristretto255 (RFC 9496) in plain Python integers: the verifier's fallback.

**Variable time.** Python integers leak their values through timing, and the scalar
multiplications here branch on the scalar's digits. That is harmless for verifying, where
every input is public, and unsafe for secrets: ``secret_safe`` is False, so the proofs and
shares that use a secret refuse this backend (``PureRistretto255(allow_secrets=True)`` lifts
that for tests that cross-check the backends and for recomputing a round's values once they are
revealed, never for a party's secret).

Points are extended twisted-Edwards coordinates (X : Y : Z : T) on edwards25519 (a = -1);
decode, encode and element derivation follow RFC 9496 section 4.3 step by step.
"""

import hashlib

from fairdeal.blind.group import (
    ELEMENT_BYTES,
    GENERATOR,
    IDENTITY,
    ORDER,
    InvalidElementError,
)

P = 2**255 - 19
D = -121665 * pow(121666, P - 2, P) % P
D2 = 2 * D % P
SQRT_M1 = pow(2, (P - 1) // 4, P)

Point = tuple[int, int, int, int]
ZERO: Point = (0, 1, 1, 0)


def _is_negative(x: int) -> bool:
    return x % P & 1 == 1


def _abs(x: int) -> int:
    x %= P
    return P - x if x & 1 else x


def _sqrt_ratio_m1(u: int, v: int) -> tuple[bool, int]:
    """RFC 9496 4.2: (was_square, the nonnegative root of u/v or of SQRT_M1·u/v)."""
    v3 = v * v % P * v % P
    v7 = v3 * v3 % P * v % P
    r = u * v3 % P * pow(u * v7 % P, (P - 5) // 8, P) % P
    check = v * r % P * r % P
    u %= P
    correct = check == u
    flipped = check == -u % P
    flipped_i = check == -u * SQRT_M1 % P
    if flipped or flipped_i:
        r = r * SQRT_M1 % P
    return correct or flipped, _abs(r)


# the constants of RFC 9496 4.1, computed (tests/blind compare them with the RFC's decimals):
# its SQRT_AD_MINUS_ONE is the negative (odd) root, its INVSQRT_A_MINUS_D the nonnegative one
SQRT_AD_MINUS_ONE = P - _sqrt_ratio_m1(-D - 1, 1)[1]
INVSQRT_A_MINUS_D = _sqrt_ratio_m1(1, -1 - D)[1]
ONE_MINUS_D_SQ = (1 - D * D) % P
D_MINUS_ONE_SQ = (D - 1) * (D - 1) % P


def decode_point(data: bytes) -> Point:
    """RFC 9496 4.3.1; ``InvalidElementError`` for anything but a canonical encoding."""
    if len(data) != ELEMENT_BYTES:
        raise InvalidElementError(f"an element is {ELEMENT_BYTES} bytes, not {len(data)}")
    s = int.from_bytes(data, "little")
    if s >= P or _is_negative(s):
        raise InvalidElementError("not a canonical encoding")
    ss = s * s % P
    u1 = (1 - ss) % P
    u2 = (1 + ss) % P
    u2_sqr = u2 * u2 % P
    v = (-(D * u1 % P * u1) - u2_sqr) % P
    was_square, invsqrt = _sqrt_ratio_m1(1, v * u2_sqr % P)
    den_x = invsqrt * u2 % P
    den_y = invsqrt * den_x % P * v % P
    x = _abs(2 * s * den_x)
    y = u1 * den_y % P
    t = x * y % P
    if not was_square or _is_negative(t) or y == 0:
        raise InvalidElementError("not the encoding of a group element")
    return (x, y, 1, t)


def encode_point(point: Point) -> bytes:
    """RFC 9496 4.3.2."""
    x0, y0, z0, t0 = point
    u1 = (z0 + y0) * (z0 - y0) % P
    u2 = x0 * y0 % P
    _, invsqrt = _sqrt_ratio_m1(1, u1 * u2 % P * u2 % P)
    den1 = invsqrt * u1 % P
    den2 = invsqrt * u2 % P
    z_inv = den1 * den2 % P * t0 % P
    if _is_negative(t0 * z_inv):
        x, y = y0 * SQRT_M1 % P, x0 * SQRT_M1 % P
        den_inv = den1 * INVSQRT_A_MINUS_D % P
    else:
        x, y, den_inv = x0, y0, den2
    if _is_negative(x * z_inv):
        y = -y
    return _abs(den_inv * (z0 - y)).to_bytes(ELEMENT_BYTES, "little")


def _map(t: int) -> Point:
    """RFC 9496 4.3.4's MAP: a field element to a point."""
    r = SQRT_M1 * t % P * t % P
    u = (r + 1) * ONE_MINUS_D_SQ % P
    v = (-1 - r * D) * (r + D) % P
    was_square, s = _sqrt_ratio_m1(u, v)
    if was_square:
        c = P - 1
    else:
        s, c = -_abs(s * t) % P, r
    n = (c * (r - 1) % P * D_MINUS_ONE_SQ - v) % P
    w0 = 2 * s * v % P
    w1 = n * SQRT_AD_MINUS_ONE % P
    w2 = (1 - s * s) % P
    w3 = (1 + s * s) % P
    return (w0 * w3 % P, w2 * w1 % P, w1 * w3 % P, w0 * w2 % P)


def from_uniform_bytes(data: bytes) -> Point:
    """RFC 9496 4.3.4: the element of 64 uniform bytes."""
    if len(data) != 64:
        raise ValueError("element derivation takes 64 bytes")
    mask = (1 << 255) - 1
    r0 = (int.from_bytes(data[:32], "little") & mask) % P
    r1 = (int.from_bytes(data[32:], "little") & mask) % P
    return _add(_map(r0), _map(r1))


def _add(p: Point, q: Point) -> Point:
    """Extended-coordinates addition for a = -1 (Hisil et al. 2008, "add-2008-hwcd-3")."""
    x1, y1, z1, t1 = p
    x2, y2, z2, t2 = q
    a = (y1 - x1) * (y2 - x2) % P
    b = (y1 + x1) * (y2 + x2) % P
    c = t1 * D2 % P * t2 % P
    d = 2 * z1 * z2 % P
    e, f, g, h = b - a, d - c, d + c, b + a
    return (e * f % P, g * h % P, f * g % P, e * h % P)


def _double(p: Point) -> Point:
    """Extended-coordinates doubling for a = -1 ("dbl-2008-hwcd")."""
    x1, y1, z1, _ = p
    a = x1 * x1 % P
    b = y1 * y1 % P
    c = 2 * z1 * z1 % P
    e = ((x1 + y1) * (x1 + y1) - a - b) % P
    g = b - a
    f = g - c
    h = -a - b
    return (e * f % P, g * h % P, f * g % P, e * h % P)


def _neg(p: Point) -> Point:
    x, y, z, t = p
    return (-x % P, y, z, -t % P)


WINDOW = 4


def _table(p: Point) -> list[Point]:
    """0·p, 1·p, …, 15·p."""
    table = [ZERO, p]
    for _ in range(2, 1 << WINDOW):
        table.append(_add(table[-1], p))
    return table


def _digits(k: int) -> list[int]:
    """``k``'s base-16 digits, most significant first (k reduced mod the order)."""
    k %= ORDER
    return [(k >> shift) & 15 for shift in range(252, -1, -WINDOW)]


def _straus(points: list[Point], scalars: list[int]) -> Point:
    """Σ scalars[i]·points[i], one run of doublings shared by every term (Straus)."""
    tables = [_table(p) for p in points]
    digits = [_digits(k) for k in scalars]
    acc = ZERO
    for position in range(len(digits[0]) if digits else 0):
        if position:
            for _ in range(WINDOW):
                acc = _double(acc)
        for table, ds in zip(tables, digits, strict=True):
            if ds[position]:
                acc = _add(acc, table[ds[position]])
    return acc


def _base_tables() -> list[list[Point]]:
    """For each base-16 digit position j, the multiples d·16^j·B, d = 0 … 15."""
    tables = []
    point = decode_point(GENERATOR)
    for _ in range(64):
        tables.append(_table(point))
        for _ in range(WINDOW):
            point = _double(point)
    return tables


class PureRistretto255:
    """ristretto255 in plain Python: variable time, for verifying (module docstring)."""

    order = ORDER
    identity = IDENTITY
    generator = GENERATOR

    def __init__(self, *, allow_secrets: bool = False) -> None:
        # allow_secrets=True: tests that cross-check the backends, and recomputing revealed
        # values (fairdeal.blind.rounds.check_server_step), never a secret in use.
        self._allow_secrets = allow_secrets
        self._base: list[list[Point]] | None = None

    @property
    def secret_safe(self) -> bool:
        """False unless made with ``allow_secrets``; read-only, so that no assignment can make
        a verifier's instance compute a secret."""
        return self._allow_secrets

    def add(self, x: bytes, y: bytes) -> bytes:
        return encode_point(_add(decode_point(x), decode_point(y)))

    def sub(self, x: bytes, y: bytes) -> bytes:
        return encode_point(_add(decode_point(x), _neg(decode_point(y))))

    def neg(self, x: bytes) -> bytes:
        return encode_point(_neg(decode_point(x)))

    def mul(self, x: bytes, k: int) -> bytes:
        return encode_point(_straus([decode_point(x)], [k]))

    def base(self, k: int) -> bytes:
        if self._base is None:
            self._base = _base_tables()
        k %= ORDER
        acc = ZERO
        for table in self._base:
            if k & 15:
                acc = _add(acc, table[k & 15])
            k >>= WINDOW
        return encode_point(acc)

    def encode(self, x: bytes) -> bytes:
        return x  # an element is its encoding

    def decode(self, data: bytes) -> bytes:
        decode_point(data)
        return bytes(data)

    def hash_to_element(self, data: bytes) -> bytes:
        return self.from_uniform_bytes(hashlib.sha512(data).digest())

    def from_uniform_bytes(self, data: bytes) -> bytes:
        """RFC 9496 4.3.4's element derivation of 64 bytes (its vectors' input)."""
        return encode_point(from_uniform_bytes(data))

    def multi_mul(self, points: list[bytes], scalars: list[int]) -> bytes:
        if len(points) != len(scalars):
            raise ValueError("as many scalars as points")
        return encode_point(_straus([decode_point(p) for p in points], scalars))
