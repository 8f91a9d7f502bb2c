"""The findings of the outside review of the verifier (issue 11), each as the reviewer
reproduced it. Every test is named after its finding; those of a code fix failed before
it, and those of finding 17 that pin what SPEC now says of unchanged code (Kvitlach's
bank and outcomes, the code of a logged invalid seed) passed before too."""

import copy
import importlib
import inspect
import json
import os
import pickle
import pkgutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fairdeal
from fairdeal import randomness
from fairdeal.verifier import Trust, verify_bundle
from fairdeal.verifier.cli import main
from fairdeal.verifier.explain import explain
from fairdeal.verifier.inputs import LIMITS

from . import corpus, helpers
from .corpus import Fixture
from .helpers import codes, run

# Finding 9: --explain tells what it can read, after the findings, and never fails.


def _set_in_event(index: int, member: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(bundle: dict[str, Any]) -> None:
        bundle["events"][index]["event"][member] = value

    return change


def _drop_from_event(index: int, member: str) -> Callable[[dict[str, Any]], None]:
    return lambda bundle: bundle["events"][index]["event"].pop(member)


def _set_options(value: Any) -> Callable[[dict[str, Any]], None]:
    return lambda bundle: bundle["events"][0]["event"]["data"].__setitem__("options", value)


def _set_balances(value: Any) -> Callable[[dict[str, Any]], None]:
    def change(bundle: dict[str, Any]) -> None:
        data = next(
            e["event"]["data"] for e in bundle["events"] if "balances" in e["event"]["data"]
        )
        data["balances"] = value

    return change


# The reviewer's malformed bundles, and a few more: (how, whether a story can still be told)
_MALFORMED: dict[str, tuple[Callable[[dict[str, Any]], None], bool]] = {
    "events: []": (lambda bundle: bundle.__setitem__("events", []), False),
    "data as a list": (_set_in_event(0, "data", []), False),
    "a numeric round id": (lambda bundle: bundle.__setitem__("round_id", 5), False),
    "an event without data": (_drop_from_event(0, "data"), False),
    "options as a string": (_set_options("x"), True),
    "a null type": (_set_in_event(0, "type", None), False),
    "a null type later on": (_set_in_event(7, "type", None), True),
    "balances as a list": (_set_balances([1]), True),
}


@pytest.mark.parametrize("name", sorted(_MALFORMED))
def test_finding_9_explain_reports_the_findings_of_a_malformed_bundle_then_what_it_can_tell(
    capsys: Any, tmp_path: Path, files: dict[str, str], fixture: Fixture, name: str
) -> None:
    change, told = _MALFORMED[name]
    bundle = copy.deepcopy(fixture.kvitlach)
    change(bundle)
    path = tmp_path / "bundle.json"
    path.write_text(json.dumps(bundle))
    status, report = run(capsys, "--key", files["key"], str(path), "--explain")
    assert status == 1 and report["findings"], report
    assert ("explain" in report) == told
    assert main(["--key", files["key"], str(path), "--explain"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("INVALID")
    assert ("Check it by hand" in out) == told and ("Nothing to tell" in out) != told


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=6,
)


def _mutate(draw: Callable[..., Any], value: Any) -> None:
    """Replace or delete one member or item somewhere inside ``value``, in place."""
    container, key = None, None
    node = value
    while isinstance(node, dict | list) and node and (container is None or draw(st.integers(0, 3))):
        key = draw(st.sampled_from(sorted(node) if isinstance(node, dict) else range(len(node))))
        container, node = node, node[key]
    if container is None:
        return
    if isinstance(container, dict) and draw(st.booleans()):
        del container[key]
    else:
        container[key] = draw(_JSON)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_finding_9_explain_never_fails_on_a_mutated_bundle(
    bundles: list[dict[str, Any]], data: st.DataObject
) -> None:
    bundle = copy.deepcopy(data.draw(st.sampled_from(bundles)))
    for _ in range(data.draw(st.integers(1, 3))):
        _mutate(data.draw, bundle)
    assert isinstance(explain(bundle), str)
    json.dumps(explain(bundle, as_json=True))


# Finding 10: --jobs 2 and --jobs 1 give one report, whatever the lines hold.


def _exception_classes() -> list[type[BaseException]]:
    """Every exception class of the core and of fairdeal.verifier (not the service's)."""
    found: dict[str, type[BaseException]] = {}
    for info in pkgutil.walk_packages(fairdeal.__path__, "fairdeal."):
        if info.name.endswith("__main__") or info.name.startswith("fairdeal.api"):
            continue  # runs the command when imported; the service's own errors
        for _, value in inspect.getmembers(importlib.import_module(info.name)):
            if (
                inspect.isclass(value)
                and issubclass(value, BaseException)
                and value.__module__.startswith("fairdeal.")
                and not value.__module__.startswith("fairdeal.api")
            ):
                found[f"{value.__module__}.{value.__qualname__}"] = value
    return [found[name] for name in sorted(found)]


def _required_arguments(cls: type[BaseException]) -> list[str]:
    """Text for each argument its own __init__ requires; one reason for Exception's."""
    if cls.__init__ is BaseException.__init__:
        return ["a reason"]
    parameters = list(inspect.signature(cls.__init__).parameters.values())[1:]
    return [f"argument {i}" for i, p in enumerate(parameters) if p.default is p.empty]


@pytest.mark.parametrize("cls", _exception_classes(), ids=lambda cls: cls.__qualname__)
def test_finding_10_every_exception_of_the_core_and_the_verifier_pickles(
    cls: type[BaseException],
) -> None:
    error = cls(*_required_arguments(cls))
    copy = pickle.loads(pickle.dumps(error))
    assert (type(copy), str(copy), vars(copy)) == (cls, str(error), vars(error))


def test_finding_10_an_over_limit_line_is_reported_alike_with_one_job_or_two(
    capsys: Any, tmp_path: Path, files: dict[str, str]
) -> None:
    path = tmp_path / "huge.jsonl"
    export = Path(files["export"]).read_bytes().splitlines(keepends=True)
    with path.open("wb") as out:
        out.writelines(export[:2])
        out.write(b'{"x": "' + b"a" * (LIMITS.max_line_bytes + 10) + b'"}\n')
        out.writelines(export[2:])
    one = run(capsys, "--key", files["key"], str(path), "--jobs", "1")
    two = run(capsys, "--key", files["key"], str(path), "--jobs", "2")
    assert one == two
    status, report = two
    assert (status, report["rounds"]) == (2, len(export) + 1)
    assert codes(report) == {"input.too_large"}, report["findings"]


# Finding 11: the command --explain prints to check a round by hand, run as printed.


def _run_in_a_shell(command: str) -> Any:
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    done = subprocess.run(
        ["sh", "-c", command],
        env={**os.environ, "PATH": path},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_finding_11_the_check_by_hand_command_run_through_a_shell_reproduces_the_deck() -> None:
    driver = helpers.TableDriver("kvitlach", "-kv", {})
    for seat in range(3):
        driver.seat(seat, "seat_joined", {"buy_in": 1_000})
    round_id = driver.play_round(seeds=["--salts", "-v 'it''s' \\ $HOME;", None])
    log = helpers.Log()
    log.add(driver, round_id)
    bundle = log.bundle(0)
    events = [signed["event"] for signed in bundle["events"] if signed["event"]["round"]]
    sealed = next(e["data"] for e in events if e["type"] == "round_sealed")
    assert sealed["client_seeds"] == ["--salts-0", "-v 'it''s' \\ $HOME;-1", ""]
    deck = _run_in_a_shell(explain(bundle, as_json=True)["check_by_hand"])
    opened = next(e["data"] for e in events if e["type"] == "round_opened")
    assert deck["commitment"] == opened["commitment"]
    for dealt in (e["data"] for e in events if e["type"] == "card_dealt"):
        card, salt = deck["deck"][dealt["position"]], deck["salts"][dealt["position"]]
        commitment = randomness.card_commitment(bytes.fromhex(salt), card).hex()
        if dealt["face"] == "up":
            assert dealt["card"] == card
        else:
            assert dealt["commitment"] == commitment


# Finding 12: a checkpoint in the service's JSON form, given as the input.


def _served(log: helpers.Log, **change: Any) -> str:
    """What GET /v1/log/checkpoint returns for the log's latest checkpoint."""
    root = log.tree.root(log.tree.size).hex()
    return json.dumps(
        {"size": log.tree.size, "root_hash": root, "note": log.checkpoint(), **change}
    )


def test_finding_12_a_checkpoint_in_the_services_json_form_is_verified_as_the_input(
    capsys: Any, tmp_path: Path, files: dict[str, str], log: helpers.Log
) -> None:
    path = tmp_path / "checkpoint.json"
    path.write_text(_served(log))
    status, report = run(capsys, "--key", files["key"], str(path))
    assert (status, report["checked"]) == (0, ["checkpoint"]), report
    extends = ["--checkpoint", files["previous"], "--consistency-proof", files["consistency"]]
    status, report = run(capsys, "--key", files["key"], str(path), *extends)
    assert status == 0, report
    path.write_text(_served(log, size=3))  # beside the note, unsigned: it must be the note's
    status, report = run(capsys, "--key", files["key"], str(path))
    assert (status, codes(report)) == (1, {"checkpoint.malformed"})


# Finding 13: an export is the whole log, from leaf 0.


def test_finding_13_an_export_missing_its_first_lines_is_invalid(
    capsys: Any, tmp_path: Path, files: dict[str, str], drivers: dict[str, helpers.TableDriver]
) -> None:
    log = helpers.Log()  # a whole table's rounds first, then another table's
    for driver in (drivers["toto21"], drivers["kvitlach"]):
        for round_id in driver.rounds:
            log.add(driver, round_id)
    checkpoint, export = tmp_path / "checkpoint.txt", tmp_path / "cut.jsonl"
    checkpoint.write_text(log.checkpoint())
    first_table = len(drivers["toto21"].rounds)
    export.write_text(helpers.export_text(log.bundles()[first_table:]))
    missing = f"leaves 0..{first_table - 1} are missing from the export"
    for pinned in ([], ["--checkpoint", str(checkpoint)]):
        status, report = run(capsys, "--key", files["key"], str(export), *pinned)
        assert status == 1, report
        assert [(f["code"], f["reason"]) for f in report["findings"]] == [
            ("log.round_missing", missing)
        ]
    status, report = run(capsys, "--key", files["key"], str(export), "--partial")
    assert status == 0, report


def test_finding_13_a_bundle_given_alone_is_one_leaf_of_the_log(
    capsys: Any, tmp_path: Path, files: dict[str, str], bundles: list[dict[str, Any]]
) -> None:
    for leaf in (0, 3):
        path = tmp_path / f"leaf{leaf}.json"
        path.write_text(json.dumps(bundles[leaf]))
        status, report = run(
            capsys, "--key", files["key"], str(path), "--checkpoint", files["checkpoint"]
        )
        assert status == 0, report


# Finding 14: an unusable file is exit 2; what SPEC can read one way only is read.


def test_finding_14_a_checkpoint_note_with_extra_line_feeds_after_it_is_read(
    capsys: Any, tmp_path: Path, files: dict[str, str], log: helpers.Log
) -> None:
    path = tmp_path / "checkpoint.txt"
    for extra in ("\n", "\n\n\n"):  # jq -r .note writes one
        path.write_text(log.checkpoint() + extra)
        for args in ([files["export"], "--checkpoint", str(path)], [str(path)]):
            status, report = run(capsys, "--key", files["key"], *args)
            assert status == 0, report


_NOTE = helpers.Log().checkpoint()  # of the empty tree: any well-formed note will do
_UNUSABLE_CHECKPOINTS = {
    "empty": b"",
    "not a note": b"the latest checkpoint\n",
    "a note without its signatures": _NOTE.split("\n\n")[0].encode() + b"\n",
    "a note with CRLF line ends": _NOTE.replace("\n", "\r\n").encode(),
    "a note after a byte order mark": b"\xef\xbb\xbf" + _NOTE.encode(),
    "a note in Latin-1": _NOTE.replace("\u2014", "\u00e9").encode("latin-1"),
    "JSON without its note": json.dumps({"size": 0, "root_hash": "00" * 32}).encode(),
    "JSON whose note is not one": json.dumps(
        {"size": 0, "root_hash": "0" * 64, "note": ""}
    ).encode(),
}


@pytest.mark.parametrize("name", sorted(_UNUSABLE_CHECKPOINTS))
def test_finding_14_an_unusable_checkpoint_file_is_exit_2_not_a_finding(
    capsys: Any, tmp_path: Path, files: dict[str, str], name: str
) -> None:
    path = tmp_path / "checkpoint"
    path.write_bytes(_UNUSABLE_CHECKPOINTS[name])
    status, report = run(capsys, "--key", files["key"], files["export"], "--checkpoint", str(path))
    assert status == 2, report
    assert {f["step"] for f in report["findings"]} == {0}, report


def _twice(text: str, member: str) -> str:
    """The JSON text with ``member`` written twice, the original value last."""
    return text.replace(f'"{member}": ', f'"{member}": 0, "{member}": ', 1)


def _inclusion(log: helpers.Log, leaf: int) -> dict[str, Any]:
    """What GET /v1/log/inclusion returns for a leaf in the log's latest checkpoint."""
    bundle = log.bundle(leaf)
    return {
        "round_id": bundle["round_id"],
        "table_id": bundle["table_id"],
        "seq": None,
        "leaf_index": leaf,
        "tree_size": log.tree.size,
        "head_hash": bundle["log"]["head_hash"],
        "root_hash": log.tree.root(log.tree.size).hex(),
        "proof": bundle["log"]["inclusion_proof"],
    }


def test_finding_14_a_member_name_twice_outside_the_events_is_refused(
    capsys: Any, tmp_path: Path, files: dict[str, str], log: helpers.Log
) -> None:
    export = Path(files["export"]).read_text().splitlines(keepends=True)
    consistency = json.dumps(log.consistency(3, log.tree.size))
    both = ["--checkpoint", files["checkpoint"], "--previous-checkpoint", files["previous"]]
    inputs = {  # name: (the input's text, the rest of the command line, bundles counted)
        "a bundle's format": (_twice(Path(files["bundle"]).read_text(), "format"), [], 1),
        "an export line's tree_size": (
            "".join(export[:-1]) + _twice(export[-1], "tree_size"),
            [],
            len(export),  # the other lines are checked
        ),
        "a checkpoint's size": (_twice(_served(log), "size"), [], 0),
        "a consistency proof's from": (_twice(consistency, "from"), both, 0),
        "an inclusion proof's leaf_index": (
            _twice(json.dumps(_inclusion(log, 2)), "leaf_index"),
            ["--checkpoint", files["checkpoint"]],
            0,
        ),
    }
    for name, (text, pinned, rounds) in inputs.items():
        path = tmp_path / "input"
        path.write_text(text)
        status, report = run(capsys, "--key", files["key"], str(path), *pinned)
        assert (status, codes(report)) == (2, {"input.malformed_json"}), (name, report)
        assert report["rounds"] == rounds, name


# Finding 17: where SPEC was silent or read two ways, it now says what the code does.


def _balances(driver: helpers.TableDriver) -> list[tuple[str, dict[str, int]]]:
    return [
        (s.event.type, dict(s.event.data["balances"]))
        for s in driver.log
        if "balances" in s.event.data
    ]


def test_finding_17_kvitlachs_bank_stays_listed_at_0_once_first_funded() -> None:
    driver = helpers.kvitlach_table("kv-bank", rounds=6)
    listed = _balances(driver)
    first = next(i for i, (type_, _) in enumerate(listed) if type_ == "bank_funded")
    assert all("bank" not in balances for _, balances in listed[:first])
    assert all("bank" in balances for _, balances in listed[first:])
    ended = [balances for type_, balances in listed if type_ == "term_ended"]
    assert ended and all(balances["bank"] == 0 for balances in ended)


def test_finding_17_kvitlachs_results_have_the_outcome_win_or_lose(
    drivers: dict[str, helpers.TableDriver],
) -> None:
    settled = [s.event.data for s in drivers["kvitlach"].log if s.event.type == "round_settled"]
    results = [r for data in settled for r in data["results"]]
    assert {r["outcome"] for r in results} == {"win", "lose"}
    for data in settled:
        wins = {r["seat"] for r in data["results"] if r["outcome"] == "win"}
        paid = {t["to"] for t in data["transfers"] if t["from"] == "bank"}
        assert paid == {f"seat:{seat}" for seat in wins}


def _reading_cases(files: dict[str, str]) -> dict[str, tuple[str, list[str], int]]:
    """name: (the input's text, the rest of the command line, the exit status)."""
    text = Path(files["bundle"]).read_text()
    export = Path(files["export"]).read_text()
    note = Path(files["checkpoint"]).read_text()
    garbled = note.replace("\n\n", "\n")  # no blank line before the signatures
    bundle = json.loads(text)
    bundle["log"]["checkpoint"] = garbled
    return {
        "a bundle after a byte order mark": ("\ufeff" + text, [], 2),
        "an export line that is not JSON": (export + "{not json}\n", [], 2),
        "an empty input": ("", [], 2),
        "a note after a byte order mark": ("\ufeff" + note, [], 2),
        "an empty --checkpoint": ("", [files["export"], "--checkpoint"], 2),
        "a garbled --checkpoint": (garbled, [files["export"], "--checkpoint"], 2),
        "a bundle whose log.checkpoint is a garbled note": (json.dumps(bundle), [], 1),
    }


@pytest.mark.parametrize(
    "name",
    [
        "a bundle after a byte order mark",
        "an export line that is not JSON",
        "an empty input",
        "a note after a byte order mark",
        "an empty --checkpoint",
        "a garbled --checkpoint",
        "a bundle whose log.checkpoint is a garbled note",
    ],
)
def test_finding_17_an_input_that_cannot_be_read_is_exit_2_what_a_read_one_says_a_finding(
    capsys: Any, tmp_path: Path, files: dict[str, str], name: str
) -> None:
    text, before, status = _reading_cases(files)[name]
    path = tmp_path / "input"
    path.write_text(text, encoding="utf-8")
    found, report = run(capsys, "--key", files["key"], *before, str(path))
    assert found == status, report
    if status == 2:
        assert {f["step"] for f in report["findings"]} == {0}, report
    else:
        assert codes(report) == {"checkpoint.malformed"}, report


def test_finding_17_an_inclusion_or_consistency_proofs_stated_roots_are_checked(
    capsys: Any, tmp_path: Path, files: dict[str, str], log: helpers.Log
) -> None:
    path = tmp_path / "proof.json"
    inclusion = _inclusion(log, 2)
    path.write_text(json.dumps(inclusion))
    assert (
        run(capsys, "--key", files["key"], str(path), "--checkpoint", files["checkpoint"])[0] == 0
    )
    path.write_text(json.dumps({**inclusion, "root_hash": "00" * 32}))
    status, report = run(
        capsys, "--key", files["key"], str(path), "--checkpoint", files["checkpoint"]
    )
    assert (status, codes(report)) == (1, {"log.inclusion"})
    served = {**log.consistency(3, log.tree.size), "from_root": log.tree.root(3).hex()}
    both = ["--checkpoint", files["checkpoint"], "--previous-checkpoint", files["previous"]]
    for to_root, expected in ((log.tree.root(log.tree.size), 0), (bytes(32), 1)):
        path.write_text(json.dumps({**served, "to_root": to_root.hex()}))
        status, report = run(capsys, "--key", files["key"], *both, "--consistency-proof", str(path))
        assert status == expected, report
    assert codes(report) == {"checkpoint.inconsistent"}


def test_finding_17_a_logged_invalid_seed_is_rules_illegal_action_and_seed_client(
    fixture: Fixture, trust: Trust
) -> None:
    def unprintable(events: list[dict[str, Any]]) -> None:
        events[corpus.index_of(events, "client_seed", 0)]["data"]["seed"] = "tab\there"

    report = verify_bundle(corpus.operator(fixture.kvitlach, unprintable), trust)
    found = {(f.code, f.step) for f in report.findings}
    assert {("rules.illegal_action", 10), ("seed.client", 7)} <= found, found


def _gap(events: list[dict[str, Any]]) -> None:
    events[5]["event"]["seq"] += 1


def _card_without_position(events: list[dict[str, Any]]) -> None:
    del events[corpus.index_of(events, "card_dealt", 0)]["event"]["data"]["position"]


def test_finding_17_steps_6_to_14_are_not_reported_on_a_broken_chain(
    fixture: Fixture, trust: Trust
) -> None:
    _, truncate, _ = corpus.NAMED["a_truncated_round"]
    truncated = truncate(fixture.kvitlach)
    assert "round.unfinished" in verify_bundle(truncated, trust).codes()  # on an intact chain
    for broken in (
        corpus.outsider(truncated, _gap),
        corpus.outsider(fixture.kvitlach, _card_without_position),
    ):
        report = verify_bundle(broken, trust)
        assert report.codes() & {"chain.gap", "chain.fork"}, report.codes()
        assert not [f for f in report.findings if 6 <= f.step <= 14 or f.code == "schema.data"]


def test_finding_17_an_export_against_a_checkpoint_smaller_than_the_previous_one_is_a_rollback(
    capsys: Any, files: dict[str, str]
) -> None:
    status, report = run(
        capsys, "--key", files["key"], files["export"],
        "--checkpoint", files["previous"], "--previous-checkpoint", files["checkpoint"],
    )  # fmt: skip
    assert status == 1 and "checkpoint.rollback" in codes(report), report
