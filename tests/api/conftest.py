"""A real service on loopback: a SQLite file (or a PostgreSQL schema), a development key,
an injected clock.

``server`` is the SQLite service every API test may use. ``any_server`` runs a test twice,
on SQLite and on PostgreSQL: a schema of its own in the database at
FAIRDEAL_TEST_POSTGRES_URL (default postgresql://127.0.0.1:5432/test), chosen through the
connection's search_path and dropped afterwards; when no server answers, the PostgreSQL
case skips and says why.
"""

import socket
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from werkzeug.serving import BaseWSGIServer, WSGIRequestHandler, make_server

from bench import harness
from fairdeal.api.client import FairdealClient
from fairdeal.api.http.app import close_app, create_app
from fairdeal.api.service.config import Config
from fairdeal.keys import private_key_pem

OPERATOR_TOKEN = "operator-secret-for-tests"
START = 1_767_225_600_000  # 2026-01-01T00:00:00Z in ms


class ManualClock:
    """The service's clock in tests: it moves only when a test moves it."""

    def __init__(self, now: int = START) -> None:
        self.now = now
        self._lock = threading.Lock()

    def __call__(self) -> int:
        with self._lock:
            return self.now

    def advance(self, ms: int) -> None:
        with self._lock:
            self.now += ms


class _QuietHandler(WSGIRequestHandler):
    """No access log line per request: the tests make thousands."""

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        pass


class PooledWSGIServer(BaseWSGIServer):
    """Concurrent requests on a fixed pool of threads, as production WSGI servers run them.

    Werkzeug's threaded server (what ``fairdeal serve`` ran before gunicorn) starts a thread
    per request, and the PostgreSQL store keeps a connection per thread until the store is
    closed, so it runs out of connections after about a hundred requests (see
    test_concurrency.py). A pool keeps one connection per worker.
    """

    multithread = True
    WORKERS = 16

    def __init__(self, host: str, port: int, app: Any, handler: type[WSGIRequestHandler]) -> None:
        super().__init__(host, port, app, handler)
        self._pool = ThreadPoolExecutor(self.WORKERS, thread_name_prefix="fairdeal-http")

    def process_request(self, request: Any, client_address: Any) -> None:
        self._pool.submit(self._handle, request, client_address)

    def _handle(self, request: socket.socket, client_address: Any) -> None:
        try:
            self.finish_request(request, client_address)
        except Exception:
            self.handle_error(request, client_address)
        finally:
            self.shutdown_request(request)

    def server_close(self) -> None:
        super().server_close()
        self._pool.shutdown(wait=True)


@dataclass
class Server:
    url: str
    clock: Any  # a ManualClock, unless a test runs on real time
    config: Config
    app: Any
    backend: str = "sqlite"

    def client(self) -> FairdealClient:
        return FairdealClient(self.url)

    @property
    def service(self) -> Any:
        """The Service, for tests that drive the sweeper."""
        return self.app.extensions["fairdeal"]


def start_server(
    tmp_path: Path,
    database_url: str = "",
    *,
    pooled: bool = True,
    clock: Callable[[], int] | None = None,
    **overrides: Any,
) -> tuple[Server, BaseWSGIServer]:
    clock = clock or ManualClock()
    settings: dict[str, Any] = {
        "instance_path": tmp_path / "instance",
        "database_url": database_url,
        "operator_token": OPERATOR_TOKEN,
        "sweep_interval_s": 0,
        "log_origin": "test.fairdeal/log",
        "rate_limit": "",  # tests create many tables; test_operations.py turns it on
        **overrides,
    }
    config = Config(**settings)
    app = create_app(config, clock)
    http: BaseWSGIServer = (
        PooledWSGIServer("127.0.0.1", 0, app, _QuietHandler)
        if pooled
        else make_server("127.0.0.1", 0, app, threaded=True, request_handler=_QuietHandler)
    )
    thread = threading.Thread(target=http.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    backend = "postgres" if database_url else "sqlite"
    return Server(f"http://127.0.0.1:{http.server_port}", clock, config, app, backend), http


def stop_server(running: Server, http: BaseWSGIServer) -> None:
    http.shutdown()
    http.server_close()
    close_app(running.app)


@contextmanager
def serving(tmp_path: Path, database_url: str = "", **settings: Any) -> Iterator[Server]:
    """A server (``start_server``'s) for the length of the block."""
    running, http = start_server(tmp_path, database_url, **settings)
    try:
        yield running
    finally:
        stop_server(running, http)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    with serving(tmp_path) as running:
        yield running


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def any_server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Server]:
    """The service on each backend in turn (PostgreSQL skips with a reason if unreachable)."""
    url = "" if request.param == "sqlite" else request.getfixturevalue("postgres_schema")
    with serving(tmp_path, url) as running:
        yield running


@pytest.fixture
def postgres_schema(postgres_url: str) -> Iterator[str]:
    """A database URL whose search_path is a fresh schema, dropped afterwards."""
    with harness.postgres_schema(postgres_url, "fairdeal_api_test") as url:
        yield url


@pytest.fixture
def key_file(tmp_path: Path) -> Path:
    """The operator's signing key, shared by every service of a test (as by a lying one)."""
    path = tmp_path / "signing.pem"
    path.write_bytes(private_key_pem(Ed25519PrivateKey.generate()))
    path.chmod(0o600)
    return path
