"""A tile client for the tests: the root of a tree of ``size`` leaves from its tiles alone.

Written from the tlog-tiles layout, not from fairdeal.tiles: a full subtree of 2**k leaves
(k = 8L + r) is the hash of 2**r consecutive hashes of a tile at level L, and the root folds
the full subtrees of size's binary decomposition from the right (RFC 9162's MTH).
"""

import hashlib
from collections.abc import Callable

# (level, number, width) -> the tile's bytes, as served at tile/<level>/<number>[.p/<width>]
ReadTile = Callable[[int, int, int], bytes]


def _node(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def width_in(level: int, number: int, size: int) -> int:
    return max(0, min(256, (size >> (8 * level)) - 256 * number))


def subtree_from_tiles(read: ReadTile, size: int, k: int, i: int) -> bytes:
    """MTH of the 2**k leaves from leaf i * 2**k, from the tiles of the tree of ``size``."""
    level, r = divmod(k, 8)
    first = i << r  # the first of its hashes at that level
    number = first // 256
    data = read(level, number, width_in(level, number, size))
    at = first % 256
    hashes = [data[32 * j : 32 * (j + 1)] for j in range(at, at + (1 << r))]
    while len(hashes) > 1:
        hashes = [_node(hashes[j], hashes[j + 1]) for j in range(0, len(hashes), 2)]
    return hashes[0]


def root_from_tiles(read: ReadTile, size: int) -> bytes:
    if size == 0:
        return hashlib.sha256(b"").digest()
    parts, start = [], 0
    for k in reversed(range(size.bit_length())):
        if size >> k & 1:
            parts.append(subtree_from_tiles(read, size, k, start >> k))
            start += 1 << k
    root = parts.pop()
    while parts:
        root = _node(parts.pop(), root)
    return root
