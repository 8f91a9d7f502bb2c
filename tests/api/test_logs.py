"""Issue 12, point 5: logs as JSON on request and as plain text otherwise, never with colour
codes off a terminal; a mistyped FAIRDEAL_* variable is warned about, naming the close match."""

import io
import json
import logging
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bench.harness import Process, free_port
from fairdeal.api import logs
from fairdeal.api.config import Config, ConfigError, unknown_variables
from tests.api.bots import raw
from tests.api.conftest import start_server, stop_server

ESC = "\x1b"


@pytest.fixture
def restored_logging() -> Iterator[None]:
    """``logs.configure`` replaces the root logger's handlers: put pytest's back after."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        yield
    finally:
        for handler in list(root.handlers):
            root.removeHandler(handler)
        for handler in handlers:
            root.addHandler(handler)
        root.setLevel(level)


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
    logging.getLogger("werkzeug").info("\x1b[33mGET /missing HTTP/1.1\x1b[0m 404 -")
    text = stream.getvalue()
    assert "GET /missing HTTP/1.1 404 -" in text
    assert ESC not in text


def test_text_lines_keep_colour_codes_on_a_terminal(restored_logging: None) -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    stream = Terminal()
    logs.configure("text", stream)
    logging.getLogger("werkzeug").info("\x1b[33mGET /missing\x1b[0m")
    assert "\x1b[33m" in stream.getvalue()


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


def test_serve_logs_json_lines_warns_of_a_mistyped_variable_and_colours_nothing(
    tmp_path: Path,
) -> None:
    port = free_port()
    env = {
        "PATH": "/usr/bin:/bin",
        "FAIRDEAL_INSTANCE_PATH": str(tmp_path / "instance"),
        "FAIRDEAL_LOG_FORMAT": "json",
        "FAIRDEAL_SWEEP_INTERVALS": "0",
    }
    argv = [sys.executable, "-m", "fairdeal.api.cli", "serve", "--port", str(port)]
    service = Process(argv, port, env, tmp_path / "serve.log").start()
    try:
        assert raw(service.url, "GET", "/nowhere?x=1").status == 404  # werkzeug's: yellow
        assert raw(service.url, "GET", "/nowhere/%0a%1b").status == 404
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
    access = [line for line in lines if line["logger"] == logs.ACCESS_LOGGER]
    # Each worker writes its own line once it has answered: not always in the order answered.
    (nowhere,) = [line for line in access if "?x=1" in line["message"]]
    (escaped,) = [line for line in access if "%0a" in line["message"]]
    assert {"method": "GET", "path": "/nowhere", "status": 404}.items() <= nowhere.items()
    assert nowhere["client"] == "127.0.0.1" and nowhere["bytes"] > 0
    assert nowhere["message"].startswith('"GET /nowhere?x=1 HTTP/1.1" 404 ')
    assert escaped["path"] == "/nowhere/%0a%1b"  # as sent: encoded, never a raw newline
