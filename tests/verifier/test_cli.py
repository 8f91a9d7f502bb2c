"""The fairdeal-verify command: inputs, exit statuses, output, and attacks on exports,
checkpoints and the input itself."""

import dataclasses
import io
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from fairdeal.keys import public_key_pem
from fairdeal.merkle import MerkleTree
from fairdeal.note import Checkpoint, NoteSigner, sign_checkpoint, sign_note
from fairdeal.verifier import load_trust, log
from fairdeal.verifier.cli import main
from fairdeal.verifier.inputs import LIMITS, read_lines

from . import helpers, witnessed
from .helpers import Log, codes, run

REPO = Path(__file__).resolve().parents[2]


def test_a_bundle_verifies_with_a_pem_key(capsys: Any, files: dict[str, str]) -> None:
    status, report = run(capsys, "--key", files["key"], files["bundle"])
    assert (status, report["verdict"], report["rounds"]) == (0, "valid", 1)


def test_a_bundle_verifies_with_a_c2sp_verifier_key(capsys: Any, files: dict[str, str]) -> None:
    status, report = run(capsys, "--key", helpers.VERIFIER_KEY, files["bundle"])
    assert status == 0, report


def test_an_export_verifies_against_a_checkpoint_and_a_previous_one(
    capsys: Any, files: dict[str, str], bundles: list[dict[str, Any]]
) -> None:
    status, report = run(
        capsys,
        "--key", files["key"], files["export"],
        "--checkpoint", files["checkpoint"],
        "--previous-checkpoint", files["previous"],
        "--jobs", "2",
    )  # fmt: skip
    assert (status, report["rounds"]) == (0, len(bundles)), report["findings"]


def test_jobs_give_the_same_findings_in_input_order(
    capsys: Any, tmp_path: Path, files: dict[str, str], bundles: list[dict[str, Any]]
) -> None:
    shuffled = tmp_path / "bad.jsonl"
    broken = [dict(b, format="x") if i % 3 == 1 else b for i, b in enumerate(bundles)]
    shuffled.write_text(helpers.export_text(broken))
    one = run(capsys, "--key", files["key"], str(shuffled), "--jobs", "1")
    two = run(capsys, "--key", files["key"], str(shuffled), "--jobs", "2")
    assert one == two and one[0] == 1


def test_explain_tells_cards_money_and_the_command_to_check_by_hand(
    capsys: Any, files: dict[str, str]
) -> None:
    assert main(["--key", files["key"], files["bundle"], "--explain"]) == 0
    out = capsys.readouterr().out
    assert "Cards as dealt:" in out and "Money (before -> after the round):" in out
    assert "fairdeal deck --game" in out and out.splitlines()[0].startswith("VALID")


@pytest.mark.parametrize(("case", "unopened"), [("valid", False), ("withheld-share", True)])
def test_explain_says_what_a_blind_rounds_unopened_cards_are(
    capsys: Any, case: str, unopened: bool
) -> None:
    """A dealer-blind round lost by a withheld share has cards nobody opened: shown as ?, and
    said as such beside the check by hand (the conformance suite's rounds)."""
    suite = REPO / "conformance"
    key, bundle = suite / "keys" / "operator.pem", suite / "bundles" / f"v3-toto21-{case}.json"
    assert main(["--key", str(key), str(bundle), "--explain"]) == 0
    last = capsys.readouterr().out.rstrip().splitlines()[-1]
    assert last.startswith("Check it by hand: a dealer-blind round")
    assert ("A card shown as ? was never opened" in last) is unopened, last


def test_a_checkpoint_alone_and_its_consistency_with_a_previous_one(
    capsys: Any, files: dict[str, str]
) -> None:
    status, report = run(
        capsys,
        "--key", files["key"],
        "--checkpoint", files["checkpoint"],
        "--previous-checkpoint", files["previous"],
        "--consistency-proof", files["consistency"],
    )  # fmt: skip
    assert status == 0, report


def test_an_inclusion_proof_against_a_checkpoint(
    capsys: Any, tmp_path: Path, files: dict[str, str], log: Log
) -> None:
    bundle = log.bundle(2)
    proof = tmp_path / "inclusion.json"
    proof.write_text(
        json.dumps(
            {
                "round_id": bundle["round_id"],
                "leaf_index": 2,
                "tree_size": log.tree.size,
                "head_hash": bundle["log"]["head_hash"],
                "proof": bundle["log"]["inclusion_proof"],
            }
        )
    )
    status, _ = run(capsys, "--key", files["key"], str(proof), "--checkpoint", files["checkpoint"])
    assert status == 0


# Attacks on exports and checkpoints: (name, how to make the input, the finding).


def _without(bundles: list[dict[str, Any]], index: int) -> list[dict[str, Any]]:
    return bundles[:index] + bundles[index + 1 :]


def _fork_note(log: Log, size: int) -> str:
    """A checkpoint the operator signs over another history of ``size`` leaves."""
    tree = MerkleTree()
    for i in range(size):
        tree.append(bytes([i + 1]) * 32)
    return sign_checkpoint(Checkpoint(helpers.ORIGIN, size, tree.root()), helpers.NOTE_SIGNER)


def test_a_whole_round_dropped_from_an_export_is_caught_by_the_checkpoint(
    capsys: Any, tmp_path: Path, files: dict[str, str], bundles: list[dict[str, Any]]
) -> None:
    for dropped in (2, len(bundles) - 1):
        path = tmp_path / f"dropped{dropped}.jsonl"
        path.write_text(helpers.export_text(_without(bundles, dropped)))
        status, report = run(
            capsys, "--key", files["key"], str(path), "--checkpoint", files["checkpoint"]
        )
        assert status == 1 and "log.round_missing" in codes(report), report["findings"]


def test_export_lines_out_of_order(
    capsys: Any, tmp_path: Path, files: dict[str, str], bundles: list[dict[str, Any]]
) -> None:
    path = tmp_path / "swapped.jsonl"
    path.write_text(helpers.export_text([bundles[1], bundles[0], *bundles[2:]]))
    status, report = run(capsys, "--key", files["key"], str(path))
    assert status == 1 and "log.order" in codes(report)


def test_two_bundles_of_one_table_that_disagree_about_its_history(
    capsys: Any, tmp_path: Path, files: dict[str, str], bundles: list[dict[str, Any]]
) -> None:
    from .corpus import operator

    table = bundles[0]["table_id"]
    later = max(i for i, b in enumerate(bundles) if b["table_id"] == table)

    def rewrite(events: list[dict[str, Any]]) -> None:
        events[1]["time"] += 1  # the history before the first bundle's head differs

    forked = list(bundles)
    forked[later] = operator(bundles[later], rewrite)
    path = tmp_path / "forked.jsonl"
    path.write_text(helpers.export_text(forked))
    status, report = run(capsys, "--key", files["key"], str(path), "--jobs", "1")
    assert status == 1 and "export.fork" in codes(report), report["findings"]


def test_a_checkpoint_that_rolls_back(capsys: Any, files: dict[str, str]) -> None:
    status, report = run(
        capsys,
        "--key", files["key"],
        "--checkpoint", files["previous"],
        "--previous-checkpoint", files["checkpoint"],
    )  # fmt: skip
    assert status == 1 and "checkpoint.rollback" in codes(report)


def test_two_signed_checkpoints_that_fork(
    capsys: Any, tmp_path: Path, files: dict[str, str], log: Log
) -> None:
    same_size = tmp_path / "fork.txt"
    same_size.write_text(_fork_note(log, log.tree.size))
    status, report = run(
        capsys, "--key", files["key"], "--checkpoint", files["checkpoint"],
        "--previous-checkpoint", str(same_size),
    )  # fmt: skip
    assert status == 1 and "checkpoint.fork" in codes(report)
    smaller = tmp_path / "fork3.txt"
    smaller.write_text(_fork_note(log, 3))
    status, report = run(
        capsys, "--key", files["key"], "--checkpoint", files["checkpoint"],
        "--previous-checkpoint", str(smaller), "--consistency-proof", files["consistency"],
    )  # fmt: skip
    assert status == 1 and "checkpoint.inconsistent" in codes(report)


def test_an_export_fixes_a_forked_previous_checkpoint_without_any_proof(
    capsys: Any, tmp_path: Path, files: dict[str, str], log: Log
) -> None:
    smaller = tmp_path / "fork3.txt"
    smaller.write_text(_fork_note(log, 3))
    status, report = run(
        capsys, "--key", files["key"], files["export"], "--checkpoint", files["checkpoint"],
        "--previous-checkpoint", str(smaller),
    )  # fmt: skip
    assert status == 1 and "checkpoint.inconsistent" in codes(report)


def test_a_checkpoint_signed_by_another_key(
    capsys: Any, tmp_path: Path, files: dict[str, str], log: Log
) -> None:
    note = sign_checkpoint(
        Checkpoint(helpers.ORIGIN, log.tree.size, log.tree.root()),
        NoteSigner(helpers.ORIGIN, helpers.OTHER.private_key),
    )
    path = tmp_path / "other.txt"
    path.write_text(note)
    status, report = run(capsys, "--key", files["key"], "--checkpoint", str(path))
    assert status == 1 and "checkpoint.signature" in codes(report)


def test_a_round_not_in_the_required_checkpoint(
    capsys: Any, tmp_path: Path, files: dict[str, str], bundles: list[dict[str, Any]]
) -> None:
    status, report = run(
        capsys, "--key", files["key"], files["export"], "--checkpoint", files["previous"]
    )
    assert status == 1 and "log.not_in_checkpoint" in codes(report)


def test_an_altered_inclusion_proof_and_head(
    capsys: Any, tmp_path: Path, files: dict[str, str], bundles: list[dict[str, Any]]
) -> None:
    bad_proof = json.loads(json.dumps(bundles[3]))
    bad_proof["log"]["inclusion_proof"][0] = "00" * 32
    bad_head = json.loads(json.dumps(bundles[3]))
    bad_head["log"]["head_hash"] = "00" * 32
    for bundle, code in ((bad_proof, "log.inclusion"), (bad_head, "log.head")):
        path = tmp_path / "b.json"
        path.write_text(json.dumps(bundle))
        status, report = run(capsys, "--key", files["key"], str(path))
        assert status == 1 and code in codes(report)


# Unusable input: exit 2, one clear line, never a traceback.


@pytest.mark.parametrize(
    ("name", "content", "code"),
    [
        (
            "malformed_json",
            b'{"format": "fairdeal-bundle/1", "events": [\n',
            "input.malformed_json",
        ),
        ("malformed_export_line", b'{"a": 1}\n{not json}\n', "input.malformed_json"),
        ("absurdly_deep_json", b"[" * 200_000, "input.malformed_json"),
        ("not_utf8", b"\xff\xfe{}", "input.malformed_json"),
        ("empty", b"  \n", "input.wrong_format"),
        ("duplicate_member_names", None, "canonical.duplicate_key"),
    ],
)
def test_unusable_or_malformed_input(
    capsys: Any, tmp_path: Path, files: dict[str, str], name: str, content: bytes | None, code: str
) -> None:
    path = tmp_path / name
    if content is None:  # a member name twice, in an otherwise valid bundle's event
        text = Path(files["export"]).read_text().splitlines()[0]
        content = text.replace(
            '"actor": "server"', '"actor": "server", "actor": "server"', 1
        ).encode()
    path.write_bytes(content)
    status, report = run(capsys, "--key", files["key"], str(path))
    assert code in codes(report), report
    assert status == (1 if code.startswith("canonical") else 2)


def test_absurdly_large_input(capsys: Any, tmp_path: Path, files: dict[str, str]) -> None:

    path = tmp_path / "huge.jsonl"
    with path.open("wb") as out:
        out.write(b'{"x": "' + b"a" * (LIMITS.max_line_bytes + 10) + b'"}\n')
        out.write(Path(files["export"]).read_bytes().splitlines()[0] + b"\n")
    status, report = run(capsys, "--key", files["key"], str(path), "--jobs", "1")
    assert status == 2 and "input.too_large" in codes(report)


@pytest.mark.parametrize(
    "key",
    ["missing.pem", "garbage", "private"],
)
def test_a_wrong_key_is_exit_2_with_a_message(
    tmp_path: Path, files: dict[str, str], key: str, capsys: Any
) -> None:
    from fairdeal.keys import private_key_pem

    path = tmp_path / key
    if key == "garbage":
        path.write_text("not a key")
    if key == "private":
        path.write_bytes(private_key_pem(helpers.SIGNER.private_key))
    assert main(["--key", str(path), files["bundle"]]) == 2
    out = capsys.readouterr()
    assert "input." in out.out and "Traceback" not in out.err


def test_no_key_is_exit_2(files: dict[str, str], capsys: Any) -> None:
    assert main([files["bundle"]]) == 2
    assert "--key" in capsys.readouterr().out


# Standalone: the verifier never imports the server, Flask, marshmallow or a database.

_BLOCKER = """
import sys
BLOCKED = {"flask", "marshmallow", "flask_smorest", "sqlite3", "_sqlite3", "psycopg", "api"}
class Blocker:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED or name.startswith("fairdeal.api"):
            raise ImportError(f"the verifier imported {name}")
        return None
sys.meta_path.insert(0, Blocker())
from fairdeal.verifier.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_the_verifier_runs_without_the_server_or_a_database(
    tmp_path: Path, files: dict[str, str], bundles: list[dict[str, Any]]
) -> None:
    cosigned = tmp_path / "cosigned.json"
    cosigned.write_text(json.dumps(witnessed.witnessed(bundles[-1], witnessed.ALICE)))
    for args in (
        [files["bundle"], "--explain"],
        [files["export"], "--checkpoint", files["checkpoint"], "--jobs", "2"],
        [str(cosigned), "--witness", witnessed.ALICE.verifier_key(), "--explain"],
    ):
        done = subprocess.run(
            [sys.executable, "-c", _BLOCKER, "--key", files["key"], *args],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, done.stdout + done.stderr


def test_python_dash_m_verifier_exits_1_on_a_tampered_bundle(
    tmp_path: Path, files: dict[str, str], bundles: list[dict[str, Any]]
) -> None:
    bundle = json.loads(json.dumps(bundles[0]))
    bundle["events"][3]["signature"] = "00" * 64
    path = tmp_path / "t.json"
    path.write_text(json.dumps(bundle))
    done = subprocess.run(
        [sys.executable, "-m", "fairdeal.verifier", "--key", files["key"], str(path)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1 and "sig.bad_signature" in done.stdout
    assert "Traceback" not in done.stderr


def test_a_pinned_origin_refuses_another_log(capsys: Any, files: dict[str, str]) -> None:
    status, report = run(capsys, "--key", files["key"], files["bundle"], "--origin", "other/log")
    assert status == 1 and "checkpoint.origin" in codes(report)


class _Endless(io.RawIOBase):
    """A stream of zero bytes that never ends and has no newline (a pipe, /dev/zero)."""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        buffer[:] = bytes(len(buffer))
        return len(buffer)


def test_an_endless_line_is_refused_within_the_limits_and_nothing_more_is_read() -> None:
    limits = dataclasses.replace(LIMITS, max_line_bytes=1_000, max_skipped_bytes=50_000)
    stream = io.BufferedReader(_Endless())
    (line,) = read_lines(stream, limits)  # once an iterator that never ended
    assert line.error is not None and line.error.code == "input.too_large"
    assert "no end in 50000 more" in str(line.error)


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero on this system")
@pytest.mark.parametrize("given", ["/dev/zero", "-"], ids=["a file", "standard input"])
def test_fairdeal_verify_on_dev_zero_ends_unusable(given: str, files: dict[str, str]) -> None:
    with open("/dev/zero", "rb") as zeros:
        run = subprocess.run(
            [sys.executable, "-m", "fairdeal.verifier", given, "--key", files["key"], "--json"],
            stdin=zeros,
            capture_output=True,
            timeout=120,
            check=False,
        )
    assert run.returncode == 2
    assert "input.too_large" in {f["code"] for f in json.loads(run.stdout)["findings"]}


def test_an_empty_input_says_nothing_was_checked_and_why(
    capsys: Any, tmp_path: Path, files: dict[str, str]
) -> None:
    (tmp_path / "empty.json").write_bytes(b"")
    assert main([str(tmp_path / "empty.json"), "--key", files["key"]]) == 2
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "UNUSABLE: nothing was checked"
    assert "the input is empty" in out and "0 bundle(s)" not in out


def test_a_seats_hex_key_given_as_key_says_what_key_is_wanted(
    capsys: Any, files: dict[str, str]
) -> None:
    seat_key = "58e7f5a0" * 8  # 64 hex digits, what fairdeal keygen prints
    status, report = run(capsys, "--key", seat_key, files["export"])
    assert status == 2 and codes(report) == {"input.wrong_format"}
    (finding,) = report["findings"]
    assert "a seat's public key" in finding["reason"] and "GET /v1/keys" in finding["reason"]
    assert "No such file" not in finding["reason"]


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (b"-----BEGIN PUBLIC KEY-----\nMCow\n-----END PUBLIC KEY-----\n", "a PEM key,"),
        (b"fairdeal.test/log+d28b118d+AQ3mZ2vn\n", "a verifier key (name+id+key),"),
        (b"58e7f5a0" * 8 + b"\n", "64 hex digits, a seat's public key,"),
        (b"hello\n", "not a bundle"),
    ],
    ids=["pem", "vkey", "seat key", "text"],
)
def test_a_key_given_as_the_input_says_it_is_a_key_and_where_it_goes(
    capsys: Any, tmp_path: Path, files: dict[str, str], content: bytes, said: str
) -> None:
    path = tmp_path / "input"
    path.write_bytes(content)
    status, report = run(capsys, "--key", files["key"], str(path))
    assert status == 2 and codes(report) == {"input.wrong_format"}
    (finding,) = report["findings"]
    assert finding["reason"].startswith(said)
    assert finding["reason"].endswith("not a bundle, export, checkpoint or proof") == (
        said in ("not a bundle", "64 hex digits, a seat's public key,")
    )


def test_a_checkpoint_by_no_trusted_key_names_each_known_key_by_its_key_id() -> None:
    """The note's signers and the trusted keys, each once in the order of their note keys:
    one known here (pinned, or the bundle's own verifier key) by its key id, its note key
    beside it; a stranger's by its note key alone."""
    pinned = helpers.signer("the pinned key")
    pinned_note = NoteSigner(helpers.ORIGIN, pinned.private_key)
    stranger = NoteSigner(helpers.ORIGIN + "/x", helpers.signer("a stranger").private_key)
    body = Checkpoint(helpers.ORIGIN, 1, bytes(32)).body()
    note = sign_note(body, [helpers.NOTE_SIGNER, stranger])
    trust = load_trust([pinned_note.verifier_key()])
    _, finding = log.open_checkpoint(note, trust, None, claimed=helpers.VERIFIER_KEY)
    ours, theirs, trusted = (
        f"{k.name}+{k.key_id.hex()}" for k in (helpers.NOTE_SIGNER, stranger, pinned_note)
    )
    assert finding is not None and finding.reason == (
        f"no signature by a trusted key: signed by key id {helpers.SIGNER.key_id} ({ours}), "
        f"{theirs}; trusted key id {pinned.key_id} ({trusted})"
    )


def test_a_wrong_key_is_named_by_its_key_id_in_every_finding(
    capsys: Any, tmp_path: Path, files: dict[str, str]
) -> None:
    """The chain's and the checkpoint's findings name each key one way, by its key id (the
    checkpoint's note key beside it), not once by key id and once by note key alone."""
    other = tmp_path / "other.pem"
    other.write_bytes(public_key_pem(Ed25519PrivateKey.generate().public_key()))
    status, report = run(capsys, "--key", str(other), files["bundle"])
    assert status == 2
    by_code = {f["code"]: f["reason"] for f in report["findings"]}
    signer = re.search(r"signed by key id ([0-9a-f]{32})", by_code["sig.wrong_key"])
    trusted = re.search(r"trusted: ([0-9a-f]{32})", by_code["sig.wrong_key"])
    assert signer and trusted
    said = by_code["checkpoint.signature"]
    assert f"signed by key id {signer.group(1)} (" in said
    assert f"trusted key id {trusted.group(1)} (" in said
