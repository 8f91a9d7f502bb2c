"""The committed vectors are what the generator makes, and the ``fairdeal deck`` CLI agrees."""

import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from fairdeal.api.cli.main import main
from fairdeal.events import SignedEvent
from fairdeal.games import registry
from fairdeal.verifier.cli import main as verify_main
from tests.replay import replay
from tests.vectors import bounded, generate, legacy, v2

VECTORS = Path(__file__).parent / "vectors" / "fairdeal-v1.json"
COMMITTED = json.loads(VECTORS.read_text(encoding="utf-8"))


def test_committed_vectors_match_the_generator() -> None:
    assert VECTORS.read_text(encoding="utf-8") == generate.render()
    assert bounded.OUTPUT.read_text(encoding="utf-8") == bounded.render()
    assert v2.OUTPUT.read_text(encoding="utf-8") == v2.render()


@pytest.mark.parametrize("generator", [bounded, v2], ids=["bundle format 2", "version 2"])
def test_an_export_vector_verifies_line_by_line_and_as_a_whole(
    generator: ModuleType, tmp_path: Path
) -> None:
    vector = json.loads(generator.OUTPUT.read_text(encoding="utf-8"))
    export = tmp_path / "export.jsonl"
    export.write_text("".join(json.dumps(line) + "\n" for line in vector["export"]))
    checkpoint = tmp_path / "checkpoint.txt"
    checkpoint.write_text(vector["checkpoint"])
    key = ["--key", vector["verifier_key"]]
    assert verify_main([*key, "--checkpoint", str(checkpoint), str(export)]) == 0
    for number, line in enumerate(vector["export"]):
        alone = tmp_path / f"bundle-{number}.json"
        alone.write_text(json.dumps(line))
        assert verify_main([*key, str(alone)]) == 0
    starts = [line["events"][0]["event"]["type"] for line in vector["export"]]
    assert starts == ["table_created"] + ["table_state"] * (len(starts) - 1)


def test_the_version_2_vector_replays_by_the_rules_with_its_seat_keys() -> None:
    """The whole chain, from table_created, through the engine's replay (SPEC 6.3, 6.7):
    every seat's statement checked again, its keys and numbers where the play left them."""
    vector = json.loads(v2.OUTPUT.read_text(encoding="utf-8"))
    events = [e for line in vector["export"] for e in line["events"]]
    chain = [SignedEvent.from_json(item).event for item in events]
    assert [event.seq for event in chain] == list(range(len(chain)))
    assert {event.version for event in chain} == {2}
    table = replay(registry(), chain)
    keys = {item["seat"]: item["public_key"] for item in vector["seat_keys"]}
    assert {seat: bound.key for seat, bound in table.seats.items()} == keys
    voided = [event.data for event in chain if event.type == "round_voided"]
    assert voided == [{"reason": "seed_withheld", "seats": [1]}]


@pytest.mark.parametrize("vector", COMMITTED["decks"], ids=lambda v: v["round_id"])
def test_deck_command_prints_the_vector(vector, capsys) -> None:
    args = ["deck", "--game", vector["rules"]["game"], "--decks", str(vector["rules"]["decks"])]
    args += ["--round-id", vector["round_id"], "--server-seed", vector["server_seed"]]
    for seed in vector["client_seeds"]:
        args += ["--client-seed", seed]
    assert main(args) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["commitment"] == vector["commitment"]
    assert printed["shuffle_key"] == vector["shuffle_key"]
    assert printed["deck"] == vector["deck"]


@pytest.mark.parametrize(
    "args, message",
    [
        (["deck", "--game", "poker"], "invalid choice"),
        (["deck", "--game", "toto21", "--round-id", "r", "--server-seed", "xyz"], "hex"),
        (["deck", "--game", "toto21", "--round-id", "r", "--server-seed", "00"], "32 bytes"),
        (
            [
                "deck",
                "--game",
                "toto21",
                "--decks",
                "2",
                "--round-id",
                "r",
                "--server-seed",
                "00" * 32,
            ],
            "one deck",
        ),
        (
            [
                "deck",
                "--game",
                "kvitlach",
                "--round-id",
                "r",
                "--server-seed",
                "00" * 32,
                "--client-seed",
                "bad\x07seed",
            ],
            "printable",
        ),
    ],
    ids=[
        "unknown game",
        "seed not hex",
        "seed too short",
        "toto21 with two decks",
        "unprintable client seed",
    ],
)
def test_deck_command_refuses_bad_arguments_in_one_line(args, message) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "fairdeal.api.cli", *args],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 2
    assert run.stdout == ""
    assert run.stderr.count("\n") == 1 and message in run.stderr


def test_an_export_the_release_before_bounded_proofs_wrote_still_verifies(tmp_path: Path) -> None:
    """tests/vectors/legacy-export-1.jsonl is frozen (tests/vectors/legacy.py): format 1,
    whole prefixes, no table_state. Today's verifier finds it valid, and a changed bet in
    it invalid."""
    key = ["--key", legacy.KEY.read_text().strip(), "--checkpoint", str(legacy.CHECKPOINT)]
    lines = legacy.OUTPUT.read_text().splitlines()
    bundles = [json.loads(line) for line in lines]
    assert {b["format"] for b in bundles} == {"fairdeal-bundle/1"}
    assert not [e for b in bundles for e in b["events"] if e["event"]["type"] == "table_state"]
    assert {b["table_id"] for b in bundles} == {"legacy-t21", "legacy-kv", "legacy-kp"}
    assert verify_main([*key, str(legacy.OUTPUT)]) == 0
    changed = tmp_path / "changed.jsonl"
    bet = next(i for i, line in enumerate(lines) if '"amount": ' in line and '"bet"' in line)
    lines[bet] = lines[bet].replace('"amount": ', '"amount": 1', 1)
    changed.write_text("\n".join(lines) + "\n")
    assert verify_main([*key, str(changed)]) == 1
