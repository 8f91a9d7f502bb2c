"""The service's logs: plain text, or one JSON object a line (``FAIRDEAL_LOG_FORMAT=json``).

Both carry the request's fields where one is being answered (method, path, client), and neither
carries terminal colour codes unless the stream is a terminal: the formatters strip any colour
code in a message (werkzeug's development server, which the tests and ``fairdeal demo`` run,
colours its lines). The server's access lines, one a request on ``ACCESS_LOGGER`` with the
request's fields and its status and bytes, are written by ``serving.AccessLogger``.
"""

import json
import logging
import re
import sys
from datetime import UTC, datetime
from typing import IO, Any

from flask import has_request_context, request

ACCESS_LOGGER = "fairdeal.access"
REQUEST_FIELDS = ("method", "path", "client", "status", "bytes")
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_TEXT = "%(asctime)s %(levelname)s %(name)s %(message)s%(request)s"


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
    return {name: getattr(record, name) for name in REQUEST_FIELDS if hasattr(record, name)}


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
    """A line of text; colour codes are kept only on a terminal."""

    def __init__(self, keep_colour: bool) -> None:
        super().__init__(_TEXT)
        self._keep_colour = keep_colour

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:  # noqa: N802
        return _utc_iso(record.created)

    def format(self, record: logging.LogRecord) -> str:
        fields = request_fields(record)
        record.request = "".join(f" {name}={value}" for name, value in fields.items())
        text = super().format(record)
        return text if self._keep_colour else uncoloured(text)


def configure(log_format: str, stream: IO[str] | None = None) -> logging.Handler:
    """Send every log record (the service's, werkzeug's, gunicorn's) to ``stream``
    (stderr) in ``log_format``, replacing the root logger's handlers; returns the handler."""
    stream = stream or sys.stderr
    handler = logging.StreamHandler(stream)
    handler.setFormatter(_formatter(log_format, stream))
    handler.addFilter(RequestFields())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(logging.INFO)
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
