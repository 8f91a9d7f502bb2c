"""Real service processes, and the audit run after load: receipts against the stored chain,
every round's end, the export through the offline verifier, every checkpoint seen.

A service here is ``python -m fairdeal.api.cli serve``, the command a deployment runs, on a
SQLite file or a PostgreSQL schema, with a fixed signing key file so that restarts keep the key.
"""

import itertools
import json
import sqlite3
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from bench.harness import Bot, Process, Seated, free_port
from fairdeal.api.client import ClientError
from fairdeal.keys import private_key_pem
from fairdeal.merkle import MerkleTree, leaf_hash
from fairdeal.note import NoteVerifier, verify_checkpoint
from tests.api.bots import error_of, events_of, raw
from tests.api.conftest import OPERATOR_TOKEN

ORIGIN = "reliability.fairdeal/log"


@dataclass
class Deployment:
    """Where the service keeps its state and key; services started from it share both."""

    folder: Path
    database_url: str  # empty: a SQLite file in the folder

    def __post_init__(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        if not self.key_file.exists():
            self.key_file.write_bytes(private_key_pem(Ed25519PrivateKey.generate()))
            self.key_file.chmod(0o600)  # the service refuses a key others may read

    @property
    def key_file(self) -> Path:
        return self.folder / "signing.pem"

    @property
    def sqlite_path(self) -> Path:
        return self.folder / "instance" / "fairdeal.sqlite3"

    def service(self, port: int | None = None, name: str = "service", **settings: str) -> Process:
        """The service on this deployment; ``settings`` are more FAIRDEAL_* variables."""
        env = {
            "PATH": "/usr/bin:/bin",
            "FAIRDEAL_INSTANCE_PATH": str(self.folder / "instance"),
            "FAIRDEAL_DATABASE_URL": self.database_url,
            "FAIRDEAL_KEY_FILE": str(self.key_file),
            "FAIRDEAL_OPERATOR_TOKEN": OPERATOR_TOKEN,
            "FAIRDEAL_LOG_ORIGIN": ORIGIN,
            "FAIRDEAL_SWEEP_INTERVAL_S": "1",
            "FAIRDEAL_RATE_LIMIT": "0",  # bots create and join many tables from one address
            **settings,
        }
        argv = [
            sys.executable,
            "-m",
            "fairdeal.api.cli",
            "serve",
            "--port",
            str(port or free_port()),
        ]
        return Process(argv, int(argv[-1]), env, self.folder / f"{name}.log")

    def unfinished_rounds(self) -> list[str]:
        """Straight from the database: rounds opened and never finished (nor voided)."""
        sql = "SELECT round_id FROM rounds WHERE finished_at IS NULL ORDER BY round_id"
        if not self.database_url:
            with sqlite3.connect(self.sqlite_path) as db:
                return [r for (r,) in db.execute(sql)]
        import psycopg

        with psycopg.connect(self.database_url) as db:
            return [r for (r,) in db.execute(sql)]


class CheckpointWatcher:
    """Reads /v1/log/checkpoint over and over, from any of the services, keeping every note."""

    def __init__(self, urls: list[str], every: float = 0.03) -> None:
        self.urls, self.every = urls, every
        self.notes: set[str] = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> "CheckpointWatcher":
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join(timeout=10)

    def _run(self) -> None:
        turn = 0
        while not self._stop.wait(self.every):
            url = self.urls[turn % len(self.urls)]
            turn += 1
            try:
                reply = raw(url, "GET", "/v1/log/checkpoint", timeout=5)
                if reply.status == 200:
                    self.notes.add(reply.json["note"])
            except (ClientError, ValueError):
                continue  # the service is down for the moment, or was killed mid-answer


@dataclass
class Findings:
    """What the audit counted; any problem fails the test with its description."""

    receipts: int = 0
    tables: int = 0
    rounds: int = 0
    voided: int = 0
    checkpoints: int = 0
    problems: list[str] = field(default_factory=list)


def resume_and_audit(
    deployment: Deployment, resumer: Bot, url: str, tables: list[Seated]
) -> Findings:
    """Resume the rounds under way, then check every receipt and every round's end."""
    findings = Findings()
    for seated in tables:
        if len(seated.tokens) > 1 and not resumer.resume(seated):
            findings.problems.append(f"{seated.table_id}: its round could not be resumed")
    check_receipts(url, tables, findings)
    check_rounds_end(url, [t for t in tables if len(t.tokens) > 1], findings)
    for round_id in deployment.unfinished_rounds():
        findings.problems.append(f"{round_id}: unfinished in the database")
    return findings


def check_receipts(url: str, tables: list[Seated], findings: Findings) -> None:
    """Every receipt a 2xx carried is, byte for byte, the event stored at its seq."""
    for seated in tables:
        chain = events_of(url, seated.table_id)
        findings.tables += 1
        for receipt in seated.receipts:
            seq = receipt["event"]["seq"]
            stored = chain[seq] if seq < len(chain) else None
            findings.receipts += 1
            if stored is None or _text(stored) != _text(receipt):
                findings.problems.append(f"{seated.table_id} seq {seq}: receipt not in the log")
        if [e["event"]["seq"] for e in chain] != list(range(len(chain))):
            findings.problems.append(f"{seated.table_id}: seqs are not 0..n-1")


def _text(signed: dict[str, Any]) -> str:
    return json.dumps(signed, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def check_rounds_end(url: str, tables: list[Seated], findings: Findings) -> None:
    """Every round opened was revealed; a voided one says why, and is revealed too."""
    for seated in tables:
        chain = events_of(url, seated.table_id)
        opened = {e["event"]["round"] for e in chain if e["event"]["type"] == "round_opened"}
        revealed = {e["event"]["round"] for e in chain if e["event"]["type"] == "round_revealed"}
        findings.rounds += len(opened)
        for event in (e["event"] for e in chain if e["event"]["type"] == "round_voided"):
            findings.voided += 1
            if not str(event["data"].get("reason", "")).strip():
                findings.problems.append(f"{event['round']}: voided without a reason")
        for round_id in sorted(opened - revealed):
            findings.problems.append(f"{round_id}: neither finished nor voided")


def export_and_verify(url: str, folder: Path, notes: set[str], findings: Findings) -> list[str]:
    """Export everything, verify it offline against the latest checkpoint (and the earliest
    one seen, which it must extend); every checkpoint seen must be a prefix of the export's
    leaves. Returns the verifier's output lines."""
    keys = raw(url, "GET", "/v1/keys").json
    pem = folder / "signing.pub.pem"
    pem.write_text(next(k for k in keys["keys"] if k["current"])["public_key_pem"])
    verifier = NoteVerifier.from_key_string(keys["log"]["verifier_key"])
    latest = folder / "checkpoint.txt"
    latest.write_text(raw(url, "GET", "/v1/log/checkpoint").json["note"])
    export = folder / "export.jsonl"
    reply = raw(url, "GET", "/v1/export", token=OPERATOR_TOKEN)
    assert reply.status == 200, reply.text
    export.write_text(reply.text)
    bundles = [json.loads(line) for line in reply.text.splitlines() if line]
    leaves = [b["log"]["head_hash"] for b in sorted(bundles, key=lambda b: b["log"]["leaf_index"])]
    if [b["log"]["leaf_index"] for b in bundles] != list(range(len(bundles))):
        findings.problems.append("the export's leaf indexes are not 0..n-1")
    if len(set(leaves)) != len(leaves):
        findings.problems.append("a head appears twice in the Merkle log")
    earliest = _check_notes(notes | {latest.read_text()}, leaves, verifier, findings)
    command = [sys.executable, "-m", "fairdeal.verifier", str(export), "--key", str(pem)]
    command += ["--checkpoint", str(latest)]
    if earliest is not None:
        previous = folder / "checkpoint-earliest.txt"
        previous.write_text(earliest)
        command += ["--previous-checkpoint", str(previous)]
    result = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    if result.returncode != 0:
        findings.problems.append(f"verifier exit {result.returncode}: {result.stdout[-2000:]}")
    return (result.stdout + result.stderr).strip().splitlines()


def _check_notes(
    notes: set[str], leaves: list[str], verifier: NoteVerifier, findings: Findings
) -> str | None:
    """Each signed checkpoint must be the tree of the first ``size`` leaves the log has now:
    then every two are consistent. The earliest non-empty note, for the verifier."""
    tree = MerkleTree.from_leaf_hashes(leaf_hash(bytes.fromhex(h)) for h in leaves)
    by_size: dict[int, str] = {}
    for note in notes:
        checkpoint = verify_checkpoint(note, verifier, ORIGIN)
        findings.checkpoints += 1
        if checkpoint.size > tree.size or tree.root(checkpoint.size) != checkpoint.root_hash:
            findings.problems.append(f"checkpoint of size {checkpoint.size} is not a prefix")
        by_size[checkpoint.size] = note
    sizes = sorted(s for s in by_size if s > 0)
    return by_size[sizes[0]] if sizes else None


def check_consistency_proofs(url: str, notes: set[str], findings: Findings) -> int:
    """The operator's own consistency proofs between each two successive checkpoints seen."""
    from fairdeal.merkle import verify_consistency

    keys = raw(url, "GET", "/v1/keys").json
    verifier = NoteVerifier.from_key_string(keys["log"]["verifier_key"])
    seen = sorted({(c.size, c.root_hash) for c in (verify_checkpoint(n, verifier) for n in notes)})
    sizes = [s for s, _ in seen]
    if len(sizes) != len(set(sizes)):
        findings.problems.append("two checkpoints of one size with different roots")
    checked = 0
    nonempty = [(s, r) for s, r in seen if s > 0]
    for (first, root1), (second, root2) in itertools.pairwise(nonempty):
        reply = raw(url, "GET", f"/v1/log/consistency?from={first}&to={second}")
        if reply.status != 200:
            error_of(reply)
            findings.problems.append(f"no consistency proof {first}..{second}: {reply.text}")
            continue
        proof = [bytes.fromhex(h) for h in reply.json["proof"]]
        try:
            verify_consistency(first, second, proof, root1, root2)
        except Exception as e:
            findings.problems.append(f"checkpoints {first} and {second} inconsistent: {e}")
        checked += 1
    return checked


def wait_until(condition: Any, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False
