"""Two service processes on one PostgreSQL database, with clients spread over both.

Bots send each request to either process at random, and some tables are played by several
threads at once, each through either process. Afterwards no chain forked (every receipt
anyone was given is the one event stored at its seq, and each chain checks link by link),
no head is twice in the Merkle log, every checkpoint either process signed is a
prefix of the final log, and the whole export verifies offline.
"""

import random
import threading
import time

import pytest

from bench.harness import Bot, Process, Seated
from bench.transport import Http, Stats
from tests.api.bots import verify_table
from tests.reliability.audit import (
    CheckpointWatcher,
    Deployment,
    Findings,
    check_consistency_proofs,
    check_receipts,
    check_rounds_end,
    export_and_verify,
)

pytestmark = pytest.mark.postgres
SHARED_TABLES, RACERS_PER_TABLE, ROUNDS_PER_RACER = 2, 3, 4


def _racer(bot: Bot, seated: Seated, deadline: float) -> None:
    """Open or play the shared table's round, whatever the other racers are doing."""
    for _ in range(ROUNDS_PER_RACER):
        if time.monotonic() > deadline:
            return
        bot.resume(seated)
        opened = bot.post(seated, f"/v1/tables/{seated.table_id}/rounds", {}, 0)
        if opened.status == 201:
            bot.finish(seated, opened.json["round_id"])
        elif opened.status != 409:
            raise AssertionError(opened.json)


def _play(services: list[Process], seconds: float, seed: int) -> tuple[list[Seated], Stats]:
    rng, stats, lock = random.Random(seed), Stats(), threading.Lock()
    ports = [s.port for s in services]
    tables: list[Seated] = []

    def keep(seated: Seated) -> None:
        with lock:
            tables.append(seated)

    def http() -> Http:
        return Http(ports, stats, random.Random(rng.random()), 10.0)

    deadline = time.monotonic() + seconds
    bots = [Bot(http(), f"{g}-{i}", g, deadline, keep) for g in ("toto21", "kvitlach")
            for i in range(2)]  # fmt: skip
    shared = [Bot(http(), f"setup-{i}", "toto21", deadline).seat() for i in range(SHARED_TABLES)]
    racers = [
        threading.Thread(target=_racer, args=(Bot(http(), f"race-{i}-{j}", "toto21", deadline),
                                              seated, deadline))
        for i, seated in enumerate(shared) if seated is not None
        for j in range(RACERS_PER_TABLE)
    ]  # fmt: skip
    threads = [threading.Thread(target=bot.run) for bot in bots] + racers
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=seconds + 120)
    return tables + [s for s in shared if s is not None], stats


def test_two_processes_on_one_postgres_never_fork_the_log(postgres_deployment: Deployment) -> None:
    services = [postgres_deployment.service(name=f"p{i}").start() for i in range(2)]
    findings = Findings()
    try:
        with CheckpointWatcher([s.url for s in services]) as watcher:
            tables, stats = _play(services, 5.0, 7)
        url = services[1].url
        resumer = Bot(Http([services[0].port], stats, random.Random(2), 10.0), "r", "toto21",
                      time.monotonic() + 60)  # fmt: skip
        for seated in tables:
            assert len(seated.tokens) == 1 or resumer.resume(seated), seated.table_id
        check_receipts(url, tables, findings)
        check_rounds_end(url, [t for t in tables if len(t.tokens) > 1], findings)
        for seated in tables:
            verify_table(url, seated.table_id)  # links, seqs, signatures, the rules' replay
        export_and_verify(url, postgres_deployment.folder, watcher.notes, findings)
        check_consistency_proofs(services[0].url, watcher.notes, findings)
    finally:
        for service in services:
            service.stop()
    print(
        f"two processes: {findings.receipts} receipts on {findings.tables} tables, "
        f"{findings.rounds} rounds, {findings.checkpoints} checkpoints; "
        f"refusals {dict(stats.refusals)}; errors {dict(stats.errors)}"
    )
    assert not findings.problems, "\n".join(findings.problems[:30])
    assert not stats.errors, stats.errors
    assert findings.rounds > 0 and findings.checkpoints > 1
