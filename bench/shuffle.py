"""The shuffle proof's cost (SPEC 15.11): one party's shuffle step, proving it, verifying it.

For each backend of ristretto255 (libsodium, when it loads, and the pure-Python fallback) and
each deck size, prints the minimum over the repeats of: the shuffle itself (re-encrypt and
permute), proving it and verifying it. Beside them, the baseline measured in the same run: one
scalar multiplication of that backend (20 in a row after each call, their fastest run), and each
row's time in those multiplications, so that a figure from a busy machine still says how much
work it is (about 6N for proving and 10N for verifying, by the operations counted).
Minimums, as the machine is shared (the design study quotes minimums too: prove 65 ms, verify
61 ms at n = 48 with libsodium).
The pure backend only verifies (it refuses secrets), so its shuffle and proof are the sodium ones.
Run: python bench/shuffle.py [--repeats R] [--sizes 36 48] [--pure-repeats R]
"""

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parent.parent)

from fairdeal.blind import elgamal  # noqa: E402 - after the path is set
from fairdeal.blind import shuffle as tw  # noqa: E402
from fairdeal.blind.group import Group, ristretto255  # noqa: E402

CONTEXT = b'{"purpose":"shuffle","round":"bench.1","seat":1,"step":1}'


def timed(work: Callable[[], object], group: Group, repeats: int) -> tuple[float, float]:
    """The minimum wall time of ``work`` over ``repeats`` calls, and that minimum in scalar
    multiplications of ``group``, whose minimum is taken over runs interleaved with the calls
    (the machine's speed drifts: both minimums come from the same stretch of time)."""
    times, mults = [], []
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
        mults.append(one_mul(group, 1))
    return min(times), min(times) / min(mults)


def one_mul(group: Group, repeats: int) -> float:
    """The minimum over ``repeats`` runs of 20 scalar multiplications, per multiplication."""
    point, best = group.base(5), float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(20):
            group.mul(point, 2**251 + 12345)
        best = min(best, (time.perf_counter() - start) / 20)
    return best


def row(label: str, measured: tuple[float, float]) -> str:
    seconds, mults = measured
    return f"{label:<30} {seconds * 1000:9.1f} ms  = {mults:6.0f} scalar mults"


def deck(group: Group, n: int) -> tuple[tuple[bytes, bytes], ...]:
    cards = elgamal.public_deck(group, "kvitlach", 2)[:n]
    return tuple((c.a, c.b) for c in cards)


def bench(
    prover: Group, verifiers: list[tuple[str, Group, int]], sizes: list[int], repeats: int
) -> None:
    key = prover.base(987654321987654321)
    for n in sizes:
        inputs = deck(prover, n)
        outputs, witness = tw.shuffle(prover, key, inputs)
        statement = tw.Statement(prover, key, inputs, outputs, CONTEXT)
        proof = tw.prove(statement, witness)
        shuffling = timed(lambda: tw.shuffle(prover, key, inputs), prover, repeats)  # noqa: B023
        print(row(f"n = {n}: shuffle (sodium)", shuffling))
        proving = timed(lambda: tw.prove(statement, witness), prover, repeats)  # noqa: B023
        print(row(f"n = {n}: prove (sodium)", proving))
        for name, group, times in verifiers:
            checked = tw.Statement(group, key, inputs, outputs, CONTEXT)
            verifying = timed(lambda: tw.verify(checked, proof), group, times)  # noqa: B023
            print(row(f"n = {n}: verify ({name})", verifying))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--pure-repeats", type=int, default=2)
    parser.add_argument("--sizes", type=int, nargs="+", default=[36, 48])
    args = parser.parse_args()
    try:
        sodium = ristretto255("sodium")
    except OSError:
        print("libsodium cannot be loaded: nothing to prove with (apt-get install libsodium23)")
        return
    pure = ristretto255("pure")
    for name, group, times in (("sodium", sodium, args.repeats), ("pure", pure, 3)):
        print(f"baseline ({name}): one scalar multiplication {one_mul(group, times) * 1e6:8.1f} µs")
    verifiers = [("sodium", sodium, args.repeats), ("pure", pure, args.pure_repeats)]
    bench(sodium, verifiers, args.sizes, args.repeats)


if __name__ == "__main__":
    main()
