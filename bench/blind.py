"""Dealer-blind primitives (SPEC 15): each group operation and proof, on both backends.

Prints, per operation, the best time of several runs with libsodium (ctypes) and with the
pure-Python fallback, and each as a multiple of one Ed25519 signature verification
(``cryptography``) timed in the same run. Times are this process's CPU time
(``time.process_time``), and minimums: the machine is shared, and wall time there counts
other jobs' turns; the ratio carries over between machines better than the times do. A
backend that is not available prints "-".
Run: python bench/blind.py [--repeats N] [--quick]
"""

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

sys.path[0] = str(Path(__file__).resolve().parent.parent)

from fairdeal.blind import elgamal, proofs  # noqa: E402 - after the path is set
from fairdeal.blind.group import Group, hash_to_scalar, ristretto255  # noqa: E402
from fairdeal.blind.ristretto_pure import PureRistretto255  # noqa: E402


def best(work: Callable[[], object], repeats: int, number: int) -> float:
    """The least seconds one call of ``work`` took, over ``repeats`` runs of ``number``."""
    times = []
    for _ in range(repeats):
        start = time.process_time()
        for _ in range(number):
            work()
        times.append((time.process_time() - start) / number)
    return min(times)


def operations(group: Group) -> dict[str, Callable[[], object]]:
    """The rows: what a party or a verifier does, one call each."""
    x, k = hash_to_scalar(b"x"), hash_to_scalar(b"k")
    point, key_x = group.base(k), group.base(x)
    context = b'{"purpose":"share","round":"bench.1","seat":0}'
    key_proof = proofs.prove_knowledge(group, x, context=context)
    share, share_proof = proofs.prove_dleq(group, x, point, context=context)
    points48 = [group.hash_to_element(bytes([i])) for i in range(48)]
    scalars48 = [hash_to_scalar(bytes([i, 1])) for i in range(48)]
    xs = [hash_to_scalar(bytes([j])) for j in range(3)]
    keys = [group.base(j) for j in xs]
    joint = elgamal.joint_key(group, keys)
    card = elgamal.reencrypt(group, joint, elgamal.public_deck(group, "toto21", 1)[7], k)
    shares = [elgamal.decryption_share(group, j, card, context=context) for j in xs]
    points36 = elgamal.card_points(group, "toto21", 1)

    def open_card() -> int:
        for key, s in zip(keys, shares, strict=True):
            elgamal.verify_share(group, key, card, s, context=context)
        return elgamal.card_index(points36, elgamal.decrypt(group, card, [s.share for s in shares]))

    return {
        "decode (validate)": lambda: group.decode(point),
        "add": lambda: group.add(point, point),
        "scalar mult": lambda: group.mul(point, x),
        "base mult": lambda: group.base(x),
        "hash to element": lambda: group.hash_to_element(b"card"),
        "multi_mul, 48 terms": lambda: group.multi_mul(points48, scalars48),
        "key proof, prove": lambda: proofs.prove_knowledge(group, x, context=context),
        "key proof, verify": lambda: proofs.verify_knowledge(
            group, key_x, context=context, proof=key_proof
        ),
        "share + DLEQ, prove": lambda: proofs.prove_dleq(group, x, point, context=context),
        "share DLEQ, verify": lambda: proofs.verify_dleq(
            group, key_x, point, share, context=context, proof=share_proof
        ),
        "open a card, 3 parties (3 verifies)": open_card,
        "card points, 36 cards": lambda: elgamal.card_points(group, "toto21", 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="one call a run: tests only")
    args = parser.parse_args()
    signer = Ed25519PrivateKey.from_private_bytes(bytes(32))
    public, message = signer.public_key(), b"fairdeal bench" * 8
    signature = signer.sign(message)
    baseline = best(lambda: public.verify(signature, message), args.repeats, 2000)
    print(f"baseline: one Ed25519 verify (cryptography) {baseline * 1e6:.1f} µs")
    try:
        native: Group | None = ristretto255("sodium")
    except OSError:
        native = None
    backends = {"libsodium": native, "pure Python": PureRistretto255(allow_secrets=True)}
    rows = {name: operations(g) if g else {} for name, g in backends.items()}
    print(f"{'operation':38} {'libsodium':>22} {'pure Python':>22}")
    for label in rows["pure Python"]:
        cells = []
        for name, calls in (("libsodium", 200), ("pure Python", 10)):
            if label not in rows[name]:
                cells.append(f"{'-':>22}")
                continue
            seconds = best(rows[name][label], args.repeats, 1 if args.quick else calls)
            cells.append(f"{_time(seconds):>10} {seconds / baseline:7.1f} x")
        print(f"{label:38} {cells[0]:>22} {cells[1]:>22}")
    print("x: as a multiple of the baseline Ed25519 verify, same run")


def _time(seconds: float) -> str:
    return f"{seconds * 1e3:.2f} ms" if seconds >= 1e-3 else f"{seconds * 1e6:.1f} µs"


if __name__ == "__main__":
    main()
