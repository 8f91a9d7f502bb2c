"""A real service on loopback: a SQLite file, a development key, an injected clock."""

import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from werkzeug.serving import make_server

from api.app import create_app
from api.client import FairdealClient
from api.config import Config

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


@dataclass
class Server:
    url: str
    clock: ManualClock
    config: Config
    app: object

    def client(self) -> FairdealClient:
        return FairdealClient(self.url)

    @property
    def service(self):  # noqa: ANN201 - the Service, for tests that drive the sweeper
        return self.app.extensions["fairdeal"]


def start_server(tmp_path: Path, database_url: str = "") -> tuple[Server, object]:
    clock = ManualClock()
    config = Config(
        instance_path=tmp_path / "instance",
        database_url=database_url,
        operator_token=OPERATOR_TOKEN,
        sweep_interval_s=0,
        log_origin="test.fairdeal/log",
    )
    app = create_app(config, clock)
    http = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=http.serve_forever, daemon=True)
    thread.start()
    return Server(f"http://127.0.0.1:{http.server_port}", clock, config, app), http


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    running, http = start_server(tmp_path)
    try:
        yield running
    finally:
        http.shutdown()
        running.service.store.close()
