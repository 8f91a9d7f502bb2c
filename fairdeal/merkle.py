"""RFC 9162 (Certificate Transparency v2) Merkle tree, section 2.1.

Leaf hash = SHA-256(0x00 || leaf), node hash = SHA-256(0x01 || left || right), and the
root of the empty tree is SHA-256(""). The domain-separation bytes keep a leaf from
ever being read as an inner node.

``MerkleTree`` keeps every full (power-of-two, aligned) subtree hash it has built, so a
root or a proof for any past size costs O(log n) hashes. The verifiers follow the
algorithms of sections 2.1.3.2 and 2.1.4.2 step by step and return None or raise.
"""

import hashlib
import hmac
from collections.abc import Iterable, Sequence

from fairdeal.errors import FairdealError

HASH_SIZE = 32
EMPTY_ROOT = hashlib.sha256(b"").digest()

_LEAF_PREFIX = b"\x00"
_NODE_PREFIX = b"\x01"


class MerkleError(FairdealError):
    """Something about a Merkle tree or proof is wrong."""


class TreeRangeError(MerkleError, ValueError):
    """An index or size the tree does not have (asked of the prover, not a proof)."""


class InvalidProofError(MerkleError):
    """A proof that does not prove what it claims."""


class ProofRangeError(InvalidProofError):
    """Impossible sizes: index >= size, size1 > size2, or a proof from the empty tree."""


class ProofLengthError(InvalidProofError):
    """Too many or too few proof hashes, or a hash that is not 32 bytes."""


class RootMismatchError(InvalidProofError):
    """The proof leads to a root other than the one stated."""


def leaf_hash(data: bytes) -> bytes:
    return hashlib.sha256(_LEAF_PREFIX + data).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(_NODE_PREFIX + left + right).digest()


def _split(n: int) -> int:
    """The largest power of two smaller than n (n >= 2): RFC 9162's k."""
    return 1 << ((n - 1).bit_length() - 1)


class MerkleTree:
    """Append-only tree of leaf hashes with cached full-subtree hashes.

    ``_levels[k]`` holds, back to back, the hashes of the subtrees of 2**k leaves that
    start at multiples of 2**k; flat bytearrays keep a million-leaf tree near 64 MB.
    """

    def __init__(self) -> None:
        self._levels: list[bytearray] = [bytearray()]
        self._size = 0

    @classmethod
    def from_leaf_hashes(cls, hashes: Iterable[bytes]) -> "MerkleTree":
        tree = cls()
        for h in hashes:
            tree.append_leaf_hash(h)
        return tree

    @property
    def size(self) -> int:
        return self._size

    def leaf_hash(self, index: int) -> bytes:
        """The leaf hash at ``index``."""
        if not 0 <= index < self._size:
            raise TreeRangeError(f"leaf {index} is outside the tree of {self._size} leaves")
        return self._full(0, index)

    def subtree_hash(self, level: int, index: int) -> bytes:
        """MTH of the full subtree of 2**level leaves starting at leaf index * 2**level."""
        if level < 0 or index < 0 or (index + 1) << level > self._size:
            raise TreeRangeError(
                f"no full subtree {index} of 2**{level} leaves in a tree of {self._size}"
            )
        return self._full(level, index)

    def append(self, leaf_data: bytes) -> int:
        """Add a leaf by its data; returns its index."""
        return self.append_leaf_hash(leaf_hash(leaf_data))

    def append_leaf_hash(self, h: bytes) -> int:
        """Add a leaf by its leaf hash; returns its index."""
        if len(h) != HASH_SIZE:
            raise ValueError(f"a leaf hash is {HASH_SIZE} bytes, not {len(h)}")
        index = self._size
        self._size += 1
        self._levels[0] += h
        self._complete_subtrees(index)
        return index

    def _complete_subtrees(self, index: int) -> None:
        # Each trailing 1 bit of the new index closes one full subtree one level up.
        level, node = 0, index
        while node & 1:
            left, right = self._full(level, node - 1), self._full(level, node)
            if len(self._levels) == level + 1:
                self._levels.append(bytearray())
            self._levels[level + 1] += node_hash(left, right)
            level, node = level + 1, node >> 1

    def _full(self, level: int, i: int) -> bytes:
        """Hash of the full subtree of 2**level leaves starting at leaf i * 2**level."""
        return bytes(self._levels[level][i * HASH_SIZE : (i + 1) * HASH_SIZE])

    def _range_hash(self, lo: int, hi: int) -> bytes:
        """MTH(D[lo:hi]) for a range whose lo is aligned to a power of two >= hi - lo.

        Every range RFC 9162's recursion visits is of this kind, so it splits into at
        most log n cached full subtrees, folded right to left.
        """
        parts: list[bytes] = []
        start, width = lo, hi - lo
        for level in reversed(range(width.bit_length())):
            if width >> level & 1:
                parts.append(self._full(level, start >> level))
                start += 1 << level
        acc = parts.pop()
        while parts:
            acc = node_hash(parts.pop(), acc)
        return acc

    def _check_size(self, size: int) -> None:
        if not 0 <= size <= self._size:
            raise TreeRangeError(f"size {size} is outside the tree of {self._size} leaves")

    def root(self, size: int | None = None) -> bytes:
        """MTH of the first ``size`` leaves (default: all of them)."""
        n = self._size if size is None else size
        self._check_size(n)
        return EMPTY_ROOT if n == 0 else self._range_hash(0, n)

    def inclusion_proof(self, index: int, size: int) -> list[bytes]:
        """RFC 9162 PATH(index, D[0:size]), leaf end first."""
        self._check_size(size)
        if not 0 <= index < size:
            raise TreeRangeError(f"index {index} is outside a tree of {size} leaves")
        path: list[bytes] = []
        lo, hi = 0, size
        while hi - lo > 1:
            k = _split(hi - lo)
            if index < lo + k:
                path.append(self._range_hash(lo + k, hi))
                hi = lo + k
            else:
                path.append(self._range_hash(lo, lo + k))
                lo += k
        path.reverse()
        return path

    def consistency_proof(self, size1: int, size2: int) -> list[bytes]:
        """RFC 9162 PROOF(size1, D[0:size2]); empty when the sizes are equal."""
        self._check_size(size2)
        if not 0 < size1 <= size2:
            raise TreeRangeError(f"no consistency proof from size {size1} to {size2}")
        proof: list[bytes] = []
        lo, hi, whole = 0, size2, True  # whole: the old tree is this very subtree
        while size1 != hi:
            k = _split(hi - lo)
            if size1 <= lo + k:
                proof.append(self._range_hash(lo + k, hi))
                hi = lo + k
            else:
                proof.append(self._range_hash(lo, lo + k))
                lo, whole = lo + k, False
        if not whole:
            proof.append(self._range_hash(lo, hi))
        proof.reverse()
        return proof


def _check_hashes(what: str, hashes: Sequence[bytes]) -> None:
    for i, h in enumerate(hashes):
        if len(h) != HASH_SIZE:
            raise ProofLengthError(f"{what} hash {i} is {len(h)} bytes, not {HASH_SIZE}")


def _check_root(name: str, computed: bytes, stated: bytes) -> None:
    if not hmac.compare_digest(computed, stated):
        raise RootMismatchError(f"the proof leads to another {name}")


def _shift_to_set_bit(fn: int, sn: int) -> tuple[int, int]:
    """Right-shift both until fn's low bit is set or fn is 0 (a run of right edges)."""
    while fn and not fn & 1:
        fn, sn = fn >> 1, sn >> 1
    return fn, sn


def root_from_inclusion_proof(leaf: bytes, index: int, size: int, proof: Sequence[bytes]) -> bytes:
    """The root an inclusion proof leads to, per RFC 9162 section 2.1.3.2."""
    if not 0 <= index < size:
        raise ProofRangeError(f"index {index} is outside a tree of {size} leaves")
    _check_hashes("leaf", [leaf])
    _check_hashes("inclusion proof", proof)
    fn, sn, r = index, size - 1, leaf
    for p in proof:
        if sn == 0:
            raise ProofLengthError("the inclusion proof is too long")
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            fn, sn = _shift_to_set_bit(fn, sn)
        else:
            r = node_hash(r, p)
        fn, sn = fn >> 1, sn >> 1
    if sn != 0:
        raise ProofLengthError("the inclusion proof is too short")
    return r


def verify_inclusion(
    leaf: bytes, index: int, size: int, proof: Sequence[bytes], root: bytes
) -> None:
    """Check that ``leaf`` (a leaf hash) is leaf ``index`` of the tree ``root``."""
    _check_root("root", root_from_inclusion_proof(leaf, index, size, proof), root)


def verify_consistency(
    size1: int, size2: int, proof: Sequence[bytes], root1: bytes, root2: bytes
) -> None:
    """Check that tree ``root2`` of size2 extends tree ``root1`` of size1 (RFC 9162 2.1.4.2)."""
    if not 0 < size1 <= size2:
        # Every tree extends the empty one, so a proof from size 0 proves nothing.
        raise ProofRangeError(f"no consistency proof from size {size1} to {size2}")
    if size1 == size2:
        if proof:
            raise ProofLengthError("equal sizes take an empty proof")
        # Nothing is hashed here: the claim holds exactly when the stated roots are equal.
        _check_root("root", root1, root2)
        return
    first, second = _consistency_roots(size1, size2, proof, root1)
    _check_root("old root", first, root1)
    _check_root("new root", second, root2)


def _consistency_roots(
    size1: int, size2: int, proof: Sequence[bytes], root1: bytes
) -> tuple[bytes, bytes]:
    """Steps 1-4 of RFC 9162 2.1.4.2, then the fold: the (old, new) roots the proof gives."""
    if not proof:
        raise ProofLengthError("the consistency proof is empty")
    # An old tree of 2**k leaves is a full subtree of the new one: its root starts the path.
    path = [root1, *proof] if size1 & (size1 - 1) == 0 else list(proof)
    _check_hashes("consistency path", path)
    fn, sn = size1 - 1, size2 - 1
    while fn & 1:
        fn, sn = fn >> 1, sn >> 1
    return _fold_consistency(fn, sn, path)


def _fold_consistency(fn: int, sn: int, path: Sequence[bytes]) -> tuple[bytes, bytes]:
    """Steps 5-7 of RFC 9162 2.1.4.2 up to the root comparisons."""
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            raise ProofLengthError("the consistency proof is too long")
        if fn & 1 or fn == sn:
            fr, sr = node_hash(c, fr), node_hash(c, sr)
            fn, sn = _shift_to_set_bit(fn, sn)
        else:
            sr = node_hash(sr, c)
        fn, sn = fn >> 1, sn >> 1
    if sn != 0:
        raise ProofLengthError("the consistency proof is too short")
    return fr, sr
