"""The witness: its key, its store, the logs it trusts and its clock, around the core's
decision (``fairdeal.witnessing``)."""

import logging
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from fairdeal.cosignature import Cosigner
from fairdeal.note import NoteVerifier, b64encode
from fairdeal.witnessing import (
    AddCheckpoint,
    MisbehaviourError,
    TreeHead,
    check_add_checkpoint,
    parse_add_checkpoint,
    trusted_logs,
)

from .keyfile import load_cosigner
from .store import Cosigned, Refusal, WitnessStore

log = logging.getLogger("fairdeal.witness")


def posix_seconds() -> int:
    return int(time.time())


@dataclass(frozen=True)
class Witness:
    cosigner: Cosigner
    store: WitnessStore
    logs: Mapping[str, tuple[NoteVerifier, ...]]
    clock: Callable[[], int]

    @classmethod
    def open(
        cls,
        state_dir: Path,
        logs: Iterable[NoteVerifier],
        name: str | None = None,
        clock: Callable[[], int] = posix_seconds,
    ) -> "Witness":
        """The witness kept in ``state_dir`` (its key made there on first start)."""
        cosigner = load_cosigner(state_dir, name)
        return cls(cosigner, WitnessStore(state_dir), trusted_logs(logs), clock)

    def add_checkpoint(self, body: bytes) -> str:
        """The cosignature line of the checkpoint in the add-checkpoint ``body``, once the
        witness's record says it was cosigned; else the protocol's refusal."""
        request = parse_add_checkpoint(body)
        origin = request.checkpoint.origin
        try:
            record = self.store.advance(origin, partial(self._cosign, request))
        except MisbehaviourError as e:
            log.error("EVIDENCE: %s sent a signed checkpoint that is refused: %s", origin, e)
            self.store.keep_refusal(Refusal(origin, body, e.status, str(e), self.clock()))
            raise
        log.info("cosigned %s at size %d", origin, record.checkpoint.size)
        return record.cosignature

    def _cosign(self, request: AddCheckpoint, latest: TreeHead | None) -> Cosigned:
        checkpoint = check_add_checkpoint(request, self.logs, latest)
        now = self.clock()
        return Cosigned(checkpoint, request.note, self.cosigner.cosign(checkpoint.body(), now), now)

    def state(self) -> dict[str, Any]:
        """What an operator or a monitor may see: each log's latest cosigned checkpoint."""
        witnessed = self.store.witnessed()
        refusals = self.store.refusal_counts()
        return {
            "verifier_key": self.cosigner.verifier_key(),
            "logs": [
                _log_state(origin, witnessed.get(origin), refusals.get(origin, 0))
                for origin in sorted(self.logs)
            ],
        }


def _log_state(origin: str, latest: tuple[TreeHead, int] | None, refusals: int) -> dict[str, Any]:
    head, cosigned_at = latest or (None, None)
    return {
        "origin": origin,
        "size": head and head.size,
        "root_hash": head and b64encode(head.root_hash),
        "cosigned_at": cosigned_at,
        "refusals": refusals,
    }
