"""The service's logs: plain text, or one JSON object a line (``FAIRDEAL_LOG_FORMAT=json``), from
``FAIRDEAL_LOG_LEVEL`` up.

Every line has its time (UTC), level, logger and message; a line logged while a request is
answered carries the request's method, path and client. Each request has one line of its own
on ``ACCESS_LOGGER``, written by ``AccessLog`` around the app whatever the server (gunicorn,
as ``fairdeal serve`` or by hand, or werkzeug's), once the answer is sent:

    2026-01-01T00:00:00.000+00:00 INFO fairdeal.access GET /v1/keys?x=1 200 931B 2.1ms client=::1

and in JSON its members ``method``, ``path``, ``query`` (if any), ``client``, ``status``,
``bytes`` and ``duration_ms``. A request refused for the rate limit (429) has its line at DEBUG:
a flood of them is counted in the metrics, not written out. The target is as sent (encoded);
no control character from a client reaches a line as itself, and no line has colour codes
unless the stream is a terminal.
"""

import json
import logging
import re
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC, datetime
from typing import IO, Any

from flask import has_request_context, request

ACCESS_LOGGER = "fairdeal.access"
ACCESS_FIELDS = ("method", "path", "query", "client", "status", "bytes", "duration_ms")
_IN_ACCESS_TEXT = frozenset(ACCESS_FIELDS) - {"client"}  # what an access line's message says
RATE_LIMITED = 429
# Their lines at INFO repeat the access line: werkzeug's server's for each request, and
# flask-limiter's for each request over the rate limit.
_REPEATING = ("werkzeug", "flask-limiter")
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_CONTROL = {code: f"\\x{code:02x}" for code in [*range(0x20), 0x7F]}
_TEXT = "%(asctime)s %(levelname)s %(name)s %(message)s%(request)s"


class AccessLog:
    """WSGI middleware: the one line of each request on ``ACCESS_LOGGER``, once its answer's
    body is sent (a stream's at its end) or given up."""

    def __init__(self, app: Callable[..., Iterable[bytes]]) -> None:
        self.app = app

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        started = time.perf_counter()
        status: list[str] = []

        def start(line: str, headers: Any, exc_info: Any = None) -> Any:
            status[:] = [line]
            return start_response(line, headers, exc_info)

        def done(sent: int) -> None:
            elapsed_ms = (time.perf_counter() - started) * 1000
            _log_access(environ, status[0].split(None, 1)[0] if status else "-", sent, elapsed_ms)

        return _Counted(self.app(environ, start), done)


class _Counted:
    """A response body whose bytes are counted as they go out, ``done(count)`` at its close."""

    def __init__(self, body: Iterable[bytes], done: Callable[[int], None]) -> None:
        self._body, self._done, self._sent = body, done, 0

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self._body:
            self._sent += len(chunk)
            yield chunk

    def close(self) -> None:
        try:
            close = getattr(self._body, "close", None)
            if close is not None:
                close()
        finally:
            self._done(self._sent)


def _log_access(environ: dict[str, Any], status: str, sent: int, elapsed_ms: float) -> None:
    code = int(status) if status.isdigit() else status
    level = logging.DEBUG if code == RATE_LIMITED else logging.INFO
    logger = logging.getLogger(ACCESS_LOGGER)
    if not logger.isEnabledFor(level):
        return
    method = _printable(environ.get("REQUEST_METHOD", "-"))
    target = _printable(environ.get("RAW_URI") or environ.get("REQUEST_URI") or _rebuilt(environ))
    path, _, query = target.partition("?")
    fields: dict[str, Any] = {
        "method": method,
        "path": path,
        **({"query": query} if query else {}),
        "client": environ.get("REMOTE_ADDR", "-"),
        "status": code,
        "bytes": sent,
        "duration_ms": round(elapsed_ms, 1),
    }
    logger.log(level, "%s %s %s %dB %.1fms", method, target, status, sent, elapsed_ms, extra=fields)


def _rebuilt(environ: dict[str, Any]) -> str:
    """The target, where the server keeps no copy of it as sent."""
    path, query = str(environ.get("PATH_INFO", "")), environ.get("QUERY_STRING")
    return path + (f"?{query}" if query else "")


def _printable(text: str) -> str:
    """No control character from a client reaches a log line as itself."""
    return text.translate(_CONTROL)


class RequestFields(logging.Filter):
    """Adds the request being answered (if any) to each record that does not carry it."""

    def filter(self, record: logging.LogRecord) -> bool:
        if has_request_context():
            for name, value in (
                ("method", request.method),
                ("path", request.path),
                ("client", request.remote_addr),
            ):
                if not hasattr(record, name):
                    setattr(record, name, value)
        return True


def request_fields(record: logging.LogRecord) -> dict[str, Any]:
    """The fields of the request a record was logged in (RequestFields), or of its access line."""
    return {name: getattr(record, name) for name in ACCESS_FIELDS if hasattr(record, name)}


def uncoloured(text: str) -> str:
    return _ANSI.sub("", text)


class JsonFormatter(logging.Formatter):
    """One object a line: time (UTC, ISO 8601), level, logger, message, the request's fields,
    and the traceback of an exception, if any."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": _utc_iso(record.created),
            "level": record.levelname,
            "logger": record.name,
            "message": uncoloured(record.getMessage()),
            **request_fields(record),
        }
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False, default=str)


class TextFormatter(logging.Formatter):
    """A line of text, the request's fields after the message as name=value (an access line's
    message says all of them but the client); colour codes are kept only on a terminal."""

    def __init__(self, keep_colour: bool) -> None:
        super().__init__(_TEXT)
        self._keep_colour = keep_colour

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:  # noqa: N802
        return _utc_iso(record.created)

    def format(self, record: logging.LogRecord) -> str:
        said = _IN_ACCESS_TEXT if record.name == ACCESS_LOGGER else frozenset()
        fields = request_fields(record).items()
        record.request = "".join(f" {name}={value}" for name, value in fields if name not in said)
        text = super().format(record)
        return text if self._keep_colour else uncoloured(text)


def configure(
    log_format: str, stream: IO[str] | None = None, level: str = "info"
) -> logging.Handler:
    """Send every log record from ``level`` up (the service's, werkzeug's, gunicorn's) to
    ``stream`` (stderr) in ``log_format``, replacing the root logger's handlers; returns the
    handler."""
    stream = stream or sys.stderr
    handler = logging.StreamHandler(stream)
    handler.setFormatter(_formatter(log_format, stream))
    handler.addFilter(RequestFields())
    handler.setLevel(level.upper())  # also for records of loggers with levels of their own
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper())
    for name in _REPEATING:
        logging.getLogger(name).setLevel(logging.WARNING)
    return handler


def _formatter(log_format: str, stream: IO[str]) -> logging.Formatter:
    if log_format == "json":
        return JsonFormatter()
    return TextFormatter(keep_colour=_is_terminal(stream))


def _is_terminal(stream: IO[str]) -> bool:
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def _utc_iso(created: float) -> str:
    return datetime.fromtimestamp(created, UTC).isoformat(timespec="milliseconds")
