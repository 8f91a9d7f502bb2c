"""The operators' guide (docs/operators.md), run in its order as an operator runs it: a key, a
settings file, the service on gunicorn and PostgreSQL, its checks, a witness, a restart that
keeps the operator's token, a backup, a key rotation the witness follows, and an export that
verifies across the rotation with the witness required.

Three terminals take part, as the guide says: the operator's (``Terminal``), the service's and
the witness's (``Background``, the witness's small commands in a ``Terminal`` of their own).
Besides the ports, only the deployment's hosts change: the database is a fresh one on the test
PostgreSQL, the Redis is this machine's (a Redis that does not answer costs nothing but a
warning), the service listens on the loopback, and the origin is made unique, so that runs
sharing a Redis keep their rate limits apart.
"""

import contextlib
import shutil
import stat
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.harness import free_port
from tests.test_docs import (
    Background,
    Terminal,
    block,
    environment,
    fake_clone,
    ignored_in_the_clone,
    on_ports,
    run_until,
    verdicts,
    written,
)

DATABASE = "postgresql://fairdeal@db.internal:5432/fairdeal"


@pytest.fixture
def database(postgres_url: str) -> Iterator[str]:
    """The URL of a database of its own on the test PostgreSQL, dropped afterwards."""
    psycopg = pytest.importorskip("psycopg")
    from psycopg import sql

    name = f"fairdeal_docs_{uuid.uuid4().hex[:12]}"
    try:
        with psycopg.connect(postgres_url, autocommit=True) as conn:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    except psycopg.Error as e:
        pytest.skip(f"cannot create a database for the deployment: {' '.join(str(e).split())}")
    info = psycopg.conninfo.conninfo_to_dict(postgres_url)
    user = f"{info['user']}@" if info.get("user") else ""
    try:
        yield f"postgresql://{user}{info.get('host', '127.0.0.1')}:{info.get('port', 5432)}/{name}"
    finally:
        with psycopg.connect(postgres_url, autocommit=True) as conn:
            drop = sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)")
            conn.execute(drop.format(sql.Identifier(name)))


@pytest.fixture
def tools() -> None:
    for tool in ("openssl", "pg_dump", "pg_restore"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed; the operators' guide uses it")


@pytest.mark.postgres
def test_the_operators_guide_runs_as_written(tmp_path: Path, database: str, tools: None) -> None:
    ports = {"8000": free_port(), "8100": free_port()}
    hosts = {
        DATABASE: database,
        "redis.internal": "127.0.0.1",
        "--host 0.0.0.0": "--host 127.0.0.1",
        "play.example.com/log": f"play.example.com/{uuid.uuid4().hex[:12]}",
    }

    def doc(name: str) -> str:
        text = block(name)
        for written_there, here in hosts.items():
            text = text.replace(written_there, here)
        return on_ports(text, ports)

    clone, env = fake_clone(tmp_path), environment(tmp_path)
    operations = tmp_path / "home" / "fairdeal-ops"
    with contextlib.ExitStack() as stack:
        operator = Terminal(clone, env, tmp_path / "blocks-operator")
        stack.callback(operator.close)
        running: dict[str, Background] = {}

        def start(name: str, script: str, port: str, path: str = "/healthz") -> None:
            running[name] = Background(script, operations, env, ports[port], path)
            stack.callback(running[name].stop)

        def restart(name: str, script: str, port: str, path: str = "/healthz") -> None:
            running[name].stop()
            start(name, script, port, path)

        # The folder, the key, the settings; the service; its checks.
        operator.run(doc("ops-folder"))
        operator.run(doc("operator-key"))
        operator.run(doc("deploy-env"))
        for secret in ("operator.key", "fairdeal.env"):
            assert stat.S_IMODE((operations / secret).stat().st_mode) == 0o600, secret
        start("service", doc("deploy-serve"), "8000")
        checked = operator.run(doc("deploy-check"))
        assert '"status": "ok"' in checked or '"status":"ok"' in checked, checked
        assert "development key: False" in checked and "fairdeal_log_size" in checked

        # A witness; the service restarted with it, its operator token kept.
        witness = Terminal(operations, env, tmp_path / "blocks-witness")
        stack.callback(witness.close)
        witness.run(doc("witness-log-key"))
        start("witness", doc("witness-serve"), "8100", "/")
        witness.run(doc("witness-key"))
        operator.run(doc("witness-configure"))
        restart("service", doc("deploy-serve"), "8000")
        operator.run(doc("quickstart"))  # a round, for the witness to cosign
        cosigned = run_until(operator, doc("witness-checkpoint"), _has_cosignature)
        assert _has_cosignature(cosigned), cosigned
        told = run_until(operator, doc("witness-verify"), _valid)
        assert _valid(told) and "witness" in told, told

        # A backup.
        operator.run(doc("backup-postgres"))
        [dump] = operations.glob("fairdeal-*.dump")
        assert stat.S_IMODE(dump.stat().st_mode) == 0o600
        listed = subprocess.run(
            ["pg_restore", "--list", str(dump)], capture_output=True, text=True, check=True
        )
        assert "TABLE DATA" in listed.stdout and " events " in listed.stdout

        # A key rotation: the witness told first, then the service switched and restarted.
        operator.run(doc("rotate-key"))
        assert stat.S_IMODE((operations / "operator-2.key").stat().st_mode) == 0o600
        assert "ENCRYPTED" in (operations / "operator-2.key").read_text()
        restart("witness", doc("witness-both-keys"), "8100", "/")
        operator.run(doc("rotate-switch"))
        restart("service", doc("deploy-serve"), "8000")
        restart("witness", doc("witness-new-key"), "8100", "/")
        operator.run(doc("quickstart"))  # a round signed by the new key
        rotated = run_until(operator, doc("rotate-check"), _valid)
        assert _valid(rotated), rotated
        assert rotated.count(" current") == 1 and rotated.count(" retired") == 1, rotated
        for process in running.values():
            assert "Traceback" not in process.output(), process.output()

    # What the guide wrote, .gitignore covers, should an operator run it in the clone.
    assert written(clone) == []
    names = written(operations)
    assert ignored_in_the_clone(names) == names


def _has_cosignature(note: str) -> bool:
    return sum(line.startswith("\u2014 ") for line in note.splitlines()) >= 2


def _valid(out: str) -> bool:
    return [v[:6] for v in verdicts(out)] == ["VALID:"]
