"""The deployment's transparency log: heads of finished rounds and of tables at rest, in an
RFC 9162 tree.

The tree lives in the database (one leaf hash a row); each process keeps a copy in
memory and reads only the leaves it has not seen. Transactions run side by side (on
PostgreSQL), so the copy may hold leaves another transaction has appended and not yet
committed: each transaction uses the tree only up to the size it sees itself.

A checkpoint is signed for every new size, when a head is appended (under the
log's lock), after checking it is consistent with the last one signed: no two
inconsistent checkpoints are ever signed, even if the database were edited behind the
service. Readers only read checkpoints; before the first round there is the empty
tree's, signed and not kept. Witnesses' cosignatures are kept beside the checkpoints they
cosign (cosigning.py collects them) and published in the checkpoint's note.
"""

import threading
from dataclasses import dataclass, replace

from fairdeal.cosignature import with_signatures
from fairdeal.keys import Signer
from fairdeal.merkle import MerkleTree, TreeRangeError, leaf_hash, verify_consistency
from fairdeal.note import Checkpoint, NoteSigner, sign_checkpoint

from ..storage import CheckpointRow, Reader, Transaction


@dataclass(frozen=True)
class LogTree:
    """The first ``size`` leaves of the shared tree: the log as one transaction sees it."""

    shared: MerkleTree
    size: int

    def root(self, size: int | None = None) -> bytes:
        return self.shared.root(self._within(size))

    def inclusion_proof(self, index: int, size: int) -> list[bytes]:
        return self.shared.inclusion_proof(index, self._within(size))

    def consistency_proof(self, first: int, second: int) -> list[bytes]:
        return self.shared.consistency_proof(first, self._within(second))

    def _within(self, size: int | None) -> int:
        if size is None:
            return self.size
        if not 0 <= size <= self.size:
            raise TreeRangeError(f"size {size} is outside the log of {self.size} leaves")
        return size


class TransparencyLog:
    def __init__(self, origin: str, signer: Signer) -> None:
        self.origin = origin
        self.note_signer = NoteSigner(origin, signer.private_key)
        self._tree = MerkleTree()
        self._lock = threading.Lock()

    def tree(self, txn: Reader) -> LogTree:
        """The tree as the transaction sees it (new leaves read, nothing else).

        A reader's snapshot may be older than the cached tree: it uses the cached tree's
        first leaves, which were committed before its snapshot was taken."""
        with self._lock:
            size = txn.log_size()
            if not self._agrees(txn, min(size, self._tree.size)):
                self._tree = MerkleTree()  # rolled-back appends: start again
            if size > self._tree.size:
                for hash_ in txn.leaf_hashes(self._tree.size, size):
                    self._tree.append_leaf_hash(hash_)
            return LogTree(self._tree, size)

    def _agrees(self, txn: Reader, size: int) -> bool:
        """The cached tree's leaf at ``size - 1`` is the stored one (not a rolled-back
        append's): leaves before it are then the stored ones too."""
        return size == 0 or txn.leaf_hashes(size - 1, size) == [self._tree.leaf_hash(size - 1)]

    def forget(self) -> None:
        """Drop the cached tree (after a failed transaction that appended to it)."""
        with self._lock:
            self._tree = MerkleTree()

    def append_head(
        self, txn: Transaction, head_hash: bytes, now: int, round_id: str | None = None
    ) -> int:
        """Add a head (a finished round's, or a table's at rest: ``round_id`` None) and sign
        the new checkpoint; return the leaf index."""
        index = txn.append_leaf(leaf_hash(head_hash), round_id)
        self.sign(txn, now)
        return index

    def latest(self, txn: Reader, now: int) -> CheckpointRow:
        """The latest checkpoint signed; before the first round, the empty tree's."""
        row = txn.latest_checkpoint()
        if row is not None:
            return row
        root = MerkleTree().root()
        return CheckpointRow(
            0, root, sign_checkpoint(Checkpoint(self.origin, 0, root), self.note_signer), now
        )

    def witnessed(self, txn: Reader, now: int, min_size: int = 0) -> CheckpointRow:
        """The checkpoint to publish (SPEC 13.3): of those of ``min_size`` leaves or more,
        the one the most witnesses cosigned (the largest of those), its note carrying their
        cosignatures; when none of them is cosigned, the latest."""
        size = txn.most_cosigned_size(min_size)
        row = txn.checkpoint(size) if size is not None else None
        if row is None:
            return self.latest(txn, now)
        return replace(row, note=with_signatures(row.note, txn.cosignature_lines(row.size)))

    def sign(self, txn: Transaction, now: int) -> CheckpointRow:
        """Sign the tree's new size; call with the log's lock held (after ``append_leaf``)."""
        tree = self.tree(txn)
        latest = txn.latest_checkpoint()
        if latest is not None and latest.size == tree.size:
            return latest
        root = tree.root()
        if latest is not None and latest.size > 0:  # every tree extends the empty one
            proof = tree.consistency_proof(latest.size, tree.size)
            verify_consistency(latest.size, tree.size, proof, latest.root_hash, root)
        note = sign_checkpoint(Checkpoint(self.origin, tree.size, root), self.note_signer)
        row = CheckpointRow(tree.size, root, note, now)
        txn.put_checkpoint(row)
        return row

    def verifier_key(self) -> str:
        return self.note_signer.verifier_key()
