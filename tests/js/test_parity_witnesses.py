"""Step 18 in the browser module (witnesses.js) against the Python verifier, on the same
files: bundles and an export whose checkpoints the fixed witnesses of
tests/verifier/witnessed.py cosigned through the real code, honest and attacked, each
verified with the same --witness keys and --witness-quorum in both. Each case gives the
same verdict and the same codes in both."""

import base64
import json
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from fairdeal.cosignature import Cosigner, with_signatures
from fairdeal.note import signature_line
from fairdeal.verifier import export, load_trust, verify_bundle
from fairdeal.verifier.inputs import InputError, Line
from tests.js.test_parity import HERE, NODE
from tests.verifier import helpers
from tests.verifier.witnessed import (
    ALICE,
    BOB,
    IMPOSTOR,
    cosign,
    head_second,
    with_checkpoint,
    witnessed,
)

pytestmark = [
    pytest.mark.skipif(NODE is None, reason="node is not installed: no JS to run"),
    # one xdist worker runs all of it: its module fixture checks every case once, not per worker
    pytest.mark.xdist_group(__name__),
]
Bundle = dict[str, Any]
WITNESS_CODES = {"witness.quorum", "witness.signature", "witness.time"}


@dataclass(frozen=True)
class Case:
    """A bundle's (or an export's) text, the witnesses given and the quorum, and the codes
    the Python verifier must find (none: valid)."""

    text: str
    witnesses: tuple[str, ...]
    quorum: int | None
    python: frozenset[str]
    is_export: bool = False


def _keys(*witnesses: Cosigner) -> tuple[str, ...]:
    return tuple(w.verifier_key() for w in witnesses)


BOTH = _keys(ALICE, BOB)


def _flipped(line: str) -> str:
    """A cosignature line with one bit of its signature's last byte flipped."""
    name, material = line.removeprefix("\u2014 ").removesuffix("\n").split(" ")
    blob = bytearray(base64.b64decode(material))
    blob[-1] ^= 1
    return signature_line(name, bytes(blob))


def _alice_flipped(bundle: Bundle) -> Bundle:
    note = bundle["log"]["checkpoint"]
    at = head_second(bundle) + 60
    lines = [_flipped(cosign(note, ALICE, at)), cosign(note, BOB, at)]
    return with_checkpoint(bundle, with_signatures(note, lines))


def _not_included(bundle: Bundle) -> Bundle:
    """Cosigned before the head, but its tree_size not the checkpoint's: the head's
    inclusion is not proved, so its time is not checked against the witnesses'."""
    early = witnessed(bundle, ALICE, BOB, late=-3600)
    early["log"]["tree_size"] += 1
    return early


def _cases() -> dict[str, Case]:
    log = helpers.Log().add_all(
        helpers.toto21_table("w21", rounds=2), helpers.kvitlach_table("wkv", rounds=1)
    )
    bundles = log.bundles()
    last = bundles[-1]
    honest = witnessed(last, ALICE, BOB)

    def case(bundle: Bundle, keys: tuple[str, ...], quorum: int | None, *codes: str) -> Case:
        return Case(json.dumps(bundle), keys, quorum, frozenset(codes))

    def export_case(items: list[Bundle], *codes: str) -> Case:
        return Case(helpers.export_text(items), BOTH, None, frozenset(codes), is_export=True)

    return {
        "cosigned by both, a quorum of one": case(honest, BOTH, 1),
        "cosigned by both, a quorum of both": case(honest, BOTH, 2),
        "cosigned by both, no witness given": case(honest, (), None),
        "a witness's line missing": case(witnessed(last, ALICE), BOTH, 2, "witness.quorum"),
        "the quorum defaults to every witness given": case(
            witnessed(last, ALICE), BOTH, None, "witness.quorum"
        ),
        "a bit of a witness's signature flipped": case(
            _alice_flipped(last), BOTH, 1, "witness.signature"
        ),
        "an impostor under a given witness's name": case(
            witnessed(last, IMPOSTOR, BOB), BOTH, 2, "witness.quorum"
        ),
        "cosigned an hour before the head was logged": case(
            witnessed(last, ALICE, BOB, late=-3600), BOTH, 1, "witness.time"
        ),
        "cosigned within the head's second": case(witnessed(last, ALICE, late=0), BOTH[:1], 1),
        "cosigned a minute before: a witness's clock behind": case(
            witnessed(last, ALICE, late=-60), BOTH[:1], 1
        ),
        "cosigned 61 s before the head was logged": case(
            witnessed(last, ALICE, late=-61), BOTH[:1], 1, "witness.time"
        ),
        "cosigned before the head, its inclusion not proved": case(
            _not_included(last), BOTH, 2, "log.inclusion"
        ),
        "the log's note key given as a witness": case(
            honest, (helpers.VERIFIER_KEY,), None, "input.wrong_format"
        ),
        "an export, every checkpoint cosigned by both": export_case(
            [witnessed(b, ALICE, BOB) for b in bundles]
        ),
        "an export, one line's checkpoint cosigned by one": export_case(
            [witnessed(b, ALICE, BOB) for b in bundles[:-1]] + [witnessed(last, ALICE)],
            "witness.quorum",
        ),
    }


def _python(case: Case) -> tuple[str, set[str]]:
    try:
        trust = load_trust([helpers.VERIFIER_KEY], witnesses=case.witnesses, quorum=case.quorum)
    except InputError as e:
        return "unusable", {e.code}
    if case.is_export:
        data = case.text.encode()
        lines = [Line(n, raw) for n, raw in enumerate(data.splitlines(keepends=True), 1)]
        report = export.verify(lines, trust, export.Pinned(partial=False))
    else:
        report = verify_bundle(json.loads(case.text), trust)
    return report.verdict, report.codes()


def _node(key: Path, case: Case, path: Path) -> dict[str, Any]:
    args = [a for k in case.witnesses for a in ("--witness", k)]
    args += ["--witness-quorum", str(case.quorum)] if case.quorum is not None else []
    run = subprocess.run(
        [str(NODE), str(HERE / "verify_cli.mjs"), str(key), *args, str(path)],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    result: dict[str, Any] = json.loads(run.stdout)
    return result


@pytest.fixture(scope="module")
def verdicts(
    tmp_path_factory: pytest.TempPathFactory,
) -> dict[str, tuple[Case, dict[str, Any], tuple[str, set[str]]]]:
    tmp = tmp_path_factory.mktemp("parity-witnesses")
    key = tmp / "operator.pem"
    key.write_text(helpers.PEM)
    out = {}
    for n, (name, case) in enumerate(_cases().items()):
        path = tmp / f"{n:02d}.{'jsonl' if case.is_export else 'json'}"
        path.write_text(case.text)
        out[name] = (case, _node(key, case, path), _python(case))
    return out


def test_each_case_is_what_its_name_says_in_the_python_verifier(verdicts: Any) -> None:
    for name, (case, _, (verdict, codes)) in verdicts.items():
        assert codes == case.python, (name, codes)
        assert (verdict == "valid") == (not case.python), (name, verdict)


def test_each_case_gives_the_same_verdict_and_codes_in_both(verdicts: Any) -> None:
    found: set[str] = set()
    for name, (_, js, (verdict, codes)) in verdicts.items():
        assert (js["verdict"], set(js["codes"])) == (verdict, codes), (name, js, codes)
        found |= codes
    assert found >= WITNESS_CODES
