"""A seat as a party to a dealer-blind round (SPEC 15.13): its private round key, and what
it sends when the log asks: its key with a proof, its shuffle step, its decryption shares,
its key at the showdown. What a seat's client runs, in Python (the SDK) as the browser's
module does in JavaScript.

A party answers only what the chain it checked asks of it (15.13.6.3, 15.13.7.3): before a
step it checks every key proof and every earlier step from the log; it never shares its own
face-down card, a blind card or an undealt position, and it reveals its key only when a
``keys_due`` names it after the dealer's turn or a golden point claim. Each refusal raises
``PartyRefusedError``: the client then stops playing and keeps the log as evidence.
"""

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from fairdeal.blind import elgamal, proofs
from fairdeal.blind import shuffle as tw
from fairdeal.blind.algebra import SYSTEM_RANDOMNESS, Randomness
from fairdeal.blind.elgamal import Ciphertext, Share
from fairdeal.blind.group import ORDER, BlindError, scalar_bytes
from fairdeal.errors import FairdealError
from fairdeal.events import seat_actor
from fairdeal.games.dealing import DOWN, UP
from fairdeal.games.toto21 import cipher
from fairdeal.games.toto21.state import State
from fairdeal.protocol import (
    DECK_SHUFFLED,
    GOLDEN_POINT,
    KEYS_DUE,
    ROUND_OPENED,
    SEED_COMMITMENT,
    SHARES_DUE,
    SHUFFLE_DUE,
)

UP_CARD = 1  # the dealer's up-card: the only position Toto21 deals face up


class PartyRefusedError(FairdealError):
    """The log asks a party for something it must not give, or shows a proof that fails."""


Logged = tuple[str, str, Mapping[str, Any]]  # an event's type, actor and command data


@dataclass
class Party:
    """Seat ``seat``'s part in round ``round_id`` of table ``table``: a fresh private round
    key (never derived from anything the service sees), kept in memory for the round."""

    seat: int
    table: str
    round_id: str
    # Every draw (the key, each proof's nonce, the shuffle): the system's generator unless a
    # test or a vector generator gives a fixed one
    rng: Randomness = field(default=SYSTEM_RANDOMNESS, repr=False)
    _x: int = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._x = self._scalar()

    def _scalar(self) -> int:
        """A uniform scalar in [1, order), as ``random_scalar`` draws one."""
        return 1 + self.rng.below(ORDER - 1)

    @property
    def actor(self) -> str:
        return seat_actor(self.seat)

    def public_key(self) -> str:
        return cipher.group().base(self._x).hex()

    def commitment_data(self, commitment: str) -> dict[str, Any]:
        """``seed_commitment``'s data: the seed commitment and the round key with its proof."""
        where = self._context("round-key", 0)
        proof = proofs.prove_knowledge(cipher.group(), self._x, context=where, nonce=self._scalar())
        key = {"key": self.public_key(), "proof": proof.to_json()}
        return {"commitment": commitment, "round_key": key}

    def step(
        self, state: State, events: Iterable[Logged], witness: tw.ShuffleWitness | None = None
    ) -> dict[str, Any]:
        """``deck_shuffled``'s data: after checking every key and step the log holds, the
        last deck shuffled and re-encrypted under the joint key, with its proof. ``witness``
        (ψ and the re-encryption scalars) is drawn fresh unless given: a test that arranges
        the deck gives it."""
        crypto, current = _crypto(state), _round(state)
        request = crypto.request
        if request is None or request.kind != SHUFFLE_DUE or request.seats != (self.seat,):
            raise PartyRefusedError("no shuffle_due asks this seat for its step")
        self.check_chain(state, events)
        group, step = cipher.group(), len(crypto.decks)
        key = cipher.joint_key(crypto, current.seats)
        inputs = tuple((c.a, c.b) for c in _deck(crypto.deck()))
        if witness is None:
            outputs, witness = tw.shuffle(group, key, inputs, self.rng)
        else:
            re_encrypted = [
                tw.re_encrypt(group, key, e, r)
                for e, r in zip(inputs, witness.randomness, strict=True)
            ]
            outputs = tuple(re_encrypted[j] for j in witness.permutation)
        context = self._context("shuffle", step)
        proof = tw.prove(tw.Statement(group, key, inputs, outputs, context), witness, self.rng)
        return {"deck": tw.encode_deck(group, outputs), "proof": tw.encode_proof(group, proof)}

    def check_chain(self, state: State, events: Iterable[Logged]) -> None:
        """Every round key's proof and every step's proof, as logged (15.13.3.3, 15.13.5.3)."""
        crypto, current = _crypto(state), _round(state)
        keys: list[str] = []
        decks: list[Any] = [list(cipher.public_deck())]
        for kind, actor, data in events:
            if kind == ROUND_OPENED:
                keys.append(self._checked_key(data.get("server_key"), actor, keys))
            elif kind == SEED_COMMITMENT:
                keys.append(self._checked_key(data.get("round_key"), actor, keys))
            elif kind == DECK_SHUFFLED:
                where = cipher.context(self.table, self.round_id, actor, "shuffle", len(decks) - 1)
                joint = cipher.joint_key(crypto, current.seats).hex()
                try:
                    tw.verify_step(
                        cipher.group(), joint, decks[-1], data["deck"], data["proof"], context=where
                    )
                except BlindError as e:
                    raise PartyRefusedError(
                        f"{actor}'s shuffle step does not verify: {e}"
                    ) from None
                decks.append(data["deck"])
        if len(keys) != 1 + len(current.seats) or self.public_key() not in keys:
            raise PartyRefusedError(
                "the log does not hold every party's round key, this seat's included"
            )

    def shares(self, state: State) -> dict[str, Any]:
        """``decryption_shares``' data for the positions asked of this seat, each one the
        rules let it open: the up-card, or another seat's face-down card."""
        crypto, hand = _crypto(state), state.hand
        request = crypto.request
        if request is None or request.kind != SHARES_DUE or self.seat not in request.seats:
            raise PartyRefusedError("no shares_due asks this seat for shares")
        assert hand is not None
        held = {card.position: card for card in hand.held}
        entries = []
        for position in request.positions[self.seat]:
            card = held.get(position)
            allowed = card is not None and (
                (card.face == UP and position == UP_CARD)
                or (card.face == DOWN and card.seat != self.seat)
            )
            if not allowed:
                raise PartyRefusedError(
                    f"the service asks for a share of position {position}: refused"
                )
            where = self._context("share", position)
            share = elgamal.decryption_share(
                cipher.group(),
                self._x,
                cipher.ciphertext(crypto, position),
                context=where,
                nonce=self._scalar(),
            )
            entries.append({"position": position, **share.to_json()})
        return {"shares": entries}

    def open(self, state: State, position: int) -> str:
        """One of this seat's face-down cards: every published share checked, then its own
        added (never published before the showdown)."""
        crypto, hand = _crypto(state), state.hand
        assert hand is not None
        held = next((c for c in hand.held if c.position == position), None)
        if held is None or held.seat != self.seat or held.face != DOWN:
            raise PartyRefusedError(f"position {position} is not this seat's face-down card")
        group, ciphertext = cipher.group(), cipher.ciphertext(crypto, position)
        published = crypto.shares.get(position, {})
        others = [cipher.party(None)] + [
            seat_actor(s) for s in _round(state).seats if s != self.seat
        ]
        total = []
        for party in others:
            if party not in published:
                raise PartyRefusedError(f"{party}'s share of position {position} is not logged")
            total.append(self._checked_share(state, party, position, published[party]))
        total.append(group.mul(ciphertext.b, self._x))
        return cipher.card_of(elgamal.decrypt(group, ciphertext, total))

    def own_cards(self, state: State) -> dict[int, str]:
        """Every face-down card of this seat whose shares are all logged."""
        crypto, hand = _crypto(state), state.hand
        if hand is None:
            return {}
        mine = [c.position for c in hand.held if c.seat == self.seat and c.face == DOWN]
        needed = len(_round(state).seats)  # the service's share and every other seat's
        return {p: self.open(state, p) for p in mine if len(crypto.shares.get(p, {})) >= needed}

    def reveal(self, state: State, events: Sequence[Logged]) -> dict[str, Any]:
        """``round_key``'s data: only once a ``keys_due`` names this seat, after the dealer's
        turn or the player's golden point claim (15.13.7.3)."""
        request = _crypto(state).request
        if request is None or request.kind != KEYS_DUE or self.seat not in request.seats:
            raise PartyRefusedError("no keys_due asks this seat for its key")
        kinds = [kind for kind, _, _ in events]
        if KEYS_DUE not in kinds:
            raise PartyRefusedError("the log holds no keys_due")
        at = len(kinds) - 1 - kinds[::-1].index(KEYS_DUE)
        before = kinds[at - 1] if at > 0 else "nothing"
        if before not in ("stand", "move_timeout", GOLDEN_POINT):
            raise PartyRefusedError(
                f"a keys_due after {before}, not after the dealer's turn or a claim"
            )
        hand = state.hand
        if before != GOLDEN_POINT and (hand is None or hand.turn is not None):
            raise PartyRefusedError("a keys_due before the dealer's turn ended")
        return {"secret": scalar_bytes(self._x).hex()}

    def _context(self, purpose: str, index: int) -> bytes:
        return cipher.context(self.table, self.round_id, self.actor, purpose, index)

    def _checked_key(self, value: Any, actor: str, taken: list[str]) -> str:
        try:
            return cipher.check_key(value, actor, self.table, self.round_id, taken)
        except FairdealError as e:
            raise PartyRefusedError(f"{actor}'s round key: {e}") from None

    def _checked_share(
        self, state: State, party: str, position: int, share: Mapping[str, Any]
    ) -> bytes:
        """A published share with its proof checked for its party's key and context."""
        crypto = _crypto(state)
        key = crypto.server_key if party == cipher.party(None) else _key_of(crypto, party)
        where = cipher.context(self.table, self.round_id, party, "share", position)
        try:
            decoded = Share.from_json(cipher.group(), dict(share))
            ciphertext = cipher.ciphertext(crypto, position)
            elgamal.verify_share(
                cipher.group(), bytes.fromhex(key), ciphertext, decoded, context=where
            )
        except BlindError as e:
            raise PartyRefusedError(f"{party}'s share of position {position}: {e}") from None
        return decoded.share


def _key_of(crypto: cipher.Crypto, party: str) -> str:
    return crypto.round_keys[int(party.removeprefix("seat:"))]


def _crypto(state: State) -> cipher.Crypto:
    if state.crypto is None:
        raise PartyRefusedError("not a dealer-blind round")
    return state.crypto


def _round(state: State) -> Any:
    if state.round is None:
        raise PartyRefusedError("no round")
    return state.round


def _deck(deck: Sequence[Mapping[str, str]]) -> list[Ciphertext]:
    return [Ciphertext.from_json(cipher.group(), entry) for entry in deck]
