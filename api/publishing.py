"""What the service publishes for anyone to check: events, bundles, the export, the
transparency log's checkpoints and proofs, and the keys. Reads only."""

from collections.abc import Callable, Iterator
from typing import Any

from api.config import Config
from api.errors import ConflictError, NotFoundError, RoundNotFinishedError
from api.keystore import Keys
from api.storage import RoundRow, Store, Transaction
from api.transparency import TransparencyLog
from fairdeal.bundle import LogEntry, make_bundle
from fairdeal.keys import public_key_pem


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

    def table_events(self, table_id: str, from_seq: int) -> list[dict[str, Any]]:
        with self.store.transaction() as txn:
            if txn.lock_table(table_id) is None:
                raise NotFoundError(f"no table {table_id!r}")
            return txn.events(table_id, from_seq)

    def round_events(self, round_id: str) -> list[dict[str, Any]]:
        row = self.round_row(round_id)
        with self.store.transaction() as txn:
            return txn.round_events(row.table_id, round_id)

    def bundle(self, round_id: str) -> dict[str, Any]:
        with self.store.transaction() as txn:
            return self._bundle(txn, round_id)

    def export(
        self, since: int | None, until: int | None, table_id: str | None
    ) -> Iterator[dict[str, Any]]:
        """Finished rounds' bundles in log order, a page per short transaction."""
        after = -1
        while True:
            with self.store.transaction() as txn:
                rows = txn.finished_rounds(since, until, table_id, after, self.config.export_page)
                bundles = [self._bundle(txn, row.round_id) for row in rows]
            yield from bundles
            if len(rows) < self.config.export_page:
                return
            after = rows[-1].leaf_index or 0

    def checkpoint(self) -> dict[str, Any]:
        with self.store.transaction() as txn:
            row = self.log.latest(txn, self.clock())
        return {"size": row.size, "root_hash": row.root_hash.hex(), "note": row.note}

    def inclusion(self, round_id: str, size: int | None) -> dict[str, Any]:
        with self.store.transaction() as txn:
            row = txn.get_round(round_id)
            if row is None:
                raise NotFoundError(f"no round {round_id!r}")
            if row.leaf_index is None:
                raise RoundNotFinishedError(f"round {round_id!r} is not in the log")
            tree = self.log.tree(txn)
            size = tree.size if size is None else size
            if not row.leaf_index < size <= tree.size:
                raise ConflictError(f"size must be in {row.leaf_index + 1}..{tree.size}")
            proof = tree.inclusion_proof(row.leaf_index, size)
            return {
                "round_id": round_id,
                "leaf_index": row.leaf_index,
                "tree_size": size,
                "head_hash": (row.head_hash or b"").hex(),
                "root_hash": tree.root(size).hex(),
                "proof": [h.hex() for h in proof],
            }

    def consistency(self, first: int, second: int) -> dict[str, Any]:
        with self.store.transaction() as txn:
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

    def round_row(self, round_id: str) -> RoundRow:
        with self.store.transaction() as txn:
            row = txn.get_round(round_id)
        if row is None:
            raise NotFoundError(f"no round {round_id!r}")
        return row

    def _bundle(self, txn: Transaction, round_id: str) -> dict[str, Any]:
        row = txn.get_round(round_id)
        if row is None:
            raise NotFoundError(f"no round {round_id!r}")
        if row.leaf_index is None or row.head_hash is None:
            raise RoundNotFinishedError(
                f"round {round_id!r} is not finished: no bundle before the reveal"
            )
        last = txn.round_events(row.table_id, round_id)[-1]["event"]["seq"]
        events = txn.events(row.table_id)[: last + 1]
        checkpoint = txn.latest_checkpoint()  # read first: the tree is then at least as new
        tree = self.log.tree(txn)
        assert checkpoint is not None and checkpoint.size > row.leaf_index
        proof = tree.inclusion_proof(row.leaf_index, checkpoint.size)
        entry = LogEntry(
            origin=self.log.origin,
            verifier_key=self.log.verifier_key(),
            leaf_index=row.leaf_index,
            head_hash=row.head_hash.hex(),
            tree_size=checkpoint.size,
            inclusion_proof=tuple(h.hex() for h in proof),
            checkpoint=checkpoint.note,
        )
        return make_bundle(row.table_id, round_id, events, self.key_list()["keys"], entry)
