"""The committed conformance suite (conformance/) is what its generator makes, byte for
byte, and its manifest is of the form conformance/README.md gives: regenerate with
``python -m conformance.generate`` when the inputs or the verifier's findings change."""

import json
from pathlib import Path
from typing import Any

from conformance.generate import FOLDERS, FORMAT, MISSING, Options, build, write

SUITE = Path(__file__).resolve().parents[2] / "conformance"
MANIFEST: dict[str, Any] = json.loads((SUITE / "manifest.json").read_text())
EXIT_STATUS = {"valid": 0, "invalid": 1, "unusable": 2}
# 6 MiB: a dealer-blind round's bundle is ~90 KB (three shuffle steps, SPEC 15.13.13), and
# version 3 has 23 cases; the rest of the suite is ~3.2 MB
MAX_BYTES = 6 << 20


def _files(folder: Path) -> dict[str, bytes]:
    paths = [folder / "manifest.json", *(p for f in FOLDERS for p in (folder / f).rglob("*"))]
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in paths if p.is_file()}


def test_the_committed_folder_is_what_the_generator_makes(tmp_path: Path) -> None:
    write(build(), tmp_path)
    made, committed = _files(tmp_path), _files(SUITE)
    assert sorted(made) == sorted(committed), "regenerate: python -m conformance.generate"
    changed = [name for name in made if made[name] != committed[name]]
    assert not changed, f"regenerate: python -m conformance.generate ({changed[:5]})"


def test_every_case_is_of_the_manifests_form_and_every_file_is_used() -> None:
    assert MANIFEST["format"] == FORMAT
    cases = MANIFEST["cases"]
    assert len({c["id"] for c in cases}) == len(cases)
    used = set()
    for case in cases:
        assert set(case) == {
            "id", "description", "input", "options", "verdict", "exit_status", "codes",
        }  # fmt: skip
        assert set(case["options"]) == set(Options.__dataclass_fields__), case["id"]
        assert EXIT_STATUS[case["verdict"]] == case["exit_status"], case["id"]
        assert case["codes"] == sorted(set(case["codes"])), case["id"]
        assert (case["verdict"] == "valid") == (not case["codes"]), case["id"]
        options = case["options"]
        named = [case["input"], options["checkpoint"], options["previous_checkpoint"]]
        named += [*options["keys"], *options["witnesses"], *options["consistency_proofs"]]
        for path in filter(None, named):
            # one path is named and never written: the cases of a file that cannot be read
            assert (SUITE / path).is_file() != (path == MISSING), (case["id"], path)
            used.add(path)
    used.discard(MISSING)
    assert set(_files(SUITE)) - used == {"manifest.json"}
    assert sum(map(len, _files(SUITE).values())) < MAX_BYTES


def test_the_operators_forgeries_of_issue_23_are_cases_with_their_codes() -> None:
    codes = {c["id"]: c["codes"] for c in MANIFEST["cases"]}
    for game, move in (("toto21", "stand"), ("kvitlach", "hit")):
        assert codes[f"v2-{game}-keyed-{move}-relabel"] == ["sig.seat_bad"]
        assert codes[f"v2-{game}-keyed-{move}-unsigned"] == ["sig.seat_missing"]
        assert codes[f"v2-{game}-keyed-{move}-n-1"] == ["sig.seat_replayed"]
