"""What the OpenAPI document says beyond each view's own schemas: the one error body, the
bearer tokens, the error responses each operation lists (one named response a status), the
rules linking a request's members or parameters where OpenAPI can state them, and the request
schemas the games and the deployment decide (request_schemas.py).

A view states who may call it (``SEAT``, ``OPERATOR``, ``OPTIONAL_SEAT`` or nothing) and the
error statuses it can answer besides the ones every operation can (429, 500, 503)."""

from collections.abc import Callable, Mapping
from typing import Any

from flask_smorest import Api, Blueprint
from marshmallow import Schema

from fairdeal.games.base import AnyGame

from ..service.errors import RETRY_AFTER_S
from . import schemas
from .request_schemas import request_schemas

F = Callable[..., Any]

SEAT_SCHEME = "seatToken"
OPERATOR_SCHEME = "operatorToken"
SEAT: list[dict[str, list[str]]] = [{SEAT_SCHEME: []}]
OPTIONAL_SEAT: list[dict[str, list[str]]] = [{}, {SEAT_SCHEME: []}]
OPERATOR: list[dict[str, list[str]]] = [{OPERATOR_SCHEME: []}]
PUBLIC: list[dict[str, list[str]]] = []

_SECURITY_SCHEMES = {
    SEAT_SCHEME: {
        "type": "http",
        "scheme": "bearer",
        "description": "A seat's token, returned once when the seat is taken "
        "(Authorization: Bearer <token>). It stops working when the seat is vacated.",
    },
    OPERATOR_SCHEME: {
        "type": "http",
        "scheme": "bearer",
        "description": "The deployment's FAIRDEAL_OPERATOR_SCHEME; with none configured the "
        "operations that need it are closed.",
    },
}

_RETRY_AFTER = {
    "Retry-After": {
        "description": "seconds to wait before sending the request again",
        "schema": {"type": "integer", "minimum": 0, "example": RETRY_AFTER_S},
    }
}

# One named response per status, each with the one error body; its description lists the
# codes (error.code) the service answers with it.
_ERRORS: dict[int, tuple[str, str]] = {
    400: (
        "BadRequest",
        "bad_request (the body is not sent as application/json) or "
        "malformed_json (not UTF-8 JSON, a repeated key, NaN, nested too deep).",
    ),
    401: ("TokenMissing", "token_missing: the operation needs a bearer token and none was sent."),
    403: (
        "TokenInvalid",
        "token_invalid (not a seat token of this table: never was, or its seat "
        "was vacated), operator_only (not the operator token), or a seat's signature refused: "
        "signature_missing (the seat bound a key and the command carries no signed), "
        "signature_invalid (not the seat's signature over this command's statement, or one "
        "made after an event that is not the table's: another log) or "
        "signature_unexpected (signed from a keyless seat).",
    ),
    404: (
        "NotFound",
        "not_found: no such table, round or logged head (an id of a shape the "
        "service never makes names nothing).",
    ),
    409: (
        "Conflict",
        "The table's or the log's state refuses the request: a rule of the game "
        "(illegal_action, out_of_turn, round_sealed, not_due), signature_replayed (signed.n "
        "not above the seat's last: details.last_n), signature_stale (signed.after older than "
        "the table takes: look again and sign after details.head {seq, hash}, the same n "
        "will do), round_not_current, "
        "round_not_finished, table_full, idempotency_key_reused, or conflict (a tree size out "
        "of range).",
    ),
    413: ("RequestTooLarge", "request_too_large: the body is over the deployment's limit."),
    422: (
        "InvalidInput",
        "invalid_input (the request does not match its schema; details.fields "
        "names what), over_limit (a number over the deployment's limit, or a bet over the "
        "table's), invalid_options, invalid_seed or commitment_mismatch (a revealed seed "
        "that does not open the seat's commitment); at a dealer-blind table key_required (a "
        "seat without a key), key_invalid, shuffle_invalid, share_invalid or key_mismatch (a "
        "round key, shuffle step, decryption share or revealed key that fails its check: "
        "nothing is logged).",
    ),
    429: (
        "TooManyRequests",
        "Too many requests from this client, where the deployment limits rates: wait "
        "Retry-After seconds.",
    ),
    500: ("InternalError", "internal_error: the server failed (a bug); nothing was changed."),
    501: (
        "BlindUnavailable",
        "blind_unavailable: this service cannot deal dealer-blind tables (libsodium is not "
        "installed where it runs); any other table is served.",
    ),
    503: (
        "DatabaseUnavailable",
        "database_unavailable: the database cannot do the work for now. "
        "details.outcome is rolled_back (nothing was stored) or unknown (send the request "
        "again with the same Idempotency-Key to get its one answer); not_ready (/readyz): "
        "the database or the signing key failed its check, named in details.checks.",
    ),
}
_WITH_RETRY_AFTER = (429, 503)

_IDEMPOTENCY_KEY = {
    "in": "header",
    "name": "Idempotency-Key",
    "required": False,
    "description": "The caller's own key for this request: sent again with the same key, the "
    "request gets the answer stored with it (or is done then), never done twice; the same "
    "key with a different request is 409 idempotency_key_reused.",
    "schema": {"type": "string", "minLength": 1, "maxLength": 128, "pattern": "^[ -~]+$"},
}
EVERY_OPERATION = (429, 500)  # rate limits, bugs; and 503 wherever the database is read


class DocumentedApi(Api):  # type: ignore[misc]  # flask-smorest is untyped
    """flask-smorest's Api with the service's one error body in place of its default, and no
    catch-all "default" response: each operation lists the error statuses it can answer."""

    ERROR_SCHEMA = schemas.ErrorSchema
    DEFAULT_ERROR_RESPONSE_NAME = None

    def document_errors(self) -> None:
        """Add the security schemes and the named error responses to the document."""
        for name, scheme in _SECURITY_SCHEMES.items():
            self.spec.components.security_scheme(name, scheme)
        for status, (name, description) in _ERRORS.items():
            response: dict[str, Any] = {
                "description": description,
                "content": {"application/json": {"schema": schemas.ErrorSchema}},
            }
            if status in _WITH_RETRY_AFTER:
                response["headers"] = _RETRY_AFTER
            self.spec.components.response(name, response)

    def document_one_of(self, schema: str, choices: list[dict[str, Any]]) -> None:
        """State a rule marshmallow's schema cannot (exactly one of two members) as oneOf."""
        self.spec.components.schemas[schema]["oneOf"] = choices

    def document_query(self, name: str, query: type[Schema], choices: list[dict[str, Any]]) -> None:
        """A query whose parameters are linked by a rule (one of these sets) as the component
        ``name``: one object, the query's parameters its members, the rule its oneOf. Unknown
        members are ignored, as in every query; none is ever null."""
        members = self.ma_plugin.converter.schema2jsonschema(query)["properties"]
        for member in members.values():
            member.pop("nullable", None)
            member.pop("default", None)
        self.spec.components.schema(
            name, {"type": "object", "properties": members, "oneOf": choices}
        )

    def document_requests(self, games: Mapping[str, AnyGame], max_amount: int) -> None:
        """The request schemas the games and the deployment's limit decide, in place of the
        open objects marshmallow's give (request_schemas.py)."""
        components = self.spec.components.schemas
        components.update(request_schemas(games, components, max_amount))


def documented(
    blueprint: Blueprint,
    security: list[dict[str, list[str]]],
    *statuses: int,
    database: bool = True,
    idempotent: bool = False,
) -> Callable[[F], F]:
    """Document who may call a view and the error statuses it answers, on top of
    ``EVERY_OPERATION``'s, 503 if it uses the ``database``, and 401/403 for a token; an
    ``idempotent`` view takes an Idempotency-Key."""
    listed = set(statuses) | set(EVERY_OPERATION) | ({503} if database else set())
    if security and {} not in security:
        listed |= {401, 403}
    elif security:
        listed |= {403}  # a token sent must be valid

    def decorate(view: F) -> F:
        for status in sorted(listed):
            view = blueprint.alt_response(status, response=_ERRORS[status][0])(view)
        doc: dict[str, Any] = {"security": security}
        if idempotent:
            doc["parameters"] = [_IDEMPOTENCY_KEY]
        secured: F = blueprint.doc(**doc)(view)
        return secured

    return decorate
