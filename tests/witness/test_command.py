"""``fairdeal witness`` run as a real process: its key printed, its refusals in one line, and
a witness started that cosigns over HTTP, two checkpoints over one kept-alive connection."""

import http.client
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from fairdeal.api.witness.keyfile import DEFAULT_NAME, KEY_FILE
from fairdeal.cosignature import CosignatureVerifier, Cosigner

from ..commands import REPO, run_python
from .conftest import Log


def witness(*args: str) -> subprocess.CompletedProcess[str]:
    return run_python("-m", "fairdeal.api.cli", "witness", *args)


def test_print_key_makes_the_key_once_and_prints_its_verifier_key(tmp_path: Path) -> None:
    state = tmp_path / "w"
    first, again = (
        witness("--print-key", "--state", str(state)),
        witness("--print-key", "--state", str(state)),
    )
    assert first.returncode == 0 and again.returncode == 0, first.stderr
    assert first.stdout == again.stdout and first.stdout.count("\n") == 1
    verifier = CosignatureVerifier.from_key_string(first.stdout.strip())
    assert verifier.name == DEFAULT_NAME
    kept = Cosigner.from_key_string((state / KEY_FILE).read_text().strip())
    assert kept.verifier_key() == first.stdout.strip()


def test_print_key_under_a_name_of_one_s_own(tmp_path: Path) -> None:
    done = witness("--print-key", "--state", str(tmp_path / "w"), "--name", "witness.test/x")
    assert done.returncode == 0 and done.stdout.startswith("witness.test/x+"), done.stderr


def test_a_log_key_may_be_given_in_a_file(tmp_path: Path) -> None:
    key_file = tmp_path / "log.vkey"
    key_file.write_text(Log.new().verifier.key_string() + "\n")
    done = witness("--print-key", "--state", str(tmp_path / "w"), "--log", str(key_file))
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--log", "nope"], "--log: not a log's verifier key"),
        (["--log", "a+00000000+AAAA"], "--log: not a log's verifier key"),
        ([], "name at least one log to witness with --log"),
        (["--port", "0", "--log", "x"], "--port: must be 1 to 65535"),
    ],
    ids=["a log key that is no key", "a log key of no Ed25519 key", "no log", "port 0"],
)
def test_a_usage_error_is_one_line_and_exit_2(
    tmp_path: Path, args: list[str], message: str
) -> None:
    done = witness("--state", str(tmp_path / "w"), *args)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and message in done.stderr, done.stderr
    assert done.stderr.startswith("fairdeal witness: error: ")


def test_a_name_other_than_the_key_s_is_a_usage_error(tmp_path: Path) -> None:
    state = str(tmp_path / "w")
    assert witness("--print-key", "--state", state).returncode == 0
    done = witness("--print-key", "--state", state, "--name", "witness.test/other")
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert f"is named {DEFAULT_NAME}, not witness.test/other" in done.stderr


@contextmanager
def witness_process(tmp_path: Path, log: Log) -> Iterator[tuple[int, list[str]]]:
    """``fairdeal witness`` witnessing ``log``, once it says it listens: its port, and the
    lines it logged until then."""
    with socket.socket() as probe:  # a port free now, for the witness to listen on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    args = ["--state", str(tmp_path / "w"), "--port", str(port), "--log", log.verifier.key_string()]
    with subprocess.Popen(
        [sys.executable, "-m", "fairdeal.api.cli", "witness", *args],
        cwd=REPO,
        stderr=subprocess.PIPE,
        text=True,
    ) as process:
        assert process.stderr is not None
        try:
            started = [process.stderr.readline()]
            while "/add-checkpoint" not in started[-1] and len(started) < 20:
                started.append(process.stderr.readline())
            yield port, started
        finally:
            process.terminate()
            process.wait(timeout=30)


def test_the_witness_says_its_key_and_its_logs_then_cosigns(tmp_path: Path) -> None:
    log = Log.new().grow(3)
    with witness_process(tmp_path, log) as (port, started):
        assert "witness key witness.example/w1+" in started[0]
        assert f"witnessing {log.verifier.key_string()}" in started[1]
        assert f"witness on http://127.0.0.1:{port}/add-checkpoint" in started[-1]
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        connection.request("POST", "/add-checkpoint", body=log.request(0))
        answer = connection.getresponse()
        assert answer.status == 200 and answer.read().startswith("\u2014 ".encode())


def test_the_witness_keeps_a_connection_alive_for_the_next_checkpoint(tmp_path: Path) -> None:
    """C2SP tlog-witness: a witness SHOULD support HTTP keep-alive. Two checkpoints over one
    HTTP/1.1 connection (http.client would open a new one, silently, had the first answer
    closed it: the connection's local port tells)."""
    log = Log.new().grow(3)
    with witness_process(tmp_path, log) as (port, _):
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        try:
            connection.request("POST", "/add-checkpoint", body=log.request(0))
            first = connection.getresponse()
            assert first.status == 200, first.read()
            first.read()
            assert not first.will_close and first.getheader("Connection") != "close"
            assert connection.sock is not None
            local = connection.sock.getsockname()
            log.grow(2)
            connection.request("POST", "/add-checkpoint", body=log.request(3))
            second = connection.getresponse()
            assert second.status == 200 and second.read().startswith("\u2014 ".encode())
            assert connection.sock is not None and connection.sock.getsockname() == local
        finally:
            connection.close()
