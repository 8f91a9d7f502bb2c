"""Issue 12, point 5: logs as JSON on request and as plain text otherwise, never with colour
codes off a terminal; a mistyped FAIRDEAL_* variable is warned about, naming the close match.
Issue 28, item 4: one line a request, saying each fact once, whatever the server; requests
refused for the rate limit at DEBUG; under gunicorn as `fairdeal serve` runs it, the lines of
the app in every worker as well as gunicorn's."""

import io
import json
import logging
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bench.harness import Process, free_port
from fairdeal.api.http import logs
from fairdeal.api.service.config import Config, ConfigError, unknown_variables
from tests.api.bots import raw, toto21_table
from tests.api.conftest import OPERATOR_TOKEN, start_server, stop_server

ESC = "\x1b"


@pytest.fixture
def restored_logging() -> Iterator[None]:
    """``logs.configure`` replaces the root logger's handlers and sets levels: put pytest's
    handlers and the levels back after."""
    root = logging.getLogger()
    handlers = list(root.handlers)
    levels = {name: logging.getLogger(name).level for name in ("", "werkzeug", "flask-limiter")}
    try:
        yield
    finally:
        for handler in list(root.handlers):
            root.removeHandler(handler)
        for handler in handlers:
            root.addHandler(handler)
        for name, level in levels.items():
            logging.getLogger(name).setLevel(level)


def json_lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line]


def test_json_lines_carry_time_level_logger_message_and_the_request(
    tmp_path: Path, restored_logging: None
) -> None:
    stream = io.StringIO()
    running, http_server = start_server(tmp_path)
    try:
        logs.configure("json", stream)
        running.service.store.close()  # a 500, and the service's error with its traceback
        raw(running.url, "GET", "/v1/log/checkpoint")
    finally:
        stop_server(running, http_server)
    assert ESC not in stream.getvalue()
    lines = json_lines(stream.getvalue())
    (error,) = [line for line in lines if line["level"] == "ERROR"]
    assert (error["logger"], error["message"]) == ("fairdeal", "unexpected error")
    assert "the store is closed" in error["exception"]  # the traceback, inside the one line
    assert (error["method"], error["path"], error["client"]) == (
        "GET",
        "/v1/log/checkpoint",
        "127.0.0.1",
    )
    assert error["time"].endswith("+00:00")  # UTC, ISO 8601


def test_text_lines_have_no_colour_codes_off_a_terminal(restored_logging: None) -> None:
    stream = io.StringIO()
    logs.configure("text", stream)
    logging.getLogger("werkzeug").warning("\x1b[33mError on request\x1b[0m")
    text = stream.getvalue()
    assert "WARNING werkzeug Error on request" in text
    assert ESC not in text


def test_text_lines_keep_colour_codes_on_a_terminal(restored_logging: None) -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    stream = Terminal()
    logs.configure("text", stream)
    logging.getLogger("werkzeug").warning("\x1b[33mError on request\x1b[0m")
    assert "\x1b[33m" in stream.getvalue()


ACCESS_TEXT = re.compile(
    r"^\S+ INFO fairdeal\.access GET /v1/keys\?x=1 200 (\d+)B \d+\.\dms client=127\.0\.0\.1$"
)


def test_each_request_has_one_text_line_saying_each_fact_once(
    tmp_path: Path, restored_logging: None
) -> None:
    stream = io.StringIO()
    running, http_server = start_server(tmp_path)
    try:
        logs.configure("text", stream)
        reply = raw(running.url, "GET", "/v1/keys?x=1")
    finally:
        stop_server(running, http_server)
    [line] = [line for line in stream.getvalue().splitlines() if logs.ACCESS_LOGGER in line]
    matched = ACCESS_TEXT.match(line)
    assert matched, line
    assert int(matched[1]) == len(reply.body)


def test_a_streamed_answer_has_its_line_once_sent_with_every_byte(
    tmp_path: Path, restored_logging: None
) -> None:
    stream = io.StringIO()
    running, http_server = start_server(tmp_path)
    try:
        toto21_table(running.url)  # a table at rest: a leaf of the log, a line of the export
        logs.configure("json", stream, level="debug")
        export = raw(running.url, "GET", "/v1/export", token=OPERATOR_TOKEN)
    finally:
        stop_server(running, http_server)
    assert export.status == 200 and export.body
    lines = json_lines(stream.getvalue())
    # (The table's last request may have its line here too: written once its answer is sent.)
    [line] = [line for line in lines if line.get("path") == "/v1/export"]
    assert line["bytes"] == len(export.body)
    assert (line["logger"], line["method"], line["status"]) == (logs.ACCESS_LOGGER, "GET", 200)


def test_a_request_refused_for_the_rate_limit_is_logged_at_debug_only(
    tmp_path: Path, restored_logging: None
) -> None:
    """A flood of refusals writes nothing at INFO (they are counted: test_operations.py), and
    flask-limiter's own line for each is left out."""
    stream = io.StringIO()
    running, http_server = start_server(tmp_path, rate_limit="1/minute")
    try:
        logs.configure("json", stream, level="debug")
        statuses = [create_from(running.url) for _ in range(3)]
    finally:
        stop_server(running, http_server)  # each line is written once its answer is sent
    assert statuses == [201, 429, 429]
    lines = json_lines(stream.getvalue())
    said = sorted((line["logger"], line["status"], line["level"]) for line in lines)
    access = logs.ACCESS_LOGGER
    assert said == [(access, 201, "INFO"), (access, 429, "DEBUG"), (access, 429, "DEBUG")]


def create_from(url: str) -> int:
    return raw(url, "POST", "/v1/tables", {"game": "toto21"}).status


def test_an_unknown_log_level_is_refused() -> None:
    with pytest.raises(ConfigError, match="FAIRDEAL_LOG_LEVEL"):
        Config.from_env({"FAIRDEAL_LOG_LEVEL": "verbose"})


def test_an_unknown_log_format_is_refused() -> None:
    with pytest.raises(ConfigError, match="FAIRDEAL_LOG_FORMAT"):
        Config.from_env({"FAIRDEAL_LOG_FORMAT": "xml"})


def test_an_unknown_variable_is_warned_about_naming_the_close_match() -> None:
    env = {
        "FAIRDEAL_DATABSE_URL": "postgresql://db/fairdeal",
        "FAIRDEAL_RATELIMIT": "5/minute",
        "FAIRDEAL_ZZZ": "",
        "FAIRDEAL_MAX_SEATS": "5",
        "FAIRDEAL_TEST_POSTGRES_URL": "postgresql://127.0.0.1/test",
        "HOME": "/root",
    }
    assert list(unknown_variables(env)) == [
        "FAIRDEAL_DATABSE_URL is not a fairdeal setting and is ignored; "
        "did you mean FAIRDEAL_DATABASE_URL?",
        "FAIRDEAL_RATELIMIT is not a fairdeal setting and is ignored; "
        "did you mean FAIRDEAL_RATE_LIMIT?",
        "FAIRDEAL_ZZZ is not a fairdeal setting and is ignored",
    ]


def test_serve_logs_gunicorns_lines_and_the_apps_in_every_worker_as_json_lines(
    tmp_path: Path,
) -> None:
    """The app's lines in every worker, each request's among them (those refused for the rate
    limit at DEBUG), as well as gunicorn's; a mistyped variable warned about; no colour."""
    port = free_port()
    env = {
        "PATH": "/usr/bin:/bin",
        "FAIRDEAL_INSTANCE_PATH": str(tmp_path / "instance"),
        "FAIRDEAL_LOG_FORMAT": "json",
        "FAIRDEAL_LOG_LEVEL": "debug",
        "FAIRDEAL_RATE_LIMIT": "1/minute",  # each worker counts its own: the third is over
        "FAIRDEAL_SWEEP_INTERVALS": "0",
    }
    argv = [sys.executable, "-m", "fairdeal.api.cli", "serve", "--port", str(port)]
    service = Process([*argv, "--workers", "2"], port, env, tmp_path / "serve.log").start()
    try:
        assert raw(service.url, "GET", "/nowhere?x=1").status == 404
        assert raw(service.url, "GET", "/nowhere/%0a%1b").status == 404
        created = sorted(create_from(service.url) for _ in range(3))
    finally:
        service.stop()
    text = (tmp_path / "serve.log").read_text()
    assert ESC not in text
    lines = json_lines(text)
    messages = [line["message"] for line in lines if line["level"] == "WARNING"]
    assert (
        "FAIRDEAL_SWEEP_INTERVALS is not a fairdeal setting and is ignored; "
        "did you mean FAIRDEAL_SWEEP_INTERVAL_S?"
    ) in messages
    loggers = {line["logger"] for line in lines}
    assert {"gunicorn.error", "fairdeal", logs.ACCESS_LOGGER} <= loggers
    # The app is built by the master, to check it, then by each worker, which says so too.
    assert sum("DEVELOPMENT SIGNING KEY" in message for message in messages) == 3
    access = [line for line in lines if line["logger"] == logs.ACCESS_LOGGER]
    # Each worker writes its own line once it has answered: not always in the order answered.
    (nowhere,) = [line for line in access if line.get("query") == "x=1"]
    (escaped,) = [line for line in access if "%0a" in line["path"]]
    assert {"method": "GET", "path": "/nowhere", "status": 404}.items() <= nowhere.items()
    assert nowhere["client"] == "127.0.0.1" and nowhere["bytes"] > 0
    assert nowhere["message"].startswith("GET /nowhere?x=1 404 ")
    assert escaped["path"] == "/nowhere/%0a%1b"  # as sent: encoded, never a raw newline
    tables = [line for line in access if line["path"] == "/v1/tables"]
    assert sorted(line["status"] for line in tables) == created
    assert 429 in created
    assert all(line["level"] == ("DEBUG" if line["status"] == 429 else "INFO") for line in tables)
    assert "flask-limiter" not in loggers  # its own line for each refusal: left out
