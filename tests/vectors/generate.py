"""Generate fairdeal's own test vectors (tests/vectors/fairdeal-v1.json) from fixed inputs.

Run ``python tests/vectors/generate.py`` to rewrite the file; tests/test_vectors.py
regenerates them in memory and fails if the committed file differs. SPEC.md quotes them.
Every input is fixed, so the output is the same on every machine.
"""

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from fairdeal import randomness
from fairdeal.canonical import canonical_bytes
from fairdeal.events import ChainHead, Draft, sign
from fairdeal.games.dealing import round_deck
from fairdeal.keys import Signer, raw_public_key

OUTPUT = Path(__file__).with_name("fairdeal-v1.json")


def fixed_seed(label: str) -> bytes:
    """A 32-byte seed anyone can recompute: SHA-256 of a label."""
    return hashlib.sha256(label.encode()).digest()


def deck_vectors() -> list[dict[str, Any]]:
    cases = [
        ("toto21", 1, "tbl-demo.1", ["alice", "bob"]),
        ("kvitlach", 1, "tbl-k1.1", ["banker", "p1", "p2"]),
        ("kvitlach", 2, "tbl-k2.7", ["s0", "", "s2", 'x "quoted" \\ ~']),
    ]
    vectors = []
    for game, decks, round_id, client_seeds in cases:
        seed = fixed_seed(f"fairdeal vector {round_id}")
        rules = {"decks": decks, "game": game}
        deck = round_deck(seed, round_id, client_seeds, rules)
        commitment = randomness.seed_commitment(seed)
        vectors.append(
            {
                "server_seed": seed.hex(),
                "round_id": round_id,
                "client_seeds": client_seeds,
                "rules": rules,
                "commitment": commitment.hex(),
                "seal_input": randomness.seal_input(
                    round_id, commitment, client_seeds, rules
                ).decode(),
                "shuffle_key": deck.key.hex(),
                "stream_deck_first_64_bytes": stream_prefix(deck.key, "deck", 64),
                "deck": list(deck.cards),
                "salt_0": deck.salt(0).hex(),
                "card_commitment_0": deck.commitment(0),
                "dealer_choice": randomness.choose(deck.key, "dealer", 2),
            }
        )
    return vectors


def stream_prefix(key: bytes, purpose: str, size: int) -> str:
    stream = randomness.byte_stream(key, purpose)
    return bytes(next(stream) for _ in range(size)).hex()


def uniform_vectors() -> list[dict[str, Any]]:
    """Draws from crafted byte streams, showing which bytes are read and which rejected."""
    cases = [(36, [250, 40, 3]), (2, [255]), (48, [63, 48, 47]), (300, [1, 44, 0, 7])]
    vectors = []
    for n, stream_bytes in cases:
        stream = iter(stream_bytes)
        vectors.append({"n": n, "bytes": stream_bytes, "result": randomness.uniform(stream, n)})
    return vectors


def event_vectors() -> dict[str, Any]:
    signer = Signer(Ed25519PrivateKey.from_private_bytes(fixed_seed("fairdeal vector key")))
    head = ChainHead("tbl-demo")
    drafts = [
        Draft("table_created", "server", {"game": "toto21", "options": {"stake": 10}}),
        Draft("seat_joined", "seat:0", {"deposit": 10}),
        Draft("client_seed", "seat:0", {"seed": 'a "quoted" \\ seed'}, "tbl-demo.1"),
        # Not a game event: it shows how text outside ASCII and control characters encode.
        Draft("example", "server", {"text": "ünïcode ✓\n\u0007\u2028", "n": -(2**53 - 1)}),
    ]
    chain = []
    for index, draft in enumerate(drafts):
        signed = sign(head.stamp(draft, 1_760_000_000_000 + index), signer)
        head = head.advance(signed.event, signed.hash)
        chain.append(
            {
                "canonical": canonical_bytes(signed.event.to_json()).decode(),
                **signed.to_json(),
            }
        )
    return {
        "signing_key_seed": fixed_seed("fairdeal vector key").hex(),
        "public_key": raw_public_key(signer.public_key).hex(),
        "key_id": signer.key_id,
        "chain": chain,
    }


def generate() -> dict[str, Any]:
    return {
        "about": "fairdeal v1 test vectors; regenerate with tests/vectors/generate.py",
        "decks": deck_vectors(),
        "uniform": uniform_vectors(),
        "events": event_vectors(),
    }


def render() -> str:
    return json.dumps(generate(), indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    OUTPUT.write_text(render(), encoding="utf-8")
    sys.stdout.write(f"wrote {OUTPUT.name}\n")
