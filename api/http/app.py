"""The Flask application: routes, schemas and the one error body. Thin over ``Service``."""

import hashlib
import itertools
import json
import logging
import threading
from collections.abc import Callable, Iterator, Mapping
from typing import Any, TypeVar

from flask import Flask, Response, request, stream_with_context
from flask_smorest import Blueprint
from werkzeug.exceptions import HTTPException

from fairdeal.protocol import JOINER_ACCEPTED, JOINER_REJECTED
from fairdeal.statements import SIGNATURE

from ..service import ids
from ..service.config import Config, unknown_variables, witness_list
from ..service.cosigning import Collector, Counters
from ..service.errors import (
    ApiError,
    BadRequestError,
    InvalidInputError,
    MalformedJsonError,
    NotFoundError,
    OperatorOnlyError,
    TooLargeError,
    UnauthorizedError,
    from_unavailable,
)
from ..service.keystore import load_keys
from ..service.service import Clock, Idempotency, Service, wall_clock
from ..service.tokens import same_secret, token_hash
from ..storage import StorageUnavailableError, open_store
from ..web import pages
from . import limits, metrics, schemas
from . import logs as log_setup
from .current import EXTENSION, service
from .openapi import OPERATOR, OPTIONAL_SEAT, PUBLIC, SEAT, DocumentedApi, documented
from .readiness import readiness
from .tiles import tiles as tile_api

log = logging.getLogger("fairdeal")
T = TypeVar("T")
MAX_JSON_DEPTH = 32
MAX_IDEMPOTENCY_KEY = 128

tables = Blueprint("tables", __name__, url_prefix="/v1", description="Tables, seats and rounds")
logs = Blueprint("log", __name__, url_prefix="/v1", description="The transparency log and keys")
health = Blueprint("health", __name__, description="Liveness and readiness")


def create_app(
    config: Config | None = None, clock: Clock = wall_clock, *, check_schema: bool = True
) -> Flask:
    """The service on its configuration (from the environment when none is given: then
    logging is set up here too, as under gunicorn).

    It brings the database's schema up to date first, failing if the database is away, unless
    ``check_schema`` is false: then it touches no database as it starts, and a database away
    is each request's 503. That is for a worker of ``fairdeal serve``, whose first boot made
    the schema before any worker started: a worker started again while the database is briefly
    away must not fail to boot, since gunicorn then stops the whole service."""
    config = config or _config_from_env()
    app = Flask(
        "fairdeal",
        instance_path=str(config.instance_path.absolute()),
        static_folder=str(pages.STATIC),
        static_url_path="/static",
    )
    app.config.update(
        MAX_CONTENT_LENGTH=config.max_request_bytes,
        API_TITLE="fairdeal",
        API_VERSION="v1",
        OPENAPI_VERSION="3.0.3",
        OPENAPI_URL_PREFIX="/",
        OPENAPI_JSON_PATH="openapi.json",
        OPENAPI_REDOC_PATH="/docs",
        OPENAPI_REDOC_URL="/static/redoc/redoc.standalone.js",  # vendored: no CDN needed
    )
    store = open_store(config.store_url)
    if check_schema:
        store.migrate()
    service = Service(store, load_keys(config), config, clock)
    app.extensions[EXTENSION] = service
    api = DocumentedApi(app)
    api.document_errors()
    for blueprint in (tables, logs, health, tile_api):
        api.register_blueprint(blueprint)
    api.document_one_of("Seed", schemas.SEED_ONE_OF)
    api.document_query(
        schemas.INCLUSION_QUERY, schemas.InclusionQuerySchema, schemas.INCLUSION_ONE_OF
    )
    api.document_requests(service.games, config.max_amount)
    pages.install(app)  # the pages at / and /verify, CSP on them, CORS on public reads
    _install_error_handlers(app)
    counted = metrics.install(app, service, config.metrics_token)  # first: it times requests
    app.extensions["fairdeal.metrics"] = counted
    limits.install(app, config, on_refused=counted.rate_limited.inc)
    app.before_request(_check_path_ids)
    app.before_request(_check_json_body)
    witnesses = witness_list(config.witnesses)
    if witnesses:
        collector = Collector(
            store,
            service.log,
            witnesses,
            config.witness_timeout_s,
            clock=clock,
            counters=Counters(
                cosigned=lambda w: counted.cosignatures.labels(w).inc(),
                failed=lambda w, reason: counted.witness_failures.labels(w, reason).inc(),
            ),
        )
        service.on_committed = collector.wake
        app.extensions["fairdeal.collector"] = collector
    if config.sweep_interval_s > 0:
        app.extensions["fairdeal.sweeper"] = _Sweeper(
            service, config.sweep_interval_s, counted.sweep_failures.inc
        )
    app.wsgi_app = log_setup.AccessLog(app.wsgi_app)  # type: ignore[method-assign]
    return app


def _config_from_env() -> Config:
    config = Config.from_env()
    log_setup.configure(config.log_format, level=config.log_level)
    for line in unknown_variables():
        log.warning("%s", line)
    return config


def close_app(app: Flask) -> None:
    """Stop the sweeper (after the sweep under way, if any) and the witnesses' collector,
    then close the store."""
    sweeper: _Sweeper | None = app.extensions.get("fairdeal.sweeper")
    if sweeper is not None:
        sweeper.stop()
    collector: Collector | None = app.extensions.get("fairdeal.collector")
    if collector is not None:
        collector.stop()
    app.extensions["fairdeal"].store.close()


# Tables and seats


@tables.route("/tables", methods=["POST"])
@tables.arguments(schemas.CreateTableSchema())
@tables.response(201, schemas.SeatSchema)
@tables.doc(responses={201: {"links": schemas.TABLE_LINKS}})
@documented(tables, PUBLIC, 400, 409, 413, 422, 501)
def create_table(body: dict[str, Any]) -> dict[str, Any]:
    """Create a table; the creator takes seat 0 and gets its bearer token.

    With ``key``, seat 0 is bound to that Ed25519 public key: each of its later commands
    carries ``signed``."""
    _no_idempotency_key()
    return service().create_table(body["game"], body["options"], body["join"], body["key"])


@tables.route("/tables/<table_id>", methods=["GET"], parameters=[schemas.TABLE_ID])
@tables.response(200, schemas.ViewSchema)
@documented(tables, OPTIONAL_SEAT, 404)
def get_table(table_id: str) -> dict[str, Any]:
    """The table as the caller may see it (with a seat token: that seat's own cards)."""
    return service().table_view(table_id, _token(required=False))


@tables.route("/tables/<table_id>/events", methods=["GET"], parameters=[schemas.TABLE_ID])
@tables.arguments(schemas.EventsQuerySchema(), location="query")
@tables.response(200, schemas.EventPageSchema)
@documented(tables, PUBLIC, 404, 422)
def get_table_events(query: dict[str, Any], table_id: str) -> dict[str, Any]:
    """A page of the table's public signed chain, from a seq on.

    Hidden cards appear only as commitments; ``next_from_seq`` is where the next page starts.
    """
    return service().published.table_events(table_id, query["from_seq"], query["limit"])


@tables.route("/tables/<table_id>/bundle", methods=["GET"], parameters=[schemas.TABLE_ID])
@tables.arguments(schemas.TableBundleQuerySchema(), location="query")
@tables.response(200, schemas.BundleSchema)
@documented(tables, PUBLIC, 404, 422)
def get_table_bundle(query: dict[str, Any], table_id: str) -> dict[str, Any]:
    """The bundle of a head of the table at rest that is in the log.

    A head at rest has no round open (a match's end, a seat's departure); its bundle has
    everything needed to verify the table up to it offline.
    """
    return service().published.table_bundle(table_id, query["seq"])


@tables.route("/tables/<table_id>/seats", methods=["POST"], parameters=[schemas.TABLE_ID])
@tables.arguments(schemas.JoinSchema(), examples=schemas.JOIN_EXAMPLES)
@tables.response(201, schemas.SeatSchema)
@documented(tables, PUBLIC, 400, 404, 409, 413, 422)
def join_table(body: dict[str, Any], table_id: str) -> dict[str, Any]:
    """Join the table: the lowest free seat, and its bearer token (``key``: as at creation)."""
    _no_idempotency_key()
    return service().join(table_id, body["join"], body["key"])


@tables.route(
    "/tables/<table_id>/seats/<int:seat>/decision",
    methods=["POST"],
    parameters=[schemas.TABLE_ID, schemas.SEAT_PARAMETER],
)
@tables.arguments(schemas.DecisionSchema(), examples=schemas.DECISION_EXAMPLES)
@tables.response(200, schemas.EventsSchema)
@documented(tables, SEAT, 400, 404, 409, 413, 422, idempotent=True)
def decide_joiner(body: dict[str, Any], table_id: str, seat: int) -> dict[str, Any]:
    """The creator accepts or rejects the seat that joined (Toto21)."""
    kind = JOINER_ACCEPTED if body["accept"] else JOINER_REJECTED
    return _seat_command(table_id, kind, _signed({"seat": seat}, body))


@tables.route("/tables/<table_id>/actions", methods=["POST"], parameters=[schemas.TABLE_ID])
@tables.arguments(schemas.ActionSchema(), examples=schemas.TABLE_ACTION_EXAMPLES)
@tables.response(200, schemas.EventsSchema)
@documented(tables, SEAT, 400, 404, 409, 413, 422, idempotent=True)
def table_action(body: dict[str, Any], table_id: str) -> dict[str, Any]:
    """A seat's action outside a round (Kvitlach: leave the table; banker exit)."""
    return _seat_command(table_id, body["type"], _signed(body["data"], body))


@tables.route("/tables/<table_id>/rounds", methods=["POST"], parameters=[schemas.TABLE_ID])
@tables.response(201, schemas.RoundOpenedSchema)
@tables.doc(responses={201: {"links": schemas.ROUND_LINKS}})
@documented(tables, SEAT, 400, 404, 409, 413, 422, 501, idempotent=True)
def open_round(table_id: str) -> dict[str, Any]:
    """Open the next round: the server commits to a fresh seed and logs the commitment."""
    return service().open_round(table_id, _token(), _idempotency(table_id))


@tables.route("/rounds/<round_id>/seeds", methods=["POST"], parameters=[schemas.ROUND_ID])
@tables.arguments(schemas.SeedSchema(), examples=schemas.SEED_EXAMPLES)
@tables.response(200, schemas.EventsSchema)
@documented(tables, SEAT, 400, 404, 409, 413, 422, idempotent=True)
def add_seed(body: dict[str, Any], round_id: str) -> dict[str, Any]:
    """Commit to the seat's client seed, or send the seed; the last one seals and deals.

    ``commitment`` first (seed_commitment); once every seat has committed (or sent its seed,
    or timed out) the reveals open and each committed seat sends its ``seed``, which must
    open its commitment. A seat may instead send its ``seed`` straight away, before the
    reveals: its seed is then public before the seal. At a dealer-blind table every seat
    commits, its ``round_key`` beside its ``commitment`` (SPEC 15.13.3.2)."""
    kind, data = schemas.seed_command(body)
    return _seat_command(ids.table_of(round_id), kind, _signed(data, body), round_id)


@tables.route("/rounds/<round_id>/actions", methods=["POST"], parameters=[schemas.ROUND_ID])
@tables.arguments(schemas.ActionSchema(), examples=schemas.ROUND_ACTION_EXAMPLES)
@tables.response(200, schemas.EventsSchema)
@documented(tables, SEAT, 400, 404, 409, 413, 422, idempotent=True)
def round_action(body: dict[str, Any], round_id: str) -> dict[str, Any]:
    """A seat's action in the round (hit, stand, blind, bet, open_card, elvaroon, …)."""
    return _seat_command(
        ids.table_of(round_id), body["type"], _signed(body["data"], body), round_id
    )


@tables.route("/rounds/<round_id>", methods=["GET"], parameters=[schemas.ROUND_ID])
@tables.response(200, schemas.ViewSchema)
@documented(tables, OPTIONAL_SEAT, 404)
def get_round(round_id: str) -> dict[str, Any]:
    """The round as the caller may see it: a seat's own hidden cards with their salts."""
    return service().round_view(round_id, _token(required=False))


@tables.route("/rounds/<round_id>/events", methods=["GET"], parameters=[schemas.ROUND_ID])
@tables.arguments(schemas.EventsQuerySchema(), location="query")
@tables.response(200, schemas.EventPageSchema)
@documented(tables, PUBLIC, 404, 422)
def get_round_events(query: dict[str, Any], round_id: str) -> dict[str, Any]:
    """A page of the round's public signed events, from a seq on.

    ``next_from_seq`` is where the next page starts (null: the page ends the round so far).
    """
    return service().published.round_events(round_id, query["from_seq"], query["limit"])


@tables.route("/rounds/<round_id>/bundle", methods=["GET"], parameters=[schemas.ROUND_ID])
@tables.response(200, schemas.BundleSchema)
@documented(tables, PUBLIC, 404, 409)
def get_bundle(round_id: str) -> dict[str, Any]:
    """After the reveal: everything needed to verify the round offline."""
    return service().published.bundle(round_id)


# The transparency log, keys and export


@logs.route("/log/checkpoint", methods=["GET"])
@logs.response(200, schemas.CheckpointSchema)
@documented(logs, PUBLIC)
def get_checkpoint() -> dict[str, Any]:
    """The latest signed checkpoint (a C2SP signed note)."""
    return service().published.checkpoint()


@logs.route("/log/inclusion", methods=["GET"])
@logs.arguments(schemas.InclusionQuerySchema(), location="query")
@logs.response(200, schemas.InclusionSchema)
@logs.doc(parameters=[schemas.INCLUSION_HEAD])  # in place of one parameter a member
@documented(logs, PUBLIC, 404, 409, 422)
def get_inclusion(query: dict[str, Any]) -> dict[str, Any]:
    """An RFC 9162 inclusion proof of a head in a tree size.

    The head is a finished round's (``round``) or a table's at rest (``table`` and ``seq``):
    exactly one of the two, else 422.
    """
    _check_ids(query)
    return service().published.inclusion(
        query["round"], query["table"], query["seq"], query["size"]
    )


@logs.route("/log/consistency", methods=["GET"])
@logs.arguments(schemas.ConsistencyQuerySchema(), location="query")
@logs.response(200, schemas.ConsistencySchema)
@documented(logs, PUBLIC, 409, 422)
def get_consistency(query: dict[str, Any]) -> dict[str, Any]:
    """An RFC 9162 consistency proof between two tree sizes.

    ``from`` must not exceed ``to`` (else 422), and ``to`` the tree's size (else 409).
    """
    return service().published.consistency(query["first"], query["second"])


@logs.route("/keys", methods=["GET"])
@logs.response(200, schemas.KeysSchema)
@documented(logs, PUBLIC, database=False)
def get_keys() -> dict[str, Any]:
    """Every signing key by id (old keys stay listed), and the log's verifier key."""
    return service().published.key_list()


@logs.route("/export", methods=["GET"])
@logs.arguments(schemas.ExportQuerySchema(), location="query")
@logs.response(200, schemas.EXPORT_LINES, content_type="application/jsonl")
@documented(logs, OPERATOR, 404, 422)
def export(query: dict[str, Any]) -> Response:
    """(Operator) A streamed JSON Lines export of every leaf's bundle, in log order.

    One bundle a line: finished rounds' heads and tables' heads at rest. A database lost
    after the first page cuts the stream short (its chunked body is never terminated).
    """
    _require_operator()
    _check_ids(query)  # here, not in the stream: once it starts, its status is sent
    bundles = _first_read(
        service().published.export(
            query["since"], query["until"], query["table"], query["from_leaf"]
        )
    )
    lines: Iterator[str] = (json.dumps(b, separators=(",", ":")) + "\n" for b in bundles)
    return Response(stream_with_context(lines), mimetype="application/jsonl")


@health.route("/healthz", methods=["GET"])
@health.response(200, schemas.HealthSchema)
@documented(health, PUBLIC, database=False)
def healthz() -> dict[str, Any]:
    """Liveness: the process answers (it reads nothing)."""
    return {"status": "ok"}


@health.route("/readyz", methods=["GET"])
@health.response(200, schemas.ReadinessSchema)
@documented(health, PUBLIC)
def readyz() -> dict[str, Any]:
    """Readiness: the database answers a read and the signing key signs.

    Otherwise 503 ``not_ready`` with Retry-After, naming the check that failed."""
    return readiness(service())


# Request helpers


def _seat_command(
    table_id: str, kind: str, data: dict[str, Any], round_id: str | None = None
) -> dict[str, Any]:
    """The caller's seat's command at its table (in ``round_id``, which the command's
    transaction checks is the table's current round), under its Idempotency-Key if any."""
    return service().command(
        table_id, _token(), kind, data, round_id=round_id, idempotency=_idempotency(table_id)
    )


def _signed(data: Mapping[str, Any], body: Mapping[str, Any]) -> dict[str, Any]:
    """The command's data with the body's ``signed`` {n, after, signature}, if it has one:
    a keyed seat's signature over exactly these data (SPEC 6.7)."""
    signed = body.get(SIGNATURE)
    return dict(data) if signed is None else {**data, SIGNATURE: signed}


def _token(required: bool = True) -> str | None:
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        if required:
            raise UnauthorizedError("this needs a seat token: Authorization: Bearer <token>")
        return None
    return token.strip()


def _require_operator() -> None:
    token = _token(required=False)
    if token is None:
        raise UnauthorizedError("this needs the operator token: Authorization: Bearer <token>")
    expected = service().config.operator_token
    if not expected:
        raise OperatorOnlyError("closed: the service runs without FAIRDEAL_OPERATOR_TOKEN")
    if not same_secret(token, expected):
        raise OperatorOnlyError("this needs the operator token")


def _idempotency(table_id: str) -> Idempotency | None:
    key = request.headers.get("Idempotency-Key")
    if key is None:
        return None
    if not 1 <= len(key) <= MAX_IDEMPOTENCY_KEY or not key.isascii() or not key.isprintable():
        raise InvalidInputError(f"Idempotency-Key must be 1..{MAX_IDEMPOTENCY_KEY} printable ASCII")
    # Keys are each caller's own, so another seat may use the same key. The caller stays
    # part of the request's hash, as in the keys kept when they were per table.
    digest = hashlib.sha256()
    caller = token_hash(_token(required=False) or "")
    for part in (request.method, request.path, table_id):
        digest.update(part.encode() + b"\x00")
    digest.update(caller)
    digest.update(request.get_data(cache=True))
    return Idempotency(key, caller, digest.digest())


def _first_read(items: Iterator[T]) -> Iterator[T]:
    """``items`` with the first one taken now, before the response starts: a failure to read
    the first page is still an error answer. A later one can only cut the stream short (its
    chunked body is never terminated), so a partial export is not taken for a whole one."""
    first = list(itertools.islice(items, 1))
    return itertools.chain(first, items)


def _no_idempotency_key() -> None:
    """Replaying a join would mean keeping its bearer token in the clear: refuse, don't ignore."""
    if "Idempotency-Key" in request.headers:
        raise InvalidInputError(
            "Idempotency-Key is not accepted when creating or joining a table: a retry would "
            "need the seat's bearer token kept in the clear; look at the table to see your seat"
        )


# The ids in paths and queries: "table_id" and "table" name tables, "round_id" and "round" rounds.
_ID_SHAPES = {
    "table_id": ("table", ids.TABLE_ID),
    "table": ("table", ids.TABLE_ID),
    "round_id": ("round", ids.ROUND_ID),
    "round": ("round", ids.ROUND_ID),
}


def _check_path_ids() -> None:
    _check_ids(request.view_args or {})


def _check_ids(values: Mapping[str, Any]) -> None:
    """An id of a shape the service never makes (a NUL byte, a stray character) names
    nothing: 404, alike on every backend, before a database sees it."""
    for name, (kind, shape) in _ID_SHAPES.items():
        value = values.get(name)
        if isinstance(value, str) and not shape.fullmatch(value):
            raise NotFoundError(f"no {kind} {value!r}")


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
    @app.after_request
    def not_found_is_not_kept(response: Response) -> Response:
        # What is not here now (a tile beyond the log, a round not yet opened) may be here a
        # moment later: no cache may keep the 404.
        if response.status_code == 404:
            response.headers["Cache-Control"] = "no-store"
        return response

    @app.errorhandler(ApiError)
    def api_error(error: ApiError) -> tuple[dict[str, Any], int, dict[str, str]]:
        return error.body(), error.status, error.headers()

    @app.errorhandler(StorageUnavailableError)
    def database_unavailable(
        error: StorageUnavailableError,
    ) -> tuple[dict[str, Any], int, dict[str, str]]:
        log.warning("%s %s: the database is unavailable: %s", request.method, request.path, error)
        return api_error(from_unavailable(error))

    @app.errorhandler(HTTPException)
    def http_error(error: HTTPException) -> tuple[dict[str, Any], int, dict[str, str]]:
        # The exception's own headers (a 405's Allow), not the Content-Type of its HTML page.
        headers = {k: v for k, v in error.get_headers() if k.lower() != "content-type"}
        return _from_http(error).body(), error.code or 500, headers

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


class _Sweeper:
    """Applies passed deadlines in the background, so a silent table still moves on."""

    def __init__(self, svc: Service, interval_s: int, on_failure: Callable[[], None]) -> None:
        self._service, self._interval_s, self._on_failure = svc, interval_s, on_failure
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="fairdeal-sweeper", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        self._thread.join()

    def _loop(self) -> None:
        while not self._stopping.wait(self._interval_s):
            _sweep_once(self._service, self._on_failure)


def _sweep_once(svc: Service, on_failure: Callable[[], None] = lambda: None) -> None:
    """One pass of the sweeper, which outlives a bad table and the database going away."""
    try:
        svc.sweep()
    except StorageUnavailableError as e:  # one line: not a bug, and it will pass
        on_failure()
        log.warning("sweep skipped: the database is unavailable: %s", e)
    except Exception:
        on_failure()
        log.exception("sweep failed")
