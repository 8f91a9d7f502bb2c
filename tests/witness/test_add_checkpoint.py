"""Every answer of C2SP tlog-witness's add-checkpoint, from a real witness on loopback."""

import base64
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from fairdeal.api.witness.store import DATABASE_FILE
from fairdeal.cosignature import CosignatureVerifier, cosignatures, with_signatures
from fairdeal.note import Checkpoint, NoteSigner, read_note, sign_checkpoint, sign_note
from fairdeal.witnessing import (
    MAX_BODY_BYTES,
    TLOG_SIZE_TYPE,
    format_add_checkpoint,
    parse_cosignature_lines,
    parse_tlog_size,
)

from .conftest import ORIGIN, START, Log, RunningWitness, running_witness


def cosigned_at(witness: RunningWitness, note: str, text: str) -> int:
    """The time of the witness's cosignature in a 200's ``text``, checked with its key."""
    noted = with_signatures(note, parse_cosignature_lines(text))
    verifier = CosignatureVerifier.from_key_string(witness.verifier_key)
    (found,) = cosignatures(noted, [verifier])
    return found.timestamp


def refusals(witness: RunningWitness) -> list[tuple[str, bytes, int, str]]:
    with sqlite3.connect(witness.state_dir / DATABASE_FILE) as db:
        return db.execute("SELECT origin, request, status, reason FROM refused").fetchall()


def cosign(witness: RunningWitness, log: Log, old: int, size: int) -> None:
    answer = witness.add_checkpoint(log.request(old, size))
    assert answer.status == 200, answer.text


def test_a_first_checkpoint_from_old_size_0_is_cosigned_at_the_witness_s_time(
    witness: RunningWitness, log: Log
) -> None:
    log.grow(5)
    witness.clock.now = START + 42
    answer = witness.add_checkpoint(log.request(0))
    assert answer.status == 200, answer.text
    assert answer.content_type.startswith("text/plain")
    assert answer.text.startswith("\u2014 witness.example/w1 ") and answer.text.endswith("\n")
    assert cosigned_at(witness, log.note(), answer.text) == START + 42
    assert witness.size_of() == 5


def test_a_checkpoint_that_extends_the_cosigned_one_by_a_correct_proof_is_cosigned(
    witness: RunningWitness, log: Log
) -> None:
    log.grow(3)
    cosign(witness, log, 0, 3)
    log.grow(10)
    witness.clock.now = START + 60
    answer = witness.add_checkpoint(log.request(3))
    assert answer.status == 200, answer.text
    assert cosigned_at(witness, log.note(), answer.text) == START + 60
    entry = witness.state()["logs"][0]
    assert entry == {
        "origin": ORIGIN,
        "size": 13,
        "root_hash": base64.b64encode(log.tree.root()).decode(),
        "cosigned_at": START + 60,
        "refusals": 0,
    }


def test_the_same_checkpoint_again_is_cosigned_afresh(witness: RunningWitness, log: Log) -> None:
    log.grow(4)
    cosign(witness, log, 0, 4)
    witness.clock.now = START + 1
    answer = witness.add_checkpoint(log.request(4))
    assert answer.status == 200 and cosigned_at(witness, log.note(), answer.text) == START + 1


@pytest.mark.parametrize("old", [0, 2, 7], ids=["old 0", "an old size below", "an old size above"])
def test_an_old_size_not_the_cosigned_one_is_409_with_the_cosigned_size(
    witness: RunningWitness, log: Log, old: int
) -> None:
    log.grow(5)
    cosign(witness, log, 0, 5)
    log.grow(5)
    answer = witness.add_checkpoint(log.request(old))
    assert answer.status == 409
    assert answer.content_type == TLOG_SIZE_TYPE
    assert answer.text == "5\n" and parse_tlog_size(answer.text) == 5
    assert witness.size_of() == 5


def test_a_checkpoint_smaller_than_the_old_size_is_400_and_rolls_nothing_back(
    witness: RunningWitness, log: Log
) -> None:
    log.grow(5)
    cosign(witness, log, 0, 5)
    body = format_add_checkpoint(5, [], log.note(3))
    answer = witness.add_checkpoint(body)
    assert answer.status == 400 and "beyond the checkpoint" in answer.text
    assert witness.size_of() == 5


def test_a_fork_of_the_cosigned_size_is_422_kept_as_evidence(
    witness: RunningWitness, log: Log
) -> None:
    log.grow(6)
    cosign(witness, log, 0, 6)
    fork = Log(log.signer).grow(6, salt=b"fork")
    body = fork.request(6)
    answer = witness.add_checkpoint(body)
    assert answer.status == 422  # the current text; v1.0.0 said 409
    assert witness.size_of() == 6
    assert witness.state()["logs"][0]["root_hash"] == base64.b64encode(log.tree.root()).decode()
    [(origin, request, status, reason)] = refusals(witness)
    assert (origin, request, status) == (ORIGIN, body, 422) and "another root" in reason


def test_a_size_0_checkpoint_with_a_root_not_the_empty_trees_is_422_not_cosigned(
    witness: RunningWitness, log: Log
) -> None:
    """Once cosigned, after which the witness refused the real empty tree with a 409."""
    forged = sign_checkpoint(Checkpoint(ORIGIN, 0, Log.new().grow(1).tree.root()), log.signer)
    answer = witness.add_checkpoint(format_add_checkpoint(0, [], forged))
    assert answer.status == 422 and "empty tree" in answer.text
    assert witness.size_of() is None
    assert witness.add_checkpoint(log.request(0)).status == 200  # the empty tree's own root
    assert witness.size_of() == 0


def test_a_bigger_tree_that_does_not_extend_the_cosigned_one_is_422_kept_as_evidence(
    witness: RunningWitness, log: Log
) -> None:
    log.grow(6)
    cosign(witness, log, 0, 6)
    fork = Log(log.signer).grow(9, salt=b"fork")  # its own proof from 6, of another tree
    body = fork.request(6)
    answer = witness.add_checkpoint(body)
    assert answer.status == 422 and "does not extend" in answer.text
    assert witness.size_of() == 6
    assert [(r[1], r[2]) for r in refusals(witness)] == [(body, 422)]
    assert witness.state()["logs"][0]["refusals"] == 1


def test_a_proof_with_one_bit_flipped_is_422(witness: RunningWitness, log: Log) -> None:
    log.grow(6)
    cosign(witness, log, 0, 6)
    log.grow(5)
    proof = log.tree.consistency_proof(6, 11)
    proof[0] = bytes([proof[0][0] ^ 1]) + proof[0][1:]
    answer = witness.add_checkpoint(format_add_checkpoint(6, proof, log.note()))
    assert answer.status == 422
    assert witness.size_of() == 6


def test_a_proof_from_old_size_0_must_be_empty_422(witness: RunningWitness, log: Log) -> None:
    # The protocol says the proof MUST be empty and gives no other status: a proof that is
    # there proves nothing, so it is one that does not verify (as litewitness answers).
    log.grow(4)
    answer = witness.add_checkpoint(format_add_checkpoint(0, [log.tree.root(2)], log.note()))
    assert answer.status == 422
    assert witness.size_of() is None


def test_a_checkpoint_of_a_log_the_witness_does_not_witness_is_404(
    witness: RunningWitness,
) -> None:
    other = Log.new("other.example/log").grow(3)
    answer = witness.add_checkpoint(other.request(0))
    assert answer.status == 404 and answer.content_type.startswith("text/plain")


def test_a_checkpoint_signed_by_another_key_of_the_same_name_is_403(
    witness: RunningWitness, log: Log
) -> None:
    impostor = Log(NoteSigner(ORIGIN, Ed25519PrivateKey.generate()), log.tree).grow(3)
    answer = witness.add_checkpoint(impostor.request(0))
    assert answer.status == 403
    assert witness.size_of() is None


def test_a_bad_signature_by_the_log_s_own_key_is_403(witness: RunningWitness, log: Log) -> None:
    log.grow(3)
    note = log.note()
    body, signature = note.rsplit("\n\n", 1)
    blob = bytearray(base64.b64decode(signature.split(" ")[2]))
    blob[10] ^= 1
    line = f"\u2014 {ORIGIN} {base64.b64encode(bytes(blob)).decode()}\n"
    answer = witness.add_checkpoint(format_add_checkpoint(0, [], f"{body}\n\n{line}"))
    assert answer.status == 403
    assert witness.size_of() is None


def test_a_signature_by_an_unknown_key_beside_the_log_s_is_ignored(
    witness: RunningWitness, log: Log
) -> None:
    note = log.grow(3).note()
    other = NoteSigner("someone.else", Ed25519PrivateKey.generate())
    extra = sign_note(read_note(note)[0], [other]).rsplit("\n\n", 1)[1]
    answer = witness.add_checkpoint(format_add_checkpoint(0, [], note + extra))
    assert answer.status == 200, answer.text


def _body(log: Log) -> bytes:
    return log.grow(3).request(0)


def _short_root(ok: bytes) -> bytes:
    lines = ok.split(b"\n")
    lines[4] = base64.b64encode(bytes(31))
    return b"\n".join(lines)


MALFORMED: dict[str, Callable[[bytes], bytes]] = {
    "a body that is not UTF-8": lambda ok: b"\xff" + ok,
    "no old size line": lambda ok: ok.split(b"\n", 1)[1],
    "an old size with a leading zero": lambda ok: ok.replace(b"old 0", b"old 00", 1),
    "an old size that is negative": lambda ok: ok.replace(b"old 0", b"old -1", 1),
    "an old size past 2**64 - 1": lambda ok: ok.replace(b"old 0", b"old 18446744073709551616"),
    "an old line with two spaces": lambda ok: ok.replace(b"old 0", b"old  0", 1),
    "an old line in capitals": lambda ok: ok.replace(b"old 0", b"OLD 0", 1),
    "a proof line that is not base64": lambda ok: ok.replace(b"old 0\n", b"old 0\n!!!!\n", 1),
    "a proof hash of 31 bytes": lambda ok: ok.replace(
        b"old 0\n", b"old 0\n" + base64.b64encode(bytes(31)) + b"\n", 1
    ),
    "no empty line before the checkpoint": lambda ok: ok.replace(b"old 0\n\n", b"old 0\n", 1),
    "no checkpoint after the empty line": lambda ok: b"old 0\n\n",
    "a note with no signature": lambda ok: ok.rsplit(b"\n\n", 1)[0] + b"\n\n",
    "a checkpoint with a size in hex": lambda ok: ok.replace(b"\n3\n", b"\n0x3\n", 1),
    "a checkpoint with a root of 31 bytes": _short_root,
    "a CR LF line ending": lambda ok: ok.replace(b"old 0\n", b"old 0\r\n", 1),
    "an empty body": lambda ok: b"",
}


@pytest.mark.parametrize("spoil", MALFORMED.values(), ids=MALFORMED.keys())
def test_a_malformed_body_is_400_with_a_one_line_reason(
    witness: RunningWitness, log: Log, spoil: Callable[[bytes], bytes]
) -> None:
    answer = witness.add_checkpoint(spoil(_body(log)))
    assert answer.status == 400, answer.text
    assert answer.content_type.startswith("text/plain")
    assert answer.text.count("\n") == 1 and answer.text.strip()
    assert "Traceback" not in answer.text
    assert witness.size_of() is None


def test_64_proof_lines_are_400_and_63_are_read(witness: RunningWitness, log: Log) -> None:
    log.grow(3)
    note = log.note()
    line = base64.b64encode(bytes(32)).decode()
    for count, status in ((64, 400), (63, 422)):
        body = "old 0\n" + f"{line}\n" * count + "\n" + note
        answer = witness.add_checkpoint(body.encode())
        assert answer.status == status, (count, answer.text)


def test_a_body_over_64_kib_is_400(witness: RunningWitness, log: Log) -> None:
    body = _body(log)
    padded = body.replace(b"\n\n", b"\n\n" + b"x" * (MAX_BODY_BYTES - len(body) + 1), 1)
    answer = witness.add_checkpoint(padded)
    assert answer.status == 400 and f"over {MAX_BODY_BYTES} bytes" in answer.text


@pytest.mark.parametrize(
    ("method", "path", "status"),
    [("GET", "/add-checkpoint", 405), ("PUT", "/add-checkpoint", 405), ("POST", "/nope", 404)],
    ids=["a GET of add-checkpoint", "a PUT of add-checkpoint", "an unknown path"],
)
def test_other_methods_and_paths_are_refused_in_plain_text(
    witness: RunningWitness, method: str, path: str, status: int
) -> None:
    answer = witness.request(method, path, b"old 0\n\n")
    assert answer.status == status
    assert answer.content_type.startswith("text/plain") and answer.text.count("\n") == 1


def test_the_state_lists_every_witnessed_log_even_before_its_first_checkpoint(
    tmp_path: Path, log: Log
) -> None:
    other = Log.new("other.example/log")
    with running_witness(tmp_path / "w", [log.verifier, other.verifier]) as witness:
        cosign(witness, log.grow(2), 0, 2)
        state = witness.state()
    assert state["verifier_key"] == witness.verifier_key
    assert [(e["origin"], e["size"]) for e in state["logs"]] == [
        ("other.example/log", None),
        (ORIGIN, 2),
    ]
