"""The browser module's checks across an export's lines (export.js) against the Python
verifier's (verifier/export.py), on named exports built through the real code: whole and
filtered, honest, and with lines dropped, swapped, given twice, spliced in from another
log's export, a table's bundle that does not start where its previous one ended, a history
rewritten, a table_state that lies (about a balance, or about the banker, which only the
rules' replay knows). Each case gives the same verdict and the same set of codes in both."""

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from fairdeal.verifier import Report, export, load_trust
from fairdeal.verifier.inputs import Line
from tests.js.test_parity import HERE, NODE
from tests.verifier import corpus, helpers

pytestmark = [
    pytest.mark.skipif(NODE is None, reason="node is not installed: no JS to run"),
    # one xdist worker runs all of it: its module fixture checks every case once, not per worker
    pytest.mark.xdist_group(__name__),
]
Bundle = dict[str, Any]
ACROSS = {"log.order", "log.round_missing", "checkpoint.fork", "export.fork", "export.link"}


@dataclass(frozen=True)
class Case:
    """An export's text, whether it is verified as filtered (``--partial``), and the codes
    the Python verifier must find in it (none: it is valid)."""

    text: str
    partial: bool = False
    python: frozenset[str] = frozenset()


def _case(bundles: list[Bundle], *codes: str, partial: bool = False) -> Case:
    return Case(helpers.export_text(bundles), partial, frozenset(codes))


def _swapped(bundles: list[Bundle], first: int, second: int) -> list[Bundle]:
    out = list(bundles)
    out[first], out[second] = bundles[second], bundles[first]
    return out


def _from_earlier_state(log: helpers.Log, index: int, earlier: int) -> Bundle:
    """Round ``index``'s bundle, starting at the table_state its table's round ``earlier``
    (an earlier leaf) starts at: valid alone, but not where the table's previous bundle
    ends."""
    bundle = log.bundle(index, bounded=True)
    driver, _, last = log.entries[index]
    start = log.first(earlier)
    assert driver.log[start].event.type == "table_state"
    bundle["events"] = json.loads(json.dumps([s.to_json() for s in driver.log[start : last + 1]]))
    return bundle


def _history_rewritten(bundle: Bundle) -> Bundle:
    """The operator re-signs a table's chain with its second event a millisecond later."""

    def rewrite(events: list[dict[str, Any]]) -> None:
        events[1]["time"] += 1

    return corpus.operator(bundle, rewrite)


def _garbled(text: str, line: int) -> str:
    lines = text.splitlines(keepends=True)
    lines[line] = lines[line][:50] + "\n"
    return "".join(lines)


def _cases() -> dict[str, Case]:
    tables = [
        helpers.toto21_table("t21", rounds=3),
        helpers.kvitlach_table("kv", rounds=3),
        helpers.kvitlach_table("kv2", rounds=2),
    ]
    log = helpers.Log().add_all(*tables)  # t21.1 kv.1 kv2.1 t21.2 kv.2 kv2.2 t21.3 kv.3
    bounded, whole = log.bundles(bounded=True), log.bundles()
    other = helpers.Log().add_all(*reversed(tables))  # the same rounds, another log
    kv = [i for i, b in enumerate(bounded) if b["table_id"] == "kv"]
    assert kv == [1, 4, 7]
    spliced = [*bounded[:3], other.bundle(3, bounded=True), *bounded[4:]]
    assert spliced[3]["round_id"] != bounded[3]["round_id"]
    filtered = [bounded[i] for i in kv]
    money = helpers.Log().add_all(helpers.lying_table(helpers.move_money))
    banker = helpers.Log().add_all(helpers.lying_table(helpers.other_banker))
    return {
        "the whole export, later bundles from their table_state": _case(bounded),
        "the whole export, every bundle from seq 0": _case(whole),
        "a dropped line": _case(bounded[:4] + bounded[5:], "log.round_missing", "export.link"),
        "a dropped line, every bundle from seq 0": _case(
            whole[:4] + whole[5:], "log.round_missing"
        ),
        "two lines swapped": _case(_swapped(bounded, 3, 4), "log.order"),
        "two lines of one table swapped": _case(
            _swapped(bounded, 1, 4), "log.order", "export.link"
        ),
        "a line duplicated": _case([*bounded[:5], bounded[4], *bounded[5:]], "log.order"),
        "a line duplicated, every bundle from seq 0": _case(
            [*whole[:5], whole[4], *whole[5:]], "log.order"
        ),
        "a line from another log's export spliced in": _case(spliced, "checkpoint.fork"),
        "a table's bundle that does not start where its previous one ended": _case(
            [*bounded[:7], _from_earlier_state(log, 7, 4)], "export.link"
        ),
        "a table's bundle from seq 0 whose history was rewritten": _case(
            [*whole[:7], _history_rewritten(whole[7])], "export.fork"
        ),
        "a filtered export verified as partial": _case(filtered, partial=True),
        "the same filtered export verified as a whole one": _case(filtered, "log.round_missing"),
        "a filtered export verified as partial, a line of its table dropped": _case(
            [filtered[0], filtered[2]], "export.link", partial=True
        ),
        "a line that cannot be read": Case(
            _garbled(helpers.export_text(bounded), 4), python=frozenset({"input.malformed_json"})
        ),
        "a table_state that moves money between two seats": _case(
            money.bundles(bounded=True), "export.state"
        ),
        "a table_state that names another banker": _case(
            banker.bundles(bounded=True), "export.state"
        ),
    }


def _python(case: Case) -> Report:
    data = case.text.encode()
    lines = [Line(n, raw) for n, raw in enumerate(data.splitlines(keepends=True), 1)]
    return export.verify(
        lines, load_trust([helpers.VERIFIER_KEY]), export.Pinned(partial=case.partial)
    )


@pytest.fixture(scope="module")
def verdicts(
    tmp_path_factory: pytest.TempPathFactory,
) -> dict[str, tuple[Case, dict[str, Any], Report]]:
    tmp = tmp_path_factory.mktemp("parity-exports")
    key = tmp / "operator.pem"
    key.write_text(helpers.PEM)
    cases = _cases()
    paths: dict[str, Path] = {}
    for n, (name, case) in enumerate(cases.items()):
        paths[name] = tmp / f"{n:02d}.jsonl"
        paths[name].write_text(case.text)
    whole = [str(paths[n]) for n, c in cases.items() if not c.partial]
    partial = [str(paths[n]) for n, c in cases.items() if c.partial]
    run = subprocess.run(
        [str(NODE), str(HERE / "verify_cli.mjs"), str(key), *whole, "--partial", *partial],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    by_file = {r["file"]: r for r in map(json.loads, run.stdout.splitlines())}
    return {n: (c, by_file[str(paths[n])], _python(c)) for n, c in cases.items()}


def test_each_case_is_what_its_name_says_in_the_python_verifier(verdicts: Any) -> None:
    for name, (case, _, python) in verdicts.items():
        assert case.python <= python.codes(), (name, python.codes())
        assert (python.verdict == "valid") == (not case.python), (name, python.codes())


def test_each_case_gives_the_same_verdict_and_codes_in_both(verdicts: Any) -> None:
    found: set[str] = set()
    for name, (_, js, python) in verdicts.items():
        codes = python.codes()
        assert (js["verdict"], set(js["codes"])) == (python.verdict, codes), (name, js, codes)
        found |= set(js["codes"])
    assert ACROSS | {"export.state"} <= found  # every code across lines, in some case


def test_a_filtered_export_is_valid_as_partial_and_invalid_as_whole_in_both(
    verdicts: Any,
) -> None:
    _, js, python = verdicts["a filtered export verified as partial"]
    assert (js["verdict"], python.verdict) == ("valid", "valid")
    _, js, python = verdicts["the same filtered export verified as a whole one"]
    assert (js["verdict"], python.verdict) == ("invalid", "invalid")


def test_a_balance_a_table_state_lies_about_is_export_state_in_both(verdicts: Any) -> None:
    _, js, python = verdicts["a table_state that moves money between two seats"]
    assert python.codes() == {"export.state"}
    assert (js["verdict"], js["codes"]) == ("invalid", ["export.state"])


def test_a_table_state_lie_only_the_rules_know_is_export_state_in_both(verdicts: Any) -> None:
    _, js, python = verdicts["a table_state that names another banker"]
    assert python.codes() == {"export.state"}
    assert "export.state" in js["codes"]
