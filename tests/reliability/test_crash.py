"""SIGKILL the service at random moments under load, restart it, and lose nothing.

Bots play Toto21 and Kvitlach tables against ``python -m fairdeal.api.cli serve`` (a SQLite file, or
PostgreSQL) while the process is killed with SIGKILL at seeded-random moments and started
again on the same port with the same key file. A request whose answer was lost is sent
again with its Idempotency-Key. Afterwards: every receipt a 2xx carried is the stored event
at its seq, byte for byte; every round is finished or voided with a reason once the bots
resume the rounds under way (and the database holds no other unfinished round); the
export verifies offline against the latest checkpoint and extends the earliest one seen;
every checkpoint seen is a prefix of the final log, and successive ones have valid
consistency proofs.
"""

import random
import threading
import time

import pytest

from bench.harness import Bot, Seated
from bench.transport import Http, Stats
from tests.reliability.audit import (
    CheckpointWatcher,
    Deployment,
    Findings,
    check_consistency_proofs,
    export_and_verify,
    resume_and_audit,
)

SEED = 20_260_101
BOTS = {"toto21": 3, "kvitlach": 2}


def crash_and_audit(deployment: Deployment, kills: int, seed: int) -> tuple[Findings, Stats]:
    rng = random.Random(seed)
    service = deployment.service(name="crash").start()
    stats, stop, lock = Stats(), threading.Event(), threading.Lock()
    tables: list[Seated] = []

    def keep(seated: Seated) -> None:
        with lock:
            tables.append(seated)

    bots = [
        Bot(Http([service.port], stats, random.Random(rng.random()), 60.0, stop),
            f"{game}-{i}", game, time.monotonic() + 600, keep)
        for game, count in BOTS.items()
        for i in range(count)
    ]  # fmt: skip
    threads = [threading.Thread(target=bot.run) for bot in bots]
    with CheckpointWatcher([service.url]) as watcher:
        for thread in threads:
            thread.start()
        try:
            for _ in range(kills):
                time.sleep(rng.uniform(0.1, 0.6))
                service.kill()
                service.start()
        finally:
            stop.set()
            for thread in threads:
                thread.join(timeout=120)
        resumer = Bot(Http([service.port], stats, random.Random(1), 30.0), "resume", "toto21",
                      time.monotonic() + 60)  # fmt: skip
        findings = resume_and_audit(deployment, resumer, service.url, tables)
        notes = watcher.notes
    try:
        export_and_verify(service.url, deployment.folder, notes, findings)
        check_consistency_proofs(service.url, notes, findings)
    finally:
        service.stop()
    return findings, stats


def _report(kills: int, findings: Findings, stats: Stats) -> str:
    return (
        f"{kills} SIGKILLs: {findings.receipts} receipts on {findings.tables} tables, "
        f"{findings.rounds} rounds ({findings.voided} voided), {findings.checkpoints} "
        f"checkpoints seen; {len(stats.actions)} actions answered, "
        f"{sum(stats.errors.values())} requests found no server; "
        f"5xx: {sum(v for k, v in stats.errors.items() if k[:1] == '5')}"
    )


def _run(deployment: Deployment, kills: int, seed: int) -> None:
    findings, stats = crash_and_audit(deployment, kills, seed)
    print(_report(kills, findings, stats))
    assert not findings.problems, "\n".join(findings.problems[:30])
    assert not [k for k in stats.errors if k[:1] == "5"], stats.errors
    assert findings.receipts > 0 and findings.rounds > 0 and findings.checkpoints > 1


@pytest.mark.ci
def test_sigkill_20_times_loses_no_acknowledged_action(deployment: Deployment) -> None:
    _run(deployment, 20, SEED)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_sigkill_60_times_loses_no_acknowledged_action(deployment: Deployment, seed: int) -> None:
    _run(deployment, 60, seed)
