"""The pages a browser gets: served with a strict Content-Security-Policy, nosniff and no
referrer, JavaScript as text/javascript, /docs loading nothing from another host; and CORS on
the public reads only."""

from html.parser import HTMLParser
from typing import Any

import pytest

from fairdeal.api.web.pages import DOCS_CSP, PAGE_CSP, STATIC_REDOC, WEB
from tests.api.conftest import OPERATOR_TOKEN, Server

ANY_ORIGIN = "Access-Control-Allow-Origin"


@pytest.fixture
def http(server: Server) -> Any:
    return server.app.test_client()


@pytest.fixture
def seat(http: Any) -> dict[str, Any]:
    answer = http.post("/v1/tables", json={"game": "toto21", "options": {"target": 2}})
    assert answer.status_code == 201, answer.json
    return dict(answer.json)


PAGES = ["/", "/verify", "/rules"]


def _web_files() -> list[str]:
    return sorted(
        "/static/web/" + p.relative_to(WEB).as_posix() for p in WEB.rglob("*") if p.is_file()
    )


@pytest.mark.parametrize("path", [*PAGES, "/favicon.ico", *_web_files()])
def test_every_page_and_web_file_is_sent_with_the_strict_policy(http: Any, path: str) -> None:
    answer = http.get(path)
    assert answer.status_code == 200, path
    assert answer.headers["Content-Security-Policy"] == PAGE_CSP
    assert answer.headers["X-Content-Type-Options"] == "nosniff"
    assert answer.headers["Referrer-Policy"] == "no-referrer"
    assert ANY_ORIGIN not in answer.headers


def test_the_strict_policy_allows_nothing_inline_and_nothing_from_elsewhere() -> None:
    directives = dict(d.strip().split(" ", 1) for d in PAGE_CSP.split(";"))
    assert directives["default-src"] == "'none'"
    assert directives["frame-ancestors"] == "'none'"
    for name in ("script-src", "style-src", "connect-src"):
        assert directives[name] == "'self'", name
    assert "unsafe" not in PAGE_CSP and "http" not in PAGE_CSP


@pytest.mark.parametrize("path", [p for p in _web_files() if p.endswith(".js")])
def test_javascript_is_sent_as_text_javascript(http: Any, path: str) -> None:
    assert http.get(path).mimetype == "text/javascript"


def test_the_root_is_the_play_page_not_a_json_404(http: Any) -> None:
    answer = http.get("/")
    assert answer.status_code == 200 and answer.mimetype == "text/html"
    assert b"/static/web/js/play.js" in answer.data


class _Resources(HTMLParser):
    """Every URL an HTML page names in src/href, and whether it has inline script or style."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []
        self.inline: list[str] = []
        self._open: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        self.urls += [v for k, v in attrs if k in ("src", "href") and v]
        if "style" in found or any(k.startswith("on") for k in found):
            self.inline.append(f"<{tag}> with an inline attribute")
        self._open = tag if tag in ("script", "style") else None

    def handle_data(self, data: str) -> None:
        if self._open and data.strip():
            self.inline.append(f"<{self._open}> with content")


def _resources(html: str) -> _Resources:
    parsed = _Resources()
    parsed.feed(html)
    return parsed


@pytest.mark.parametrize("path", PAGES)
def test_the_pages_have_no_inline_script_or_style_and_load_only_from_here(
    http: Any, path: str
) -> None:
    page = _resources(http.get(path).get_data(as_text=True))
    assert page.inline == []
    here = [u for u in page.urls if not u.startswith("#")]  # a link within the page
    assert here and all(u.startswith("/") and not u.startswith("//") for u in here)


def test_docs_load_nothing_from_another_host(http: Any) -> None:
    answer = http.get("/docs")
    assert answer.status_code == 200
    assert answer.headers["Content-Security-Policy"] == DOCS_CSP
    assert answer.headers["X-Content-Type-Options"] == "nosniff"
    urls = _resources(answer.get_data(as_text=True)).urls
    assert urls == ["/static/redoc/redoc.standalone.js"]
    # The vendored bundle once fetched its footer's logo from Redocly's CDN.
    assert "cdn.redoc.ly" not in (STATIC_REDOC / "redoc.standalone.js").read_text("utf-8")


def test_the_docs_policy_loosens_only_styles_and_workers() -> None:
    loosened = set(DOCS_CSP.split("; ")) - set(PAGE_CSP.split("; "))
    assert loosened == {
        "style-src 'self' 'unsafe-inline'",
        "font-src 'self' data:",
        "worker-src blob:",
    }


def _public_reads(seat: dict[str, Any]) -> list[str]:
    table = seat["table_id"]
    return [
        f"/v1/tables/{table}/events",
        f"/v1/tables/{table}",
        "/v1/keys",
        "/v1/log/checkpoint",
        "/v1/log/consistency?from=0&to=0",
        "/checkpoint",
        f"/v1/tables/{table}/bundle?seq=0",  # a 404 or a bundle: either is readable anywhere
        "/v1/rounds/r_nosuchround/bundle",
    ]


def test_public_reads_answer_any_origin(http: Any, seat: dict[str, Any]) -> None:
    for path in _public_reads(seat):
        for method in (http.get, http.head):
            answer = method(path, headers={"Origin": "https://auditor.example"})
            assert answer.headers.get(ANY_ORIGIN) == "*", (path, answer.status_code)


def test_a_view_asked_with_a_seat_token_and_the_operator_s_reads_get_no_cors(
    http: Any, seat: dict[str, Any]
) -> None:
    table, token = seat["table_id"], seat["token"]
    seat_view = http.get(f"/v1/tables/{table}", headers={"Authorization": f"Bearer {token}"})
    assert seat_view.status_code == 200 and ANY_ORIGIN not in seat_view.headers
    export = http.get("/v1/export", headers={"Authorization": f"Bearer {OPERATOR_TOKEN}"})
    assert export.status_code == 200 and ANY_ORIGIN not in export.headers
    for path in ("/healthz", "/openapi.json", "/docs"):
        assert ANY_ORIGIN not in http.get(path).headers, path


def test_writes_get_no_cors(http: Any) -> None:
    answer = http.post("/v1/tables", json={"game": "toto21", "options": {"target": 2}})
    assert answer.status_code == 201 and ANY_ORIGIN not in answer.headers
