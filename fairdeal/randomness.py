"""Committed randomness: seed commitment, the seal, the byte stream, uniform draws, shuffle.

Everything random in a round is a pure function of the shuffle key, which is fixed
by the seal before any card is dealt. SPEC.md gives each step byte for byte.
"""

import hashlib
import hmac
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

from fairdeal import tags
from fairdeal.canonical import canonical_bytes
from fairdeal.errors import SeedError

SEED_BYTES = 32
MAX_CLIENT_SEED_BYTES = 256
T = TypeVar("T")


def seed_commitment(server_seed: bytes) -> bytes:
    """SHA-256 over the tag and the seed's 32 raw bytes (never its hex text)."""
    _check_seed(server_seed)
    return hashlib.sha256(tags.SEED_COMMITMENT + server_seed).digest()


def seal_input(
    round_id: str, commitment: bytes, client_seeds: Sequence[str], rules: Mapping[str, Any]
) -> bytes:
    """The canonical bytes the shuffle key is derived from (no bare concatenation)."""
    return canonical_bytes(
        {
            "client_seeds": list(client_seeds),
            "commitment": commitment.hex(),
            "round": round_id,
            "rules": dict(rules),
        }
    )


def shuffle_key(
    server_seed: bytes,
    round_id: str,
    commitment: bytes,
    client_seeds: Sequence[str],
    rules: Mapping[str, Any],
) -> bytes:
    """HMAC-SHA256 keyed by the server seed over the tag and the seal input."""
    _check_seed(server_seed)
    message = tags.SHUFFLE_KEY + seal_input(round_id, commitment, client_seeds, rules)
    return hmac.digest(server_seed, message, "sha256")


def byte_stream(key: bytes, purpose: str) -> Iterator[int]:
    """Bytes of HMAC-SHA256(key, tag || purpose || 0x00 || counter as 8 bytes big-endian)."""
    return _blocks(key, tags.STREAM + _purpose_bytes(purpose) + b"\x00")


def _blocks(key: bytes, prefix: bytes) -> Iterator[int]:
    counter = 0
    while True:
        yield from hmac.digest(key, prefix + counter.to_bytes(8, "big"), "sha256")
        counter += 1


def uniform(stream: Iterator[int], n: int) -> int:
    """An integer uniform in [0, n) by masked rejection sampling: no modulo, no float.

    Read the fewest big-endian bytes that hold n - 1, keep the low bits that hold
    n - 1, and draw again while the result is n or more.
    """
    if not 1 <= n <= 2**32:
        raise ValueError("n must be in 1..2**32")
    bits = (n - 1).bit_length()
    width = (bits + 7) // 8
    mask = (1 << bits) - 1
    while True:
        value = 0
        for _ in range(width):
            value = (value << 8) | next(stream)
        value &= mask
        if value < n:
            return value


def shuffle(key: bytes, items: Sequence[T], purpose: str = "deck") -> list[T]:
    """Fisher–Yates from the last position down, each swap index drawn by ``uniform``."""
    deck = list(items)
    if len(deck) <= _ONE_BYTE:  # hot: shuffle 24 cards, shuffle 36 cards, shuffle 48 cards
        draws = _small_draws(key, purpose, range(len(deck), 1, -1))  # i + 1 for each i
        for i, j in zip(range(len(deck) - 1, 0, -1), draws, strict=True):
            deck[i], deck[j] = deck[j], deck[i]
        return deck
    stream = byte_stream(key, purpose)
    for i in range(len(deck) - 1, 0, -1):
        j = uniform(stream, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def choose(key: bytes, purpose: str, n: int) -> int:
    """One uniform choice in [0, n) from its own purpose's stream (Toto21's dealer)."""
    if 1 <= n <= _ONE_BYTE:  # the shuffle's fast path, so that it serves the one draw too
        return _small_draws(key, purpose, (n,))[0]
    return uniform(byte_stream(key, purpose), n)


_ONE_BYTE = 256  # every draw of a bound this small reads one byte of the stream
_MASKS = tuple((1 << (n - 1).bit_length()) - 1 for n in range(1, _ONE_BYTE + 1))  # by n - 1
_BLOCK = 32  # bytes in a block of the stream: one HMAC-SHA256


def _small_draws(key: bytes, purpose: str, bounds: Iterable[int]) -> list[int]:
    """``uniform(stream, n)`` for each of ``bounds`` in turn (each at most 256, so every
    draw reads one byte), from one stream of ``purpose``: the same bytes and draws, a
    stream block at a time, without a generator call per byte (every round's deal waits
    for its shuffle and Toto21's dealer choice)."""
    prefix = tags.STREAM + _purpose_bytes(purpose) + b"\x00"
    block = hmac.digest(key, prefix + bytes(8), "sha256")  # block 0: counter 0
    at, counter, draws, masks = 0, 1, [], _MASKS
    for n in bounds:
        mask = masks[n - 1]
        while True:
            if at == _BLOCK:
                block = hmac.digest(key, prefix + counter.to_bytes(8, "big"), "sha256")
                at, counter = 0, counter + 1
            j = block[at] & mask
            at += 1
            if j < n:
                draws.append(j)
                break
    return draws


def card_salt(key: bytes, position: int) -> bytes:
    """The 32-byte salt of the card at a deck position."""
    return hmac.digest(key, tags.CARD_SALT + position.to_bytes(8, "big"), "sha256")


def card_commitment(salt: bytes, card: str) -> bytes:
    """SHA-256 over the tag, the 32-byte salt and the card code's ASCII bytes."""
    if len(salt) != 32:
        raise ValueError("salt must be 32 bytes")
    return hashlib.sha256(tags.CARD_COMMITMENT + salt + card.encode("ascii")).digest()


def check_client_seed(seed: str) -> None:
    """A client seed is 1 to 256 printable ASCII characters (0x20 to 0x7E).

    ASCII, because which Unicode characters are printable changes between Unicode
    versions, and every verifier, in any language, must accept exactly the same seeds.
    """
    if not 1 <= len(seed) <= MAX_CLIENT_SEED_BYTES:
        raise SeedError(f"a client seed is 1 to {MAX_CLIENT_SEED_BYTES} characters")
    # Among ASCII characters, exactly 0x20 to 0x7E are printable.
    if not (seed.isascii() and seed.isprintable()):
        raise SeedError("a client seed is printable ASCII (0x20 to 0x7E)")


def client_seed_commitment(round_id: str, seat: int, seed: str) -> bytes:
    """A seat's commitment to its client seed (SPEC 3.9): SHA-256 over the tag and the
    canonical bytes of {round, seat, seed}, so it opens for that round and seat only."""
    opening = canonical_bytes({"round": round_id, "seat": seat, "seed": seed})
    return hashlib.sha256(tags.CLIENT_SEED_COMMITMENT + opening).digest()


def _check_seed(server_seed: bytes) -> None:
    if len(server_seed) != SEED_BYTES:
        raise ValueError(f"a server seed is {SEED_BYTES} bytes")


def _purpose_bytes(purpose: str) -> bytes:
    if not purpose.isascii() or not purpose.isprintable() or not purpose:
        raise ValueError("a stream purpose is printable ASCII")
    return purpose.encode("ascii")
