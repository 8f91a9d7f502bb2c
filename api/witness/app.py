"""The witness's HTTP face: ``POST /add-checkpoint`` as C2SP tlog-witness says, and ``GET /``,
its state as JSON. Every refusal is plain text, one line; never a traceback. A database locked
past its busy timeout is 503 with ``Retry-After``: the log sends the checkpoint again later.
Each request has its line in the service's format (http/logs.py)."""

from collections.abc import Callable, Iterable
from pathlib import Path

from flask import Blueprint, Flask, Response, current_app, jsonify, request
from werkzeug.exceptions import HTTPException
from werkzeug.wrappers import Response as WerkzeugResponse

from fairdeal.note import NoteVerifier
from fairdeal.witnessing import (
    MAX_BODY_BYTES,
    TLOG_SIZE_TYPE,
    ConflictError,
    WitnessRequestError,
    tlog_size_body,
)

from ..http.logs import AccessLog
from .store import StoreBusyError
from .witness import Witness, posix_seconds

RETRY_AFTER_S = 1  # what a 503 asks the log to wait before sending the request again

_views = Blueprint("witness", __name__)


def create_witness_app(
    state_dir: Path,
    logs: Iterable[NoteVerifier],
    *,
    name: str | None = None,
    clock: Callable[[], int] = posix_seconds,
) -> Flask:
    """The witness kept in ``state_dir``, cosigning the checkpoints of ``logs`` (each log's
    key named for its origin) with its clock in POSIX seconds."""
    app = Flask(__name__)
    app.extensions["witness"] = Witness.open(state_dir, logs, name, clock)
    app.register_blueprint(_views)
    app.register_error_handler(HTTPException, _plain_http_error)
    app.register_error_handler(StoreBusyError, _busy)
    app.wsgi_app = AccessLog(app.wsgi_app)  # type: ignore[method-assign]
    return app


def _witness() -> Witness:
    witness: Witness = current_app.extensions["witness"]
    return witness


@_views.post("/add-checkpoint")
def add_checkpoint() -> Response:
    body = request.stream.read(MAX_BODY_BYTES + 1)  # one byte more tells a body too large
    try:
        cosignature = _witness().add_checkpoint(body)
    except ConflictError as e:
        return Response(tlog_size_body(e.latest_size), 409, content_type=TLOG_SIZE_TYPE)
    except WitnessRequestError as e:
        return _plain(e.status, str(e))
    return Response(cosignature, 200, mimetype="text/plain")


@_views.get("/")
def state() -> Response:
    return jsonify(_witness().state())


def _plain_http_error(e: HTTPException) -> WerkzeugResponse:
    response = e.get_response()  # keeps what the status needs, such as a 405's Allow
    response.set_data(f"{e.name}\n")
    response.mimetype = "text/plain"
    return response


def _busy(e: StoreBusyError) -> Response:
    """A lock held past the busy timeout: nothing was cosigned, try again (as the service's
    own 503s)."""
    answer = _plain(503, str(e))
    answer.headers["Retry-After"] = str(RETRY_AFTER_S)
    return answer


def _plain(status: int, reason: str) -> Response:
    return Response(f"{' '.join(reason.split())}\n", status, mimetype="text/plain")
