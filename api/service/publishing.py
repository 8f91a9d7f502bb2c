"""What the service publishes for anyone to check: events, bundles, the export, the
transparency log's checkpoints and proofs, and the keys.

Reads only, each in a read-only snapshot (``Store.reader``): no reader takes or waits for the
write lock, and each reads just the rows it answers with."""

from collections.abc import Callable, Iterator
from typing import Any

from fairdeal.bundle import LogEntry, make_bundle
from fairdeal.keys import public_key_pem
from fairdeal.protocol import TABLE_STATE
from fairdeal.tiles import Tile, available_width, encode_entry_bundle, tile_hashes

from ..storage import CheckpointRow, HeadRow, Reader, RoundRow, Store
from .config import Config
from .errors import ConflictError, NotFoundError, RoundNotFinishedError
from .keystore import Keys
from .transparency import TransparencyLog


class Publisher:
    def __init__(
        self,
        store: Store,
        keys: Keys,
        config: Config,
        log: TransparencyLog,
        clock: Callable[[], int],
    ) -> None:
        self.store, self.keys, self.config, self.log, self.clock = store, keys, config, log, clock

    def table_events(self, table_id: str, from_seq: int, limit: int) -> dict[str, Any]:
        """A page of the table's chain: at most ``limit`` events from ``from_seq`` on, and
        the seq the next page starts at (None when this page reaches the head)."""
        with self.store.reader() as txn:
            if txn.table_row(table_id) is None:
                raise NotFoundError(f"no table {table_id!r}")
            return _page(txn.events(table_id, from_seq, limit + 1), limit)

    def round_events(self, round_id: str, from_seq: int, limit: int) -> dict[str, Any]:
        """A page of the round's events, as ``table_events`` pages the table's."""
        with self.store.reader() as txn:
            row = known_round(txn, round_id)
            return _page(txn.round_events(row.table_id, round_id, from_seq, limit + 1), limit)

    def bundle(self, round_id: str) -> dict[str, Any]:
        with self.store.reader() as txn:
            return self._bundle(txn, self._round_head(txn, round_id))

    def table_bundle(self, table_id: str, seq: int | None) -> dict[str, Any]:
        """The bundle of a table's head at rest: at ``seq``, or the latest one (None)."""
        with self.store.reader() as txn:
            return self._bundle(txn, self._table_head(txn, table_id, seq))

    def export(
        self, since: int | None, until: int | None, table_id: str | None, from_leaf: int = 0
    ) -> Iterator[dict[str, Any]]:
        """Every leaf's bundle (rounds' and tables' heads) from the leaf ``from_leaf`` on,
        in log order, a page per short transaction."""
        after = from_leaf - 1
        while True:
            with self.store.reader() as txn:
                rows = txn.logged_heads(since, until, table_id, after, self.config.export_page)
                covering = rows[-1].leaf_index + 1 if rows else 0  # one choice for the page
                checkpoint = self.log.witnessed(txn, self.clock(), covering)
                bundles = [self._bundle(txn, row, checkpoint) for row in rows]
            yield from bundles
            if len(rows) < self.config.export_page:
                return
            after = rows[-1].leaf_index

    def checkpoint(self) -> dict[str, Any]:
        with self.store.reader() as txn:
            row = self.log.witnessed(txn, self.clock())
        return {"size": row.size, "root_hash": row.root_hash.hex(), "note": row.note}

    def inclusion(
        self, round_id: str | None, table_id: str | None, seq: int | None, size: int | None
    ) -> dict[str, Any]:
        """A round's head (``round_id``) or a table's head at ``seq``, proved in ``size``."""
        with self.store.reader() as txn:
            if round_id is not None:
                row = self._round_head(txn, round_id)
            else:
                assert table_id is not None and seq is not None  # the query schema's rule
                row = self._table_head(txn, table_id, seq)
            tree = self.log.tree(txn)
            size = tree.size if size is None else size
            if not row.leaf_index < size <= tree.size:
                raise ConflictError(f"size must be in {row.leaf_index + 1}..{tree.size}")
            proof = tree.inclusion_proof(row.leaf_index, size)
            return {
                "round_id": row.round_id,
                "table_id": row.table_id,
                "seq": row.seq,
                "leaf_index": row.leaf_index,
                "tree_size": size,
                "head_hash": row.head_hash.hex(),
                "root_hash": tree.root(size).hex(),
                "proof": [h.hex() for h in proof],
            }

    def consistency(self, first: int, second: int) -> dict[str, Any]:
        with self.store.reader() as txn:
            tree = self.log.tree(txn)
            if not 0 < first <= second <= tree.size:
                raise ConflictError(f"sizes must satisfy 0 < from <= to <= {tree.size}")
            proof = tree.consistency_proof(first, second)
            return {
                "from": first,
                "to": second,
                "from_root": tree.root(first).hex(),
                "to_root": tree.root(second).hex(),
                "proof": [h.hex() for h in proof],
            }

    def tile(self, tile: Tile) -> bytes:
        """A tile of the log's hashes (SPEC 10.6), as wide as asked if the tree has that many."""
        assert tile.level is not None, "an entry bundle is read by entry_bundle"
        with self.store.reader() as txn:
            tree = self.log.tree(txn)
            _check_within(tile, available_width(tile.level, tile.index, tree.size))
            return tile_hashes(tree.shared, tile)

    def entry_bundle(self, tile: Tile) -> bytes:
        """The leaves' data (their heads) beside level 0's tile of the same number and width."""
        with self.store.reader() as txn:
            _check_within(tile, available_width(0, tile.index, txn.log_size()))
            return encode_entry_bundle(
                txn.leaf_heads(tile.first_leaf, tile.first_leaf + tile.width)
            )

    def key_list(self) -> dict[str, Any]:
        current = self.keys.signer.key_id
        keys = [
            {
                "key_id": kid,
                "public_key_pem": public_key_pem(self.keys.key_set().public_key(kid)).decode(),
                "current": kid == current,
            }
            for kid in self.keys.key_set().ids()
        ]
        return {
            "keys": keys,
            "log": {"origin": self.log.origin, "verifier_key": self.log.verifier_key()},
            "development_key": self.keys.development,
        }

    def _round_head(self, txn: Reader, round_id: str) -> HeadRow:
        row = known_round(txn, round_id)
        if row.leaf_index is None or row.head_hash is None:
            raise RoundNotFinishedError(f"round {round_id!r} is not finished: not in the log yet")
        return HeadRow(row.leaf_index, row.table_id, round_id, None, row.head_hash)

    def _table_head(self, txn: Reader, table_id: str, seq: int | None) -> HeadRow:
        row = txn.table_head(table_id, seq)
        if row is None:
            at = "" if seq is None else f" at seq {seq}"
            raise NotFoundError(f"no head of table {table_id!r}{at} is in the log")
        return row

    def _bundle(
        self, txn: Reader, head: HeadRow, checkpoint: CheckpointRow | None = None
    ) -> dict[str, Any]:
        """The head's events from where the table's previous head left it, with the
        head's place in the log (SPEC 13.1) under ``checkpoint`` (by default the one
        the most witnesses cosigned of those that cover the head)."""
        events = txn.events_between(head.table_id, _first_seq(txn, head), _seq_of(txn, head))
        if checkpoint is None:
            checkpoint = self.log.witnessed(txn, self.clock(), head.leaf_index + 1)
        tree = self.log.tree(txn)
        assert checkpoint.size > head.leaf_index
        proof = tree.inclusion_proof(head.leaf_index, checkpoint.size)
        entry = LogEntry(
            origin=self.log.origin,
            verifier_key=self.log.verifier_key(),
            leaf_index=head.leaf_index,
            head_hash=head.head_hash.hex(),
            tree_size=checkpoint.size,
            inclusion_proof=tuple(h.hex() for h in proof),
            checkpoint=checkpoint.note,
        )
        keys = self.key_list()["keys"]
        return make_bundle(head.table_id, head.round_id, events, keys, entry)


def _page(events: list[dict[str, Any]], limit: int) -> dict[str, Any]:
    """A page of ``limit`` events out of ``limit + 1`` read, and where the next starts."""
    more = len(events) > limit
    next_seq = events[limit]["event"]["seq"] if more else None
    return {"events": events[:limit], "next_from_seq": next_seq}


def _check_within(tile: Tile, width: int) -> None:
    """A tile narrower than the tree has is that tile at an older size, which never changes."""
    if tile.width > width:
        have = f"{width} wide" if width else "not begun"
        raise NotFoundError(f"{tile.path} is beyond the log: that tile is {have}")


def _seq_of(txn: Reader, head: HeadRow) -> int:
    if head.round_id is None:
        assert head.seq is not None  # a table's head
        return head.seq
    last = txn.round_last_seq(head.table_id, head.round_id)
    assert last is not None  # a round in the log has its reveal
    return last


def _first_seq(txn: Reader, head: HeadRow) -> int:
    """Where a head's bundle starts: at the table_state logged right after the table's
    previous head, or at seq 0 (the table's first head, or a table that had no
    table_state yet)."""
    previous = txn.previous_head(head.table_id, head.leaf_index)
    after = _seq_of(txn, previous) + 1 if previous is not None else 0
    following = txn.events(head.table_id, after, 1)
    return after if following and following[0]["event"]["type"] == TABLE_STATE else 0


def known_round(txn: Reader, round_id: str) -> RoundRow:
    row = txn.get_round(round_id)
    if row is None:
        raise NotFoundError(f"no round {round_id!r}")
    return row
