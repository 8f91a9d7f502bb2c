"""The log as C2SP tlog-tiles (SPEC 10.6), at the site's root: ``/checkpoint``, the tiles of
hashes and the entry bundles, each a static resource a cache may keep (tiles for good: a
tile's bytes never change, a partial one's included, since its width is in its path)."""

from typing import Any

from flask import Response
from flask_smorest import Blueprint

from fairdeal.tiles import ENTRIES, Tile, TilePathError, parse_tile_path

from ..service.errors import NotFoundError
from .current import service
from .openapi import PUBLIC, documented

IMMUTABLE = "public, max-age=31536000, immutable"
MUTABLE = "no-cache"  # the checkpoint grows with the log: a cache must ask again each time

tiles = Blueprint("tiles", __name__, description="The transparency log as C2SP tlog-tiles")

_INDEX = {
    "in": "path",
    "name": "index",
    "description": "the tile's number N in 3-digit path elements, all but the last prefixed "
    "with x (1234067: x001/x234/067), then .p/<W> for a partial tile of W (1..255) entries",
    "schema": {"type": "string", "pattern": r"^(x[0-9]{3}/)*[0-9]{3}(\.p/[1-9][0-9]{0,2})?$"},
}
_LEVEL = {
    "in": "path",
    "name": "level",
    "description": "the tile's level L, 0..63 in decimal without leading zeroes",
    "schema": {"type": "string", "pattern": "^(0|[1-9][0-9]?)$"},
}
_BYTES: dict[str, Any] = {"type": "string", "format": "binary"}


@tiles.route("/checkpoint", methods=["GET"])
@tiles.response(200, {"type": "string"}, content_type="text/plain")
@documented(tiles, PUBLIC)
def get_checkpoint_note() -> Response:
    """The latest signed checkpoint, as the signed note's text (UTF-8).

    The ``note`` of /v1/log/checkpoint; not to be cached (Cache-Control: no-cache)."""
    note = service().published.checkpoint()["note"]
    return Response(note, content_type="text/plain; charset=utf-8", headers=_cache(MUTABLE))


@tiles.route("/tile/entries/<path:index>", methods=["GET"], parameters=[_INDEX])
@tiles.response(200, _BYTES, content_type="application/octet-stream")
@documented(tiles, PUBLIC, 404)
def get_entry_bundle(index: str) -> Response:
    """An entry bundle: the data of the leaves of level 0's tile of the same N and W.

    Each leaf's data (its 32-byte head) as a big-endian uint16 length and the bytes. 404
    beyond the log, or for a path in any other spelling; cached for good."""
    return _immutable(service().published.entry_bundle(_tile(f"{ENTRIES}/{index}")))


@tiles.route("/tile/<level>/<path:index>", methods=["GET"], parameters=[_LEVEL, _INDEX])
@tiles.response(200, _BYTES, content_type="application/octet-stream")
@documented(tiles, PUBLIC, 404)
def get_tile(level: str, index: str) -> Response:
    """A tile: 256 hashes (8,192 bytes) of level L of the tree, or the first W of them.

    404 beyond the log, or for a path in any other spelling; cached for good."""
    return _immutable(service().published.tile(_tile(f"{level}/{index}")))


def _tile(path: str) -> Tile:
    try:
        return parse_tile_path(path)
    except TilePathError as e:
        raise NotFoundError(str(e)) from e


def _immutable(data: bytes) -> Response:
    return Response(data, content_type="application/octet-stream", headers=_cache(IMMUTABLE))


def _cache(control: str) -> dict[str, str]:
    return {"Cache-Control": control}
