"""The Flask application: routes, schemas and the one error body. Thin over ``Service``."""

import hashlib
import json
import logging
import threading
from collections.abc import Iterator, Mapping
from typing import Any

from flask import Flask, Response, current_app, request, stream_with_context
from flask_smorest import Api, Blueprint
from werkzeug.exceptions import HTTPException

from api import schemas
from api.config import Config
from api.errors import (
    ApiError,
    BadRequestError,
    InvalidInputError,
    MalformedJsonError,
    NotFoundError,
    OperatorOnlyError,
    TooLargeError,
    UnauthorizedError,
)
from api.keystore import load_keys
from api.service import Clock, Idempotency, Service, wall_clock
from api.storage import open_store
from api.tokens import same_secret, token_hash

log = logging.getLogger("fairdeal")
MAX_JSON_DEPTH = 32
MAX_IDEMPOTENCY_KEY = 128

tables = Blueprint("tables", __name__, url_prefix="/v1", description="Tables, seats and rounds")
logs = Blueprint("log", __name__, url_prefix="/v1", description="The transparency log and keys")
health = Blueprint("health", __name__, description="Liveness")


def create_app(config: Config | None = None, clock: Clock = wall_clock) -> Flask:
    """The service on its configuration (from the environment when none is given)."""
    config = config or Config.from_env()
    app = Flask("fairdeal", instance_path=str(config.instance_path.absolute()))
    app.config.update(
        MAX_CONTENT_LENGTH=config.max_request_bytes,
        API_TITLE="fairdeal",
        API_VERSION="v1",
        OPENAPI_VERSION="3.0.3",
        OPENAPI_URL_PREFIX="/",
        OPENAPI_JSON_PATH="openapi.json",
        OPENAPI_REDOC_PATH="/docs",
        OPENAPI_REDOC_URL="https://cdn.jsdelivr.net/npm/redoc@2/bundles/redoc.standalone.js",
    )
    store = open_store(config.store_url)
    store.migrate()
    service = Service(store, load_keys(config), config, clock)
    app.extensions["fairdeal"] = service
    api = Api(app)
    for blueprint in (tables, logs, health):
        api.register_blueprint(blueprint)
    _install_error_handlers(app)
    app.before_request(_check_json_body)
    if config.sweep_interval_s > 0:
        _start_sweeper(service, config.sweep_interval_s)
    return app


def service() -> Service:
    found: Service = current_app.extensions["fairdeal"]
    return found


# Tables and seats


@tables.route("/tables", methods=["POST"])
@tables.arguments(schemas.CreateTableSchema)
@tables.response(201, schemas.SeatSchema)
def create_table(body: dict[str, Any]) -> dict[str, Any]:
    """Create a table; the creator takes seat 0 and gets its bearer token."""
    _no_idempotency_key()
    return service().create_table(body["game"], body["options"], body["join"])


@tables.route("/tables/<table_id>", methods=["GET"])
@tables.response(200, schemas.ViewSchema)
def get_table(table_id: str) -> dict[str, Any]:
    """The table as the caller may see it (with a seat token: that seat's own cards)."""
    return service().table_view(table_id, _token(required=False))


@tables.route("/tables/<table_id>/events", methods=["GET"])
@tables.arguments(schemas.EventsQuerySchema, location="query")
@tables.response(200, schemas.EventListSchema)
def get_table_events(query: dict[str, Any], table_id: str) -> dict[str, Any]:
    """The table's public signed chain from a seq on (hidden cards only as commitments)."""
    return {"events": service().published.table_events(table_id, query["from_seq"])}


@tables.route("/tables/<table_id>/bundle", methods=["GET"])
@tables.arguments(schemas.TableBundleQuerySchema, location="query")
@tables.response(200)
def get_table_bundle(query: dict[str, Any], table_id: str) -> dict[str, Any]:
    """A head of the table at rest (no round open) that is in the log, with everything
    needed to verify the table up to it offline: a match's end, a seat's departure."""
    return service().published.table_bundle(table_id, query["seq"])


@tables.route("/tables/<table_id>/seats", methods=["POST"])
@tables.arguments(schemas.JoinSchema)
@tables.response(201, schemas.SeatSchema)
def join_table(body: dict[str, Any], table_id: str) -> dict[str, Any]:
    """Join the table: the lowest free seat, and its bearer token."""
    _no_idempotency_key()
    return service().join(table_id, body["join"])


@tables.route("/tables/<table_id>/seats/<int:seat>/decision", methods=["POST"])
@tables.arguments(schemas.DecisionSchema)
@tables.response(200, schemas.EventsSchema)
def decide_joiner(body: dict[str, Any], table_id: str, seat: int) -> dict[str, Any]:
    """The creator accepts or rejects the seat that joined (Toto21)."""
    kind = "joiner_accepted" if body["accept"] else "joiner_rejected"
    return service().command(
        table_id, _token(), kind, {"seat": seat}, idempotency=_idempotency(table_id)
    )


@tables.route("/tables/<table_id>/actions", methods=["POST"])
@tables.arguments(schemas.ActionSchema)
@tables.response(200, schemas.EventsSchema)
def table_action(body: dict[str, Any], table_id: str) -> dict[str, Any]:
    """A seat's action outside a round (Kvitlach: leave the table; banker exit)."""
    return service().command(
        table_id, _token(), body["type"], body["data"], idempotency=_idempotency(table_id)
    )


@tables.route("/tables/<table_id>/rounds", methods=["POST"])
@tables.response(201, schemas.RoundOpenedSchema)
def open_round(table_id: str) -> dict[str, Any]:
    """Open the next round: the server commits to a fresh seed and logs the commitment."""
    return service().open_round(table_id, _token(), _idempotency(table_id))


@tables.route("/rounds/<round_id>/seeds", methods=["POST"])
@tables.arguments(schemas.SeedSchema)
@tables.response(200, schemas.EventsSchema)
def add_seed(body: dict[str, Any], round_id: str) -> dict[str, Any]:
    """Contribute the seat's client seed; the last one seals the round and deals."""
    table_id = _table_of(round_id)
    return service().command(
        table_id,
        _token(),
        "client_seed",
        {"seed": body["seed"]},
        round_id=round_id,
        idempotency=_idempotency(table_id),
    )


@tables.route("/rounds/<round_id>/actions", methods=["POST"])
@tables.arguments(schemas.ActionSchema)
@tables.response(200, schemas.EventsSchema)
def round_action(body: dict[str, Any], round_id: str) -> dict[str, Any]:
    """A seat's action in the round (hit, stand, blind, bet, open_card, elvaroon, …)."""
    table_id = _table_of(round_id)
    return service().command(
        table_id,
        _token(),
        body["type"],
        body["data"],
        round_id=round_id,
        idempotency=_idempotency(table_id),
    )


@tables.route("/rounds/<round_id>", methods=["GET"])
@tables.response(200, schemas.ViewSchema)
def get_round(round_id: str) -> dict[str, Any]:
    """The round as the caller may see it: a seat's own hidden cards with their salts."""
    return service().round_view(round_id, _token(required=False))


@tables.route("/rounds/<round_id>/events", methods=["GET"])
@tables.response(200, schemas.EventListSchema)
def get_round_events(round_id: str) -> dict[str, Any]:
    """The round's public signed events."""
    return {"events": service().published.round_events(round_id)}


@tables.route("/rounds/<round_id>/bundle", methods=["GET"])
@tables.response(200)
def get_bundle(round_id: str) -> dict[str, Any]:
    """After the reveal: everything needed to verify the round offline."""
    return service().published.bundle(round_id)


# The transparency log, keys and export


@logs.route("/log/checkpoint", methods=["GET"])
@logs.response(200, schemas.CheckpointSchema)
def get_checkpoint() -> dict[str, Any]:
    """The latest signed checkpoint (a C2SP signed note)."""
    return service().published.checkpoint()


@logs.route("/log/inclusion", methods=["GET"])
@logs.arguments(schemas.InclusionQuerySchema, location="query")
@logs.response(200, schemas.InclusionSchema)
def get_inclusion(query: dict[str, Any]) -> dict[str, Any]:
    """An RFC 9162 inclusion proof of a head (a finished round's, or a table's at rest) in a
    tree size."""
    return service().published.inclusion(
        query["round"], query["table"], query["seq"], query["size"]
    )


@logs.route("/log/consistency", methods=["GET"])
@logs.arguments(schemas.ConsistencyQuerySchema, location="query")
@logs.response(200, schemas.ConsistencySchema)
def get_consistency(query: dict[str, Any]) -> dict[str, Any]:
    """An RFC 9162 consistency proof between two tree sizes."""
    return service().published.consistency(query["first"], query["second"])


@logs.route("/keys", methods=["GET"])
@logs.response(200, schemas.KeysSchema)
def get_keys() -> dict[str, Any]:
    """Every signing key by id (old keys stay listed), and the log's verifier key."""
    return service().published.key_list()


@logs.route("/export", methods=["GET"])
@logs.arguments(schemas.ExportQuerySchema, location="query")
@logs.response(200)
def export(query: dict[str, Any]) -> Response:
    """(Operator) A streamed JSONL export of every leaf's bundle: finished rounds' heads and
    tables' heads at rest, in log order."""
    _require_operator()
    bundles = service().published.export(query["since"], query["until"], query["table"])
    lines: Iterator[str] = (json.dumps(b, separators=(",", ":")) + "\n" for b in bundles)
    return Response(stream_with_context(lines), mimetype="application/jsonl")


@health.route("/healthz", methods=["GET"])
@health.response(200)
def healthz() -> dict[str, Any]:
    return {"status": "ok"}


# Request helpers


def _token(required: bool = True) -> str | None:
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        if required:
            raise UnauthorizedError("this needs a seat token: Authorization: Bearer <token>")
        return None
    return token.strip()


def _require_operator() -> None:
    token = _token()
    expected = service().config.operator_token
    if not same_secret(token or "", expected):
        raise OperatorOnlyError("this needs the operator token")


def _idempotency(table_id: str) -> Idempotency | None:
    key = request.headers.get("Idempotency-Key")
    if key is None:
        return None
    if not 1 <= len(key) <= MAX_IDEMPOTENCY_KEY or not key.isascii() or not key.isprintable():
        raise InvalidInputError(f"Idempotency-Key must be 1..{MAX_IDEMPOTENCY_KEY} printable ASCII")
    # Keys are kept per table; the caller's token is part of the request, so another
    # seat reusing a key is refused rather than answered with this seat's receipt.
    digest = hashlib.sha256()
    caller = token_hash(_token(required=False) or "")
    for part in (request.method, request.path, table_id):
        digest.update(part.encode() + b"\x00")
    digest.update(caller)
    digest.update(request.get_data(cache=True))
    return Idempotency(key, digest.digest())


def _no_idempotency_key() -> None:
    """Replaying a join would mean keeping its bearer token in the clear: refuse, don't ignore."""
    if "Idempotency-Key" in request.headers:
        raise InvalidInputError(
            "Idempotency-Key is not accepted when creating or joining a table: a retry would "
            "need the seat's bearer token kept in the clear; look at the table to see your seat"
        )


def _table_of(round_id: str) -> str:
    """A round id is "<table id>.<number>"; the command's transaction checks it is current."""
    table_id, dot, number = round_id.rpartition(".")
    if not dot or not table_id or not number.isdecimal():
        raise NotFoundError(f"no round {round_id!r}")
    return table_id


def _check_json_body() -> None:
    """Refuse bodies that are not JSON (NaN, a repeated key), not UTF-8, over the size limit,
    or nested deeper than the log allows."""
    if request.method not in ("POST", "PUT", "PATCH"):
        return
    raw = request.get_data(cache=True)
    if not raw:
        return
    # A body sent without a length (chunked) is cut at the limit without an error: refuse it
    # rather than act on its first bytes.
    limit = request.max_content_length
    if request.content_length is None and limit is not None and len(raw) >= limit:
        raise TooLargeError("the request body is too large")
    if not request.is_json:
        raise BadRequestError("send JSON with Content-Type: application/json")
    try:
        text = raw.decode("utf-8")
        value = json.loads(text, object_pairs_hook=_unique_keys, parse_constant=_no_constant)
    except (ValueError, RecursionError) as e:
        raise MalformedJsonError(f"the body is not valid UTF-8 JSON: {e}") from None
    if _depth(value) > MAX_JSON_DEPTH:
        raise MalformedJsonError(f"JSON nested deeper than {MAX_JSON_DEPTH}")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object, refused if a key repeats: parsers disagree on which copy counts."""
    value = dict(pairs)
    if len(value) != len(pairs):
        raise ValueError("a key repeats in an object")
    return value


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _depth(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    return 0


def _install_error_handlers(app: Flask) -> None:
    @app.errorhandler(ApiError)
    def api_error(error: ApiError) -> tuple[dict[str, Any], int]:
        return error.body(), error.status

    @app.errorhandler(HTTPException)
    def http_error(error: HTTPException) -> tuple[dict[str, Any], int]:
        return _from_http(error).body(), error.code or 500

    @app.errorhandler(Exception)
    def unexpected(error: Exception) -> tuple[dict[str, Any], int]:
        app.logger.exception("unexpected error")
        body = ApiError("the server failed; nothing was changed").body()
        body["error"]["code"] = "internal_error"
        return body, 500


def _from_http(error: HTTPException) -> ApiError:
    code = error.code or 500
    if code == 413:
        return TooLargeError("the request body is too large")
    data: Mapping[str, Any] = getattr(error, "data", None) or {}
    messages = data.get("messages")
    if code == 422 and messages:
        return InvalidInputError("the request does not match its schema", {"fields": messages})
    generic = ApiError(error.description or error.name)
    generic.status, generic.code = code, error.name.lower().replace(" ", "_")
    return generic


def _start_sweeper(svc: Service, interval_s: int) -> None:
    """Apply passed deadlines in the background, so a silent table still moves on."""
    stop = threading.Event()

    def loop() -> None:
        while not stop.wait(interval_s):
            try:
                svc.sweep()
            except Exception:  # the sweeper must outlive one bad table
                log.exception("sweep failed")

    threading.Thread(target=loop, name="fairdeal-sweeper", daemon=True).start()
