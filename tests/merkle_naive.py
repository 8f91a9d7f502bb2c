"""Reference Merkle tree for tests: the recursive definitions of RFC 9162 section 2.1.

Deliberately slow and literal (MTH, PATH, SUBPROOF as written in the RFC) and built on
hashlib alone, so it shares no code with fairdeal.merkle.
"""

import hashlib


def _leaf(data: bytes) -> bytes:
    return hashlib.sha256(b"\x00" + data).digest()


def _node(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def _k(n: int) -> int:
    """The largest power of two smaller than n, by counting up."""
    k = 1
    while k * 2 < n:
        k *= 2
    return k


def mth(leaves: list[bytes]) -> bytes:
    """MTH(D[n]) over leaf data."""
    n = len(leaves)
    if n == 0:
        return hashlib.sha256(b"").digest()
    if n == 1:
        return _leaf(leaves[0])
    k = _k(n)
    return _node(mth(leaves[:k]), mth(leaves[k:]))


def path(m: int, leaves: list[bytes]) -> list[bytes]:
    """PATH(m, D[n]): the inclusion proof of leaf m."""
    n = len(leaves)
    if n == 1:
        return []
    k = _k(n)
    if m < k:
        return [*path(m, leaves[:k]), mth(leaves[k:])]
    return [*path(m - k, leaves[k:]), mth(leaves[:k])]


def proof(m: int, leaves: list[bytes]) -> list[bytes]:
    """PROOF(m, D[n]): the consistency proof from the first m leaves."""
    return _subproof(m, leaves, True)


def _subproof(m: int, leaves: list[bytes], whole: bool) -> list[bytes]:
    n = len(leaves)
    if m == n:
        return [] if whole else [mth(leaves)]
    k = _k(n)
    if m <= k:
        return [*_subproof(m, leaves[:k], whole), mth(leaves[k:])]
    return [*_subproof(m - k, leaves[k:], False), mth(leaves[:k])]
