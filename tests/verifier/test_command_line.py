"""The fairdeal-verify command line, run as a real process where it is about the command
line: its version, the help of every option, a wrong --key in one line, a server's error
relayed, --explain on an export and its times, and a pipe closed early."""

import importlib.metadata
import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from fairdeal.keys import key_id, public_key_pem
from fairdeal.verifier.explain import utc

from ..commands import run_python, run_python_unread
from ..help_text import options_and_help
from . import helpers
from .helpers import codes, run


def verify(*args: str) -> subprocess.CompletedProcess[str]:
    return run_python("-m", "fairdeal.verifier", *args, timeout=120)


def test_version_is_the_installed_distribution_s() -> None:
    done = verify("--version")
    assert done.returncode == 0
    assert done.stdout == f"fairdeal-verify {importlib.metadata.version('fairdeal')}\n"


def test_every_option_has_help_and_its_default() -> None:
    done = verify("--help")
    found = options_and_help(done.stdout)
    assert {"input", "--key KEY", "--jobs JOBS", "--explain", "--version"} <= set(found)
    assert {"--witness KEY", "--witness-quorum N"} <= set(found)
    for option, text in found.items():
        assert text, f"{option} has no help"
        if " " in option and not option.startswith("-h"):  # it takes a value
            assert "default:" in text or "required" in text, f"{option}: {text}"
    assert "tell a single bundle" in " ".join(found["--explain"].split())


def test_bare_fairdeal_verify_prints_its_help_then_the_error_exit_2() -> None:
    done = verify()
    assert done.returncode == 2 and done.stdout == ""
    assert "--key KEY" in done.stderr and "--explain" in done.stderr
    assert done.stderr.endswith(
        "error: give an input file, or --checkpoint to check a checkpoint\n"
    )


# A wrong --key: one finding naming the key that signed and the keys trusted.


@pytest.fixture()
def other_key(tmp_path: Path) -> str:
    path = tmp_path / "other.pem"
    path.write_bytes(public_key_pem(helpers.OTHER.public_key))
    return str(path)


def test_a_wrong_key_is_one_line_naming_the_signer_and_the_trusted_keys(
    files: dict[str, str], other_key: str
) -> None:
    done = verify("--key", other_key, files["bundle"])
    assert done.returncode == 2, done.stdout + done.stderr  # nothing judged: unusable
    lines = done.stdout.splitlines()  # the verdict, the events' key, the checkpoint's
    assert lines[0].startswith("UNUSABLE") and len(lines) == 3, done.stdout
    assert "is it the operator's key?" in lines[1]
    assert "(4) sig.wrong_key" in lines[1] and "(16) checkpoint.signature" in lines[2]
    assert f"signed by key id {helpers.SIGNER.key_id}" in lines[1]
    assert f"trusted: {key_id(helpers.OTHER.public_key)}" in lines[1]
    # The checkpoint's finding names its signer and the trusted note keys the same way.
    assert "signed by " in lines[2] and "; trusted " in lines[2]
    assert lines[2].count("+") == 2, lines[2]  # name+key ID, once each


def test_a_wrong_key_gives_one_finding_per_bundle_of_an_export(
    capsys: Any, files: dict[str, str], other_key: str
) -> None:
    status, report = run(capsys, "--key", other_key, files["export"], "--jobs", "1")
    signature_findings = [f for f in report["findings"] if f["step"] == 4]
    assert status == 2 and report["verdict"] == "unusable"
    assert [f["code"] for f in signature_findings] == ["sig.wrong_key"] * report["rounds"]


def test_one_event_by_an_untrusted_key_among_trusted_ones_is_still_its_own_finding(
    capsys: Any, tmp_path: Path, files: dict[str, str], other_key: str
) -> None:
    bundle = json.loads(Path(files["bundle"]).read_text())
    bundle["events"][2]["key_id"] = helpers.OTHER.key_id
    path = tmp_path / "one.json"
    path.write_text(json.dumps(bundle))
    status, report = run(capsys, "--key", files["key"], str(path))
    assert status == 1 and "sig.unknown_key" in codes(report)
    assert "sig.wrong_key" not in codes(report)
    both = run(capsys, "--key", files["key"], "--key", other_key, str(path))
    assert "sig.wrong_key" not in codes(both[1])


# A server's error body saved in place of a bundle, a checkpoint or a proof.

ERROR = {"error": {"code": "not_found", "message": "no round t1.r9", "details": {}}}


@pytest.mark.parametrize("where", ["input", "--checkpoint", "--consistency-proof"])
def test_a_server_error_body_is_relayed_not_called_not_a_bundle(
    tmp_path: Path, files: dict[str, str], where: str
) -> None:
    path = tmp_path / "answer.json"
    path.write_text(json.dumps(ERROR))
    args = [str(path)] if where == "input" else [files["bundle"], where, str(path)]
    done = verify("--key", files["key"], *args)
    assert done.returncode == 2, done.stdout
    assert "input.wrong_format" in done.stdout
    assert "the server answered not_found: no round t1.r9" in done.stdout
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("where", ["--previous-checkpoint", "an export's line"])
def test_a_server_error_body_is_relayed_from_a_previous_checkpoint_or_an_export_line(
    tmp_path: Path, files: dict[str, str], where: str
) -> None:
    path = tmp_path / "answer.json"
    if where == "--previous-checkpoint":
        path.write_text(json.dumps(ERROR))
        args = [files["export"], "--checkpoint", files["checkpoint"], where, str(path)]
    else:
        lines = Path(files["export"]).read_text().splitlines()
        path.write_text("\n".join([lines[0], json.dumps(ERROR), *lines[1:]]) + "\n")
        args = [str(path), "--partial", "--jobs", "1"]
    done = verify("--key", files["key"], *args)
    assert done.returncode == (2 if where == "--previous-checkpoint" else 1), done.stdout
    assert "the server answered not_found: no round t1.r9" in done.stdout
    assert "a bundle has exactly the members" not in done.stdout


def test_a_server_error_s_details_are_relayed_on_one_line(
    tmp_path: Path, files: dict[str, str]
) -> None:
    path = tmp_path / "answer.json"
    answer = {"error": {"code": "invalid\ninput", "message": "x", "details": {"seq": [1]}}}
    path.write_text(json.dumps(answer))
    done = verify("--key", files["key"], str(path))
    assert done.returncode == 2
    assert 'the server answered invalid?input: x ({"seq": [1]})' in done.stdout


# --explain: single bundles are told; an export says so. Times in UTC next to milliseconds.


def test_explain_on_an_export_says_it_tells_single_bundles(files: dict[str, str]) -> None:
    done = verify("--key", files["key"], files["export"], "--explain", "--jobs", "1")
    assert done.returncode == 0, done.stdout
    assert "--explain tells a single bundle" in done.stderr
    assert "is an export of" in done.stderr and "Cards as dealt" not in done.stdout


def test_explain_shows_utc_times_next_to_the_milliseconds(files: dict[str, str]) -> None:
    done = verify("--key", files["key"], files["bundle"], "--explain")
    assert done.returncode == 0
    stamped = re.findall(r"\[(\d+) \((\S+)\)\] ", done.stdout)
    assert stamped and all(utc(int(ms)) == iso for ms, iso in stamped)
    assert re.search(
        r'"seed_deadline": \d+ \(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\)', done.stdout
    )


def test_utc_is_iso_8601_with_milliseconds() -> None:
    assert utc(helpers.T0) == "2025-10-09T08:53:20.000Z"
    assert utc(1) == "1970-01-01T00:00:00.001Z"
    assert utc(10**20) == "?"


# A reader that closes the pipe early (| head -1).


@pytest.mark.parametrize("explain", [True, False], ids=["--explain", "the report"])
def test_a_closed_pipe_ends_quietly_with_the_verdict_s_status(
    files: dict[str, str], explain: bool
) -> None:
    args = ["--key", files["key"], files["bundle"], *(["--explain"] if explain else [])]
    status, err = run_python_unread("-m", "fairdeal.verifier", *args, timeout=120)
    assert status == 0
    assert err == b""
