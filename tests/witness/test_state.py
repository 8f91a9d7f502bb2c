"""What the witness keeps: its record never rolled back under concurrent requests, nor touched
while another process holds its database (503), its key and state across a restart, both in
files for its own user alone."""

import os
import random
import re
import sqlite3
import stat
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from fairdeal.api.storage.private_files import TooOpenError
from fairdeal.api.witness import store
from fairdeal.api.witness.app import create_witness_app
from fairdeal.api.witness.keyfile import KEY_FILE, KeyNameError
from fairdeal.api.witness.store import DATABASE_FILE
from fairdeal.cosignature import CosignatureVerifier, cosignatures, with_signatures
from fairdeal.witnessing import format_add_checkpoint, parse_cosignature_lines, parse_tlog_size

from .conftest import START, Log, RunningWitness, SecondsClock, running_witness


class CountingClock(SecondsClock):
    """A clock that ticks once a reading. The witness reads it inside its write transaction,
    so the cosignatures' times give the order in which their records were stored."""

    def __init__(self) -> None:
        super().__init__(START)
        self._lock = threading.Lock()

    def __call__(self) -> int:
        with self._lock:
            self.now += 1
            return self.now


def _climb(witness: RunningWitness, log: Log, seed: int) -> list[tuple[int, int]]:
    """Ask for cosignatures of random sizes, from the size last heard of (sometimes an old
    one on purpose): the (time, size) of each one granted."""
    chooser, known, granted = random.Random(seed), 0, []
    verifier = CosignatureVerifier.from_key_string(witness.verifier_key)
    for _ in range(12):
        size = chooser.randint(known, log.tree.size)
        old = chooser.choice([known, known, max(known - 1, 0)])
        proof = log.tree.consistency_proof(old, size) if 0 < old <= size else []
        answer = witness.add_checkpoint(format_add_checkpoint(old, proof, log.note(size)))
        assert answer.status in (200, 409, 422), answer.text
        if answer.status == 200:
            noted = with_signatures(log.note(size), parse_cosignature_lines(answer.text))
            granted.append((cosignatures(noted, [verifier])[0].timestamp, size))
            known = size
        elif answer.status == 409:
            known = parse_tlog_size(answer.text)
    return granted


def test_concurrent_requests_never_roll_the_witness_back(tmp_path: Path, log: Log) -> None:
    log.grow(300)
    with running_witness(tmp_path / "w", [log.verifier], CountingClock()) as witness:
        with ThreadPoolExecutor(16) as pool:
            runs = list(pool.map(lambda seed: _climb(witness, log, seed), range(16)))
        final = witness.size_of()
    granted = sorted(grant for run in runs for grant in run)
    sizes = [size for _, size in granted]
    assert len(granted) > 16  # the threads did race, and did get cosignatures
    assert sizes == sorted(sizes), "a later cosignature was for a smaller tree"
    assert final == max(sizes)


def test_a_restarted_witness_keeps_its_key_and_what_it_cosigned(tmp_path: Path, log: Log) -> None:
    log.grow(5)
    with running_witness(tmp_path / "w", [log.verifier]) as first:
        assert first.add_checkpoint(log.request(0)).status == 200
    with running_witness(tmp_path / "w", [log.verifier]) as second:
        assert second.verifier_key == first.verifier_key
        stale = second.add_checkpoint(log.request(0))
        assert (stale.status, stale.text) == (409, "5\n")


def test_a_database_locked_past_the_busy_timeout_is_503_with_retry_after_and_nothing_done(
    tmp_path: Path, log: Log, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process holding the witness's write lock (a backup, a second witness process on
    one folder): the request is answered as the service answers its own, not a 500."""
    monkeypatch.setattr(store, "_BUSY_TIMEOUT_S", 0.01)  # the wait for the lock, not a sleep
    log.grow(3)
    with running_witness(tmp_path / "w", [log.verifier]) as witness:
        holder = sqlite3.connect(tmp_path / "w" / DATABASE_FILE, isolation_level=None)
        try:
            holder.execute("BEGIN IMMEDIATE")
            busy = witness.add_checkpoint(log.request(0))
            holder.execute("ROLLBACK")
        finally:
            holder.close()
        assert (busy.status, busy.headers.get("Retry-After")) == (503, "1")
        assert busy.content_type.startswith("text/plain") and busy.text.count("\n") == 1
        assert "busy" in busy.text and "Traceback" not in busy.text
        assert witness.size_of() is None  # nothing was cosigned
        assert witness.add_checkpoint(log.request(0)).status == 200  # sent again: cosigned


@pytest.fixture
def usual_umask() -> Iterator[None]:
    """The umask most systems give (022), so a missing chmod would show."""
    previous = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(previous)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.usefixtures("usual_umask")
def test_the_state_folder_key_and_database_are_the_witness_s_alone(
    tmp_path: Path, log: Log
) -> None:
    state = tmp_path / "w"
    create_witness_app(state, [log.verifier])
    assert mode(state) == 0o700
    assert mode(state / KEY_FILE) == 0o600
    assert mode(state / DATABASE_FILE) == 0o600


def test_a_key_file_others_may_read_is_refused(tmp_path: Path, log: Log) -> None:
    create_witness_app(tmp_path / "w", [log.verifier])
    (tmp_path / "w" / KEY_FILE).chmod(0o640)
    with pytest.raises(TooOpenError, match="chmod 600"):
        create_witness_app(tmp_path / "w", [log.verifier])


def test_a_name_other_than_the_key_s_is_refused(tmp_path: Path, log: Log) -> None:
    create_witness_app(tmp_path / "w", [log.verifier], name="witness.test/one")
    create_witness_app(tmp_path / "w", [log.verifier])  # no name: the key's
    named = re.escape("named witness.test/one, not witness.test/two")
    with pytest.raises(KeyNameError, match=named):
        create_witness_app(tmp_path / "w", [log.verifier], name="witness.test/two")
