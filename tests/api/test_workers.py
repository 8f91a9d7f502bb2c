"""Issue 25, items 5 and 6: ``fairdeal serve`` runs gunicorn, whose workers are processes of
their own. One rate limit across processes that share a Redis; one scrape of ``/metrics``
counting the requests every worker answered; a body promised and never sent holds no one else
up; a rate limit store that cannot be used stops the service at start, saying which setting."""

import contextlib
import json
import os
import select
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from prometheus_client.multiprocess import MultiProcessCollector

from bench.harness import Process, free_port
from fairdeal.api.http import limits
from fairdeal.api.http.app import create_app
from fairdeal.api.service.config import MULTIPROCESS_METRICS, Config, ConfigError, known_variables
from tests.api.bots import raw
from tests.api.conftest import serving
from tests.api.test_operations import sample, samples

REDIS = "redis://127.0.0.1:6379/0"
HEALTHZ = {"route": "/healthz", "method": "GET", "status": "200"}


def redis_answers() -> bool:
    try:
        with socket.create_connection(("127.0.0.1", 6379), timeout=1) as connection:
            connection.sendall(b"PING\r\n")
            return connection.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def serve_env(folder: Path, **settings: str) -> dict[str, str]:
    return {
        "PATH": "/usr/bin:/bin",
        "FAIRDEAL_INSTANCE_PATH": str(folder),
        "FAIRDEAL_SWEEP_INTERVAL_S": "0",
        **settings,
    }


@contextlib.contextmanager
def services(tmp_path: Path, count: int, *args: str, **settings: str) -> Iterator[list[Process]]:
    """``count`` runs of ``fairdeal serve ARGS``, each with an instance folder of its own,
    started side by side."""
    running: list[Process] = []
    for number in range(count):
        port = free_port()
        argv = [sys.executable, "-m", "fairdeal.api.cli", "serve", "--port", str(port), *args]
        env = serve_env(tmp_path / f"s{number}", **settings)
        running.append(Process(argv, port, env, tmp_path / f"s{number}.log"))
    try:
        with ThreadPoolExecutor(count) as pool:
            list(pool.map(Process.start, running))
        yield running
    finally:
        for process in running:
            process.stop()


def create_table(url: str) -> int:
    return raw(url, "POST", "/v1/tables", {"game": "toto21"}).status


# Rate limits across processes


@pytest.mark.parametrize(
    ("storage", "workers", "expected"),
    [
        pytest.param(
            REDIS, "2", [201] * 3 + [429] * 5, id="one count in a shared Redis: three in all"
        ),
        pytest.param(
            "memory://", "1", [201] * 6 + [429] * 2, id="each process's own memory: three each"
        ),
    ],
)
def test_the_rate_limit_of_processes_sharing_a_redis_is_one_limit(
    tmp_path: Path, storage: str, workers: str, expected: list[int]
) -> None:
    """Two services (two gunicorn masters, with their workers), requests to each in turn."""
    if storage == REDIS and not redis_answers():
        pytest.skip("no Redis answers at 127.0.0.1:6379")
    origin = f"test-{uuid.uuid4().hex}.fairdeal/log"  # its keys in the Redis: this test's alone
    settings = {
        "FAIRDEAL_RATE_LIMIT": "3/minute",
        "FAIRDEAL_RATE_LIMIT_STORAGE": storage,
        "FAIRDEAL_LOG_ORIGIN": origin,
    }
    with services(tmp_path, 2, "--workers", workers, **settings) as (one, two):
        assert [create_table(service.url) for service in [one, two] * 4] == expected


def test_a_redis_that_does_not_answer_leaves_each_process_its_own_count(tmp_path: Path) -> None:
    """Nothing listens on port 1: no 500, the limit still holds in this process's memory."""
    unreachable = "redis://127.0.0.1:1/0"
    with serving(tmp_path, rate_limit="3/minute", rate_limit_storage=unreachable) as running:
        assert [create_table(running.url) for _ in range(4)] == [201, 201, 201, 429]


def test_the_rate_limit_storage_is_a_setting_memory_by_default() -> None:
    assert "FAIRDEAL_RATE_LIMIT_STORAGE" in known_variables()
    assert Config().rate_limit_storage == "memory://"
    assert Config.from_env({"FAIRDEAL_RATE_LIMIT_STORAGE": REDIS}).rate_limit_storage == REDIS


@pytest.mark.parametrize(
    ("storage", "message"),
    [
        ("memcached://127.0.0.1:11211", "FAIRDEAL_RATE_LIMIT_STORAGE must be memory:// or a Redis"),
        ("127.0.0.1:6379", "FAIRDEAL_RATE_LIMIT_STORAGE must be memory:// or a Redis"),
        ("redis://:secret@127.0.0.1:port/0", "FAIRDEAL_RATE_LIMIT_STORAGE is not a usable URL"),
        ("redis://:secret@127.0.0.1:99999/0", "FAIRDEAL_RATE_LIMIT_STORAGE is not a usable URL"),
    ],
    ids=["another store", "no scheme", "a port that is no number", "a port out of range"],
)
def test_a_bad_rate_limit_storage_stops_serve_at_start_in_one_line(
    tmp_path: Path, storage: str, message: str
) -> None:
    env = serve_env(tmp_path, FAIRDEAL_RATE_LIMIT_STORAGE=storage)
    done = subprocess.run(
        [sys.executable, "-m", "fairdeal.api.cli", "serve", "--port", str(free_port())],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    assert done.stderr.splitlines()[-1].startswith(f"fairdeal: error: {message}"), done.stderr
    assert "Traceback" not in done.stderr and "secret" not in done.stderr


def test_a_redis_url_without_the_redis_package_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(limits, "_redis_installed", lambda: False)
    config = Config(instance_path=tmp_path, sweep_interval_s=0, rate_limit_storage=REDIS)
    with pytest.raises(ConfigError, match=r"FAIRDEAL_RATE_LIMIT_STORAGE .*fairdeal\[redis\]"):
        create_app(config)


# Metrics across workers


def healthz_counts_by_process(folder: Path) -> dict[str, float]:
    """Each process's count of GET /healthz, from its own file of multiprocess mode."""
    counts: dict[str, float] = {}
    for path in folder.glob("counter_*.db"):
        for metric in MultiProcessCollector.merge([str(path)], accumulate=False):
            for found in metric.samples:
                if found.name == "fairdeal_http_requests_total" and found.labels == HEALTHZ:
                    counts[path.stem] = counts.get(path.stem, 0) + found.value
    return counts


def test_one_scrape_counts_the_requests_every_worker_answered(tmp_path: Path) -> None:
    with services(tmp_path, 1, "--workers", "2") as (service,):
        folder = tmp_path / "s0" / "metrics"  # the instance folder's, by default
        before = sample(samples(service.url), "fairdeal_http_requests_total", **HEALTHZ)
        sent, deadline = 0, time.monotonic() + 30
        with ThreadPoolExecutor(8) as pool:
            while len(healthz_counts_by_process(folder)) < 2:  # until both workers answered
                assert time.monotonic() < deadline, healthz_counts_by_process(folder)
                statuses = pool.map(lambda _: raw(service.url, "GET", "/healthz").status, range(16))
                assert set(statuses) == {200}
                sent += 16
        found = samples(service.url)
    assert sample(found, "fairdeal_http_requests_total", **HEALTHZ) == before + sent
    assert sum(healthz_counts_by_process(folder).values()) == before + sent


def test_a_metrics_folder_that_is_not_a_folder_stops_the_app(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "file").write_text("")
    monkeypatch.setenv(MULTIPROCESS_METRICS, str(tmp_path / "file"))
    config = Config(instance_path=tmp_path, sweep_interval_s=0)
    with pytest.raises(ConfigError, match=f"{MULTIPROCESS_METRICS} .* is not a folder"):
        create_app(config)


# A production server


def test_a_body_promised_and_never_sent_holds_up_no_one_else(tmp_path: Path) -> None:
    """Headers that announce a chunked body, and no body: the other clients are answered
    meanwhile (by the worker's other threads), and the request itself is answered 408 once
    --timeout has passed without a byte, rather than never."""
    head = (
        "POST /v1/tables HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        "Transfer-Encoding: chunked\r\n\r\n"
    )
    with (
        services(tmp_path, 1, "--workers", "1", "--timeout", "3") as (service,),
        socket.create_connection(("127.0.0.1", service.port), timeout=30) as stalled,
    ):
        stalled.sendall(head.encode())
        for _ in range(3):
            assert raw(service.url, "GET", "/healthz").status == 200
            assert create_table(service.url) == 201
        assert select.select([stalled], [], [], 0)[0] == []  # still waiting for its body
        answer = b"".join(iter(lambda: stalled.recv(65536), b""))  # then closed
    status_line, _, rest = answer.partition(b"\r\n")
    assert status_line == b"HTTP/1.1 408 REQUEST TIMEOUT"
    body = json.loads(rest.partition(b"\r\n\r\n")[2])
    assert body["error"]["code"] == "request_timeout"


def test_serve_answers_with_gunicorn_and_keeps_the_connection_alive(tmp_path: Path) -> None:
    with services(tmp_path, 1, "--workers", "1") as (service,):
        reply = raw(service.url, "GET", "/healthz")
    assert reply.headers["Server"] == "gunicorn"  # not werkzeug's development server
    assert reply.headers.get("Connection", "keep-alive").lower() == "keep-alive"
    assert os.environ.get(MULTIPROCESS_METRICS) is None  # the tests' own process: one registry
