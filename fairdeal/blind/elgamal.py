"""Cards as group elements and ElGamal over a round's joint key (SPEC 15.4, 15.5, 15.8).

A ciphertext is ``(a, b) = (M + r·X, r·G)`` under the joint key ``X = Σ X_j``. The public
deck is ``(M_i, O)`` for each canonical index ``i``; each shuffle step re-encrypts it; a card
opens with every party's share ``D_j = x_j·b`` (each proved, ``proofs.prove_dleq``) as
``M = a − Σ D_j``, or once every party's private key is revealed as ``a − (Σ x_j)·b``; either
must be one of the round's card points.
"""

import struct
from dataclasses import dataclass

from fairdeal.blind import tags
from fairdeal.blind.group import (
    ORDER,
    BlindError,
    Group,
    hash_to_scalar,
    read_element,
)
from fairdeal.blind.proofs import (
    Proof,
    members,
    prove_dleq,
    read_round_key,
    require_secret_safe,
    verify_dleq,
)
from fairdeal.cards import canonical_deck


class NotACardError(BlindError):
    """A decryption that is none of the round's card points: a broken deck or share."""


class WrongRevealedKeyError(BlindError):
    """A revealed private round key whose multiple of G is not the party's round key."""


@dataclass(frozen=True)
class Ciphertext:
    """``(a, b) = (M + r·X, r·G)`` (SPEC 15.8)."""

    a: bytes
    b: bytes

    def to_json(self) -> dict[str, str]:
        return {"a": self.a.hex(), "b": self.b.hex()}

    @classmethod
    def from_json(cls, group: Group, value: object) -> "Ciphertext":
        a, b = members(value, ("a", "b"), "ciphertext")
        return cls(read_element(group, a, "ciphertext a"), read_element(group, b, "ciphertext b"))


@dataclass(frozen=True)
class Share:
    """A party's decryption share ``D = x·b`` of a ciphertext, with its proof (SPEC 15.7)."""

    share: bytes
    proof: Proof

    def to_json(self) -> dict[str, object]:
        return {"proof": self.proof.to_json(), "share": self.share.hex()}

    @classmethod
    def from_json(cls, group: Group, value: object) -> "Share":
        proof, share = members(value, ("proof", "share"), "decryption share")
        return cls(read_element(group, share, "share"), Proof.from_json(proof))


def card_point(group: Group, game: str, decks: int, index: int) -> bytes:
    """``M_i`` (SPEC 15.4): the card at canonical index ``index``, by index, not by code."""
    if not 0 <= index < len(canonical_deck(game, decks)):
        raise ValueError(f"no card {index} in {game} with {decks} decks")
    data = tags.CARD_POINT + game.encode("ascii") + b"\x00" + struct.pack(">QQ", decks, index)
    return group.hash_to_element(data)


def card_points(group: Group, game: str, decks: int) -> list[bytes]:
    """Every card point of a deck, in canonical order."""
    return [card_point(group, game, decks, i) for i in range(len(canonical_deck(game, decks)))]


def public_deck(group: Group, game: str, decks: int) -> list[Ciphertext]:
    """``(M_i, O)`` for each card, in canonical order: the first shuffle step's input."""
    return [Ciphertext(m, group.identity) for m in card_points(group, game, decks)]


def server_round_key(server_seed: bytes) -> int:
    """``x_0`` from the round's 32-byte server seed (SPEC 15.5); 0 means: draw another seed."""
    if len(server_seed) != 32:
        raise ValueError("a server seed is 32 bytes")
    return hash_to_scalar(tags.ROUND_KEY + server_seed)


def joint_key(group: Group, keys: list[bytes]) -> bytes:
    """``X = Σ X_j`` over every party's public round key, each of whose proofs of knowledge
    (``proofs.verify_knowledge``) the caller has verified: else the last to announce a key
    could pick one that cancels the others' and open every card alone (SPEC 15.5). Refuses no
    key at all (``ValueError``) and a key that is the identity or not canonical."""
    if not keys:
        raise ValueError("a joint key is the sum of at least one round key")
    total = group.identity
    for key in keys:
        total = group.add(total, read_round_key(group, key))
    return total


def encrypt(group: Group, key: bytes, m: bytes, r: int) -> Ciphertext:
    """``(M + r·X, r·G)``."""
    require_secret_safe(group)
    return Ciphertext(group.add(m, group.mul(key, r)), group.base(r))


def reencrypt(group: Group, key: bytes, ciphertext: Ciphertext, r: int) -> Ciphertext:
    """``(a + r·X, b + r·G)``: the same card, unlinkable without ``r``."""
    require_secret_safe(group)
    return Ciphertext(
        group.add(ciphertext.a, group.mul(key, r)), group.add(ciphertext.b, group.base(r))
    )


def decryption_share(
    group: Group, x: int, ciphertext: Ciphertext, *, context: bytes, nonce: int | None = None
) -> Share:
    """Party ``x``'s share of ``ciphertext`` with its proof, for ``context``."""
    d, proof = prove_dleq(group, x, ciphertext.b, context=context, nonce=nonce)
    return Share(d, proof)


def verify_share(
    group: Group, key: bytes, ciphertext: Ciphertext, share: Share, *, context: bytes
) -> None:
    """Raises unless ``share`` is the share of the party with ``key``, proved for ``context``."""
    verify_dleq(group, key, ciphertext.b, share.share, context=context, proof=share.proof)


def decrypt(group: Group, ciphertext: Ciphertext, shares: list[bytes]) -> bytes:
    """``M = a − Σ D_j``: the shares of **every** party, each verified first (verify_share)."""
    total = group.identity
    for share in shares:
        total = group.add(total, share)
    return group.sub(ciphertext.a, total)


def decrypt_with_keys(group: Group, ciphertext: Ciphertext, keys: list[int]) -> bytes:
    """``M = a − (Σ x_j mod ℓ)·b`` (SPEC 15.12.4): the private round keys of **every** party,
    each revealed and checked first (verify_revealed_key; the service's from its revealed
    seed). Public values: any backend."""
    return group.sub(ciphertext.a, group.mul(ciphertext.b, sum(keys) % ORDER))


def card_index(points: list[bytes], m: bytes) -> int:
    """The canonical index of the card whose point is ``m``; ``NotACardError`` if none."""
    try:
        return points.index(m)
    except ValueError:
        raise NotACardError("the decryption is no card of this deck") from None


def verify_revealed_key(group: Group, key: bytes, x: int) -> None:
    """Raises unless ``x`` is the private round key of ``key`` (SPEC 15.5)."""
    if not (0 < x < ORDER and group.base(x) == key):
        raise WrongRevealedKeyError("the revealed key is not the private key of the round key")
