"""The tiled read API (SPEC 10.6) over real HTTP: /checkpoint, tiles and entry bundles of a
log of more than 256 leaves recompute the signed root, each entry hashes to its level-0 tile
hash, the headers say what may be cached, and whatever is not in the log is 404."""

import base64
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from fairdeal.merkle import leaf_hash
from fairdeal.note import verify_checkpoint
from fairdeal.tiles import decode_entry_bundle
from tests.api.bots import error_of, log_verifier, raw, toto21_table
from tests.api.busy_log import SEATING, Leaf, fill_log, logged_leaves
from tests.api.conftest import Server, start_server, stop_server
from tests.tile_reading import root_from_tiles, width_in

IMMUTABLE = "public, max-age=31536000, immutable"
NOT_YET = "no-store"


@dataclass
class Log:
    url: str
    size: int
    root: bytes
    leaves: list[Leaf]


def tile_path(level: int | str, number: int, width: int) -> str:
    """Written out here, not by fairdeal.tiles: N in 3-digit elements, x before all but the
    last, and .p/W for a partial tile."""
    digits = f"{number:03d}"
    digits = "0" * (-len(digits) % 3) + digits
    elements = [digits[i : i + 3] for i in range(0, len(digits), 3)]
    number_path = "/".join([*(f"x{e}" for e in elements[:-1]), elements[-1]])
    return f"/tile/{level}/{number_path}" + ("" if width == 256 else f".p/{width}")


def read_tile(url: str, level: int | str, number: int, width: int) -> bytes:
    reply = raw(url, "GET", tile_path(level, number, width))
    assert reply.status == 200, reply.text
    assert reply.headers["Content-Type"] == "application/octet-stream"
    assert reply.headers["Cache-Control"] == IMMUTABLE
    return reply.body


@pytest.fixture(scope="module")
def log(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Log]:
    """Two rounds of each game, then enough tables seated for 300-odd leaves."""
    running, http = start_server(tmp_path_factory.mktemp("tiles"))
    try:
        fill_log(running.url, rounds=2, seated_tables=95)
        reply = raw(running.url, "GET", "/checkpoint")
        assert reply.status == 200, reply.text
        checkpoint = verify_checkpoint(reply.text, log_verifier(running.url), "test.fairdeal/log")
        yield Log(running.url, checkpoint.size, checkpoint.root_hash, logged_leaves(running.url))
    finally:
        stop_server(running, http)


def test_the_log_crosses_a_tile_boundary(log: Log) -> None:
    assert 256 < log.size == len(log.leaves) < 512


def test_checkpoint_is_the_signed_note_as_text_never_cached(log: Log) -> None:
    reply = raw(log.url, "GET", "/checkpoint")
    assert reply.status == 200
    assert reply.headers["Content-Type"] == "text/plain; charset=utf-8"
    assert reply.headers["Cache-Control"] == "no-cache"
    assert reply.text == raw(log.url, "GET", "/v1/log/checkpoint").json["note"]
    assert reply.text.splitlines()[1:3] == [str(log.size), base64.b64encode(log.root).decode()]


def test_the_tiles_recompute_the_checkpoints_root(log: Log) -> None:
    fetched: list[str] = []

    def read(level: int, number: int, width: int) -> bytes:
        fetched.append(tile_path(level, number, width))
        return read_tile(log.url, level, number, width)

    assert root_from_tiles(read, log.size) == log.root
    assert "/tile/1/000.p/1" in fetched  # the first 256 leaves, from level 1


def test_each_entry_is_its_leafs_head_and_hashes_to_its_level_0_tile_hash(log: Log) -> None:
    for number in range(2):
        width = width_in(0, number, log.size)
        hashes = read_tile(log.url, 0, number, width)
        entries = decode_entry_bundle(read_tile(log.url, "entries", number, width))
        assert [len(e) for e in entries] == [32] * width
        for i, entry in enumerate(entries):
            leaf = log.leaves[256 * number + i]
            assert entry.hex() == leaf.head_hash
            assert leaf_hash(entry) == hashes[32 * i : 32 * (i + 1)]


def test_a_narrower_tile_is_the_tile_at_an_older_size(log: Log) -> None:
    full = read_tile(log.url, 0, 0, 256)
    partial_width = width_in(0, 1, log.size)
    partial = read_tile(log.url, 0, 1, partial_width)
    for width in (1, 17, 255):
        assert read_tile(log.url, 0, 0, width) == full[: 32 * width]
        entries = read_tile(log.url, "entries", 0, width)
        assert (
            decode_entry_bundle(entries) == [bytes.fromhex(x.head_hash) for x in log.leaves][:width]
        )
    assert read_tile(log.url, 0, 1, 1) == partial[:32]


def test_tiles_past_the_tree_are_not_found(log: Log) -> None:
    partial_width = width_in(0, 1, log.size)
    for path in [
        tile_path(0, 1, 256),  # not full yet
        tile_path(0, 1, partial_width + 1),
        tile_path("entries", 1, 256),
        tile_path("entries", 1, partial_width + 1),
        tile_path(0, 2, 1),
        tile_path(1, 0, 2),
        tile_path(1, 1, 1),
        tile_path(2, 0, 1),
        tile_path(63, 0, 1),
        tile_path(0, 10**12, 1),
    ]:
        reply = raw(log.url, "GET", path)
        assert reply.status == 404, path
        assert error_of(reply)["code"] == "not_found"
        assert "beyond the log" in error_of(reply)["message"]
        # Not kept by a cache: the tile may exist a moment later.
        assert reply.headers.get("Cache-Control") == NOT_YET


@pytest.mark.parametrize(
    "path",
    [
        "/tile/00/000",
        "/tile/64/000.p/1",
        "/tile/0/0",
        "/tile/0/x000/000.p/1",
        "/tile/0/000/001",
        "/tile/0/x001",
        "/tile/0/000.p/0",
        "/tile/0/000.p/256",
        "/tile/0/000.p/01",
        "/tile/0/00a",
        "/tile/data/000.p/1",
        "/tile/entries/000.p/256",
        "/tile/0/000/",
        "/tile/8/0/000",
        "/tile/",
        "/tile/0/" + "x123/" * 1100 + "000",  # 4,403 digits: once a 500 and a traceback
        "/tile/entries/" + "x123/" * 1100 + "000",
    ],
)
def test_a_malformed_tile_path_is_not_found(log: Log, path: str) -> None:
    reply = raw(log.url, "GET", path)
    assert reply.status == 404, path
    assert error_of(reply)["code"] == "not_found"
    assert reply.headers.get("Cache-Control") == NOT_YET


def test_tiles_on_each_backend(any_server: Server) -> None:
    """A log of one seating (three leaves): a partial tile and bundle, on SQLite and
    PostgreSQL alike."""
    toto21_table(any_server.url, keyless=True)
    size = raw(any_server.url, "GET", "/v1/log/checkpoint").json["size"]
    assert size == SEATING
    hashes = read_tile(any_server.url, 0, 0, size)
    entries = decode_entry_bundle(read_tile(any_server.url, "entries", 0, size))
    assert b"".join(map(leaf_hash, entries)) == hashes
    assert [e.hex() for e in entries] == [x.head_hash for x in logged_leaves(any_server.url)]
    assert raw(any_server.url, "GET", tile_path(0, 0, size + 1)).status == 404


def test_before_the_first_leaf_there_is_no_tile(server: Server) -> None:
    reply = raw(server.url, "GET", "/checkpoint")
    assert reply.text.splitlines()[1] == "0"
    assert raw(server.url, "GET", tile_path(0, 0, 1)).status == 404
    assert raw(server.url, "GET", tile_path("entries", 0, 1)).status == 404
