"""A real witness on loopback: its state folder, its SQLite file, an injected clock in POSIX
seconds; and a log that signs checkpoints of a real Merkle tree."""

import http.client
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from werkzeug.serving import BaseWSGIServer, WSGIRequestHandler, make_server

from fairdeal.api.witness.app import create_witness_app
from fairdeal.merkle import MerkleTree
from fairdeal.note import Checkpoint, NoteSigner, NoteVerifier, sign_checkpoint
from fairdeal.witnessing import format_add_checkpoint

ORIGIN = "test.fairdeal/log"
START = 1_767_225_600  # 2026-01-01T00:00:00Z


class SecondsClock:
    """The witness's clock in tests: it moves only when a test moves it."""

    def __init__(self, now: int = START) -> None:
        self.now = now

    def __call__(self) -> int:
        return self.now


@dataclass
class Log:
    """A log: a Merkle tree and the key that signs its checkpoints."""

    signer: NoteSigner
    tree: MerkleTree = field(default_factory=MerkleTree)

    @classmethod
    def new(cls, origin: str = ORIGIN) -> "Log":
        return cls(NoteSigner(origin, Ed25519PrivateKey.generate()))

    def grow(self, leaves: int, salt: bytes = b"") -> "Log":
        for _ in range(leaves):
            self.tree.append(salt + self.tree.size.to_bytes(8, "big"))
        return self

    def note(self, size: int | None = None) -> str:
        size = self.tree.size if size is None else size
        checkpoint = Checkpoint(self.signer.name, size, self.tree.root(size))
        return sign_checkpoint(checkpoint, self.signer)

    def request(self, old: int, size: int | None = None) -> bytes:
        """The add-checkpoint body an honest log sends, with its proof from ``old``."""
        size = self.tree.size if size is None else size
        proof = self.tree.consistency_proof(old, size) if old else []
        return format_add_checkpoint(old, proof, self.note(size))

    @property
    def verifier(self) -> NoteVerifier:
        return self.signer.verifier


@dataclass
class Answer:
    status: int
    content_type: str
    text: str
    headers: dict[str, str]


class _QuietHandler(WSGIRequestHandler):
    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        pass


@dataclass
class RunningWitness:
    host: str
    port: int
    clock: SecondsClock
    state_dir: Path
    app: Any

    def request(self, method: str, path: str, body: bytes = b"") -> Answer:
        connection = http.client.HTTPConnection(self.host, self.port, timeout=30)
        try:
            connection.request(method, path, body=body)
            response = connection.getresponse()
            text = response.read().decode()
            headers = dict(response.getheaders())
            return Answer(response.status, headers.get("Content-Type", ""), text, headers)
        finally:
            connection.close()

    def add_checkpoint(self, body: bytes) -> Answer:
        return self.request("POST", "/add-checkpoint", body)

    def state(self) -> dict[str, Any]:
        answer = self.request("GET", "/")
        assert answer.status == 200, answer.text
        state: dict[str, Any] = json.loads(answer.text)
        return state

    def size_of(self, origin: str = ORIGIN) -> int | None:
        (found,) = [entry for entry in self.state()["logs"] if entry["origin"] == origin]
        size: int | None = found["size"]
        return size

    @property
    def verifier_key(self) -> str:
        key: str = self.app.extensions["witness"].cosigner.verifier_key()
        return key


@contextmanager
def running_witness(
    state_dir: Path, logs: list[NoteVerifier], clock: SecondsClock | None = None
) -> Iterator[RunningWitness]:
    clock = clock or SecondsClock()
    app = create_witness_app(state_dir, logs, clock=clock)
    server: BaseWSGIServer = make_server(
        "127.0.0.1", 0, app, threaded=True, request_handler=_QuietHandler
    )
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield RunningWitness("127.0.0.1", server.server_port, clock, state_dir, app)
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.fixture
def log() -> Log:
    return Log.new()


@pytest.fixture
def witness(tmp_path: Path, log: Log) -> Iterator[RunningWitness]:
    with running_witness(tmp_path / "witness", [log.verifier]) as running:
        yield running
