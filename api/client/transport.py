"""One kept-alive HTTP connection to a service (``Connection``), and when a request is sent
again (``Retries``): a read, or a write carrying an ``Idempotency-Key``, after a failed
connection or a 503 ``database_unavailable``; any other only after a 503 that stored nothing."""

import http.client
import json
import secrets
import threading
import time
import urllib.parse
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .errors import ClientError, ServerRefusedError


@dataclass(frozen=True)
class Retries:
    """When a request that is safe to send again is sent again.

    A GET, or a POST carrying an Idempotency-Key, is sent up to ``attempts`` times in all
    when the connection fails (refused, dropped, timed out) or the server answers 503
    ``database_unavailable``; a POST without a key (creating or joining a table) only on a
    503 that says nothing was stored (``outcome`` ``rolled_back``). Between two tries the
    client waits the 503's ``Retry-After`` (else ``backoff_s`` doubled each time), never more
    than ``max_wait_s``. ``sleep`` is the wait, to be replaced in tests.
    """

    attempts: int = 4
    backoff_s: float = 0.2
    max_wait_s: float = 5.0
    sleep: Callable[[float], None] = time.sleep

    def wait(self, attempt: int, retry_after: str | None) -> None:
        """Wait before try number ``attempt + 1`` (``attempt`` counts from 1)."""
        if retry_after is not None and retry_after.strip().isdigit():
            seconds = float(retry_after.strip())
        else:
            # The doubling stops at 2^62: past it, 2.0 ** n overflows a float long before any
            # max_wait_s would let it matter (a client that tries a thousand times).
            seconds = self.backoff_s * 2.0 ** min(attempt - 1, 62)
        self.sleep(min(seconds, self.max_wait_s))


@dataclass(frozen=True)
class Request:
    """One HTTP request as it is sent, every time it is sent."""

    method: str
    path: str
    data: bytes | None = None
    headers: Mapping[str, str] = field(default_factory=dict)

    @property
    def safe(self) -> bool:
        """Whether it may be sent again: a read, or a write that carries an Idempotency-Key."""
        return self.method == "GET" or "Idempotency-Key" in self.headers


@dataclass(frozen=True)
class Response:
    """One HTTP answer as it came: its status, headers (looked up in any case) and body."""

    status: int
    headers: http.client.HTTPMessage
    body: bytes

    @property
    def json(self) -> Any:
        """The body, parsed as JSON (ValueError if it is not)."""
        return json.loads(self.body)

    @property
    def text(self) -> str:
        """The body, as text (UTF-8, as the service sends it; ValueError if it is not)."""
        return self.body.decode("utf-8")


class Connection:
    """One kept-alive HTTP connection to a service, and the rule for sending a request again.

    ``send`` is the whole request, every try of it; ``exchange`` one try. Requests from several
    threads take turns on the connection.
    """

    def __init__(self, base_url: str, timeout: float = 10.0, retries: Retries | None = None):
        parts = urllib.parse.urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ClientError("the service URL must start with http:// or https://")
        self.base_url = base_url.rstrip("/")
        self.retries = retries or Retries()
        self._prefix = parts.path.rstrip("/")
        self._connection = _connection(parts, timeout)
        self._lock = threading.Lock()

    def send(self, request: Request) -> Response:
        """Send one request; its answer, whatever its status.

        A safe request (``Request.safe``) is sent again as ``retries`` says; another only
        after a 503 that stored nothing. A connection that failed (every try) raises
        ClientError.
        """
        method, path, safe = request.method, request.path, request.safe
        attempts = self.retries.attempts
        for attempt in range(1, attempts + 1):
            try:
                response = self.exchange(request, fresh=not safe)
            except (OSError, http.client.HTTPException) as e:
                if not safe:
                    raise ClientError(
                        f"{method} {path}: the connection failed ({e!r}): the request may or "
                        "may not have been applied, and is not sent again"
                    ) from e
                if attempt == attempts:
                    raise ClientError(f"{method} {path}: {e!r}, {attempts} times") from e
                self.retries.wait(attempt, None)
                continue
            if attempt < attempts and _may_resend(response, safe):
                self.retries.wait(attempt, response.headers.get("Retry-After"))
                continue
            return response
        raise AssertionError("unreachable: the last attempt returns or raises")

    def exchange(self, request: Request, fresh: bool = False) -> Response:
        """One try of a request, and its whole answer; the connection is closed if anything
        fails, so the next request opens a new one. A ``fresh`` request (one that is never sent
        twice) goes on a new connection, which the server cannot have closed while it sat idle."""
        method, path, data, headers = request.method, request.path, request.data, request.headers
        with self._lock:
            if fresh:
                self._connection.close()
            try:
                self._connection.request(method, self._prefix + path, data, dict(headers))
                response = self._connection.getresponse()
                body = response.read()
            except BaseException:
                self._connection.close()
                raise
            if response.will_close:
                self._connection.close()
            return Response(response.status, response.headers, body)

    def close(self) -> None:
        """Close the connection (the next request opens a new one)."""
        with self._lock:
            self._connection.close()


def new_idempotency_key() -> str:
    """A fresh random Idempotency-Key (printable ASCII, well under the 128-character limit)."""
    return "sdk-" + secrets.token_urlsafe(18)


def _connection(parts: urllib.parse.SplitResult, timeout: float) -> http.client.HTTPConnection:
    host = parts.hostname or ""
    if parts.scheme == "https":
        return http.client.HTTPSConnection(host, parts.port, timeout=timeout)
    return http.client.HTTPConnection(host, parts.port, timeout=timeout)


def _may_resend(response: Response, safe: bool) -> bool:
    """A 503 ``database_unavailable`` may be sent again: a safe request always, any other
    only when nothing was stored (``details.outcome`` ``rolled_back``)."""
    if response.status != 503:
        return False
    try:
        error = response.json["error"]
        outcome = (error.get("details") or {}).get("outcome")
    except (ValueError, KeyError, TypeError, AttributeError):
        return False
    return error.get("code") == "database_unavailable" and (safe or outcome == "rolled_back")


def json_answer(method: str, path: str, response: Response) -> Any:
    """The parsed body of a 2xx; otherwise the ServerRefusedError its error body names."""
    if not 200 <= response.status < 300:
        raise _refusal(response)
    try:
        return response.json
    except ValueError as e:
        raise ClientError(f"{method} {path}: the answer is not JSON: {e}") from e


def _refusal(response: Response) -> ServerRefusedError:
    status = response.status
    try:
        body = response.json["error"]
        return ServerRefusedError(status, body["code"], body["message"], body.get("details"))
    except (ValueError, KeyError, TypeError):
        reason = http.client.responses.get(status, "")
        return ServerRefusedError(status, "unreadable_error", reason)
