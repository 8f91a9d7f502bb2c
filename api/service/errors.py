"""The service's errors: each a status, a stable code, a message and details.

Every error response has the same body: {"error": {"code", "message", "details"}}.
"""

from typing import Any

from fairdeal.errors import (
    FairdealError,
    GameError,
    SignatureReplayedError,
    SignatureStaleError,
)

from ..storage import CommitOutcomeUnknownError, StorageUnavailableError

RETRY_AFTER_S = 1  # what a 503 asks the client to wait before sending the request again


class ApiError(Exception):
    status = 400
    code = "bad_request"

    def __init__(self, message: str, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.details = details or {}

    def body(self) -> dict[str, Any]:
        return {"error": {"code": self.code, "message": self.message, "details": self.details}}

    def headers(self) -> dict[str, str]:
        return {}


class BadRequestError(ApiError):
    status, code = 400, "bad_request"


class InvalidInputError(ApiError):
    status, code = 422, "invalid_input"


class MalformedJsonError(BadRequestError):
    code = "malformed_json"


class UnauthorizedError(ApiError):
    status, code = 401, "token_missing"


class ForbiddenError(ApiError):
    status, code = 403, "token_invalid"


class OperatorOnlyError(ForbiddenError):
    code = "operator_only"


class NotFoundError(ApiError):
    status, code = 404, "not_found"


class ConflictError(ApiError):
    status, code = 409, "conflict"


class IdempotencyKeyReusedError(ConflictError):
    code = "idempotency_key_reused"


class RoundNotCurrentError(ConflictError):
    code = "round_not_current"


class RoundNotFinishedError(ConflictError):
    code = "round_not_finished"


class TableFullError(ConflictError):
    code = "table_full"


class OverLimitError(ApiError):
    status, code = 422, "over_limit"


class TooLargeError(ApiError):
    status, code = 413, "request_too_large"


class BlindUnavailableError(ApiError):
    """A dealer-blind table asked of a service without libsodium: its secrets (the server's
    round key and shares, its shuffle step) need constant-time group arithmetic (SPEC 15.13)."""

    status, code = 501, "blind_unavailable"


class DatabaseUnavailableError(ApiError):
    """The database cannot do the work for now: the same request may succeed later."""

    status, code = 503, "database_unavailable"

    def headers(self) -> dict[str, str]:
        return {"Retry-After": str(RETRY_AFTER_S)}


class RateLimitedError(ApiError):
    """Too many requests from one client for now: the same request may succeed later."""

    status, code = 429, "rate_limited"

    def __init__(
        self, message: str, details: dict[str, Any] | None = None, retry_after_s: int = 1
    ) -> None:
        super().__init__(message, details)
        self.retry_after_s = retry_after_s

    def headers(self) -> dict[str, str]:
        return {"Retry-After": str(self.retry_after_s)}


class NotReadyError(ApiError):
    """The service cannot serve yet (its database unreachable, its key not usable)."""

    status, code = 503, "not_ready"

    def headers(self) -> dict[str, str]:
        return {"Retry-After": str(RETRY_AFTER_S)}


class StatementReplayedError(SignatureReplayedError):
    """signature_replayed, with the seat's last ``n``: a client that lost count signs above it."""

    def __init__(self, seat: int, last_n: int) -> None:
        super().__init__(seat, last_n)  # both, so that it pickles
        self.details = {"seat": seat, "last_n": last_n}

    def __str__(self) -> str:
        seat, last_n = self.details["seat"], self.details["last_n"]
        return f"seat {seat}'s statements are numbered above {last_n}"


class StatementStaleError(SignatureStaleError):
    """signature_stale, with the table's ``head`` {seq, hash}: what a statement signed now
    names as the log its seat saw."""

    def __init__(self, message: str, head: dict[str, Any]) -> None:
        super().__init__(message, head)  # both, so that it pickles
        self.details = {"head": head}

    def __str__(self) -> str:
        return str(self.args[0])


# Game refusals: conflicts with the table's state are 409; amounts out of bounds and a seed
# that does not open its commitment are 422. A seat's command without the signature its key
# asks for, with one that does not verify, or with one where the seat has no key is 403:
# the bearer token says which seat sends it, the signature that the seat said it (SPEC 6.7).
# At a dealer-blind table (SPEC 15.13) a join without the key every seat needs, and a round
# key, shuffle step, decryption share or revealed key that fails its check are 422, as a seed
# that does not open its commitment.
_GAME_STATUS = {
    "invalid_options": 422,
    "over_limit": 422,
    "invalid_seed": 422,
    "commitment_mismatch": 422,
    "key_required": 422,
    "key_invalid": 422,
    "shuffle_invalid": 422,
    "share_invalid": 422,
    "key_mismatch": 422,
    "signature_missing": 403,
    "signature_invalid": 403,
    "signature_unexpected": 403,
}


def from_game(error: GameError) -> ApiError:
    details = None
    if isinstance(error, (StatementReplayedError, StatementStaleError)):
        details = error.details  # what the seat signs after, or above
    api_error = ApiError(str(error), details)
    api_error.status = _GAME_STATUS.get(error.code, 409)
    api_error.code = error.code
    return api_error


def from_unavailable(error: StorageUnavailableError) -> DatabaseUnavailableError:
    """A 503 that says whether the request may have been stored (the database was lost
    during its COMMIT) or surely was not."""
    if isinstance(error, CommitOutcomeUnknownError):
        return DatabaseUnavailableError(
            "the database was lost while storing this request, which may or may not have been "
            "stored: send it again with the same Idempotency-Key to get its one answer",
            {"outcome": "unknown"},
        )
    return DatabaseUnavailableError(
        "the database is unavailable for now; nothing was stored: send the request again",
        {"outcome": "rolled_back"},
    )


def from_core(error: FairdealError) -> ApiError:
    """A core refusal of client-supplied data (a bad seed, a bad encoding) as a 422."""
    if isinstance(error, GameError):
        return from_game(error)
    return InvalidInputError(str(error), {"kind": type(error).__name__})
