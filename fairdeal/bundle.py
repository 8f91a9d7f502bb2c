"""The bundle: everything needed to verify one head of the transparency log offline.

A head is a finished round's ``round_revealed`` (the bundle names the round) or a
table's last event when the table is at rest, no round open (``round_id`` null). A
bundle holds the table's signed events up to and including the head, from the
``table_state`` logged right after the table's previous head (the table at rest, from
which balances, scores and the banker are replayed), or from ``table_created`` for a
table's first head and for heads logged before the table had any ``table_state``; then
the public keys, and the head's place in the transparency log: its leaf index, an
inclusion proof and the signed checkpoint (SPEC 13.1).
"""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

FORMAT = "fairdeal-bundle/2"
# The first format: events always from table_created (SPEC 13.1); still verified.
FORMATS = ("fairdeal-bundle/1", FORMAT)


@dataclass(frozen=True)
class LogEntry:
    origin: str
    verifier_key: str
    leaf_index: int
    head_hash: str
    tree_size: int
    inclusion_proof: tuple[str, ...]
    checkpoint: str

    def to_json(self) -> dict[str, Any]:
        return {
            "origin": self.origin,
            "verifier_key": self.verifier_key,
            "leaf_index": self.leaf_index,
            "head_hash": self.head_hash,
            "tree_size": self.tree_size,
            "inclusion_proof": list(self.inclusion_proof),
            "checkpoint": self.checkpoint,
        }


def make_bundle(
    table_id: str,
    round_id: str | None,
    events: Sequence[dict[str, Any]],
    keys: Sequence[dict[str, Any]],
    log: LogEntry,
) -> dict[str, Any]:
    """A bundle as JSON. ``keys`` are {key_id, public_key_pem, current} objects."""
    return {
        "format": FORMAT,
        "table_id": table_id,
        "round_id": round_id,
        "events": list(events),
        "keys": list(keys),
        "log": log.to_json(),
    }
