"""Generate the bounded-bundle vector (tests/vectors/fairdeal-bundle-2.json, SPEC 9): a
whole export of one Toto21 table in bundle format 2, every input fixed.

The table is played by the real rules with the vector key of fairdeal-v1.json, its
server seeds SHA-256("fairdeal vector " + round id), and every move chosen by a bot
whose generator is seeded: its leaves are the service's (13.3), each bundle starts where
the service starts it (13.1), and the checkpoint is signed under ``ORIGIN``. Run
``python tests/vectors/bounded.py`` to rewrite the file; tests/test_vectors.py
regenerates it in memory and fails on any difference.
"""

import json
import random
import sys
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from bench.simulate import play_round
from fairdeal.bundle import LogEntry, make_bundle
from fairdeal.events import SignedEvent
from fairdeal.games import registry
from fairdeal.games.base import Command
from fairdeal.keys import Signer, key_id, public_key_pem
from fairdeal.merkle import MerkleTree
from fairdeal.note import Checkpoint, NoteSigner, sign_checkpoint
from fairdeal.protocol import TABLE_STATE
from fairdeal.table import create, execute
from tests.vectors.generate import fixed_seed

OUTPUT = Path(__file__).with_name("fairdeal-bundle-2.json")
ORIGIN = "fairdeal.example/log"
TABLE = "tbl-bounded"
T0 = 1_760_000_000_000
SIGNER = Signer(Ed25519PrivateKey.from_private_bytes(fixed_seed("fairdeal vector key")))
# Each write of the service, as (type, actor, data); a head is logged after each.
SEATING = [
    [("seat_joined", "seat:0", {})],  # with table_created: the table's first write
    [("seat_joined", "seat:1", {})],
    [("joiner_accepted", "seat:0", {})],
]
ROUNDS = 2


def play() -> tuple[list[SignedEvent], list[tuple[str | None, int]]]:
    """The table's signed chain, and its heads in the log's order: (round id or None for
    a head at rest, the head's seq)."""
    table, created = create(registry()["toto21"], TABLE, {"stake": 10}, T0, SIGNER)
    chain, heads = [created], []
    for write, commands in enumerate(SEATING):
        for kind, actor, data in commands:
            table, signed = execute(table, Command(kind, actor, T0 + write, data), None, SIGNER)
            chain += signed
        heads.append((None, chain[-1].event.seq))
    rng = random.Random(21)
    for number in range(1, ROUNDS + 1):
        round_id = f"{TABLE}.{number}"
        seed = fixed_seed(f"fairdeal vector {round_id}")
        played = play_round(table, round_id, server_seed=seed, seats=[0, 1], rng=rng,
                            signer=SIGNER, now=T0 + 1_000 * number)  # fmt: skip
        table, chain = played.table, chain + played.log
        heads.append((round_id, chain[-1].event.seq))
    return chain, heads


def export(
    chain: list[SignedEvent], heads: list[tuple[str | None, int]], table: str = TABLE
) -> list[dict[str, Any]]:
    """A bundle for each head of ``table``, each from the table_state after the previous head."""
    tree = MerkleTree()
    for _, seq in heads:
        tree.append(chain[seq].hash)
    notes = NoteSigner(ORIGIN, SIGNER.private_key)
    note = sign_checkpoint(Checkpoint(ORIGIN, tree.size, tree.root()), notes)
    pem = public_key_pem(SIGNER.public_key).decode()
    keys = [{"key_id": key_id(SIGNER.public_key), "public_key_pem": pem, "current": True}]
    lines, start = [], 0
    for index, (round_id, seq) in enumerate(heads):
        proof = tuple(h.hex() for h in tree.inclusion_proof(index, tree.size))
        entry = LogEntry(ORIGIN, notes.verifier_key(), index, chain[seq].hash.hex(),
                         tree.size, proof, note)  # fmt: skip
        events = [s.to_json() for s in chain[start : seq + 1]]
        lines.append(make_bundle(table, round_id, events, keys, entry))
        after = seq + 1
        start = after if after < len(chain) and chain[after].event.type == TABLE_STATE else 0
    return lines


def generate() -> dict[str, Any]:
    chain, heads = play()
    lines = export(chain, heads)
    return {
        "about": "a whole export of one Toto21 table in bundle format 2 (SPEC 9, 13.1);"
        " regenerate with tests/vectors/bounded.py",
        "verifier_key": NoteSigner(ORIGIN, SIGNER.private_key).verifier_key(),
        "checkpoint": lines[-1]["log"]["checkpoint"],
        "export": lines,
    }


def render() -> str:
    return json.dumps(generate(), indent=1, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    OUTPUT.write_text(render(), encoding="utf-8")
    sys.stdout.write(f"wrote {OUTPUT.name}\n")
