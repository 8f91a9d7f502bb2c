"""The README's and the guides' (docs/) commands are the ones that work, and their lists of what
the code has (settings, finding codes, error codes, routes) are the code's.

A command block runs in CI when an HTML comment ``<!-- test: NAME -->`` comes right before it
and ``RUN_BY`` names the test that runs it; a block that cannot run says why in a comment
``<!-- not run: REASON -->``, and there are few. Blocks of output are fenced as ``text``.

The flows run as a reader runs them: in terminals (``Terminal``, one bash fed block after block,
so variables, functions and the folder carry over) beside services started by their own blocks
(``Background``), in a fake clone under ``tmp_path`` whose ``.venv/bin`` is this interpreter's
scripts folder, with ``HOME`` and ``TMPDIR`` under ``tmp_path`` too: nothing is written into the
checkout. Only the ports change (8000 and 8100 to free ones); the operators' flow
(``test_docs_operators.py``) also puts the deployment's hosts on this machine.
"""

import contextlib
import json
import os
import re
import select
import shlex
import shutil
import signal
import sqlite3
import stat
import subprocess
import sys
import sysconfig
import time
import tomllib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import pytest

from bench.harness import free_port
from bench.transport import answers, raw

ROOT = Path(__file__).resolve().parent.parent
DOCS = (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")))
COMMANDS = ("sh", "python")  # a block of any other language is output, and must say so
PLACEHOLDER_PORTS = ("8000", "8100")  # the service's and the witness's, in every block
MOST_NOT_RUN = 3
# One xdist worker for this module, so that its flows share one service (clone_serving).
pytestmark = pytest.mark.xdist_group("docs")
T = TypeVar("T")

# Each block marked to run, and the test that runs it.
RUN_BY = {
    "install-serve": "test_readme.py::test_the_first_command_serves_on_its_defaults",
    "install-tests": "test_readme.py::test_ci_runs_the_readmes_test_command (CI runs it)",
    "serve": "clone_serving",
    "scratch": "test_the_flows_run_as_written_against_fairdeal_serve",
    "quickstart": "test_the_flows_run_as_written_against_fairdeal_serve",
    "player": "test_the_flows_run_as_written_against_fairdeal_serve",
    "table-at-rest": "test_the_flows_run_as_written_against_fairdeal_serve",
    "deck": "test_the_flows_run_as_written_against_fairdeal_serve",
    "signed": "test_the_flows_run_as_written_against_fairdeal_serve",
    "error": "test_the_flows_run_as_written_against_fairdeal_serve",
    "auditor": "test_the_flows_run_as_written_against_fairdeal_serve",
    "inclusion": "test_the_flows_run_as_written_against_fairdeal_serve",
    "partial": "test_the_flows_run_as_written_against_fairdeal_serve",
    "auditor-next-time": "test_the_flows_run_as_written_against_fairdeal_serve",
    "consistency": "test_the_flows_run_as_written_against_fairdeal_serve",
    "sdk": "test_the_sdk_example_runs_to_a_verified_bundle",
    "backup-sqlite": "test_the_sqlite_backup_is_a_private_copy_of_the_database",
    "install-verifier": "test_the_verifier_alone_install_ends_with_a_command_that_runs",
    "ops-folder": "test_docs_operators.py",
    "operator-key": "test_docs_operators.py",
    "deploy-env": "test_docs_operators.py",
    "deploy-serve": "test_docs_operators.py",
    "deploy-check": "test_docs_operators.py",
    "witness-log-key": "test_docs_operators.py",
    "witness-serve": "test_docs_operators.py",
    "witness-key": "test_docs_operators.py",
    "witness-configure": "test_docs_operators.py",
    "witness-checkpoint": "test_docs_operators.py",
    "witness-verify": "test_docs_operators.py",
    "backup-postgres": "test_docs_operators.py",
    "rotate-key": "test_docs_operators.py",
    "witness-both-keys": "test_docs_operators.py",
    "witness-new-key": "test_docs_operators.py",
    "rotate-switch": "test_docs_operators.py",
    "rotate-check": "test_docs_operators.py",
}


@dataclass(frozen=True)
class Block:
    """A fenced block of a document, and the comment before it, if any."""

    path: Path
    marker: str | None  # "test", "not run" or None
    label: str  # the test's name, or why the block is not run
    language: str
    text: str


_FENCE = re.compile(r"^(?:<!-- (test|not run): (.+?) -->\n)?```(\w*)\n(.*?)^```$", re.M | re.S)


def blocks(path: Path) -> list[Block]:
    text = path.read_text(encoding="utf-8")
    return [
        Block(path, marker or None, label, language, body)
        for marker, label, language, body in _FENCE.findall(text)
    ]


ALL = [found for path in DOCS for found in blocks(path)]


def block(name: str) -> str:
    """The block marked ``<!-- test: name -->``, wherever it is."""
    assert name in RUN_BY, f"{name!r} is run by no test: add it to RUN_BY"
    found = [b.text for b in ALL if b.marker == "test" and b.label == name]
    assert len(found) == 1, f"{len(found)} blocks are marked {name!r}"
    return found[0]


def on_ports(text: str, ports: Mapping[str, int]) -> str:
    for placeholder, port in ports.items():
        text = re.sub(rf"\b{placeholder}\b", str(port), text)
    return text


def relative(path: Path) -> str:
    return str(path.relative_to(ROOT))


# Running blocks


def environment(scratch: Path) -> dict[str, str]:
    """This process's environment without the service's settings, with HOME and TMPDIR in
    ``scratch``, as a reader's shell would be in a fresh account."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("FAIRDEAL_") and k != "PROMETHEUS_MULTIPROC_DIR"
    }
    for name in ("home", "tmp"):
        (scratch / name).mkdir(exist_ok=True)
    return env | {"HOME": str(scratch / "home"), "TMPDIR": str(scratch / "tmp")}


def fake_clone(scratch: Path) -> Path:
    """A folder standing for the clone: its ``.venv`` is this interpreter's venv (outside one,
    its ``.venv/bin`` holds this interpreter's scripts)."""
    clone = scratch / "clone"
    clone.mkdir()
    if sys.prefix != sys.base_prefix:
        (clone / ".venv").symlink_to(sys.prefix)
    else:
        (clone / ".venv").mkdir()
        (clone / ".venv" / "bin").symlink_to(sysconfig.get_path("scripts"))
    return clone


class Terminal:
    """One bash, fed blocks one after another as a reader types them. A command that fails
    ends the shell (``set -e``), and the test with it."""

    def __init__(self, folder: Path, env: Mapping[str, str], scripts: Path) -> None:
        self._scripts = scripts
        scripts.mkdir(exist_ok=True)
        self._shell = subprocess.Popen(
            ["bash", "--noprofile", "--norc"],
            cwd=folder,
            env=dict(env),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self._send("set -eo pipefail\n")

    def run(self, script: str, timeout: float = 300) -> str:
        """The block's output; an AssertionError with it if a command failed."""
        path = self._scripts / f"block-{len(list(self._scripts.iterdir()))}.sh"
        path.write_text(script + "\n", encoding="utf-8")
        done = f"--- {path.name} done ---"
        # Sourced, so that its variables and folder stay; its commands read no terminal.
        self._send(f". {shlex.quote(str(path))} < /dev/null\necho; echo {shlex.quote(done)}\n")
        out = self._read_until(done, timeout, script)
        return out.removesuffix(done + "\n").removesuffix("\n")

    def close(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self._shell.pid, signal.SIGTERM)
        self._shell.wait(timeout=30)

    def _send(self, text: str) -> None:
        assert self._shell.stdin is not None
        self._shell.stdin.write(text.encode())
        self._shell.stdin.flush()

    def _read_until(self, done: str, timeout: float, script: str) -> str:
        assert self._shell.stdout is not None
        out = b""
        deadline = time.monotonic() + timeout
        while done.encode() not in out:
            left = deadline - time.monotonic()
            assert left > 0, f"{script}\ndid not end in {timeout} s:\n{out.decode()}"
            ready, _, _ = select.select([self._shell.stdout], [], [], left)
            if ready:
                chunk = os.read(self._shell.stdout.fileno(), 65536)
                assert chunk, f"{script}\nfailed, and the shell ended:\n{out.decode()}"
                out += chunk
        return out.decode(errors="replace")


def run_until(
    terminal: Terminal, script: str, holds: Callable[[str], bool], seconds: float = 30
) -> str:
    """Run ``script`` again until its output ``holds``: for what the docs say comes "a moment
    later" (a witness's cosignature)."""
    deadline = time.monotonic() + seconds
    while True:
        out = terminal.run(script)
        if holds(out) or time.monotonic() > deadline:
            return out
        time.sleep(0.5)  # waiting for the witness, which cosigns in the background


class Background:
    """A block that runs until stopped (a service, a witness), answering on ``port``."""

    def __init__(
        self, script: str, folder: Path, env: Mapping[str, str], port: int, path: str = "/healthz"
    ) -> None:
        self.log = folder.parent / f"background-{port}-{time.monotonic_ns()}.log"
        with self.log.open("wb") as log:
            self._process = subprocess.Popen(
                ["bash", "-c", "set -eo pipefail\n" + script],
                cwd=folder,
                env=dict(env),
                stdout=log,
                stderr=log,
                start_new_session=True,  # its own process group, ended as a whole
            )
        deadline = time.monotonic() + 60
        while not answers(f"http://127.0.0.1:{port}", path):
            if self._process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise AssertionError(f"it did not start:\n{self.output()}")
            time.sleep(0.05)  # polling for the server to be up, not waiting for a time to pass

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def stop(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self._process.pid, signal.SIGTERM)
        self._process.wait(timeout=30)


def verdicts(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith(("VALID", "INVALID", "UNUSABLE"))]


def written(folder: Path) -> list[str]:
    """The names of what was written in ``folder`` (a folder's with a slash), its venv aside."""
    return sorted(p.name + "/" * p.is_dir() for p in folder.iterdir() if p.name != ".venv")


def ignored_in_the_clone(names: list[str]) -> list[str]:
    """Of ``names``, those .gitignore covers at the top of the checkout."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("no git, or not a git checkout: .gitignore cannot be asked")
    done = subprocess.run(
        ["git", "check-ignore", "--no-index", "--stdin"],
        cwd=ROOT,
        input="\n".join(names),
        capture_output=True,
        text=True,
        check=False,
    )
    return done.stdout.splitlines()


# The documents' blocks


def test_every_command_block_runs_or_says_why_it_cannot() -> None:
    for found in ALL:
        where = f"{relative(found.path)}: {found.text[:60]!r}"
        assert found.language, f"{where}: a block says its language (sh, python, text)"
        if found.language in COMMANDS:
            assert found.marker in ("test", "not run"), f"{where}: neither run nor said why not"
        else:
            assert found.marker is None, f"{where}: a {found.language} block is output"


def test_every_block_marked_to_run_is_run_by_a_test() -> None:
    names = [b.label for b in ALL if b.marker == "test"]
    assert len(names) == len(set(names)), "a test name used twice"
    assert set(names) == set(RUN_BY)


def test_few_blocks_are_not_run_and_each_says_why() -> None:
    not_run = [b for b in ALL if b.marker == "not run"]
    assert len(not_run) <= MOST_NOT_RUN
    assert all(len(b.label.split()) >= 5 for b in not_run)


_BARE = re.compile(r"(?:^|[;&|(]|\$\()\s*(fairdeal|fairdeal-verify|pip3?|gunicorn|pytest)(?=\s|$)")


def test_commands_are_called_by_their_path_in_the_venv() -> None:
    """A bare ``fairdeal-verify`` is not found in a shell where the venv is not active."""
    for found in ALL:
        if found.language == "sh":
            for line in found.text.splitlines():
                assert not _BARE.search(line), f"{relative(found.path)}: {line}"


def test_no_document_names_a_path_of_one_machine() -> None:
    for path in (*DOCS, ROOT / "CHANGELOG.md"):
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"(?<![\w.~])/(work|tmp|home|root|Users)/", text), relative(path)


_LINK = re.compile(r"\]\(([^)\s]+)\)")
_HEADING = re.compile(r"^#{1,6} (.+)$", re.M)


def anchor(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_every_link_leads_to_a_file_and_heading_that_exist() -> None:
    for path in (*DOCS, ROOT / "CHANGELOG.md"):
        for target in _LINK.findall(path.read_text(encoding="utf-8")):
            if re.match(r"[a-z]+:", target):
                continue  # another site, or the service's pages
            file, _, fragment = target.partition("#")
            linked = (path.parent / file).resolve() if file else path
            assert linked.exists(), f"{relative(path)}: {target}"
            if fragment:
                prose = _FENCE.sub("", linked.read_text(encoding="utf-8"))  # no comments
                headings = _HEADING.findall(prose)
                assert fragment in {anchor(h) for h in headings}, f"{relative(path)}: {target}"


def _table(path: Path, after: str) -> list[list[str]]:
    """The rows of the first table after the heading ``after``, its header left out."""
    lines = path.read_text(encoding="utf-8").split(f"\n{after}\n", 1)[1].splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("|"))
    rows = []
    for line in lines[start + 2 :]:  # after the header and its rule
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def test_the_settings_table_lists_every_setting_the_service_reads() -> None:
    from fairdeal.api.service.config import MULTIPROCESS_METRICS, OTHER_KNOWN, known_variables

    guide = ROOT / "docs" / "operators.md"
    rows = _table(guide, "## Settings")
    listed = [row[0].strip("`") for row in rows]
    service = sorted(set(known_variables()) - OTHER_KNOWN)
    assert sorted(listed) == sorted([*service, MULTIPROCESS_METRICS])
    text = guide.read_text(encoding="utf-8")
    assert all(name in text for name in OTHER_KNOWN)


def test_the_settings_table_gives_each_settings_default() -> None:
    from dataclasses import fields

    from fairdeal.api.service.config import Config

    rows = {
        row[0].strip("`"): row[1].strip("`")
        for row in _table(ROOT / "docs/operators.md", "## Settings")
    }
    for field in fields(Config):
        default = str(field.default) if field.default != "" else "empty"
        assert rows[f"FAIRDEAL_{field.name.upper()}"] == default, field.name


def test_the_finding_codes_are_the_verifiers_own_list() -> None:
    from fairdeal.verifier.findings import CODES

    rows = _table(ROOT / "docs" / "auditors.md", "## Finding codes")
    assert [(r[0].strip("`"), int(r[1]), r[2]) for r in rows] == [
        (code, step, text) for code, (step, text) in CODES.items()
    ]


def _error_codes() -> dict[str, int]:
    """Every error code the service answers with, and its status."""
    from fairdeal.api.service import errors
    from fairdeal.errors import GameError

    def subclasses(cls: type[T]) -> list[type[T]]:
        return [cls, *(c for sub in cls.__subclasses__() for c in subclasses(sub))]

    codes = {c.code: c.status for c in subclasses(errors.ApiError)}
    for game in subclasses(GameError):
        codes[game.code] = errors._GAME_STATUS.get(game.code, 409)
    return codes | {"internal_error": 500}


def test_the_error_table_lists_every_code_with_its_status() -> None:
    rows = {r[0].strip("`"): int(r[1]) for r in _table(ROOT / "docs/clients.md", "## Errors")}
    for code, status in _error_codes().items():
        assert rows.get(code) == status, code


def test_the_route_table_lists_every_route_of_the_service(tmp_path: Path) -> None:
    from fairdeal.api.http.app import close_app, create_app
    from fairdeal.api.service.config import Config

    app = create_app(Config(instance_path=tmp_path, sweep_interval_s=0))
    try:
        routes = {
            (method, re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule.rule))
            for rule in app.url_map.iter_rules()
            for method in rule.methods or ()
            if method not in ("HEAD", "OPTIONS") and rule.endpoint != "static"
        }
    finally:
        close_app(app)
    rows = _table(ROOT / "docs" / "clients.md", "## The HTTP API")
    listed = {(row[0], path) for row in rows for path in re.findall(r"`([^`]+)`", row[1])}
    assert routes - {("GET", "/favicon.ico")} == listed


def test_the_players_guide_leaves_the_rules_to_the_rules_page_and_spec() -> None:
    guide = (ROOT / "docs" / "players.md").read_text(encoding="utf-8")
    page = (ROOT / "api" / "static" / "web" / "rules.html").read_text(encoding="utf-8")
    sections = re.findall(r"/rules#([\w-]+)", guide)
    assert {"toto21", "kvitlach"} <= set(sections)
    for section in sections:
        assert f'id="{section}"' in page, section
    assert "SPEC.md#11-toto21" in guide and "SPEC.md#12-kvitlach" in guide


# Install commands


_INSTALL = re.compile(r"python3 -m venv \.venv && \.venv/bin/pip install -q (-e )?(\S+)")


def _extras(spec: str) -> set[str]:
    found = re.fullmatch(r"'?\.(?:\[([\w,]+)\])?'?", spec)
    assert found, spec
    return set((found.group(1) or "").split(",")) - {""}


def test_every_install_names_extras_the_package_has() -> None:
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "optional-dependencies"
    ]
    in_dev = {"dev", *re.findall(r"\w+", extras["dev"][0].removeprefix("fairdeal"))}
    installs = [spec for b in ALL if b.language == "sh" for _, spec in _INSTALL.findall(b.text)]
    assert len(installs) >= 4
    for spec in installs:
        assert _extras(spec) <= set(extras) & in_dev, f"{spec}: not an extra CI's [dev] holds"


def test_the_verifier_alone_install_ends_with_a_command_that_runs(tmp_path: Path) -> None:
    install, command = block("install-verifier").rsplit(" && ", 1)
    core = _INSTALL.fullmatch(install)
    assert core is not None and _extras(core.group(2)) == set(), install
    done = subprocess.run(
        ["bash", "-c", command],
        cwd=fake_clone(tmp_path),
        env=environment(tmp_path),
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0 and "usage: fairdeal-verify" in done.stdout, done.stderr


def test_the_commands_not_run_name_real_scripts_and_options() -> None:
    """What cannot run in CI is at least checked: each script exists and takes its options."""
    for found in ALL:
        if found.marker != "not run":
            continue
        for line in found.text.splitlines():
            words = shlex.split(line, comments=True)
            if words[:2] == [".venv/bin/python", "-m"]:
                assert words[2] == "pytest" and (ROOT / words[3]).exists(), line
            elif words[:1] == [".venv/bin/python"]:
                script = ROOT / words[1]
                helped = subprocess.run(
                    [sys.executable, str(script), "--help"],
                    cwd=ROOT,
                    capture_output=True,
                    text=True,
                    timeout=120,
                    check=False,
                )
                assert helped.returncode == 0, helped.stderr
                for option in (w for w in words[2:] if w.startswith("--")):
                    assert option in helped.stdout, f"{line}: {option}"


# The flows, against one service started by the README's quickstart command


@pytest.fixture(scope="module")
def clone_serving(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[Path, dict[str, Any]]]:
    """The README's ``serve`` block, run as written in a fake clone; the flows' settings."""
    scratch = tmp_path_factory.mktemp("docs")
    clone, env = fake_clone(scratch), environment(scratch)
    ports = {"8000": free_port(), "8100": free_port()}
    service = Background(on_ports(block("serve"), ports), clone, env, ports["8000"])
    try:
        yield clone, {"env": env, "ports": ports, "scratch": scratch}
    finally:
        service.stop()


def test_the_flows_run_as_written_against_fairdeal_serve(
    clone_serving: tuple[Path, dict[str, Any]],
) -> None:
    clone, settings = clone_serving
    ports = settings["ports"]
    terminal = Terminal(clone, settings["env"], settings["scratch"] / "blocks-flows")
    try:
        terminal.run(block("scratch"))
        # A player plays a round and checks it, and the table's head at rest, and a shuffle by
        # hand; two players play a round with signed seats; a client reads an error; an auditor
        # checks the export, one round's inclusion and a filtered export; another round is
        # played; the auditor checks the new export and checkpoint against the old one.
        out = {
            name: terminal.run(on_ports(block(name), ports))
            for name in (
                "quickstart",
                "player",
                "table-at-rest",
                "deck",
                "signed",
                "error",
                "auditor",
                "inclusion",
                "partial",
            )
        }
        terminal.run(on_ports(block("quickstart"), ports))
        out |= {n: terminal.run(block(n)) for n in ("auditor-next-time", "consistency")}
        folder = Path(terminal.run("pwd").strip())
    finally:
        terminal.close()
    for name in (
        "player",
        "table-at-rest",
        "auditor",
        "inclusion",
        "partial",
        "auditor-next-time",
        "consistency",
    ):
        assert [v[:6] for v in verdicts(out[name])] == ["VALID:"], f"{name}:\n{out[name]}"
    assert "fairdeal deck" in out["player"]  # --explain told the round
    assert '"deck"' in out["deck"]
    assert json.loads(out["error"])["error"]["code"] == "not_found"
    _played_by_signed_seats(json.loads((folder / "signed-round.json").read_text()))
    # Nothing but the service's instance folder was written in the clone, and .gitignore covers
    # what the flows write, should a reader run them there.
    assert written(clone) == ["instance/"]
    assert folder.parent == settings["scratch"] / "tmp"
    names = written(folder)
    assert ignored_in_the_clone(names) == names


def _played_by_signed_seats(bundle: dict[str, Any]) -> None:
    """Every command of a seat in the signed block's round carries the seat's statement."""
    events = [e["event"] for e in bundle["events"]]
    by_seats = [e for e in events if e["actor"] != "server"]
    # A player dealt two aces wins at once (about one round in a hundred): nobody stands.
    [won] = [e for e in events if e["type"] == "round_won"]
    moved = won["data"]["reason"] not in ("golden_point", "dealer_two_aces")
    expected = {"seed_commitment", "client_seed"} | ({"stand"} if moved else set())
    assert expected <= {e["type"] for e in by_seats}
    assert all("signed" in e["data"] for e in by_seats)
    keys = bundle["events"][0]["event"]["data"]["seat_keys"]  # the table_state it starts at
    assert [k["key"] is not None for k in keys] == [True, True]


def test_the_sdk_example_runs_to_a_verified_bundle(
    clone_serving: tuple[Path, dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    _, settings = clone_serving
    namespace: dict[str, object] = {}
    exec(on_ports(block("sdk"), settings["ports"]), namespace)
    assert capsys.readouterr().out.splitlines()[-1] == "valid"
    view = namespace["view"]
    assert isinstance(view, dict) and view["current_round"] == namespace["round_id"]


def test_the_export_without_the_operator_token_says_it_needs_the_operator_token(
    clone_serving: tuple[Path, dict[str, Any]],
) -> None:
    _, settings = clone_serving
    url = f"http://127.0.0.1:{settings['ports']['8000']}"
    answer = raw(url, "GET", "/v1/export", timeout=10)
    assert answer.status == 401
    assert b"needs the operator token" in answer.body


def test_the_sqlite_backup_is_a_private_copy_of_the_database(
    clone_serving: tuple[Path, dict[str, Any]],
) -> None:
    clone, settings = clone_serving
    before = set((clone / "instance").iterdir())
    terminal = Terminal(clone, settings["env"], settings["scratch"] / "blocks-backup")
    try:
        terminal.run(block("backup-sqlite"))
    finally:
        terminal.close()
    [backup] = set((clone / "instance").iterdir()) - before
    assert stat.S_IMODE(backup.stat().st_mode) == 0o600
    with contextlib.closing(sqlite3.connect(backup)) as db:
        assert db.execute("SELECT count(*) FROM events").fetchone()[0] >= 0
