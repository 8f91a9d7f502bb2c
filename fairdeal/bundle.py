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

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from fairdeal.compact import NotCompactError, compact, expanded
from fairdeal.statements import BLIND

FORMAT = "fairdeal-bundle/2"
# The third: the second with its events written compactly (SPEC 13.1.1), for a dealer-blind
# table's rounds, whose shuffle steps make them five times larger than a committed round's.
COMPACT = "fairdeal-bundle/3"
# The first format: events always from table_created (SPEC 13.1); still verified.
FORMATS = ("fairdeal-bundle/1", FORMAT, COMPACT)


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
    *,
    compact_form: bool | None = None,
) -> dict[str, Any]:
    """A bundle as JSON. ``keys`` are {key_id, public_key_pem, current} objects. By default
    (``compact_form`` None) a dealer-blind table's bundle is written in the compact format
    where its events allow it, any other in the second; True: compact (or NotCompactError),
    False: the second format."""
    format_, written = FORMAT, list(events)
    blind = bool(written) and written[0]["event"]["version"] == BLIND
    if compact_form or (compact_form is None and blind):
        try:
            format_, written = COMPACT, compact(written)
        except NotCompactError:
            if compact_form:
                raise  # else not the service's own events: written as they are
    return {
        "format": format_,
        "table_id": table_id,
        "round_id": round_id,
        "events": written,
        "keys": list(keys),
        "log": log.to_json(),
    }


def signed_events(bundle: Mapping[str, Any]) -> list[Any]:
    """A bundle's events as signed events (5.3, as JSON): the compact format's turned back
    (13.1.1), the others' as they are. Nothing is checked here."""
    events = bundle["events"]
    return expanded(events) if bundle.get("format") == COMPACT else list(events)
