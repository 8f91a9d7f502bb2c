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


def test_the_readmes_sdk_example_runs_against_a_real_server(tmp_path: Path) -> None:
    from tests.api.conftest import start_server, stop_server

    code = re.search(r"```python\n(.*?)```", README, flags=re.DOTALL)
    assert code is not None
    running, http = start_server(tmp_path)
    try:
        namespace: dict[str, object] = {}
        exec(code.group(1).replace("http://127.0.0.1:8000", running.url), namespace)
        view = namespace["view"]
        assert isinstance(view, dict) and view["current_round"] == namespace["round_id"]
    finally:
        stop_server(running, http)
