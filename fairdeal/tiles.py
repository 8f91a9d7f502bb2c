"""The C2SP tlog-tiles encoding of the Merkle log (SPEC 10.6): tile paths, the hashes a tile
holds, and entry bundles.

Tiles have height 8: the tile at level ``L`` number ``N`` holds, for i in 0..255, the hash of
the full subtree of 256**L leaves that starts at leaf (N * 256 + i) * 256**L. A tile of fewer
than 256 hashes is partial, named ``.p/<W>`` by its width. Paths are strict: a path has
exactly one spelling, so a cache never holds one tile under two names.
"""

import re
from collections.abc import Sequence
from dataclasses import dataclass

from fairdeal.errors import FairdealError
from fairdeal.merkle import MerkleTree

TILE_HEIGHT = 8
TILE_WIDTH = 1 << TILE_HEIGHT  # hashes (or entries) in a full tile
MAX_LEVEL = 63
ENTRIES = "entries"  # the level element of an entry bundle's path
MAX_ENTRY = 0xFFFF  # an entry's length is a big-endian uint16

_PATH_BASE = 1000  # N is written in 3-digit elements
# A log's size is a uint64, so N has at most 20 digits: 7 elements. A longer path names no
# tile of any log (and its number would be past Python's int-from-text digit limit).
_MOST_ELEMENTS = 7
_TILE_PATH = re.compile(
    r"(?P<level>entries|0|[1-9][0-9]?)/"
    rf"(?P<index>(?:x[0-9]{{3}}/){{0,{_MOST_ELEMENTS - 1}}}[0-9]{{3}})"
    r"(?:\.p/(?P<width>[1-9][0-9]{0,2}))?"
)


class TileError(FairdealError):
    """Tile data or a tile path that fails a check."""


class TilePathError(TileError):
    """A path that names no tile: not in the one spelling tlog-tiles gives each tile."""


class EntryBundleError(TileError):
    """An entry bundle that does not decode: a length running past its end."""


@dataclass(frozen=True)
class Tile:
    """A tile of hashes at ``level`` (None: the entry bundle beside level 0's tile ``index``),
    ``width`` hashes or entries wide (``TILE_WIDTH``: a full tile)."""

    level: int | None
    index: int
    width: int = TILE_WIDTH

    def __post_init__(self) -> None:
        if self.level is not None and not 0 <= self.level <= MAX_LEVEL:
            raise ValueError(f"a tile's level is 0..{MAX_LEVEL}, not {self.level}")
        if self.index < 0 or not 1 <= self.width <= TILE_WIDTH:
            raise ValueError(f"no tile number {self.index} of width {self.width}")

    @property
    def path(self) -> str:
        """The path below the log's prefix: ``tile/<L>/<N>[.p/<W>]`` or
        ``tile/entries/<N>[.p/<W>]``."""
        level = ENTRIES if self.level is None else str(self.level)
        partial = "" if self.width == TILE_WIDTH else f".p/{self.width}"
        return f"tile/{level}/{_index_path(self.index)}{partial}"

    @property
    def first_leaf(self) -> int:
        """The first leaf the tile covers."""
        return self.index * TILE_WIDTH << (TILE_HEIGHT * (self.level or 0))


def _index_path(index: int) -> str:
    """N as 3-digit path elements, all but the last prefixed with x: 1234067 -> x001/x234/067."""
    elements = [f"{index % _PATH_BASE:03d}"]
    while index >= _PATH_BASE:
        index //= _PATH_BASE
        elements.append(f"x{index % _PATH_BASE:03d}")
    return "/".join(reversed(elements))


def parse_tile_path(path: str) -> Tile:
    """The tile a path below ``tile/`` names (``<L>/<N>[.p/<W>]`` or ``entries/<N>[.p/<W>]``)."""
    match = _TILE_PATH.fullmatch(path)
    if match is None:
        raise TilePathError(f"{path!r} is not a tile path")
    level_text, index_text, width_text = match.group("level", "index", "width")
    level = None if level_text == ENTRIES else int(level_text)
    index = int(index_text.replace("x", "").replace("/", ""))
    width = TILE_WIDTH if width_text is None else int(width_text)
    if level is not None and level > MAX_LEVEL:
        raise TilePathError(f"{path!r} names a level over {MAX_LEVEL}")
    if width_text is not None and width >= TILE_WIDTH:
        raise TilePathError(f"{path!r} names a partial tile of {width}: a full one has no .p/")
    tile = Tile(level, index, width)
    if tile.path != f"tile/{path}":  # a leading x000/ element: another spelling of N
        raise TilePathError(f"{path!r} is not the tile path of {tile.path!r}")
    return tile


def available_width(level: int, index: int, size: int) -> int:
    """How many hashes tile ``index`` at ``level`` has in a tree of ``size`` leaves (0: none
    yet; ``TILE_WIDTH``: full). Entry bundles are as wide as level 0's tiles."""
    hashes_at_level = size >> (TILE_HEIGHT * level)
    return max(0, min(TILE_WIDTH, hashes_at_level - index * TILE_WIDTH))


def tile_hashes(tree: MerkleTree, tile: Tile) -> bytes:
    """The tile's hashes back to back, from a tree that has them all (``available_width``)."""
    assert tile.level is not None, "an entry bundle holds entries, not hashes"
    height = TILE_HEIGHT * tile.level
    first = tile.index * TILE_WIDTH
    return b"".join(tree.subtree_hash(height, first + i) for i in range(tile.width))


def encode_entry_bundle(entries: Sequence[bytes]) -> bytes:
    """Each entry as a big-endian uint16 length and its bytes, back to back."""
    for entry in entries:
        if len(entry) > MAX_ENTRY:
            raise ValueError(f"an entry is at most {MAX_ENTRY} bytes, not {len(entry)}")
    return b"".join(len(entry).to_bytes(2, "big") + entry for entry in entries)


def decode_entry_bundle(data: bytes) -> list[bytes]:
    """The entries of a bundle, in order."""
    entries, at = [], 0
    while at < len(data):
        length = int.from_bytes(data[at : at + 2], "big")
        end = at + 2 + length
        if at + 2 > len(data) or end > len(data):
            raise EntryBundleError(f"the entry at byte {at} runs past the bundle's end")
        entries.append(data[at + 2 : end])
        at = end
    return entries
