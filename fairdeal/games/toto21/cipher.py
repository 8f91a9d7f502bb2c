"""A dealer-blind round's cryptography as Toto21's rules hold it (SPEC 15.13): the parties'
round keys, the shuffle chain's decks, the pending request, the published shares; and the
checks and computations the rules make with them, on ``fairdeal.blind``.

Knows the group and the proofs, not the game's turns: ``blind_round`` decides with it.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from fairdeal import cards
from fairdeal.blind import elgamal, proofs, rounds
from fairdeal.blind import shuffle as tw
from fairdeal.blind.elgamal import Ciphertext, Share
from fairdeal.blind.group import BlindError, Group, read_element, read_scalar_hex, ristretto255
from fairdeal.errors import (
    IllegalActionError,
    KeyInvalidError,
    KeyMismatchError,
    ShareInvalidError,
    ShuffleInvalidError,
)
from fairdeal.events import seat_actor
from fairdeal.protocol import SERVER

GAME, DECKS = "toto21", 1
SERVER_STEP = rounds.SERVER_STEP
Deck = tuple[Mapping[str, str], ...]  # a step's output as the log writes it (15.9)


@dataclass(frozen=True)
class Request:
    """What the round waits for from the seats (SPEC 15.13.5.3, 15.13.6.3, 15.13.7.3): its
    event type, deadline, the seats that still owe an answer and, for shares, their positions."""

    kind: str
    deadline: int
    seats: tuple[int, ...]
    positions: Mapping[int, tuple[int, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class Crypto:
    """A blind round's public cryptographic state, from its events alone."""

    server_key: str  # X_0, hex
    round_keys: Mapping[int, str] = field(default_factory=dict)  # each seat's X_j, hex
    decks: tuple[Deck, ...] = ()  # each step's logged output, step 0 first
    request: Request | None = None
    # position: party: the share published, {proof, share}
    shares: Mapping[int, Mapping[str, Mapping[str, Any]]] = field(default_factory=dict)
    secrets: Mapping[int, int] = field(default_factory=dict)  # each seat's revealed x_j
    claimed: bool = False  # the player claimed the golden point
    # Each draw (hit or blind card) with the drawing seat's cards it could see then
    draws: tuple[tuple[int, tuple[int, ...]], ...] = ()
    then: int | None = None  # the seat to move once the pending shares are in

    def deck(self) -> Deck:
        """The round's deck: the last step's output."""
        return self.decks[-1]


@cache
def group() -> Group:
    """The group every check runs on: libsodium where it loads, else pure Python."""
    return ristretto255()


@cache
def server_group() -> Group:
    """The group the service's own values are computed on: libsodium (constant time) where
    it loads; else the pure backend, for a replay of revealed rounds only (the service
    refuses blind tables without libsodium)."""
    return rounds.revealed_values_group(group())


@cache
def _points() -> tuple[bytes, ...]:
    return tuple(elgamal.card_points(group(), GAME, DECKS))


def context(table: str, round_id: str, party: str, purpose: str, index: int) -> bytes:
    return rounds.proof_context(table, round_id, party, purpose, index)


def public_deck() -> Deck:
    return tuple(c.to_json() for c in elgamal.public_deck(group(), GAME, DECKS))


# Round keys (SPEC 15.13.3)


def server_key(secret: bytes, table: str, round_id: str) -> dict[str, Any]:
    """The service's round key with its proof, as ``round_opened`` logs it."""
    key = rounds.server_key_with_proof(server_group(), secret, table=table, round_id=round_id)
    return {"key": key.key.hex(), "proof": key.proof.to_json()}


def check_key(value: Any, party: str, table: str, round_id: str, taken: Sequence[str]) -> str:
    """A round key {key, proof} as logged, proved for its party's context and not a key
    already logged for the round; its hex. KeyInvalidError (IllegalActionError for the form)."""
    if not isinstance(value, dict) or set(value) != {"key", "proof"}:
        raise IllegalActionError("a round key is an object of exactly key and proof")
    if not isinstance(value["proof"], dict) or set(value["proof"]) != {"c", "s"}:
        raise IllegalActionError("a round key's proof is an object of exactly c and s")
    try:
        key = read_element(group(), value["key"], "round key")
        proof = proofs.Proof.from_json(value["proof"])
        where = context(table, round_id, party, "round-key", 0)
        proofs.verify_knowledge(group(), key, context=where, proof=proof)
    except BlindError as e:
        raise KeyInvalidError(f"{party}'s round key: {e}") from None
    if value["key"] in taken:
        raise KeyInvalidError(f"{party}'s round key is another party's")
    return str(value["key"])


def joint_key(crypto: Crypto, seats: Sequence[int]) -> bytes:
    keys = [crypto.server_key, *(crypto.round_keys[seat] for seat in seats)]
    return elgamal.joint_key(group(), [bytes.fromhex(key) for key in keys])


# The shuffle chain (SPEC 15.13.5)


def server_step(
    crypto: Crypto, seats: Sequence[int], shuffle_key: bytes, table: str, round_id: str
) -> dict[str, Any]:
    """The service's step from its shuffle key (15.12.3): ``deck_shuffled``'s deck and proof."""
    of = rounds.RoundDeck(table, round_id, GAME, DECKS)
    at = server_group()
    step = rounds.server_step(at, shuffle_key, joint_key(crypto, seats), of)
    return {"deck": tw.encode_deck(at, step.outputs), "proof": tw.encode_proof(at, step.proof)}


def check_step(
    crypto: Crypto, seats: Sequence[int], step: int, data: Mapping[str, Any], where: bytes
) -> None:
    """A seat's step verifies for its context, the joint key and its input: else
    ShuffleInvalidError."""
    inputs = list(crypto.decks[step - 1]) if step else list(public_deck())
    try:
        key = joint_key(crypto, seats).hex()
        tw.verify_step(group(), key, inputs, data["deck"], data["proof"], context=where)
    except BlindError as e:
        raise ShuffleInvalidError(f"step {step}: {e}") from None


# Shares (SPEC 15.13.6)


def ciphertext(crypto: Crypto, position: int) -> Ciphertext:
    return Ciphertext.from_json(group(), crypto.deck()[position])


def server_share(
    crypto: Crypto, secret: bytes, table: str, round_id: str, position: int
) -> dict[str, object]:
    share = rounds.server_share(
        server_group(),
        secret,
        ciphertext(crypto, position),
        table=table,
        round_id=round_id,
        position=position,
    )
    return share.to_json()


def check_shares(
    crypto: Crypto, seat: int, positions: Sequence[int], value: Any, *, where: tuple[str, str]
) -> list[dict[str, Any]]:
    """A seat's ``shares``: one entry {position, proof, share} per requested position,
    ascending (else IllegalActionError), each proved for the seat's key (else
    ShareInvalidError)."""
    if not isinstance(value, list) or not all(isinstance(e, dict) for e in value):
        raise IllegalActionError("shares is a list of {position, proof, share}")
    if any(set(entry) != {"position", "proof", "share"} for entry in value):
        raise IllegalActionError("each share is an object of exactly position, proof and share")
    if any(type(entry["position"]) is not int for entry in value):  # true is not 1
        raise IllegalActionError("a share's position is an integer")
    if [entry["position"] for entry in value] != list(positions):
        raise IllegalActionError(f"the shares asked of this seat are of positions {positions}")
    key, party = bytes.fromhex(crypto.round_keys[seat]), seat_actor(seat)
    table, round_id = where
    for entry in value:
        position = entry["position"]
        try:
            share = Share.from_json(group(), {"proof": entry["proof"], "share": entry["share"]})
            at = context(table, round_id, party, "share", position)
            elgamal.verify_share(group(), key, ciphertext(crypto, position), share, context=at)
        except BlindError as e:
            raise ShareInvalidError(f"the share of position {position}: {e}") from None
    return list(value)


def opened_card(crypto: Crypto, position: int) -> str:
    """The card every party's published share opens (SPEC 15.8)."""
    shares = [bytes.fromhex(share["share"]) for share in crypto.shares[position].values()]
    return card_of(elgamal.decrypt(group(), ciphertext(crypto, position), shares))


# Keys revealed (SPEC 15.13.7.3)


def check_secret(crypto: Crypto, seat: int, value: Any) -> int:
    """A seat's revealed private round key: KeyMismatchError unless it is its key's."""
    try:
        x = read_scalar_hex(value, "secret")
        elgamal.verify_revealed_key(group(), bytes.fromhex(crypto.round_keys[seat]), x)
    except BlindError as e:
        raise KeyMismatchError(f"seat {seat}'s secret: {e}") from None
    return x


def cards_with_keys(crypto: Crypto, secret: bytes, positions: Sequence[int]) -> dict[int, str]:
    """The cards at ``positions``, opened with every party's private key (SPEC 15.12.4)."""
    keys = [elgamal.server_round_key(secret), *crypto.secrets.values()]
    return {position: open_with_keys(crypto.deck()[position], keys) for position in positions}


def open_with_keys(entry: Mapping[str, str], keys: Sequence[int]) -> str:
    """The card of one logged ciphertext, opened with every party's private round key: public
    values once the round is over, so any backend."""
    at = server_group()
    return card_of(elgamal.decrypt_with_keys(at, Ciphertext.from_json(at, entry), list(keys)))


def card_of(point: bytes) -> str:
    """The card whose point ``point`` is: IllegalActionError if none."""
    try:
        index = elgamal.card_index(list(_points()), point)
    except BlindError as e:
        raise IllegalActionError(f"a card does not open: {e}") from None
    return cards.canonical_deck(GAME, DECKS)[index]


def party(seat: int | None) -> str:
    return SERVER if seat is None else seat_actor(seat)
