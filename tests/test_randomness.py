"""Committed randomness, checked against the definitions written out again here.

Every expected value below is computed in this file from hashlib, hmac and an independent
RFC 8785 encoder (the rfc8785 package), never from fairdeal's own helpers, and the tags
are spelled out as literal bytes so that a changed tag is a failing test.
"""

import hashlib
import hmac
import math
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from statistics import NormalDist
from typing import Any, TypeVar

import pytest
import rfc8785
from hypothesis import given, settings
from hypothesis import strategies as st

from fairdeal.cards import kvitlach_deck, toto21_deck
from fairdeal.errors import SeedError
from fairdeal.randomness import (
    byte_stream,
    card_commitment,
    card_salt,
    check_client_seed,
    choose,
    seal_input,
    seed_commitment,
    shuffle,
    shuffle_key,
    uniform,
)

T = TypeVar("T")

SEED_COMMITMENT_TAG = b"fairdeal/v1/seed-commitment\x00"
SHUFFLE_KEY_TAG = b"fairdeal/v1/shuffle-key\x00"
STREAM_TAG = b"fairdeal/v1/stream\x00"
CARD_SALT_TAG = b"fairdeal/v1/card-salt\x00"
CARD_COMMITMENT_TAG = b"fairdeal/v1/card-commitment\x00"

SEEDS = [bytes(32), bytes(range(32)), b"\xff" * 32, hashlib.sha256(b"server seed").digest()]
RULES: dict[str, Any] = {
    "game": "toto21",
    "decks": 1,
    "options": {"max_bet": 100, "timeout_ms": 30000},
}


def _key(i: int) -> bytes:
    return hashlib.sha256(i.to_bytes(8, "big")).digest()


# --- The reference definitions --------------------------------------------------------


def _ref_commitment(seed: bytes) -> bytes:
    return hashlib.sha256(SEED_COMMITMENT_TAG + seed).digest()


def _ref_shuffle_key(
    seed: bytes, round_id: str, commitment: bytes, client_seeds: list[str], rules: Any
) -> bytes:
    seal = rfc8785.dumps(
        {
            "client_seeds": client_seeds,
            "commitment": commitment.hex(),
            "round": round_id,
            "rules": rules,
        }
    )
    return hmac.new(seed, SHUFFLE_KEY_TAG + seal, hashlib.sha256).digest()


def _ref_block(key: bytes, purpose: str, counter: int) -> bytes:
    message = STREAM_TAG + purpose.encode("ascii") + b"\x00" + counter.to_bytes(8, "big")
    return hmac.new(key, message, hashlib.sha256).digest()


class _RefStream:
    """The byte stream as a buffer that is refilled one HMAC block at a time."""

    def __init__(self, key: bytes, purpose: str) -> None:
        self.key, self.purpose, self.counter, self.buffer = key, purpose, 0, b""

    def take(self, count: int) -> bytes:
        while len(self.buffer) < count:
            self.buffer += _ref_block(self.key, self.purpose, self.counter)
            self.counter += 1
        out, self.buffer = self.buffer[:count], self.buffer[count:]
        return out


def _ref_uniform(take: Callable[[int], bytes], n: int) -> int:
    bits = (n - 1).bit_length()
    width = math.ceil(bits / 8)
    while True:
        value = int.from_bytes(take(width), "big") % (1 << bits)
        if value < n:
            return value


def _ref_shuffle(key: bytes, items: Sequence[T], purpose: str = "deck") -> list[T]:
    """Fisher–Yates as the textbook writes it: position i swaps with a uniform j <= i."""
    deck = list(items)
    stream = _RefStream(key, purpose)
    for i in reversed(range(1, len(deck))):
        j = _ref_uniform(stream.take, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


class _Bytes:
    """A crafted stream that records how many bytes were read from it."""

    def __init__(self, data: bytes) -> None:
        self._it = iter(data)
        self.read = 0

    def __iter__(self) -> Iterator[int]:
        return self

    def __next__(self) -> int:
        value = next(self._it)
        self.read += 1
        return value


# --- Commitment and seal --------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS, ids=lambda s: s[:4].hex())
def test_seed_commitment_is_sha256_of_tag_and_raw_seed(seed: bytes) -> None:
    assert seed_commitment(seed) == _ref_commitment(seed)


def test_seed_commitment_hashes_bytes_not_hex_text() -> None:
    seed = SEEDS[1]
    assert (
        seed_commitment(seed) != hashlib.sha256(SEED_COMMITMENT_TAG + seed.hex().encode()).digest()
    )
    assert seed_commitment(seed) != hashlib.sha256(seed).digest()


@pytest.mark.parametrize("size", [0, 16, 31, 33, 64])
def test_a_server_seed_is_exactly_32_bytes(size: int) -> None:
    with pytest.raises(ValueError):
        seed_commitment(bytes(size))
    with pytest.raises(ValueError):
        shuffle_key(bytes(size), "r1", bytes(32), ["a"], RULES)


@pytest.mark.parametrize("seed", SEEDS, ids=lambda s: s[:4].hex())
def test_shuffle_key_is_hmac_of_the_canonical_seal(seed: bytes) -> None:
    commitment = _ref_commitment(seed)
    seeds = ["alice-7f3a", "Bob's seed #2", "~"]
    expected = _ref_shuffle_key(seed, "round-42", commitment, seeds, RULES)
    assert shuffle_key(seed, "round-42", commitment, seeds, RULES) == expected
    assert seal_input("round-42", commitment, seeds, RULES) == rfc8785.dumps(
        {"client_seeds": seeds, "commitment": commitment.hex(), "round": "round-42", "rules": RULES}
    )


def test_seal_accepts_tuples_and_mappings_like_lists_and_dicts() -> None:
    seed = SEEDS[3]
    commitment = _ref_commitment(seed)
    from_tuple = shuffle_key(seed, "r", commitment, ("a", "b"), dict(RULES))
    assert from_tuple == _ref_shuffle_key(seed, "r", commitment, ["a", "b"], RULES)


def test_every_seal_input_changes_the_key() -> None:
    seed, other = SEEDS[1], SEEDS[2]
    commitment = _ref_commitment(seed)
    base = shuffle_key(seed, "r1", commitment, ["a", "b"], RULES)
    variants = [
        shuffle_key(other, "r1", commitment, ["a", "b"], RULES),
        shuffle_key(seed, "r2", commitment, ["a", "b"], RULES),
        shuffle_key(seed, "r1", _ref_commitment(other), ["a", "b"], RULES),
        shuffle_key(seed, "r1", commitment, ["b", "a"], RULES),
        shuffle_key(seed, "r1", commitment, ["a", "b", "c"], RULES),
        shuffle_key(seed, "r1", commitment, ["a", "b"], {**RULES, "decks": 2}),
    ]
    assert len({base, *variants}) == len(variants) + 1


@pytest.mark.parametrize(
    ("one", "two"),
    [
        (["ab", "c"], ["a", "bc"]),
        (["a", "b"], ["a,b"]),
        (["a", "b"], ['a","b']),
        ([], [""]),
        (["ab"], ["a", "b"]),
    ],
    ids=[
        "ab+c and a+bc are different seals",
        "two seeds are not one seed with a comma",
        "two seeds are not one seed holding a quoted comma",
        "no seed is not an empty seed",
        "one seed is not its halves",
    ],
)
def test_client_seeds_are_not_concatenated(one: list[str], two: list[str]) -> None:
    seed = SEEDS[1]
    commitment = _ref_commitment(seed)
    assert seal_input("r", commitment, one, RULES) != seal_input("r", commitment, two, RULES)
    assert shuffle_key(seed, "r", commitment, one, RULES) != shuffle_key(
        seed, "r", commitment, two, RULES
    )


# --- The byte stream ------------------------------------------------------------------


@pytest.mark.parametrize("purpose", ["deck", "dealer", "x", "A-Z 0~9"])
def test_stream_is_hmac_blocks_with_big_endian_counter(purpose: str) -> None:
    key = _key(7)
    stream = byte_stream(key, purpose)
    got = bytes(next(stream) for _ in range(32 * 5))
    expected = b"".join(_ref_block(key, purpose, counter) for counter in range(5))
    assert got == expected


def test_stream_counter_is_eight_bytes_big_endian() -> None:
    key = _key(8)
    stream = byte_stream(key, "deck")
    second_block = bytes(next(stream) for _ in range(64))[32:]
    message = STREAM_TAG + b"deck\x00" + b"\x00\x00\x00\x00\x00\x00\x00\x01"
    assert second_block == hmac.new(key, message, hashlib.sha256).digest()


def test_streams_of_different_purposes_differ() -> None:
    key = _key(9)
    firsts = {
        bytes(next(s) for _ in range(32))
        for s in (byte_stream(key, p) for p in ["deck", "dealer", "dec"])
    }
    assert len(firsts) == 3


@pytest.mark.parametrize(
    "purpose", ["", "d\u00e9ck", "deck\x00", "de\nck"], ids=["empty", "non-ASCII", "NUL", "newline"]
)
def test_a_purpose_is_printable_ascii(purpose: str) -> None:
    with pytest.raises(ValueError):
        next(byte_stream(_key(1), purpose))


# --- Uniform draws --------------------------------------------------------------------

CRAFTED = [
    pytest.param(1, b"", 0, 0, id="n=1 reads nothing"),
    pytest.param(2, b"\xff", 1, 1, id="n=2 keeps one bit of one byte"),
    pytest.param(2, b"\xfe", 0, 1, id="n=2 masks, 0xfe gives 0"),
    pytest.param(6, b"\x06\x07\x08", 0, 3, id="n=6 redraws 6 and 7, no modulo"),
    pytest.param(6, b"\xff\xfe\x0d", 5, 3, id="n=6 masks to 3 bits before comparing"),
    pytest.param(36, b"\xff\x24\x23", 35, 3, id="n=36 masks to 6 bits, redraws 63 and 36"),
    pytest.param(37, b"\x25\x24", 36, 2, id="n=37 needs 6 bits, 37 is redrawn"),
    pytest.param(256, b"\xff", 255, 1, id="n=256 uses a whole byte, never redraws"),
    pytest.param(257, b"\x01\x01\xfe\x00", 0, 4, id="n=257 reads two bytes and redraws 257"),
    pytest.param(300, b"\x01\x00", 256, 2, id="n=300 reads big-endian"),
    pytest.param(2**16, b"\xab\xcd", 0xABCD, 2, id="n=2**16 reads exactly two bytes"),
    pytest.param(2**16 + 1, b"\x01\x00\x00", 2**16, 3, id="n=2**16+1 reads three bytes"),
    pytest.param(2**32, b"\xde\xad\xbe\xef", 0xDEADBEEF, 4, id="n=2**32 reads four bytes"),
]


@pytest.mark.parametrize(("n", "data", "value", "read"), CRAFTED)
def test_uniform_reads_bytes_as_specified(n: int, data: bytes, value: int, read: int) -> None:
    stream = _Bytes(data + b"\x99\x98")
    assert uniform(stream, n) == value
    assert stream.read == read
    assert next(stream) == 0x99


@pytest.mark.parametrize("n", [0, -1, 2**32 + 1])
def test_uniform_refuses_an_impossible_range(n: int) -> None:
    with pytest.raises(ValueError):
        uniform(_Bytes(b"\x00" * 8), n)


@settings(max_examples=300, deadline=None)
@given(n=st.integers(1, 2**32), data=st.binary(max_size=64))
def test_uniform_is_below_n_and_matches_the_reference(n: int, data: bytes) -> None:
    # After the drawn bytes come zeros, which every n accepts, so the draw always ends.
    padded = data + bytes(8)
    stream = _Bytes(padded)
    reference = _Bytes(padded)

    def take(count: int) -> bytes:
        return bytes(next(reference) for _ in range(count))

    value = uniform(stream, n)
    assert 0 <= value < n
    assert value == _ref_uniform(take, n)
    assert stream.read == reference.read


# --- The shuffle ----------------------------------------------------------------------

DECKS = {
    "toto21 36": toto21_deck(),
    "kvitlach 24": kvitlach_deck(1),
    "kvitlach 48": kvitlach_deck(2),
    "300 items, two-byte draws": tuple(range(300)),
    "two items": ("a", "b"),
    "one item": ("a",),
    "empty": (),
}


@pytest.mark.parametrize("name", DECKS)
def test_shuffle_matches_a_naive_reference(name: str) -> None:
    items = DECKS[name]
    for i in range(150 if len(items) < 100 else 20):
        key = _key(i)
        assert shuffle(key, items) == _ref_shuffle(key, items)


def test_shuffle_uses_the_named_purpose() -> None:
    deck = toto21_deck()
    key = _key(11)
    assert shuffle(key, deck, "other") == _ref_shuffle(key, deck, "other")
    assert shuffle(key, deck, "other") != shuffle(key, deck)


def test_shuffle_leaves_its_input_alone() -> None:
    items = list(range(10))
    shuffle(_key(12), items)
    assert items == list(range(10))


@pytest.mark.parametrize(
    "deck", [toto21_deck(), kvitlach_deck(1), kvitlach_deck(2)], ids=["36", "24", "48"]
)
def test_shuffled_decks_are_permutations_of_the_canonical_deck(deck: tuple[str, ...]) -> None:
    orders = set()
    for i in range(200):
        shuffled = shuffle(_key(i), deck)
        assert len(shuffled) == len(deck)
        assert Counter(shuffled) == Counter(deck)
        orders.add(tuple(shuffled))
    assert tuple(deck) not in orders
    assert len(orders) == 200


def test_choose_is_the_first_draw_of_its_own_stream() -> None:
    for i in range(100):
        key = _key(i)
        for n in (2, 3, 6, 7, 300):
            assert choose(key, "dealer", n) == _ref_uniform(_RefStream(key, "dealer").take, n)


# --- Card salts and commitments -------------------------------------------------------


@pytest.mark.parametrize("position", [0, 1, 35, 47, 255, 256, 2**40])
def test_card_salt_is_hmac_of_the_position(position: int) -> None:
    key = _key(13)
    message = CARD_SALT_TAG + position.to_bytes(8, "big")
    assert card_salt(key, position) == hmac.new(key, message, hashlib.sha256).digest()


def test_salts_of_a_deck_are_distinct() -> None:
    key = _key(14)
    assert len({card_salt(key, p) for p in range(48)}) == 48


@pytest.mark.parametrize("card", ["6C", "10H", "AS", "1", "12"])
def test_card_commitment_is_sha256_of_tag_salt_and_code(card: str) -> None:
    salt = card_salt(_key(15), 3)
    expected = hashlib.sha256(CARD_COMMITMENT_TAG + salt + card.encode("ascii")).digest()
    assert card_commitment(salt, card) == expected


def test_card_commitment_binds_card_and_salt() -> None:
    salt, other = card_salt(_key(16), 0), card_salt(_key(16), 1)
    assert card_commitment(salt, "AS") != card_commitment(salt, "AD")
    assert card_commitment(salt, "AS") != card_commitment(other, "AS")


@pytest.mark.parametrize("size", [0, 31, 33])
def test_card_commitment_needs_a_32_byte_salt(size: int) -> None:
    with pytest.raises(ValueError):
        card_commitment(bytes(size), "AS")


# --- Client seeds ---------------------------------------------------------------------


# A client seed is 1 to 256 printable ASCII characters, 0x20 to 0x7E: every verifier in
# every language must accept exactly the same seeds, whatever its Unicode tables say.


@pytest.mark.parametrize(
    "seed",
    [
        pytest.param("a", id="one character"),
        pytest.param("x" * 256, id="256 characters"),
        pytest.param(" ", id="a single space"),
        pytest.param("my lucky seed #7", id="words and spaces"),
        pytest.param("".join(map(chr, range(0x20, 0x7F))), id="every printable ASCII character"),
    ],
)
def test_client_seed_accepted(seed: str) -> None:
    check_client_seed(seed)


@pytest.mark.parametrize("code", [*range(0x20), *range(0x7F, 0x100)], ids=lambda c: f"U+{c:04X}")
def test_client_seed_refuses_each_character_outside_printable_ascii(code: int) -> None:
    with pytest.raises(SeedError):
        check_client_seed("seed" + chr(code))


@pytest.mark.parametrize(
    "seed",
    [
        pytest.param("", id="empty"),
        pytest.param("x" * 257, id="257 characters"),
        pytest.param("a\nb", id="a newline"),
        pytest.param("a\tb", id="a tab"),
        pytest.param("\u00e9t\u00e9", id="accented letters"),
        pytest.param("\u05e7\u05d5\u05d8", id="Hebrew letters"),
        pytest.param("\U0001f0a1", id="a non-BMP playing card"),
        pytest.param("a\u200bb", id="a zero-width space"),
        pytest.param("\u202eevil", id="a right-to-left override"),
        pytest.param("\uff41", id="a fullwidth a"),
        pytest.param("\ud800", id="a lone high surrogate"),
        pytest.param("ok\udfffok", id="a lone low surrogate inside text"),
    ],
)
def test_client_seed_refused(seed: str) -> None:
    with pytest.raises(SeedError):
        check_client_seed(seed)


# --- Uniformity, statistically --------------------------------------------------------
#
# For N shuffles of an n-card deck, count how often card c lands at position p. Under a
# uniform shuffle each deck is a uniform random permutation matrix P with E[P] = J/n; the
# centred P lies in the (n-1)**2-dimensional space of matrices with zero row and column
# sums, where (by symmetry under permuting rows and columns) its covariance is the
# projection divided by n-1. Hence, for large N,
#     X = sum over cells of (O - E)**2 / E,   E = N/n,
# is distributed as n/(n-1) times chi-square with (n-1)**2 degrees of freedom, and the
# test uses X * (n-1)/n against the chi-square bound. (Treating X itself as chi-square
# with (n-1)**2 degrees of freedom is a common mistake: it is too large by n/(n-1).)
#
# The bound is the 1 - 1e-6 quantile of chi-square by the Wilson–Hilferty approximation,
#     q = k * (1 - 2/(9k) + z * sqrt(2/(9k)))**3,   z = Phi^-1(1 - 1e-6) ~= 4.753,
# accurate to well under 1% at these k. The keys are fixed (sha256 of 0..N-1), so the
# outcome is deterministic; 1e-6 is the chance a correct shuffle would have failed.

FALSE_POSITIVE_RATE = 1e-6


def _chi_square_bound(df: int, alpha: float = FALSE_POSITIVE_RATE) -> float:
    z = NormalDist().inv_cdf(1 - alpha)
    h = 2 / (9 * df)
    return df * (1 - h + z * math.sqrt(h)) ** 3


def _position_card_statistic(
    deal: Callable[[bytes, Sequence[int]], list[int]], n: int, samples: int
) -> float:
    counts = [[0] * n for _ in range(n)]
    cards = range(n)
    for i in range(samples):
        for position, card in enumerate(deal(_key(i), cards)):
            counts[position][card] += 1
    expected = samples / n
    x = sum((o - expected) ** 2 / expected for row in counts for o in row)
    return x * (n - 1) / n


def _modulo_biased_shuffle(key: bytes, items: Sequence[T]) -> list[T]:
    """The classic mistake: j = byte % (i + 1) favours small j unless i + 1 divides 256."""
    deck = list(items)
    stream = byte_stream(key, "deck")
    for i in range(len(deck) - 1, 0, -1):
        j = next(stream) % (i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def _swap_with_any_shuffle(key: bytes, items: Sequence[T]) -> list[T]:
    """The other classic mistake: every position swaps with a uniform position of the whole deck."""
    deck = list(items)
    stream = byte_stream(key, "deck")
    for i in range(len(deck)):
        j = uniform(stream, len(deck))
        deck[i], deck[j] = deck[j], deck[i]
    return deck


@pytest.mark.parametrize(
    ("df", "alpha", "table"),
    [(25, 0.01, 44.314), (25, 0.001, 52.620), (100, 0.01, 135.807), (100, 0.001, 149.449)],
)
def test_chi_square_bound_matches_published_quantiles(df: int, alpha: float, table: float) -> None:
    # Upper-tail critical values from the NIST/SEMATECH e-Handbook's chi-square table.
    assert _chi_square_bound(df, alpha) == pytest.approx(table, rel=0.003)


@pytest.mark.parametrize(("n", "samples"), [(6, 20_000), (8, 20_000), (48, 30_000)])
def test_positions_are_uniform(n: int, samples: int) -> None:
    statistic = _position_card_statistic(shuffle, n, samples)
    assert statistic < _chi_square_bound((n - 1) ** 2)


# With 48 cards the last swap takes byte % 48, and 256 = 5 * 48 + 16: the first 16
# positions come up 6 times in 256, the other 32 only 5 times, a 20% excess. (For 6 or 8
# cards the same mistake is a bias of 1/42 or less, too small for 20,000 samples.)
@pytest.mark.parametrize(
    ("deal", "n", "samples"),
    [
        pytest.param(_modulo_biased_shuffle, 48, 30_000, id="a modulo-biased swap index fails"),
        pytest.param(_swap_with_any_shuffle, 8, 20_000, id="swapping with any position fails"),
    ],
)
def test_biased_shuffles_fail_the_same_bound(deal: Any, n: int, samples: int) -> None:
    statistic = _position_card_statistic(deal, n, samples)
    assert statistic > _chi_square_bound((n - 1) ** 2)


def test_whole_permutations_are_uniform() -> None:
    # All 720 orders of a 6-card deck: a plain multinomial with 719 degrees of freedom.
    n, samples = 6, 20_000
    counts = Counter(tuple(shuffle(_key(i), range(n))) for i in range(samples))
    orders = math.factorial(n)
    assert len(counts) == orders
    expected = samples / orders
    statistic = sum((o - expected) ** 2 / expected for o in counts.values())
    assert statistic < _chi_square_bound(orders - 1)
