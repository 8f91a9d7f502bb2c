"""The README's test command is the one CI runs, and its commands name real entry points."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _fenced_commands() -> list[str]:
    return re.findall(r"```sh\n(.*?)\n```", README, flags=re.DOTALL)


def test_ci_runs_the_readmes_test_command() -> None:
    test_command = _fenced_commands()[1]
    assert "pytest" in test_command
    assert test_command in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_readme_starts_with_the_serve_command_then_the_test_command() -> None:
    serve, tests = _fenced_commands()[:2]
    assert serve.endswith("fairdeal serve")
    assert tests.endswith("pytest")
