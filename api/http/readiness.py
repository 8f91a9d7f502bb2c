"""Readiness: the database answers a read, and the signing key signs what its public key
verifies. ``/readyz`` answers 200 with both, 503 ``not_ready`` naming what failed."""

from typing import Any

from cryptography.exceptions import InvalidSignature

from fairdeal import tags

from ..service.errors import NotReadyError
from ..service.service import Service
from ..storage import StorageError, first_line

PROBE = bytes(32)  # a hash's length of zeros: a probe, never an event's hash


def readiness(service: Service) -> dict[str, Any]:
    """The checks' results; raises ``NotReadyError`` (503) if one failed."""
    checks = {"database": _database(service), "signing_key": _signing_key(service)}
    failed = {name: result for name, result in checks.items() if result != "ok"}
    if failed:
        raise NotReadyError(f"not ready: {', '.join(sorted(failed))}", {"checks": checks})
    return {"status": "ok", "checks": checks, "key_id": service.keys.signer.key_id}


def _database(service: Service) -> str:
    try:
        with service.store.reader() as txn:
            txn.log_size()
    except StorageError as e:
        return f"unavailable: {first_line(e)}"
    return "ok"


def _signing_key(service: Service) -> str:
    signer = service.keys.signer
    try:
        signer.public_key.verify(signer.sign_hash(PROBE), tags.EVENT_SIGNATURE + PROBE)
    except InvalidSignature:
        return "unusable: a signature does not verify with its public key"
    return "ok"
