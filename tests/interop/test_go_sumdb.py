"""Go's transparency-log code (golang.org/x/mod/sumdb/note and sumdb/tlog, which nobody here
wrote) reads the service's log through its tiles and agrees with it: the checkpoint opens
with the log's verifier key, the tiles authenticate against it and give its root, every
entry hashes to its level-0 hash, and Go's inclusion and consistency proofs are, byte for
byte, the ones /v1/log/inclusion and /v1/log/consistency answer. A response altered on the
way (a WSGI middleware) is caught and named.

sumdb_check.go is built at test time in GOPATH mode from Debian's packaged sources
(golang-go, golang-golang-x-mod-dev): no module download, no network.
"""

import json
import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from fairdeal.cosignature import Cosigner, with_signatures
from fairdeal.note import read_note
from tests.api.bots import raw
from tests.api.busy_log import Leaf, fill_log, logged_leaves
from tests.api.conftest import Server, start_server, stop_server

SOURCE = Path(__file__).with_name("sumdb_check.go")
DEBIAN_GOPATH = Path("/usr/share/gocode")  # where golang-golang-x-mod-dev installs x/mod
X_MOD = "src/golang.org/x/mod/sumdb"


def _go_path() -> Path | None:
    """The GOPATH entry that holds x/mod's sumdb packages: $GOPATH's, else Debian's."""
    for entry in [*os.environ.get("GOPATH", "").split(os.pathsep), str(DEBIAN_GOPATH)]:
        if entry and (Path(entry) / X_MOD / "tlog").is_dir():
            return Path(entry)
    return None


pytestmark = [
    pytest.mark.skipif(shutil.which("go") is None, reason="no go command (Debian: golang-go)"),
    pytest.mark.skipif(
        _go_path() is None,
        reason="no golang.org/x/mod/sumdb sources (Debian: golang-golang-x-mod-dev)",
    ),
]


@dataclass
class Checked:
    """What sumdb_check printed, and how it exited."""

    code: int
    summary: dict[str, Any]


@dataclass
class GoCheck:
    program: Path
    running: Server
    vkey: str
    leaves: list[Leaf]

    def run(self, leaves: list[Leaf], old: int = 0) -> Checked:
        specs = [f"{leaf.index}:{leaf.query}" for leaf in leaves]
        args = ["-url", self.running.url, "-vkey", self.vkey, "-old", str(old), *specs]
        done = subprocess.run(
            [str(self.program), *args], capture_output=True, text=True, timeout=60, check=False
        )
        assert done.returncode in (0, 1), done.stderr
        return Checked(done.returncode, json.loads(done.stdout))


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """sumdb_check.go, built offline in GOPATH mode into a temporary folder."""
    folder = tmp_path_factory.mktemp("go")
    shutil.copy(SOURCE, folder / SOURCE.name)
    env = {
        **os.environ,
        "GO111MODULE": "off",
        "GOPATH": str(_go_path()),
        "GOCACHE": str(folder / "cache"),
        "GOFLAGS": "",
        "GOPROXY": "off",
    }
    built = subprocess.run(
        ["go", "build", "-o", "sumdb_check", SOURCE.name],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert built.returncode == 0, built.stderr
    return folder / "sumdb_check"


@pytest.fixture(scope="module")
def go_check(program: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[GoCheck]:
    """A service whose log crosses a tile boundary: rounds of both games, then seatings."""
    running, http = start_server(tmp_path_factory.mktemp("served"))
    try:
        fill_log(running.url, rounds=3, seated_tables=95)
        vkey = raw(running.url, "GET", "/v1/keys").json["log"]["verifier_key"]
        yield GoCheck(program, running, vkey, logged_leaves(running.url))
    finally:
        stop_server(running, http)


@contextmanager
def altered(running: Server, path: str, alter: Callable[[bytes], bytes]) -> Iterator[None]:
    """The service with the body of every answer to ``path`` passed through ``alter``."""
    app = running.app
    plain = app.wsgi_app

    def wsgi(environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        if environ["PATH_INFO"] != path:
            return plain(environ, start_response)
        answered: list[Any] = []
        chunks = plain(environ, lambda *args: answered.extend(args))
        body = alter(b"".join(chunks))
        chunks.close()
        status, headers = answered[0], answered[1]
        kept = [(k, v) for k, v in headers if k.lower() != "content-length"]
        start_response(status, [*kept, ("Content-Length", str(len(body)))])
        return [body]

    app.wsgi_app = wsgi
    try:
        yield
    finally:
        app.wsgi_app = plain


def flip_byte(at: int) -> Callable[[bytes], bytes]:
    return lambda body: body[:at] + bytes([body[at] ^ 1]) + body[at + 1 :]


def test_go_reads_every_leaf_and_agrees(go_check: GoCheck) -> None:
    checked = go_check.run(go_check.leaves, old=100)
    assert checked.code == 0, checked.summary["errors"]
    size = len(go_check.leaves)
    assert 256 < size == checked.summary["size"]
    assert checked.summary["origin"] == "test.fairdeal/log"
    assert checked.summary["tree_hash_ok"] and checked.summary["consistency_ok"]
    assert checked.summary["leaves_ok"] == list(range(size))


@pytest.mark.parametrize("old", [1, 2, 255, 256, 257])
def test_go_proves_older_sizes_as_fairdeal_does(go_check: GoCheck, old: int) -> None:
    checked = go_check.run([], old=old)
    assert checked.code == 0, checked.summary["errors"]
    assert checked.summary["consistency_ok"]


def test_go_opens_a_checkpoint_that_witnesses_cosigned(go_check: GoCheck) -> None:
    """Cosignature lines by keys Go was not given are left unverified, not refused."""
    witness = Cosigner("witness.example/w1", Ed25519PrivateKey.generate())

    def cosign(note: bytes) -> bytes:
        body, _ = read_note(note)
        return with_signatures(note.decode(), [witness.cosign(body, 1_767_225_600)]).encode()

    with altered(go_check.running, "/checkpoint", cosign):
        assert raw(go_check.running.url, "GET", "/checkpoint").text.count("\n— ") == 2
        checked = go_check.run(go_check.leaves[:3], old=2)
    assert checked.code == 0, checked.summary["errors"]
    assert checked.summary["leaves_ok"] == [0, 1, 2]


ALTERED = [
    pytest.param("/tile/1/000.p/1", 0, "tree hash from tiles", id="the tile the root rests on"),
    pytest.param("/tile/0/000", 5, "entry hashes to", id="a leaf's own hash in its tile"),
    pytest.param("/tile/0/000", 4, "CheckRecord", id="a hash on the leaf's proof path"),
    pytest.param("/tile/entries/000", 5, "entry hashes to", id="the leaf's entry"),
    pytest.param("/v1/log/inclusion", 5, "inclusion proof hash", id="fairdeal's own proof"),
]


@pytest.mark.parametrize(("path", "flipped", "named"), ALTERED)
def test_an_altered_answer_is_caught_and_named(
    go_check: GoCheck, path: str, flipped: int, named: str
) -> None:
    """One byte of hash (or entry) ``flipped`` changed; Go checks leaf 5."""
    if path.startswith("/v1/"):
        alter = flip_proof_digit
    elif "entries" in path:
        alter = flip_byte(34 * flipped + 2 + 7)  # each entry: a 2-byte length, 32 bytes
    else:
        alter = flip_byte(32 * flipped + 7)
    with altered(go_check.running, path, alter):
        checked = go_check.run([go_check.leaves[5]])
    assert checked.code == 1
    assert any(named in error for error in checked.summary["errors"]), checked.summary["errors"]


def test_an_altered_checkpoint_is_refused(go_check: GoCheck) -> None:
    size = len(go_check.leaves)
    smaller = f"\n{size}\n".encode(), f"\n{size - 1}\n".encode()
    with altered(go_check.running, "/checkpoint", lambda note: note.replace(*smaller, 1)):
        checked = go_check.run([])
    assert checked.code == 1
    assert any("checkpoint note" in error for error in checked.summary["errors"]), checked.summary


def flip_proof_digit(body: bytes) -> bytes:
    """The first hash of the answer's proof with its first hex digit changed (same length)."""
    first = json.loads(body)["proof"][0]
    changed = ("1" if first[0] == "0" else "0") + first[1:]
    return body.replace(first.encode(), changed.encode(), 1)
