"""The one HTTP client of the benchmarks and the tests: the SDK's transport
(``fairdeal.api.client.Connection``), with no layer of requests, JSON or retries of its own.

``raw`` sends one request as any HTTP client could, tried once, for the cases that look at
the answer itself (statuses, error bodies, headers, hostile input); an error answer is a
``Response``, not an exception. ``Http`` is the bots' client: JSON requests to one or several
service processes, each try to one of them at random and counted in ``Stats``, sent again as
the SDK's ``Retries`` say (a read, or a write with an Idempotency-Key, when the connection
fails or the answer is 503 ``database_unavailable``), for as long as its ``patience`` lasts;
``watch`` sees every answer of every try.
``send_bytes`` writes a request, byte for byte, on a socket of its own: for what no HTTP client
would send (a chunked body over the limit, a claimed length of 10 GB) or from another address.
"""

import http.client
import json
import socket
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from random import Random
from typing import Any

from fairdeal.api.client import ClientError, Connection, Request, Response, Retries

ONCE = Retries(attempts=1)
PAUSE_S = 0.02  # between two tries of a patient request


def raw(
    url: str,
    method: str,
    path: str,
    body: Any = None,
    *,
    token: str | None = None,
    headers: Mapping[str, str] | None = None,
    data: bytes | None = None,
    content_type: str | None = "application/json",
    timeout: float = 30.0,
) -> Response:
    """One request as any HTTP client could send it, tried once on a connection of its own;
    an error answer is returned, a failed connection raises ClientError."""
    if data is None and body is not None:
        data = json.dumps(body).encode()
    request = Request(method, path, data, headers_of(data, content_type, token, headers))
    connection = Connection(url, timeout, ONCE)
    try:
        return connection.send(request)
    finally:
        connection.close()


def headers_of(
    data: bytes | None,
    content_type: str | None,
    token: str | None,
    more: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """A request's headers: the body's type if it has one, the token as a bearer, and
    ``more``."""
    sent = {"Content-Type": content_type} if data is not None and content_type else {}
    if token is not None:
        sent["Authorization"] = f"Bearer {token}"
    return {**sent, **(more or {})}


def answers(url: str, path: str = "/healthz", timeout: float = 1.0) -> bool:
    """Whether a service at ``url`` answers ``path`` with 200 now."""
    try:
        return raw(url, "GET", path, timeout=timeout).status == 200
    except ClientError:
        return False


def send_bytes(
    host: str, port: int, request: bytes, source: str | None = None, timeout: float = 10.0
) -> bytes:
    """``request`` written to a new connection as given (from the address ``source``, if
    given); the answer's status line."""
    address = None if source is None else (source, 0)
    with socket.create_connection((host, port), timeout, address) as connection:
        connection.sendall(request)
        answer = b""
        while b"\r\n\r\n" not in answer:
            chunk = connection.recv(4096)
            if not chunk:
                break
            answer += chunk
    return answer.split(b"\r\n", 1)[0]


class Unreachable(Exception):  # noqa: N818 - a condition, not a bug
    """No server answered within the client's patience."""


@dataclass
class Stats:
    """Every try's latency and outcome; errors are 5xx and failed connections."""

    actions: list[float] = field(default_factory=list)  # POSTs: what changes a table
    reads: list[float] = field(default_factory=list)
    refusals: Counter[str] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def record(
        self, method: str, elapsed: float, reply: Response | None, failure: str = ""
    ) -> None:
        with self.lock:
            if reply is None:
                self.errors[failure] += 1
                return
            (self.actions if method == "POST" else self.reads).append(elapsed)
            if reply.status >= 500:
                self.errors[f"{reply.status} {_code(reply)}"] += 1
            elif reply.status >= 400:
                self.refusals[_code(reply)] += 1


def _code(reply: Response) -> str:
    try:
        return str(reply.json["error"]["code"])
    except (ValueError, KeyError, TypeError):
        return "?"


class Http(Connection):
    """The SDK's ``Connection``, each try of a request sent to one of the service processes on
    ``ports`` at random; ``call`` sends JSON. With ``patience`` (seconds), a request the SDK
    may send again (a read, or a write with an Idempotency-Key) is tried every ``PAUSE_S``
    until one answers, or ``stop`` is set."""

    def __init__(
        self,
        ports: Sequence[int],
        stats: Stats,
        rng: Random,
        patience: float = 0.0,
        stop: threading.Event | None = None,
        watch: Callable[[Request, Response], None] = lambda request, reply: None,
    ) -> None:
        tries = 1 + int(patience / PAUSE_S)
        retries = Retries(tries, backoff_s=PAUSE_S, max_wait_s=PAUSE_S, sleep=self._pause)
        super().__init__(_url(ports[0]), 30.0, retries)
        self.stats, self.rng, self.stop = stats, rng, stop or threading.Event()
        self.watch = watch
        self._services = [Connection(_url(port), 30.0) for port in ports]

    def call(
        self,
        method: str,
        path: str,
        body: Any = None,
        token: str | None = None,
        key: str | None = None,
    ) -> Response:
        data = None if body is None else json.dumps(body).encode()
        more = {"Idempotency-Key": key} if key else None
        headers = headers_of(data, "application/json", token or None, more)
        try:
            return self.send(Request(method, path, data, headers))
        except ClientError as e:
            raise Unreachable(str(e)) from e

    def exchange(self, request: Request, fresh: bool = False) -> Response:
        """One try, to one of the services at random: timed, counted, and shown to ``watch``."""
        started = time.perf_counter()
        try:
            reply = self.rng.choice(self._services).exchange(request, fresh)
        except (OSError, http.client.HTTPException) as e:
            self.stats.record(request.method, 0.0, None, type(e).__name__)
            raise
        self.stats.record(request.method, time.perf_counter() - started, reply)
        self.watch(request, reply)
        return reply

    def close(self) -> None:
        for service in self._services:
            service.close()

    def _pause(self, seconds: float) -> None:
        if self.stop.wait(seconds):
            raise Unreachable("stopped")


def _url(port: int) -> str:
    return f"http://127.0.0.1:{port}"
