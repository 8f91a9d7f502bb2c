"""fairdeal.witnessing alone: the request's format and parse, the witness's decision on real
Merkle trees, and the strict parsers of a witness's answers."""

import base64
import hashlib

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given, settings
from hypothesis import strategies as st

from fairdeal.merkle import EMPTY_ROOT, MerkleTree
from fairdeal.note import Checkpoint, NoteSigner, sign_checkpoint
from fairdeal.witnessing import (
    AddCheckpoint,
    ConflictingRootError,
    InconsistentTreeError,
    MalformedRequestError,
    MalformedResponseError,
    NotTheEmptyRootError,
    StaleOldSizeError,
    TreeHead,
    check_add_checkpoint,
    format_add_checkpoint,
    parse_add_checkpoint,
    parse_cosignature_lines,
    parse_tlog_size,
    trusted_logs,
)

ORIGIN = "example.com/behind-the-sofa"
SIGNER = NoteSigner(ORIGIN, Ed25519PrivateKey.from_private_bytes(bytes(range(32))))
TRUSTED = trusted_logs([SIGNER.verifier])


def tree_of(size: int, salt: bytes = b"") -> MerkleTree:
    return MerkleTree.from_leaf_hashes(
        hashlib.sha256(salt + i.to_bytes(4, "big")).digest() for i in range(size)
    )


def note_of(tree: MerkleTree, size: int) -> str:
    return sign_checkpoint(Checkpoint(ORIGIN, size, tree.root(size)), SIGNER)


def request(old: int, proof: list[bytes], note: str) -> AddCheckpoint:
    return parse_add_checkpoint(format_add_checkpoint(old, proof, note))


def test_a_request_s_body_is_the_protocol_s_lines_and_parses_back() -> None:
    tree = tree_of(7)
    proof = tree.consistency_proof(3, 7)
    note = note_of(tree, 7)
    body = format_add_checkpoint(3, proof, note)
    assert body.decode().split("\n")[: len(proof) + 2] == [
        "old 3",
        *(base64.b64encode(h).decode() for h in proof),
        "",
    ]
    parsed = parse_add_checkpoint(body)
    assert (parsed.old_size, parsed.proof, parsed.note) == (3, tuple(proof), note)
    assert parsed.checkpoint == Checkpoint(ORIGIN, 7, tree.root())


@pytest.mark.parametrize(
    ("old", "proof"),
    [(-1, []), (0, [bytes(31)]), (0, [bytes(32)] * 64)],
    ids=["a negative old size", "a hash of 31 bytes", "64 hashes"],
)
def test_a_request_a_witness_would_refuse_is_not_formatted(old: int, proof: list[bytes]) -> None:
    with pytest.raises(ValueError):
        format_add_checkpoint(old, proof, note_of(tree_of(2), 2))


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_a_correct_proof_is_accepted_and_any_flipped_bit_refused(data: st.DataObject) -> None:
    n = data.draw(st.integers(2, 200), label="n")
    m = data.draw(st.integers(1, n - 1), label="m")
    tree = tree_of(n)
    proof = tree.consistency_proof(m, n)
    latest = TreeHead(m, tree.root(m))
    good = request(m, proof, note_of(tree, n))
    assert check_add_checkpoint(good, TRUSTED, latest) == good.checkpoint
    where = data.draw(st.sampled_from(["proof", "old root"]), label="where")
    bit = data.draw(st.integers(0, 255), label="bit")
    if where == "proof":
        i = data.draw(st.integers(0, len(proof) - 1), label="hash")
        spoiled = [*proof]
        spoiled[i] = _flip(spoiled[i], bit)
        bad, against = request(m, spoiled, note_of(tree, n)), latest
    else:
        bad, against = good, TreeHead(m, _flip(latest.root_hash, bit))
    with pytest.raises(InconsistentTreeError):
        check_add_checkpoint(bad, TRUSTED, against)


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 100), st.integers(0, 255))
def test_a_flipped_bit_in_the_new_root_is_refused(n: int, bit: int) -> None:
    tree = tree_of(n + 1)
    latest = TreeHead(n, tree.root(n))
    checkpoint = Checkpoint(ORIGIN, n + 1, _flip(tree.root(), bit))
    note = sign_checkpoint(checkpoint, SIGNER)
    with pytest.raises(InconsistentTreeError):
        check_add_checkpoint(request(n, tree.consistency_proof(n, n + 1), note), TRUSTED, latest)


def _flip(digest: bytes, bit: int) -> bytes:
    spoiled = bytearray(digest)
    spoiled[bit // 8] ^= 1 << bit % 8
    return bytes(spoiled)


def test_the_same_size_with_another_root_is_a_fork_422_as_the_current_text_says() -> None:
    tree, fork = tree_of(4), tree_of(4, salt=b"f")
    with pytest.raises(ConflictingRootError) as found:
        check_add_checkpoint(request(4, [], note_of(fork, 4)), TRUSTED, TreeHead(4, tree.root()))
    assert found.value.status == 422 and "another root" in str(found.value)


@pytest.mark.parametrize("cosigned", [None, TreeHead(0, EMPTY_ROOT)], ids=["first", "again"])
def test_a_size_0_checkpoint_must_carry_the_empty_trees_root(cosigned: TreeHead | None) -> None:
    empty = Checkpoint(ORIGIN, 0, EMPTY_ROOT)
    assert check_add_checkpoint(request(0, [], sign_checkpoint(empty, SIGNER)), TRUSTED, cosigned)
    other = Checkpoint(ORIGIN, 0, tree_of(1).root())
    with pytest.raises(NotTheEmptyRootError) as found:
        check_add_checkpoint(request(0, [], sign_checkpoint(other, SIGNER)), TRUSTED, cosigned)
    assert found.value.status == 422


def test_a_stale_old_size_carries_the_cosigned_size() -> None:
    tree = tree_of(9)
    with pytest.raises(StaleOldSizeError) as found:
        check_add_checkpoint(request(0, [], note_of(tree, 9)), TRUSTED, TreeHead(5, tree.root(5)))
    assert (found.value.status, found.value.latest_size) == (409, 5)


@pytest.mark.parametrize(
    "body",
    [b"old 0\n", b"old 0\n\n", b"old\n\nx", b"old 01\n\n" + note_of(tree_of(1), 1).encode()],
    ids=["no empty line", "no note", "no size", "a size with a leading zero"],
)
def test_a_malformed_request_is_refused(body: bytes) -> None:
    with pytest.raises(MalformedRequestError):
        parse_add_checkpoint(body)


def test_a_409_s_body_is_one_canonical_size_and_a_newline() -> None:
    assert parse_tlog_size("0\n") == 0
    assert parse_tlog_size("18446744073709551615\n") == 2**64 - 1
    for text in ("5", "05\n", "5\n\n", " 5\n", "18446744073709551616\n", "-1\n", ""):
        with pytest.raises(MalformedResponseError):
            parse_tlog_size(text)


def test_a_200_s_body_is_signature_lines_each_kept_with_its_newline() -> None:
    note = note_of(tree_of(1), 1)
    line = note.rsplit("\n\n", 1)[1]
    assert parse_cosignature_lines(line + line) == [line, line]
    for text in ("", "\n", line[:-1], line + "\n", "- " + line[2:], line + "hello\n"):
        with pytest.raises(MalformedResponseError):
            parse_cosignature_lines(text)
