"""Step 18: with --witness, a checkpoint counts only with the cosignatures of a quorum of
the given witnesses, none made before the head it covers was logged. Honest bundles are
cosigned through the real code (witnessed.py); each attack is named for what it does."""

import base64
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from fairdeal.cosignature import Cosignature, with_signatures
from fairdeal.note import signature_line
from fairdeal.verifier import load_trust, verify_bundle
from fairdeal.verifier.cli import main
from fairdeal.verifier.explain import utc
from fairdeal.verifier.log import Place
from fairdeal.verifier.witnesses import Witnessing

from . import helpers
from .helpers import Log, codes, run
from .witnessed import (
    ALICE,
    BOB,
    CAROL,
    IMPOSTOR,
    cosign,
    cosigned,
    cosigned_at,
    cosigner,
    head_second,
    with_checkpoint,
    witnessed,
)

BOTH = ("--witness", ALICE.verifier_key(), "--witness", BOB.verifier_key())


def _write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def _verify(capsys: Any, tmp_path: Path, bundle: dict[str, Any], *args: str) -> tuple[int, Any]:
    path = _write(tmp_path, "bundle.json", json.dumps(bundle))
    return run(capsys, "--key", helpers.VERIFIER_KEY, path, *args)


@pytest.fixture()
def honest(bundles: list[dict[str, Any]]) -> dict[str, Any]:
    """The log's last bundle, its checkpoint cosigned by Alice and Bob a minute after
    its head was logged."""
    return witnessed(bundles[-1], ALICE, BOB)


@pytest.mark.parametrize("quorum", ["1", "2"], ids=["a quorum of one", "a quorum of both"])
def test_a_bundle_cosigned_by_both_witnesses_is_valid(
    capsys: Any, tmp_path: Path, honest: dict[str, Any], quorum: str
) -> None:
    status, report = _verify(capsys, tmp_path, honest, *BOTH, "--witness-quorum", quorum)
    assert (status, report["findings"]) == (0, [])


def test_the_quorum_defaults_to_every_witness_given(
    capsys: Any, tmp_path: Path, bundles: list[dict[str, Any]]
) -> None:
    status, report = _verify(capsys, tmp_path, witnessed(bundles[-1], ALICE), *BOTH)
    assert status == 1 and codes(report) == {"witness.quorum"}


# Attacks on the cosignatures: (name, how the checkpoint is changed, quorum, findings).


def _without_bob(note: str, at: int) -> str:
    return cosigned(note, ALICE, at=at)


def _only_an_unknown_witness(note: str, at: int) -> str:
    return cosigned(note, CAROL, at=at)


def _bob_moved_from_another_checkpoint(note: str, at: int) -> str:
    other = Log().add_all(helpers.toto21_table("tother", rounds=1)).checkpoint()
    return with_signatures(note, [cosign(note, ALICE, at), cosign(other, BOB, at)])


def _impostor_under_alice_s_name(note: str, at: int) -> str:
    return cosigned(note, IMPOSTOR, BOB, at=at)


def _flipped(line: str, index: int) -> str:
    """A cosignature line with one bit of its blob's byte ``index`` flipped."""
    name, blob = _blob(line)
    blob[index] ^= 1
    return signature_line(name, bytes(blob))


def _blob(line: str) -> tuple[str, bytearray]:
    name, material = line.removeprefix("\u2014 ").removesuffix("\n").split(" ")
    return name, bytearray(base64.b64decode(material))


def _alice_s_signature_flipped(note: str, at: int) -> str:
    return with_signatures(note, [_flipped(cosign(note, ALICE, at), -1), cosign(note, BOB, at)])


def _alice_s_time_changed(note: str, at: int) -> str:
    return with_signatures(note, [_flipped(cosign(note, ALICE, at), 11), cosign(note, BOB, at)])


def _alice_s_key_id_wrong(note: str, at: int) -> str:
    return with_signatures(note, [_flipped(cosign(note, ALICE, at), 0), cosign(note, BOB, at)])


def _alice_s_line_truncated(note: str, at: int) -> str:
    name, blob = _blob(cosign(note, ALICE, at))
    return with_signatures(note, [signature_line(name, bytes(blob[:-1])), cosign(note, BOB, at)])


ATTACKS: list[tuple[str, Callable[[str, int], str], str, set[str]]] = [
    ("a witness's line missing", _without_bob, "2", {"witness.quorum"}),
    ("only a witness not given cosigned", _only_an_unknown_witness, "1", {"witness.quorum"}),
    (
        "a cosignature moved from another checkpoint",
        _bob_moved_from_another_checkpoint,
        "2",
        {"witness.quorum", "witness.signature"},
    ),
    (
        "an impostor cosigns under a given witness's name",
        _impostor_under_alice_s_name,
        "2",
        {"witness.quorum"},
    ),
    ("a bit of a signature flipped", _alice_s_signature_flipped, "1", {"witness.signature"}),
    ("a cosignature's time changed", _alice_s_time_changed, "1", {"witness.signature"}),
    ("a given witness's line malformed", _alice_s_line_truncated, "1", {"witness.signature"}),
    (
        "a line under a given name with another key ID",  # not that key's: ignored
        _alice_s_key_id_wrong,
        "2",
        {"witness.quorum"},
    ),
]


@pytest.mark.parametrize(
    ("change", "quorum", "expected"), [a[1:] for a in ATTACKS], ids=[a[0] for a in ATTACKS]
)
def test_an_attack_on_the_cosignatures_is_found(
    capsys: Any,
    tmp_path: Path,
    bundles: list[dict[str, Any]],
    change: Callable[[str, int], str],
    quorum: str,
    expected: set[str],
) -> None:
    bundle = bundles[-1]
    note = change(bundle["log"]["checkpoint"], head_second(bundle) + 60)
    status, report = _verify(
        capsys, tmp_path, with_checkpoint(bundle, note), *BOTH, "--witness-quorum", quorum
    )
    assert (status, codes(report)) == (1, expected), report["findings"]
    assert {f["step"] for f in report["findings"]} == {18}


def test_a_quorum_short_says_how_many_of_which_and_that_it_is_not_witnessed(
    capsys: Any, tmp_path: Path, bundles: list[dict[str, Any]]
) -> None:
    _, report = _verify(capsys, tmp_path, witnessed(bundles[-1], ALICE, CAROL), *BOTH)
    (finding,) = report["findings"]
    assert finding["reason"] == (
        f"1 valid cosignature(s) of the 2 required, by {ALICE.name} (witnesses given: "
        f"{ALICE.name}, {BOB.name}): the checkpoint is not witnessed"
    )


def test_the_impostor_s_line_does_not_count_though_bob_s_does(
    capsys: Any, tmp_path: Path, bundles: list[dict[str, Any]]
) -> None:
    bundle = witnessed(bundles[-1], IMPOSTOR, BOB)
    assert _verify(capsys, tmp_path, bundle, *BOTH, "--witness-quorum", "1")[0] == 0
    status, report = _verify(capsys, tmp_path, bundle, "--witness", ALICE.verifier_key())
    assert status == 1 and codes(report) == {"witness.quorum"}


# A checkpoint cannot be cosigned before the round it holds was logged.


@pytest.mark.parametrize(
    ("late", "expected"),
    [(0, set()), (-2, set()), (-60, set()), (-61, {"witness.time"}), (-3600, {"witness.time"})],
    ids=[
        "cosigned in the head's second",
        "2 s before the head: a witness's clock behind the operator's",
        "a minute before: the most a witness's clock may lag",
        "61 s before: the head stamped later than it was logged",
        "an hour before",
    ],
)
def test_a_cosignature_before_the_head_was_logged_is_found(
    capsys: Any, tmp_path: Path, bundles: list[dict[str, Any]], late: int, expected: set[str]
) -> None:
    bundle = witnessed(bundles[-1], ALICE, late=late)
    _, report = _verify(capsys, tmp_path, bundle, "--witness", ALICE.verifier_key())
    assert codes(report) == expected, report["findings"]


@pytest.mark.parametrize(
    ("head_time", "expected"),
    [(1_760_000_060_999, []), (1_760_000_061_000, ["witness.time"])],
    ids=["the head a minute after the cosignature's last millisecond", "a millisecond later"],
)
def test_a_cosignature_s_second_ends_at_its_last_millisecond_and_a_clock_may_lag_a_minute(
    head_time: int, expected: list[str]
) -> None:
    seen = Witnessing((ALICE.name,), 1, (Cosignature(ALICE.name, 1_760_000_000),), ())
    assert [f.code for f in seen.findings(Place("t", "t.1"), head_time)] == expected


def test_the_time_compared_is_the_one_at_which_the_quorum_was_reached(
    capsys: Any, tmp_path: Path, bundles: list[dict[str, Any]]
) -> None:
    """Alice cosigned early (her clock is two minutes slow); Bob's later line reaches the
    quorum of 2."""
    bundle = bundles[-1]
    second = head_second(bundle)
    note = cosigned_at(bundle["log"]["checkpoint"], (ALICE, second - 120), (BOB, second))
    early = with_checkpoint(bundle, note)
    assert _verify(capsys, tmp_path, early, *BOTH)[0] == 0
    status, report = _verify(capsys, tmp_path, early, *BOTH, "--witness-quorum", "1")
    assert status == 1 and codes(report) == {"witness.time"}


# Every checkpoint the verifier opens: --checkpoint, --previous-checkpoint, the input.


def test_a_pinned_checkpoint_needs_the_quorum_too(
    capsys: Any, tmp_path: Path, log: Log, files: dict[str, str]
) -> None:
    at = 2_000_000_000
    plain = files["checkpoint"]
    witnessed_one = _write(tmp_path, "cp.txt", cosigned(log.checkpoint(), ALICE, BOB, at=at))
    witnessed_previous = _write(tmp_path, "prev.txt", cosigned(log.checkpoint(3), ALICE, at=at))
    base = ("--key", files["key"], "--consistency-proof", files["consistency"], *BOTH)
    assert run(capsys, *base, "--checkpoint", witnessed_one)[0] == 0
    status, report = run(capsys, *base, "--checkpoint", plain)
    assert status == 1 and codes(report) == {"witness.quorum"}
    status, report = run(
        capsys, *base, "--checkpoint", witnessed_one, "--previous-checkpoint", witnessed_previous
    )
    assert status == 1 and [f["code"] for f in report["findings"]] == ["witness.quorum"]
    status, report = run(capsys, *base[:4], "--witness", ALICE.verifier_key(), witnessed_previous)
    assert status == 0, report


def test_an_export_whose_every_line_is_witnessed_is_valid_and_one_line_without_is_found(
    capsys: Any, tmp_path: Path, log: Log, bundles: list[dict[str, Any]]
) -> None:
    at = max(map(head_second, bundles)) + 60
    note = cosigned(log.checkpoint(), ALICE, BOB, at=at)
    lines = [with_checkpoint(b, note) for b in bundles]
    whole = _write(tmp_path, "export.jsonl", helpers.export_text(lines))
    key = ("--key", helpers.VERIFIER_KEY)
    assert run(capsys, *key, whole, *BOTH)[0] == 0
    lines[2] = bundles[2]
    one_bare = _write(tmp_path, "bare.jsonl", helpers.export_text(lines))
    one = run(capsys, *key, one_bare, *BOTH, "--jobs", "1")
    assert one == run(capsys, *key, one_bare, *BOTH, "--jobs", "2")
    status, report = one
    assert status == 1 and [f["code"] for f in report["findings"]] == ["witness.quorum"]
    assert report["findings"][0]["round"] == bundles[2]["round_id"]


# Backward compatible: without --witness the lines are ignored, as by an old verifier.


def test_without_witness_a_cosigned_bundle_verifies_as_before(
    capsys: Any, tmp_path: Path, trust: Any, honest: dict[str, Any]
) -> None:
    assert _verify(capsys, tmp_path, honest)[0] == 0
    impostor = witnessed(honest, IMPOSTOR, CAROL)  # lines no one trusts are ignored
    assert verify_bundle(impostor, trust).verdict == "valid"
    assert verify_bundle(impostor, load_trust([helpers.VERIFIER_KEY])).findings == []


def test_the_operator_s_own_line_never_counts_for_a_witness_of_the_same_name(
    capsys: Any, tmp_path: Path, bundles: list[dict[str, Any]]
) -> None:
    """A note key ID is of type 0x01 and a cosignature's of type 0x04, even under one name."""
    namesake = cosigner(helpers.ORIGIN)
    given = ("--witness", namesake.verifier_key())
    status, report = _verify(capsys, tmp_path, bundles[-1], *given)
    assert status == 1 and codes(report) == {"witness.quorum"}
    assert _verify(capsys, tmp_path, witnessed(bundles[-1], namesake), *given)[0] == 0


# --explain: the witness-bounded time, or that the times are the operator's own claims.


def test_explain_tells_the_witness_bounded_time_and_the_witnesses(
    capsys: Any, tmp_path: Path, bundles: list[dict[str, Any]]
) -> None:
    bundle = bundles[-1]
    at = head_second(bundle) + 60
    note = cosigned_at(bundle["log"]["checkpoint"], (ALICE, at + 9), (BOB, at))
    path = _write(tmp_path, "bundle.json", json.dumps(with_checkpoint(bundle, note)))
    key = ("--key", helpers.VERIFIER_KEY, path, "--explain")
    assert main([*key, *BOTH, "--witness-quorum", "1"]) == 0
    out = capsys.readouterr().out
    assert (
        f"Round {bundle['round_id']} was in the log no later than {utc(at * 1000 + 999)} "
        f"(the end of POSIX second {at}), the witness-bounded time: when 1 of the 2 "
        f"witnesses given had cosigned its checkpoint ({BOB.name})."
    ) in out
    assert run(capsys, *key, *BOTH)[1]["explain"]["witness_bound"] == {
        "posix": at + 9,
        "utc": utc((at + 9) * 1000 + 999),
        "witnesses": [BOB.name, ALICE.name],
    }


def test_explain_without_witnesses_says_the_times_are_the_operator_s_own(
    capsys: Any, files: dict[str, str]
) -> None:
    assert main(["--key", files["key"], files["bundle"], "--explain"]) == 0
    out = capsys.readouterr().out
    assert "times are the operator's own claims, and no witness bounds them" in out
    assert "(pass --witness to require one)." in out


def test_explain_with_a_quorum_short_bounds_nothing(
    capsys: Any, tmp_path: Path, bundles: list[dict[str, Any]]
) -> None:
    path = _write(tmp_path, "b.json", json.dumps(witnessed(bundles[-1], ALICE)))
    status, report = run(capsys, "--key", helpers.VERIFIER_KEY, path, *BOTH, "--explain")
    assert status == 1 and report["explain"]["witness_bound"] is None
    assert "lacks the cosignatures of 2 of the witnesses given" in report["explain"]["logged"]


# The command line: a witness key that is not one, and a quorum out of range, are exit 2.


def _key_of_type(type_byte: bytes) -> str:
    """Alice's verifier key with its signature type byte replaced."""
    name, id_hex, material = ALICE.verifier_key().split("+", 2)
    raw = base64.b64decode(material)
    return f"{name}+{id_hex}+{base64.b64encode(type_byte + raw[1:]).decode()}"


BAD_KEYS = {
    "the operator's note key (type 0x01)": helpers.VERIFIER_KEY,
    "a witness key of type 0x01": _key_of_type(b"\x01"),
    "a wrong key ID": ALICE.verifier_key().replace(ALICE.key_id.hex(), "00000000"),
    "bad base64": ALICE.verifier_key()[:-2] + "!!",
    "no key at all": "witness.alice.example++",
}


@pytest.mark.parametrize("key", BAD_KEYS.values(), ids=BAD_KEYS.keys())
def test_a_malformed_witness_key_is_exit_2_in_one_line(
    capsys: Any, files: dict[str, str], key: str
) -> None:
    assert main(["--key", files["key"], files["bundle"], "--witness", key]) == 2
    out = capsys.readouterr().out
    assert "input.wrong_format" in out and "bad witness key" in out
    assert len(out.splitlines()) == 2  # the verdict, and the one finding


def test_a_witness_key_is_read_from_a_file(
    capsys: Any, tmp_path: Path, honest: dict[str, Any]
) -> None:
    alice = _write(tmp_path, "alice.vkey", ALICE.verifier_key() + "\n")
    assert _verify(capsys, tmp_path, honest, "--witness", alice)[0] == 0


def test_a_witness_argument_is_a_file_if_one_exists_else_a_key_string_if_it_has_two_plus(
    capsys: Any, tmp_path: Path, honest: dict[str, Any], monkeypatch: Any
) -> None:
    """SPEC 7, the command line: as --key, the name of a file that exists is read as the
    file (even one whose name has the form of a key string), and one that names no file
    and has no two "+" is a file that cannot be read, not a malformed key."""
    monkeypatch.chdir(tmp_path)
    _write(tmp_path, "a+b+c", ALICE.verifier_key() + "\n")  # as a string: no key
    status, report = _verify(capsys, tmp_path, honest, "--witness", "a+b+c", *BOTH[2:])
    assert (status, codes(report)) == (0, set()), report
    status, report = _verify(capsys, tmp_path, honest, "--witness", "alice.vkey")
    assert status == 2 and codes(report) == {"input.unreadable"}, report


def test_one_witness_given_twice_is_exit_2(capsys: Any, files: dict[str, str]) -> None:
    twice = ("--witness", ALICE.verifier_key(), "--witness", IMPOSTOR.verifier_key())
    assert main(["--key", files["key"], files["bundle"], *twice]) == 2
    assert "one key per witness name" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "error"),
    [
        ((*BOTH, "--witness-quorum", "3"), "--witness-quorum takes 1 to 2, the witnesses given"),
        (("--witness-quorum", "1"), "--witness-quorum needs --witness"),
        ((*BOTH, "--witness-quorum", "0"), "a positive integer, not '0'"),
        ((*BOTH, "--witness-quorum", "two"), "a positive integer, not 'two'"),
    ],
    ids=["a quorum above the witnesses", "a quorum without witnesses", "zero", "not a number"],
)
def test_a_quorum_out_of_range_is_a_usage_error_in_one_line(
    capsys: Any, files: dict[str, str], args: tuple[str, ...], error: str
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--key", files["key"], files["bundle"], *args])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.endswith(f"{error}\n") and err.count("\n") == 1
