"""What browsers get: the player's page at ``/``, the verify page at ``/verify``, the headers
every page and web file is sent with, and CORS on the public reads.

Pages and everything under ``/static/web/`` are sent with a strict Content-Security-Policy
(``PAGE_CSP``: scripts, styles and connections to this origin only, nothing inline, no frames),
``nosniff`` and no referrer. ``/docs`` (the vendored ReDoc) gets ``DOCS_CSP``: ReDoc's
styled-components write ``<style>`` elements at run time and its search runs in a worker made
from a blob, so that page allows inline styles and blob workers, and nothing else more.

CORS: the public reads (events, bundles, the log, its proofs, keys and tiles) answer any origin
(``Access-Control-Allow-Origin: *``), so a third party's page can fetch a bundle and verify it.
A table's or round's view gets it only when asked without a token: a seat token is sent in an
Authorization header, which a cross-origin page could only send after a preflight this service
never answers, so a view with a seat's cards is for this origin's pages and for non-browser
clients. The operator's export and the metrics never get it.
"""

from pathlib import Path

from flask import Blueprint, Flask, Response, request, send_from_directory

# The files browsers get: api/static/, beside this package (the package data of fairdeal.api).
STATIC = Path(__file__).parents[1] / "static"
WEB = STATIC / "web"
STATIC_REDOC = STATIC / "redoc"
WEB_URL = "/static/web/"

PAGE_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
DOCS_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self' data:; connect-src 'self'; worker-src blob:; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
BROWSER_HEADERS = {"X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"}

# The endpoints anyone may read from any origin (flask-smorest's "blueprint.function" names).
PUBLIC_READS = frozenset(
    {
        "tables.get_table_events",
        "tables.get_table_bundle",
        "tables.get_round_events",
        "tables.get_bundle",
        "log.get_checkpoint",
        "log.get_inclusion",
        "log.get_consistency",
        "log.get_keys",
        "tiles.get_checkpoint_note",
        "tiles.get_entry_bundle",
        "tiles.get_tile",
    }
)
# Views that show more with a seat token: public only when asked without one.
VIEWS = frozenset({"tables.get_table", "tables.get_round"})

pages = Blueprint("web", __name__)


@pages.route("/", methods=["GET"])
def play() -> Response:
    """The player's page: create or join a table and play, every receipt checked."""
    return send_from_directory(WEB, "index.html")


@pages.route("/verify", methods=["GET"])
def verify() -> Response:
    """The verify page: check a round's bundle in the browser."""
    return send_from_directory(WEB, "verify.html")


@pages.route("/rules", methods=["GET"])
def rules() -> Response:
    """How to play each game, in plain words (the table links each game's part)."""
    return send_from_directory(WEB, "rules.html")


@pages.route("/favicon.ico", methods=["GET"])
def favicon() -> Response:
    """The pages' icon (an SVG), also where browsers look for one unasked (/docs)."""
    return send_from_directory(WEB, "favicon.svg", mimetype="image/svg+xml")


def install(app: Flask) -> None:
    """The pages, and the headers above on every response they concern."""
    app.register_blueprint(pages)
    app.after_request(_browser_headers)


def _browser_headers(response: Response) -> Response:
    path = request.path
    if path in ("/", "/verify", "/rules", "/favicon.ico") or path.startswith(WEB_URL):
        response.headers["Content-Security-Policy"] = PAGE_CSP
        response.headers.update(BROWSER_HEADERS)
        if path.endswith((".js", ".mjs")):
            response.mimetype = "text/javascript"
    elif path == "/docs":
        response.headers["Content-Security-Policy"] = DOCS_CSP
        response.headers.update(BROWSER_HEADERS)
    if request.method in ("GET", "HEAD") and _public(request.endpoint):
        response.headers["Access-Control-Allow-Origin"] = "*"
    return response


def _public(endpoint: str | None) -> bool:
    if endpoint in PUBLIC_READS:
        return True
    return endpoint in VIEWS and "Authorization" not in request.headers
