"""The tlog-tiles encoding (fairdeal.tiles): paths both ways, tiles equal to the RFC 9162
definitions computed naively, widths around tile boundaries, and entry bundles."""

import hashlib
from functools import cache

import pytest

from fairdeal.merkle import MerkleTree, TreeRangeError, leaf_hash
from fairdeal.tiles import (
    TILE_WIDTH,
    EntryBundleError,
    Tile,
    TilePathError,
    available_width,
    decode_entry_bundle,
    encode_entry_bundle,
    parse_tile_path,
    tile_hashes,
)
from tests import merkle_naive as naive
from tests.tile_reading import root_from_tiles

SIZES = [0, 1, 255, 256, 257, 65535, 65536, 65537, 70000]
LEAVES = [hashlib.sha256(i.to_bytes(4, "big")).digest() for i in range(max(SIZES))]


@pytest.fixture(scope="module")
def big_tree() -> MerkleTree:
    return MerkleTree.from_leaf_hashes(leaf_hash(data) for data in LEAVES)


@cache
def naive_hash(height: int, number: int) -> bytes:
    """MTH(D[number * 2**height : (number + 1) * 2**height]), by the RFC's recursion."""
    return naive.mth(LEAVES[number << height : (number + 1) << height])


# Paths


@pytest.mark.parametrize(
    ("tile", "path"),
    [
        (Tile(0, 0), "tile/0/000"),
        (Tile(0, 1234067), "tile/0/x001/x234/067"),
        (Tile(4, 1234067, 1), "tile/4/x001/x234/067.p/1"),
        (Tile(63, 999, 255), "tile/63/999.p/255"),
        (Tile(1, 1000), "tile/1/x001/000"),
        (Tile(None, 5), "tile/entries/005"),
        (Tile(None, 1234067, 112), "tile/entries/x001/x234/067.p/112"),
        (Tile(0, 2**64 // 256 - 1), "tile/0/x072/x057/x594/x037/x927/935"),
        (Tile(0, 10**21 - 1), "tile/0/x999/x999/x999/x999/x999/x999/999"),
        (Tile(2, 10**9), "tile/2/x001/x000/x000/000"),
    ],
    ids=lambda value: value if isinstance(value, str) else "",
)
def test_a_tile_has_one_path_and_the_path_names_it(tile: Tile, path: str) -> None:
    assert tile.path == path
    assert parse_tile_path(path.removeprefix("tile/")) == tile


@pytest.mark.parametrize(
    "path",
    [
        pytest.param("00/000", id="a level with a leading zero"),
        pytest.param("64/000", id="a level over 63"),
        pytest.param("-1/000", id="a negative level"),
        pytest.param("data/000", id="Go's name for entries"),
        pytest.param("0/1", id="an element of fewer than 3 digits"),
        pytest.param("0/0001", id="an element of more than 3 digits"),
        pytest.param("0/001/234", id="a leading element without its x"),
        pytest.param("0/x001", id="a last element with an x"),
        pytest.param("0/x000/067", id="a leading zero element: another spelling of 67"),
        pytest.param("0/x0a1/067", id="a non-digit"),
        pytest.param("0/٠٠١", id="digits of another script"),
        pytest.param("0/000.p/0", id="width 0"),
        pytest.param("0/000.p/256", id="a partial width of a full tile"),
        pytest.param("0/000.p/300", id="a width over 256"),
        pytest.param("0/000.p/01", id="a width with a leading zero"),
        pytest.param("0/000.p/", id="no width"),
        pytest.param("0/000.p", id="no width element"),
        pytest.param("0/000/", id="a trailing slash"),
        pytest.param("0/000\n", id="a trailing newline"),
        pytest.param("/0/000", id="a leading slash"),
        pytest.param("tile/0/000", id="the tile/ prefix itself"),
        pytest.param("0", id="no number"),
        pytest.param("entries/000.p/256", id="a bundle's partial width of a full one"),
        pytest.param("0/" + "x123/" * 7 + "000", id="8 elements: past any uint64 log"),
        pytest.param("0/" + "x123/" * 1500 + "000", id="4,503 digits: past Python's int limit"),
    ],
)
def test_every_other_spelling_is_refused(path: str) -> None:
    with pytest.raises(TilePathError):
        parse_tile_path(path)


# Widths and contents


def test_the_specs_example_of_70000_leaves() -> None:
    widths = {level: [available_width(level, n, 70000) for n in range(275)] for level in range(4)}
    assert widths[0][:273] == [TILE_WIDTH] * 273
    assert widths[0][273:] == [112, 0]
    assert widths[1][:3] == [TILE_WIDTH, 17, 0]
    assert widths[2][:2] == [1, 0]
    assert widths[3][0] == 0


@pytest.mark.parametrize("size", SIZES)
def test_every_tile_is_the_rfcs_subtree_hashes(big_tree: MerkleTree, size: int) -> None:
    tree = MerkleTree.from_leaf_hashes(big_tree.leaf_hash(i) for i in range(size))
    for level in range(3):
        for number in range(size // TILE_WIDTH ** (level + 1) + 1):
            width = available_width(level, number, size)
            if width == 0:
                continue
            got = tile_hashes(tree, Tile(level, number, width))
            first = number * TILE_WIDTH
            expected = b"".join(naive_hash(8 * level, first + i) for i in range(width))
            assert got == expected, (size, level, number)
    assert available_width(3, 0, size) == 0


@pytest.mark.parametrize("size", SIZES)
def test_the_tiles_of_a_size_give_its_root(big_tree: MerkleTree, size: int) -> None:
    def read(level: int, number: int, width: int) -> bytes:
        assert 0 < width <= available_width(level, number, size)
        return tile_hashes(big_tree, Tile(level, number, width))

    assert root_from_tiles(read, size) == big_tree.root(size)


def test_a_partial_tile_is_the_prefix_of_the_tile_it_grows_into(big_tree: MerkleTree) -> None:
    full = tile_hashes(big_tree, Tile(1, 0))
    assert len(full) == 256 * 32
    for width in (1, 17, 255):
        assert tile_hashes(big_tree, Tile(1, 0, width)) == full[: 32 * width]


def test_a_tile_beyond_the_tree_is_refused() -> None:
    tree = MerkleTree.from_leaf_hashes(map(leaf_hash, LEAVES[:300]))
    assert available_width(0, 1, 300) == 44
    with pytest.raises(TreeRangeError):
        tile_hashes(tree, Tile(0, 1, 45))
    with pytest.raises(TreeRangeError):
        tile_hashes(tree, Tile(1, 0, 2))


def test_subtree_hashes_are_the_full_aligned_ones_only() -> None:
    tree = MerkleTree.from_leaf_hashes(map(leaf_hash, LEAVES[:6]))
    assert tree.subtree_hash(1, 2) == naive.mth(LEAVES[4:6])
    assert tree.subtree_hash(2, 0) == naive.mth(LEAVES[:4])
    for level, index in [(2, 1), (3, 0), (0, 6), (-1, 0), (0, -1)]:
        with pytest.raises(TreeRangeError):
            tree.subtree_hash(level, index)


# Entry bundles


def test_an_entry_bundle_is_length_prefixed_entries() -> None:
    heads = LEAVES[:3]
    bundle = encode_entry_bundle(heads)
    assert bundle == b"".join(b"\x00\x20" + head for head in heads)
    assert decode_entry_bundle(bundle) == heads
    assert decode_entry_bundle(encode_entry_bundle([b"", b"x" * 0xFFFF])) == [b"", b"x" * 0xFFFF]
    assert decode_entry_bundle(b"") == []
    with pytest.raises(ValueError, match="at most 65535"):
        encode_entry_bundle([b"x" * 0x10000])


@pytest.mark.parametrize(
    "bundle",
    [
        pytest.param(b"\x00", id="half a length"),
        pytest.param(b"\x00\x20" + b"a" * 31, id="an entry cut short"),
        pytest.param(b"\x00\x01a\x00", id="a second length cut short"),
    ],
)
def test_a_truncated_bundle_is_refused(bundle: bytes) -> None:
    with pytest.raises(EntryBundleError):
        decode_entry_bundle(bundle)
