"""The secrets on disk: the instance folder, the SQLite database (whose open rounds' server
seeds tell every hidden card) and the signing key are the service's own user's alone."""

import logging
import os
import sqlite3
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from fairdeal.api.service.config import Config, ConfigError
from fairdeal.api.service.keystore import DEV_KEY_NAME, load_keys
from fairdeal.api.storage.sqlite import SqliteStore
from fairdeal.keys import private_key_pem
from tests.api.conftest import start_server, stop_server

DATABASE = "fairdeal.sqlite3"


@pytest.fixture
def usual_umask() -> Iterator[None]:
    """The umask most systems give (022), under which files used to be made readable by all."""
    before = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(before)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_finding_4_the_instance_folder_database_and_key_are_the_owners_alone(
    tmp_path: Path, usual_umask: None
) -> None:
    running, http = start_server(tmp_path)
    try:
        running.client().create_table("toto21")  # a write: the -wal and -shm files exist
        instance = running.config.instance_path
        files = [DATABASE, f"{DATABASE}-wal", f"{DATABASE}-shm", DEV_KEY_NAME]
        modes = {name: mode(instance / name) for name in files}
    finally:
        stop_server(running, http)
    assert mode(instance) == 0o700
    assert modes == dict.fromkeys(files, 0o600)


@pytest.mark.parametrize(
    "configured", [True, False], ids=["the configured key file", "the development key"]
)
def test_finding_4_a_signing_key_other_users_may_read_is_refused(
    tmp_path: Path, configured: bool
) -> None:
    path = tmp_path / ("signing.pem" if configured else DEV_KEY_NAME)
    path.write_bytes(private_key_pem(Ed25519PrivateKey.generate()))
    path.chmod(0o644)
    config = Config(instance_path=tmp_path, key_file=str(path) if configured else "")

    with pytest.raises(ConfigError, match=f"open to other users .*chmod 600 {path}"):
        load_keys(config)
    path.chmod(0o600)
    assert load_keys(config).development is not configured


def test_finding_4_a_database_other_users_may_read_is_reported_loudly(
    tmp_path: Path, usual_umask: None, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / DATABASE
    sqlite3.connect(path).close()  # made as SQLite makes it: 0644
    store = SqliteStore(str(path))
    try:
        with caplog.at_level(logging.WARNING, "fairdeal"):
            store.migrate()
    finally:
        store.close()
    assert f"open to other users (mode 0644): chmod 600 {path}" in caplog.text
    assert "every hidden card" in caplog.text
