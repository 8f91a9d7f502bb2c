"""RFC 9162 Merkle tree: official vectors, a known-answer root, and Hypothesis against the
literal recursive definitions in merkle_naive."""

import base64
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from fairdeal.merkle import (
    EMPTY_ROOT,
    InvalidProofError,
    MerkleError,
    MerkleTree,
    ProofLengthError,
    ProofRangeError,
    RootMismatchError,
    TreeRangeError,
    leaf_hash,
    node_hash,
    root_from_inclusion_proof,
    verify_consistency,
    verify_inclusion,
)
from tests import merkle_naive as naive

VECTORS = Path(__file__).parent / "vectors" / "rfc9162"

# The leaves of the README's known-answer tree, as hex.
KNOWN_LEAVES = [
    bytes.fromhex(h)
    for h in [
        "",
        "00",
        "10",
        "2021",
        "3031",
        "40414243",
        "5051525354555657",
        "606162636465666768696a6b6c6d6e6f",
    ]
]
KNOWN_ROOT_8 = "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328"


def _vector_files(kind: str) -> list[Path]:
    return sorted((VECTORS / kind).rglob("*.json"))


def _params(kind: str) -> list[Any]:
    return [
        pytest.param(json.loads(p.read_text()), id=str(p.relative_to(VECTORS)))
        for p in _vector_files(kind)
    ]


def _b64(s: str) -> bytes:
    return base64.b64decode(s, validate=True)


def _proof(v: dict[str, Any]) -> list[bytes]:
    return [_b64(h) for h in v["proof"] or []]


def _known_tree() -> MerkleTree:
    tree = MerkleTree()
    for leaf in KNOWN_LEAVES:
        tree.append(leaf)
    return tree


def test_all_vectors_are_present() -> None:
    # Guards the parametrized tests below against a glob that silently finds nothing.
    assert len(_vector_files("inclusion")) == 98
    assert len(_vector_files("consistency")) == 98
    assert (VECTORS / "LICENSE").is_file()
    assert (VECTORS / "README.md").is_file()


@pytest.mark.parametrize("v", _params("inclusion"))
def test_inclusion_vector(v: dict[str, Any]) -> None:
    args = (_b64(v["leafHash"]), v["leafIdx"], v["treeSize"], _proof(v), _b64(v["root"]))
    if v["wantErr"]:
        with pytest.raises(InvalidProofError):
            verify_inclusion(*args)
    else:
        verify_inclusion(*args)


@pytest.mark.parametrize("v", _params("consistency"))
def test_consistency_vector(v: dict[str, Any]) -> None:
    roots = (_b64(v["root1"]), _b64(v["root2"]))
    args = (v["size1"], v["size2"], _proof(v), *roots)
    if v["wantErr"]:
        with pytest.raises(InvalidProofError):
            verify_consistency(*args)
    else:
        verify_consistency(*args)


def _numbered_happy(kind: str) -> list[Any]:
    # The numbered folders hold proofs over the README's eight known leaves.
    return [
        p
        for p in _params(kind)
        if p.id.endswith("/happy-path.json") and p.id.split("/")[1].isdigit()
    ]


@pytest.mark.parametrize("v", _numbered_happy("inclusion"))
def test_tree_inclusion_proof_matches_vector(v: dict[str, Any]) -> None:
    tree, size, index = _known_tree(), v["treeSize"], v["leafIdx"]
    assert tree.root(size) == _b64(v["root"])
    assert leaf_hash(KNOWN_LEAVES[index]) == _b64(v["leafHash"])
    assert tree.inclusion_proof(index, size) == _proof(v)


@pytest.mark.parametrize("v", _numbered_happy("consistency"))
def test_tree_consistency_proof_matches_vector(v: dict[str, Any]) -> None:
    tree, size1, size2 = _known_tree(), v["size1"], v["size2"]
    assert tree.root(size1) == _b64(v["root1"])
    assert tree.root(size2) == _b64(v["root2"])
    assert tree.consistency_proof(size1, size2) == _proof(v)


def test_known_answer_root() -> None:
    tree = _known_tree()
    assert tree.root().hex() == KNOWN_ROOT_8
    assert naive.mth(KNOWN_LEAVES).hex() == KNOWN_ROOT_8


def test_hash_definitions() -> None:
    assert EMPTY_ROOT == hashlib.sha256(b"").digest() == MerkleTree().root()
    assert leaf_hash(b"ab") == hashlib.sha256(b"\x00ab").digest()
    assert (
        node_hash(b"L" * 32, b"R" * 32) == hashlib.sha256(b"\x01" + b"L" * 32 + b"R" * 32).digest()
    )


def test_append_returns_index_and_from_leaf_hashes_agrees() -> None:
    tree = MerkleTree()
    assert [tree.append(bytes([i])) for i in range(5)] == [0, 1, 2, 3, 4]
    copy = MerkleTree.from_leaf_hashes(leaf_hash(bytes([i])) for i in range(5))
    assert copy.size == tree.size == 5
    assert copy.root() == tree.root()


def test_append_leaf_hash_wants_32_bytes() -> None:
    with pytest.raises(ValueError, match="32 bytes"):
        MerkleTree().append_leaf_hash(b"short")


@pytest.mark.parametrize(
    ("call", "args"),
    [
        ("root", (4,)),
        ("root", (-1,)),
        ("inclusion_proof", (3, 3)),
        ("inclusion_proof", (-1, 3)),
        ("inclusion_proof", (0, 4)),
        ("consistency_proof", (0, 2)),
        ("consistency_proof", (3, 2)),
        ("consistency_proof", (1, 4)),
    ],
)
def test_tree_rejects_what_it_does_not_have(call: str, args: tuple[int, ...]) -> None:
    tree = MerkleTree.from_leaf_hashes(leaf_hash(b"x") for _ in range(3))
    with pytest.raises(TreeRangeError):
        getattr(tree, call)(*args)


def test_tree_range_error_is_a_merkle_error_and_a_value_error() -> None:
    assert issubclass(TreeRangeError, MerkleError)
    assert issubclass(TreeRangeError, ValueError)


def test_named_inclusion_failures() -> None:
    tree = _known_tree()
    leaf, root, proof = leaf_hash(KNOWN_LEAVES[5]), tree.root(), tree.inclusion_proof(5, 8)
    with pytest.raises(ProofRangeError):
        verify_inclusion(leaf, 8, 8, proof, root)
    with pytest.raises(ProofLengthError):
        verify_inclusion(leaf, 5, 8, [*proof, root], root)
    with pytest.raises(ProofLengthError):
        verify_inclusion(leaf, 5, 8, proof[:-1], root)
    with pytest.raises(ProofLengthError):
        verify_inclusion(leaf, 5, 8, [proof[0][:31], *proof[1:]], root)
    with pytest.raises(RootMismatchError):
        verify_inclusion(leaf, 5, 8, proof, tree.root(7))
    assert root_from_inclusion_proof(leaf, 5, 8, proof) == root


def test_named_consistency_failures() -> None:
    tree = _known_tree()
    r3, r8, proof = tree.root(3), tree.root(8), tree.consistency_proof(3, 8)
    with pytest.raises(ProofRangeError):
        verify_consistency(8, 3, proof, r8, r3)
    with pytest.raises(ProofRangeError):
        verify_consistency(0, 8, [], EMPTY_ROOT, r8)
    with pytest.raises(ProofLengthError):
        verify_consistency(3, 8, [], r3, r8)
    with pytest.raises(ProofLengthError):
        verify_consistency(3, 8, [*proof, r8], r3, r8)
    with pytest.raises(ProofLengthError):
        verify_consistency(8, 8, [r8], r8, r8)
    with pytest.raises(RootMismatchError):
        verify_consistency(3, 8, proof, tree.root(4), r8)
    verify_consistency(3, 8, proof, r3, r8)


def _leaves(n: int, salt: bytes) -> list[bytes]:
    return [salt + i.to_bytes(4, "big") for i in range(n)]


def _flip(h: bytes, bit: int) -> bytes:
    bit %= len(h) * 8
    return h[: bit // 8] + bytes([h[bit // 8] ^ (1 << bit % 8)]) + h[bit // 8 + 1 :]


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 300), salt=st.binary(max_size=4))
@example(n=1, salt=b"")
@example(n=256, salt=b"")
@example(n=300, salt=b"")
def test_every_inclusion_proof_verifies_and_matches_naive(n: int, salt: bytes) -> None:
    leaves = _leaves(n, salt)
    tree = MerkleTree()
    for leaf in leaves:
        tree.append(leaf)
    root = tree.root()
    assert root == naive.mth(leaves)
    for i in range(n):
        proof = tree.inclusion_proof(i, n)
        assert proof == naive.path(i, leaves)
        verify_inclusion(leaf_hash(leaves[i]), i, n, proof, root)


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 300), salt=st.binary(max_size=4))
@example(n=1, salt=b"")
@example(n=256, salt=b"")
@example(n=300, salt=b"")
def test_every_consistency_proof_verifies_and_matches_naive(n: int, salt: bytes) -> None:
    leaves = _leaves(n, salt)
    tree = MerkleTree.from_leaf_hashes(leaf_hash(leaf) for leaf in leaves)
    for m in range(1, n + 1):
        proof = tree.consistency_proof(m, n)
        assert proof == naive.proof(m, leaves)
        verify_consistency(m, n, proof, tree.root(m), tree.root())


@settings(max_examples=40, deadline=None)
@given(data=st.data(), n=st.integers(1, 300))
def test_past_sizes_match_naive(data: st.DataObject, n: int) -> None:
    leaves = _leaves(n, b"p")
    tree = MerkleTree.from_leaf_hashes(leaf_hash(leaf) for leaf in leaves)
    size2 = data.draw(st.integers(1, n))
    size1 = data.draw(st.integers(1, size2))
    index = data.draw(st.integers(0, size2 - 1))
    assert tree.root(size2) == naive.mth(leaves[:size2])
    assert tree.inclusion_proof(index, size2) == naive.path(index, leaves[:size2])
    assert tree.consistency_proof(size1, size2) == naive.proof(size1, leaves[:size2])


@settings(max_examples=60, deadline=None)
@given(data=st.data(), n=st.integers(1, 300), bit=st.integers(0, 255))
def test_flipped_bit_in_inclusion_proof_or_root_is_rejected(
    data: st.DataObject, n: int, bit: int
) -> None:
    leaves = _leaves(n, b"f")
    tree = MerkleTree.from_leaf_hashes(leaf_hash(leaf) for leaf in leaves)
    index = data.draw(st.integers(0, n - 1))
    leaf, proof, root = leaf_hash(leaves[index]), tree.inclusion_proof(index, n), tree.root()
    with pytest.raises(InvalidProofError):
        verify_inclusion(leaf, index, n, proof, _flip(root, bit))
    with pytest.raises(InvalidProofError):
        verify_inclusion(_flip(leaf, bit), index, n, proof, root)
    for j in range(len(proof)):
        bad = [*proof[:j], _flip(proof[j], bit), *proof[j + 1 :]]
        with pytest.raises(InvalidProofError):
            verify_inclusion(leaf, index, n, bad, root)


@settings(max_examples=60, deadline=None)
@given(data=st.data(), n=st.integers(1, 300), bit=st.integers(0, 255))
def test_flipped_bit_in_consistency_proof_or_roots_is_rejected(
    data: st.DataObject, n: int, bit: int
) -> None:
    tree = MerkleTree.from_leaf_hashes(leaf_hash(leaf) for leaf in _leaves(n, b"c"))
    m = data.draw(st.integers(1, n))
    proof, root1, root2 = tree.consistency_proof(m, n), tree.root(m), tree.root()
    with pytest.raises(InvalidProofError):
        verify_consistency(m, n, proof, _flip(root1, bit), root2)
    with pytest.raises(InvalidProofError):
        verify_consistency(m, n, proof, root1, _flip(root2, bit))
    for j in range(len(proof)):
        bad = [*proof[:j], _flip(proof[j], bit), *proof[j + 1 :]]
        with pytest.raises(InvalidProofError):
            verify_consistency(m, n, bad, root1, root2)


def test_hundred_thousand_leaves_match_naive_root() -> None:
    leaves = _leaves(100_003, b"")
    tree = MerkleTree.from_leaf_hashes(leaf_hash(leaf) for leaf in leaves)
    assert tree.root() == naive.mth(leaves)
    assert tree.root(65_537) == naive.mth(leaves[:65_537])


@pytest.mark.slow
def test_million_leaves() -> None:
    tree = MerkleTree()
    for i in range(1_000_000):
        tree.append(i.to_bytes(4, "big"))
    for size in (1_000_000, 999_999, 524_288, 524_289):
        root = tree.root(size)
        for index in (0, 1, size // 2, size - 1):
            leaf = leaf_hash(index.to_bytes(4, "big"))
            verify_inclusion(leaf, index, size, tree.inclusion_proof(index, size), root)
        for size1 in (1, 3, 4, 262_144, size - 1, size):
            proof = tree.consistency_proof(size1, size)
            assert len(proof) <= 2 * 20
            verify_consistency(size1, size, proof, tree.root(size1), root)
