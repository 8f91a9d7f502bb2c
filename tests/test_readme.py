"""The README fits in one read, and its two commands are the ones that work: its test command
is the one CI runs, and its first command serves on its embedded defaults. Its other blocks (the
quickstart) run with the guides' in ``test_docs.py``."""

import errno
import json
import re
import socket
import stat
from pathlib import Path

import pytest

from bench.transport import raw
from tests.test_docs import ROOT, Background, block, environment, fake_clone

README = (ROOT / "README.md").read_text(encoding="utf-8")
MOST_BYTES = 15_000
SETUP = "python3 -m venv .venv && .venv/bin/pip install -q -e "
DEFAULT_PORT = 8000  # fairdeal serve's


def _fenced_commands() -> list[str]:
    return re.findall(r"```sh\n(.*?)\n```", README, flags=re.DOTALL)


def test_the_readme_fits_in_one_read() -> None:
    assert len(README.encode()) <= MOST_BYTES


def test_the_readme_lists_its_sections_in_its_contents_in_order() -> None:
    contents = README.split("\n## Contents\n", 1)[1].split("\n## ", 1)[0]
    listed = re.findall(r"^- \[(.+?)\]\(#([\w-]+)\)$", contents, flags=re.M)
    sections = re.findall(r"^## (.+)$", README.split("\n## Contents\n", 1)[1], flags=re.M)
    assert [title for title, _ in listed] == sections


def test_ci_runs_the_readmes_test_command() -> None:
    test_command = _fenced_commands()[1]
    assert test_command == block("install-tests").rstrip("\n")
    assert test_command.startswith(SETUP) and test_command.endswith("pytest")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert test_command in ci
    # then the tier the README's command leaves to CI (tests/conftest.py's TIERS)
    assert ci.index(test_command) < ci.index("\n.venv/bin/python -m pytest -m ci\n")


def test_readme_starts_with_the_serve_command_then_the_test_command() -> None:
    serve, tests = _fenced_commands()[:2]
    assert serve == block("install-serve").rstrip("\n")
    assert serve.endswith("fairdeal serve")
    assert tests.endswith("pytest")


def test_the_first_command_serves_on_its_defaults(tmp_path: Path) -> None:
    """Its install is CI's own (with [dev], which holds [server]); what it then runs serves on
    127.0.0.1:8000 with a SQLite file and a development key in ./instance."""
    install, command = block("install-serve").rstrip("\n").rsplit(" && ", 1)
    assert install == SETUP + "'.[server]'"
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", DEFAULT_PORT))
        except OSError as e:
            if e.errno != errno.EADDRINUSE:
                raise
            pytest.skip(f"port {DEFAULT_PORT}, the default, is taken on this machine")
    clone = fake_clone(tmp_path)
    service = Background(command, clone, environment(tmp_path), DEFAULT_PORT)
    try:
        answer = raw(f"http://127.0.0.1:{DEFAULT_PORT}", "GET", "/v1/keys", timeout=10)
    finally:
        service.stop()
    keys = json.loads(answer.body)
    assert keys["development_key"] is True
    assert keys["log"]["origin"] == "fairdeal.example/log"
    key = clone / "instance" / "dev-signing-key.pem"
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    assert "USING A DEVELOPMENT SIGNING KEY" in service.output()
