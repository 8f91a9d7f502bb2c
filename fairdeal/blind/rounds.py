"""What every round of a dealer-blind table shares, whatever its game (SPEC 15.12): the
context each proof is made for, the service's proofs with nonces derived from its server seed,
and its shuffle step drawn from a step key of the shuffle key, so that a replay recomputes
every byte.

- ``proof_context``: 15.12.1's bytes for ``(table, round, party, purpose, index)``;
- ``server_key_with_proof``, ``server_share``: the service's round key and decryption shares,
  each proved with the deterministic nonce of 15.12.2 (``key_nonce``, ``share_nonce``);
- ``step_key``, ``server_step``, ``check_server_step``: the service's shuffle step of 15.12.3,
  drawn from the step key that binds its statement, and its recomputation from the revealed
  shuffle key.

Each of the service's proofs is verified before it is returned (SPEC 15.12.2): a deterministic
nonce turns a faulty computation into a disclosed key, so a proof that fails raises
``OwnProofError`` instead. The service's secrets need a constant-time backend
(``secret_safe``): on the pure backend ``server_key_with_proof``, ``server_share`` and
``server_step`` raise ``ValueError``. Once the round is revealed nothing they compute is secret:
``check_server_step`` recomputes the step on any backend. Opening a card (15.12.4) is
``elgamal.decrypt`` (shares) or ``elgamal.decrypt_with_keys`` (revealed keys).

Named ``rounds`` rather than ``round``: ``from fairdeal.blind import round`` would hide the
builtin in the importing module.
"""

import hmac
import re
import struct
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cache
from itertools import islice

from fairdeal import randomness
from fairdeal.blind import elgamal, tags
from fairdeal.blind import shuffle as tw
from fairdeal.blind.elgamal import Ciphertext, Share
from fairdeal.blind.group import ORDER, BlindError, Group, hash_to_scalar, length_prefixed
from fairdeal.blind.proofs import (
    Proof,
    prove_dleq,
    prove_knowledge,
    require_secret_safe,
    verify_dleq,
    verify_knowledge,
)

PURPOSES = ("round-key", "shuffle", "share")
SERVER = "server"
SERVER_STEP = 0  # the service's step is step 0 of a round's chain (SPEC 15.12.3)
# The purposes of the step key's byte streams that draw the service's step (SPEC 15.12.3)
PERMUTATION_STREAM = "blind-permutation"
REENCRYPTION_STREAM = "blind-reencryption"
PROOF_STREAM = "blind-proof"

_ID = re.compile(r"[A-Za-z0-9._:-]{1,64}")  # SPEC 5.1's table and round ids
_PARTY = re.compile(r"server|seat:(0|[1-9][0-9]?)")  # SPEC 5.1's actors
MAX_INDEX = 2**53 - 1  # SPEC 15.12.1: as every number of the log (section 1)


class ServerStepMismatchError(BlindError):
    """The service's logged shuffle step is not the one its shuffle key gives (SPEC 15.12.3)."""


class OwnProofError(BlindError):
    """A proof the service has just made does not verify (a fault): it is never returned, as
    SPEC 15.12.2 requires of every proof the service makes."""


# --- SPEC 15.12.1: proof contexts ------------------------------------------------------------


def lp(s: str) -> bytes:
    """``u64be(len(s)) ‖ s``, ``s`` as ASCII bytes."""
    return length_prefixed(s.encode("ascii"))


def proof_context(table: str, round_id: str, party: str, purpose: str, index: int) -> bytes:
    """The context of one proof of a round; ``ValueError`` for anything 15.12.1 does not name
    (a string that does not match 5.1's form, non-ASCII included; another purpose; a
    ``round-key`` index other than 0; an index that is not an int in [0, 2^53 − 1], a bool
    included)."""
    for what, value, pattern in (("table", table, _ID), ("round", round_id, _ID)):
        if not (value.isascii() and pattern.fullmatch(value)):
            raise ValueError(f"a {what} id matches {pattern.pattern}, not {value!r}")
    if not (party.isascii() and _PARTY.fullmatch(party)):
        raise ValueError(f"a party is 'server' or 'seat:N' (N 0-99), not {party!r}")
    if purpose not in PURPOSES:
        raise ValueError(f"a proof's purpose is one of {', '.join(PURPOSES)}, not {purpose!r}")
    if type(index) is not int or not 0 <= index <= MAX_INDEX:
        raise ValueError(f"an index is an integer from 0 to 2^53 - 1, not {index!r}")
    if purpose == "round-key" and index != 0:
        raise ValueError(f"no index {index} for the purpose {purpose}")
    parts = (lp(table), lp(round_id), lp(party), lp(purpose), struct.pack(">Q", index))
    return tags.PROOF_CONTEXT + b"".join(parts)


# --- SPEC 15.12.2: the service's round key, proofs and nonces --------------------------------


def key_nonce_input(
    group: Group, server_seed: bytes, ctr: int, key: bytes, context: bytes
) -> bytes:
    """What ``hash_to_scalar`` reads for the nonce of the service's proof of knowledge."""
    statement = tags.KEY_PROOF + group.generator + key + length_prefixed(context)
    return _nonce_prefix(server_seed, ctr) + statement


def share_nonce_input(
    group: Group,
    server_seed: bytes,
    ctr: int,
    statement: tuple[bytes, bytes, bytes],
    context: bytes,
) -> bytes:
    """What ``hash_to_scalar`` reads for the nonce of the service's share proof;
    ``statement`` is ``(X_0, A, D)``."""
    hashed = tags.SHARE_PROOF + b"".join((group.generator, *statement)) + length_prefixed(context)
    return _nonce_prefix(server_seed, ctr) + hashed


def key_nonce(group: Group, server_seed: bytes, key: bytes, context: bytes) -> tuple[int, int]:
    """``(ctr, k)``: the nonce of the service's proof of knowledge of ``key`` for ``context``."""
    return _first_nonzero(lambda ctr: key_nonce_input(group, server_seed, ctr, key, context))


def share_nonce(
    group: Group, server_seed: bytes, statement: tuple[bytes, bytes, bytes], context: bytes
) -> tuple[int, int]:
    """``(ctr, k)``: the nonce of the service's share proof of ``(X_0, A, D)`` for ``context``."""
    return _first_nonzero(
        lambda ctr: share_nonce_input(group, server_seed, ctr, statement, context)
    )


@dataclass(frozen=True)
class ServerKey:
    """The service's round key: ``x_0`` (secret until the reveal, so kept out of ``repr``),
    ``X_0`` and its proof of knowledge."""

    private: int = field(repr=False)
    key: bytes
    proof: Proof


def server_key_with_proof(
    group: Group, server_seed: bytes, *, table: str, round_id: str
) -> ServerKey:
    """The service's round key (SPEC 15.5) and its proof of knowledge for
    ``(table, round, "server", "round-key", 0)``, with 15.12.2's nonce, verified."""
    require_secret_safe(group)
    x = _server_secret(server_seed)
    key = group.base(x)
    context = proof_context(table, round_id, SERVER, "round-key", 0)
    _, k = key_nonce(group, server_seed, key, context)
    proof = prove_knowledge(group, x, context=context, nonce=k)
    _own(lambda: verify_knowledge(group, key, context=context, proof=proof))
    return ServerKey(x, key, proof)


def server_share(
    group: Group,
    server_seed: bytes,
    ciphertext: Ciphertext,
    *,
    table: str,
    round_id: str,
    position: int,
) -> Share:
    """The service's decryption share of ``ciphertext`` (at deck ``position``) with its share
    proof for ``(table, round, "server", "share", position)``, with 15.12.2's nonce, verified."""
    require_secret_safe(group)
    x = _server_secret(server_seed)
    key, a = group.base(x), ciphertext.b
    d = group.mul(a, x)
    context = proof_context(table, round_id, SERVER, "share", position)
    _, k = share_nonce(group, server_seed, (key, a, d), context)
    share, proof = prove_dleq(group, x, a, context=context, nonce=k)
    _own(lambda: verify_dleq(group, key, a, share, context=context, proof=proof))
    return Share(share, proof)


def _own(check: Callable[[], None]) -> None:
    """Runs the check of a proof the service has just made (SPEC 15.12.2's MUST)."""
    try:
        check()
    except BlindError as e:
        raise OwnProofError("the service's own proof does not verify: not published") from e


def _server_secret(server_seed: bytes) -> int:
    x = elgamal.server_round_key(server_seed)
    if x == 0:  # probability 2^-252: SPEC 15.5 has the service draw another seed
        raise ValueError("this server seed gives the round key 0: draw another")
    return x


def _nonce_prefix(server_seed: bytes, ctr: int) -> bytes:
    if len(server_seed) != 32:
        raise ValueError("a server seed is 32 bytes")
    return tags.SERVER_NONCE + server_seed + struct.pack(">Q", ctr)


def _first_nonzero(hashed_input: Callable[[int], bytes]) -> tuple[int, int]:
    """The first ``ctr`` of 0, 1, 2, … whose input hashes to a non-zero scalar, and that scalar."""
    ctr = 0
    while (k := hash_to_scalar(hashed_input(ctr))) == 0:
        ctr += 1
    return ctr, k


# --- SPEC 15.12.3: the service's shuffle step -----------------------------------------------


@dataclass(frozen=True)
class RoundDeck:
    """The round a service's step is for, and the game and deck count of its public deck."""

    table: str
    round_id: str
    game: str
    decks: int


def step_key_input(group: Group, joint_key: bytes, of: RoundDeck) -> bytes:
    """The message of the service's step key (SPEC 15.12.3): the tag, the step's context, the
    game and deck count of its input deck, and the joint key."""
    context = proof_context(of.table, of.round_id, SERVER, "shuffle", SERVER_STEP)
    rules = lp(of.game) + struct.pack(">Q", of.decks)
    return tags.SERVER_STEP + length_prefixed(context) + rules + group.encode(joint_key)


def step_key(group: Group, shuffle_key: bytes, joint_key: bytes, of: RoundDeck) -> bytes:
    """HMAC(K, the message above): the key every draw of the service's step comes from, so that
    two statements never share a draw, even under one shuffle key."""
    if len(shuffle_key) != 32:
        raise ValueError("a shuffle key is 32 bytes")
    return hmac.digest(shuffle_key, step_key_input(group, joint_key, of), "sha256")


class StreamScalars:
    """Scalars drawn from a byte stream of the step key: each the stream's next 64 bytes,
    little-endian, mod ℓ (SPEC 15.12.3's ``scalar64``). As ``shuffle.prove``'s randomness it
    gives the proof's draws; it refuses any bound but ℓ, which no other draw of 15.11.5 asks."""

    def __init__(self, key: bytes, purpose: str) -> None:
        self._stream: Iterator[int] = randomness.byte_stream(key, purpose)

    def __repr__(self) -> str:
        return "StreamScalars(<secret>)"

    def below(self, bound: int) -> int:
        if bound != ORDER:
            raise ValueError("a stream of scalars draws below the group order only")
        return int.from_bytes(bytes(islice(self._stream, 64)), "little") % ORDER


@dataclass(frozen=True)
class ServerStep:
    """The service's step: its output deck and proof, and the secret it was drawn with (kept
    out of ``repr``: while the round is in play it keeps the undealt order)."""

    outputs: tuple[tw.Ciphertext[bytes], ...]
    proof: tw.ShuffleProof[bytes]
    witness: tw.ShuffleWitness = field(repr=False)


def server_witness(step_key: bytes, n: int) -> tw.ShuffleWitness:
    """ψ by SPEC 3.6's algorithm over ``[0, …, n−1]`` and ``r'`` by input, from the step key's
    streams."""
    permutation = randomness.shuffle(step_key, range(n), PERMUTATION_STREAM)
    scalars = StreamScalars(step_key, REENCRYPTION_STREAM)
    return tw.ShuffleWitness(tuple(permutation), tuple(scalars.below(ORDER) for _ in range(n)))


def server_statement(
    group: Group,
    joint_key: bytes,
    inputs: tuple[tw.Ciphertext[bytes], ...],
    outputs: tuple[tw.Ciphertext[bytes], ...],
    of: RoundDeck,
) -> tw.Statement[bytes]:
    """The statement of the service's step: step 0's context, the joint key, both decks."""
    context = proof_context(of.table, of.round_id, SERVER, "shuffle", SERVER_STEP)
    return tw.Statement(group, joint_key, inputs, outputs, context)


def server_step(group: Group, shuffle_key: bytes, joint_key: bytes, of: RoundDeck) -> ServerStep:
    """The service's shuffle step of ``of``'s public deck under the joint key, everything drawn
    from the step key (SPEC 15.12.3), its proof verified before it is returned (15.12.2)."""
    require_secret_safe(group)
    step, statement = _draw_step(group, shuffle_key, joint_key, of)
    _own(lambda: tw.verify(statement, step.proof))
    return step


def _draw_step(
    group: Group, shuffle_key: bytes, joint_key: bytes, of: RoundDeck
) -> tuple[ServerStep, tw.Statement[bytes]]:
    inputs = tuple((c.a, c.b) for c in elgamal.public_deck(group, of.game, of.decks))
    key = step_key(group, shuffle_key, joint_key, of)
    witness = server_witness(key, len(inputs))
    re_encrypted = [
        tw.re_encrypt(group, joint_key, e, r)
        for e, r in zip(inputs, witness.randomness, strict=True)
    ]
    outputs = tuple(re_encrypted[j] for j in witness.permutation)
    statement = server_statement(group, joint_key, inputs, outputs, of)
    proof = tw.prove(statement, witness, StreamScalars(key, PROOF_STREAM))
    return ServerStep(outputs, proof, witness), statement


def check_server_step(
    group: Group,
    revealed_shuffle_key: bytes,
    joint_key: bytes,
    of: RoundDeck,
    *,
    outputs: tuple[tw.Ciphertext[bytes], ...],
    proof: tw.ShuffleProof[bytes],
) -> None:
    """Raises ``ServerStepMismatchError`` unless the logged step (``outputs``, ``proof``) is,
    encoding for encoding, the one the shuffle key gives (SPEC 15.12.3). Only once the round is
    revealed: ``K`` is secret while it is in play. Any backend: on the pure one the
    recomputation uses a group that may compute with the (no longer secret) draws."""
    group = revealed_values_group(group)
    step, _ = _draw_step(group, revealed_shuffle_key, joint_key, of)
    if tw.encode_deck(group, outputs) != tw.encode_deck(group, step.outputs):
        raise ServerStepMismatchError("the service's deck is not the one its shuffle key gives")
    if tw.encode_proof(group, proof) != tw.encode_proof(group, step.proof):
        raise ServerStepMismatchError("the service's proof is not the one its shuffle key gives")


def revealed_values_group(group: Group) -> Group:
    """``group``, or for the pure backend one that computes with values that were secret:
    only for recomputing, after a round's reveal, what the service drew from its server seed
    and shuffle key (nothing of it is secret any more): ``check_server_step``, and a replay
    of the service's events by a verifier without libsodium."""
    if group.secret_safe:
        return group
    from fairdeal.blind.ristretto_pure import PureRistretto255

    if not isinstance(group, PureRistretto255):
        raise ValueError("no recomputing backend for this group")
    return _pure_for_revealed_values()


@cache
def _pure_for_revealed_values() -> Group:
    from fairdeal.blind.ristretto_pure import PureRistretto255

    return PureRistretto255(allow_secrets=True)
