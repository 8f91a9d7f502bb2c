"""The deployment's transparency log: finished rounds' head hashes in an RFC 9162 tree.

The tree lives in the database (one leaf hash a row); each process keeps a copy in
memory and reads only the leaves it has not seen. A checkpoint is signed for every new
size, after checking it is consistent with the last one signed: no two inconsistent
checkpoints are ever signed, even if the database were edited behind the service.
"""

import threading

from api.storage import CheckpointRow, Transaction
from fairdeal.keys import Signer
from fairdeal.merkle import MerkleTree, leaf_hash, verify_consistency
from fairdeal.note import Checkpoint, NoteSigner, sign_checkpoint


class TransparencyLog:
    def __init__(self, origin: str, signer: Signer) -> None:
        self.origin = origin
        self.note_signer = NoteSigner(origin, signer.private_key)
        self._tree = MerkleTree()
        self._lock = threading.Lock()

    def tree(self, txn: Transaction) -> MerkleTree:
        """The tree as the transaction sees it (new leaves read, nothing else)."""
        with self._lock:
            size = txn.log_size()
            if size < self._tree.size:  # a rolled-back append: start again from the rows
                self._tree = MerkleTree()
            for hash_ in txn.leaf_hashes(self._tree.size, size):
                self._tree.append_leaf_hash(hash_)
            return self._tree

    def forget(self) -> None:
        """Drop the cached tree (after a failed transaction that appended to it)."""
        with self._lock:
            self._tree = MerkleTree()

    def append_round(self, txn: Transaction, round_id: str, head_hash: bytes, now: int) -> int:
        """Add a finished round's head and sign the new checkpoint; return the leaf index."""
        index = txn.append_leaf(leaf_hash(head_hash), round_id)
        self.sign(txn, now)
        return index

    def sign(self, txn: Transaction, now: int) -> CheckpointRow:
        tree = self.tree(txn)
        latest = txn.latest_checkpoint()
        if latest is not None and latest.size == tree.size:
            return latest
        root = tree.root()
        if latest is not None:
            proof = tree.consistency_proof(latest.size, tree.size)
            verify_consistency(latest.size, tree.size, proof, latest.root_hash, root)
        note = sign_checkpoint(Checkpoint(self.origin, tree.size, root), self.note_signer)
        row = CheckpointRow(tree.size, root, note, now)
        txn.put_checkpoint(row)
        return row

    def verifier_key(self) -> str:
        return self.note_signer.verifier_key()
