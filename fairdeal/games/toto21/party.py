"""A seat as a party to a dealer-blind round (SPEC 15.13): its private round key, and what
it sends when the log asks: its key with a proof, its shuffle step, its decryption shares,
its key at the showdown. What a seat's client runs, in Python (the SDK) as the browser's
module does in JavaScript.

A party answers only what the chain it checked asks of it (15.13.6.3, 15.13.7.3). The state
it is given is the rules' fold of the log, which takes the service's events as they come: so
before every answer the party reads the round's events itself (``check_chain``) and holds
them to the rules it relies on: one opening, a round key for each of its parties (the
service and two distinct seats, this one among them) with its proof, the steps by the
service and then each seat in turn with their proofs, the dealer chosen once after the
last step, then each card dealt in order as the deal or the draw just logged deals it (seat,
face, and the last deck's ciphertext). It never shares its own face-down card, a blind card
or an undealt position, and it reveals its key only when a ``keys_due`` follows the dealer's
own stand or move timeout, or the player's golden point claim on its first move; after that
it answers nothing else (a round id logged again cannot reuse its key). Each refusal raises
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
from fairdeal.games.dealing import BLIND, DOWN, UP
from fairdeal.games.toto21 import cipher
from fairdeal.games.toto21.state import State
from fairdeal.protocol import (
    CARD_DEALT,
    DECK_SHUFFLED,
    GOLDEN_POINT,
    KEYS_DUE,
    ROUND_OPENED,
    SEED_COMMITMENT,
    SERVER,
    SHARES_DUE,
    SHUFFLE_DUE,
)

UP_CARD = 1  # the dealer's up-card: the only position Toto21 deals face up
DEALER_CHOSEN, HIT, STAND, MOVE_TIMEOUT = "dealer_chosen", "hit", "stand", "move_timeout"


class PartyRefusedError(FairdealError):
    """The log asks a party for something it must not give, or shows a proof that fails."""


Logged = tuple[str, str, Mapping[str, Any]]  # an event's type, actor and command data


@dataclass(frozen=True)
class Read:
    """A round's events as a party reads them, every rule it relies on checked."""

    keys: dict[str, str]  # party -> its round key (hex), each proof checked
    joint: bytes  # the sum of every party's key
    decks: list[list[Mapping[str, str]]]  # the public deck, then each step's output
    cards: dict[int, tuple[int, str]]  # position -> (seat, face), as the rules deal them
    roles: tuple[int, int] | None  # (dealer, player) once chosen

    def ciphertext(self, position: int) -> Ciphertext:
        return Ciphertext.from_json(cipher.group(), self.decks[-1][position])


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
    _revealed: bool = field(init=False, default=False, repr=False)

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
        self._not_revealed()
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
        request = _crypto(state).request
        if request is None or request.kind != SHUFFLE_DUE or request.seats != (self.seat,):
            raise PartyRefusedError("no shuffle_due asks this seat for its step")
        self._not_revealed()
        read = self.check_chain(state, events)
        group, step = cipher.group(), len(read.decks) - 1
        if step != 1 + _round(state).seats.index(self.seat) or read.roles is not None:
            raise PartyRefusedError(f"step {step} is not this seat's turn to shuffle")
        key = read.joint
        inputs = tuple((c.a, c.b) for c in _deck(read.decks[-1]))
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

    def check_chain(self, state: State, events: Iterable[Logged]) -> Read:
        """The round's events read and held to the rules the party relies on (the module's
        docstring): every round key's proof and every step's proof (15.13.3.3, 15.13.5.3),
        the steps' order, the dealer's choice and each card dealt."""
        seats = tuple(_round(state).seats)
        if len(set(seats)) != len(seats) or len(seats) != 2 or self.seat not in seats:
            raise PartyRefusedError(
                f"the round's seats {list(seats)} are not two seats, this one among them"
            )
        reader = _Reader(self, [SERVER, *(seat_actor(s) for s in seats)])
        for kind, actor, data in events:
            reader.read(kind, actor, data)
        return Read(reader.keys, reader.joint(), reader.decks, reader.cards, reader.roles)

    def shares(self, state: State, events: Iterable[Logged]) -> dict[str, Any]:
        """``decryption_shares``' data for the positions asked of this seat, each one the
        rules let it open as the party reads the round: the up-card, or another seat's
        face-down card, of the last deck."""
        request = _crypto(state).request
        if request is None or request.kind != SHARES_DUE or self.seat not in request.seats:
            raise PartyRefusedError("no shares_due asks this seat for shares")
        self._not_revealed()
        read = self.check_chain(state, events)
        entries = []
        for position in request.positions[self.seat]:
            seat, face = read.cards.get(position, (None, None))
            allowed = (face == UP and position == UP_CARD) or (face == DOWN and seat != self.seat)
            if not allowed:
                raise PartyRefusedError(
                    f"the service asks for a share of position {position}: refused"
                )
            where = self._context("share", position)
            share = elgamal.decryption_share(
                cipher.group(),
                self._x,
                read.ciphertext(position),
                context=where,
                nonce=self._scalar(),
            )
            entries.append({"position": position, **share.to_json()})
        return {"shares": entries}

    def open(self, state: State, events: Iterable[Logged], position: int) -> str:
        """One of this seat's face-down cards: every published share checked, then its own
        added (never published before the showdown)."""
        return self._open(state, self.check_chain(state, events), position)

    def own_cards(self, state: State, events: Iterable[Logged]) -> dict[int, str]:
        """Every face-down card of this seat whose shares are all logged."""
        crypto, read = _crypto(state), self.check_chain(state, events)
        mine = [p for p, (seat, face) in read.cards.items() if seat == self.seat and face == DOWN]
        needed = len(read.keys) - 1  # the service's share and every other seat's
        return {
            p: self._open(state, read, p) for p in mine if len(crypto.shares.get(p, {})) >= needed
        }

    def _open(self, state: State, read: Read, position: int) -> str:
        seat, face = read.cards.get(position, (None, None))
        if seat != self.seat or face != DOWN:
            raise PartyRefusedError(f"position {position} is not this seat's face-down card")
        group, ciphertext = cipher.group(), read.ciphertext(position)
        published = _crypto(state).shares.get(position, {})
        total = []
        for party in (p for p in read.keys if p != self.actor):
            if party not in published:
                raise PartyRefusedError(f"{party}'s share of position {position} is not logged")
            total.append(self._checked_share(read, party, position, published[party]))
        total.append(group.mul(ciphertext.b, self._x))
        try:
            return cipher.card_of(elgamal.decrypt(group, ciphertext, total))
        except FairdealError as e:
            raise PartyRefusedError(f"position {position} opens to no card: {e}") from None

    def reveal(self, state: State, events: Sequence[Logged]) -> dict[str, Any]:
        """``round_key``'s data: only once a ``keys_due`` names this seat right after the
        dealer's own stand or move timeout, or the player's golden point claim on its first
        move (15.13.7.3). The party answers nothing else in the round after it."""
        request = _crypto(state).request
        if request is None or request.kind != KEYS_DUE or self.seat not in request.seats:
            raise PartyRefusedError("no keys_due asks this seat for its key")
        read = self.check_chain(state, events)
        kinds = [kind for kind, _, _ in events]
        if KEYS_DUE not in kinds:
            raise PartyRefusedError("the log holds no keys_due")
        at = len(kinds) - 1 - kinds[::-1].index(KEYS_DUE)
        before, actor, data = events[at - 1] if at > 0 else ("nothing", "", {})
        if read.roles is None or not _turns_over(before, actor, data, read.roles, kinds[:at]):
            raise PartyRefusedError(
                f"a keys_due after {before}, not after the dealer's turn or a claim"
            )
        hand = state.hand
        if before != GOLDEN_POINT and (hand is None or hand.turn is not None):
            raise PartyRefusedError("a keys_due before the dealer's turn ended")
        self._revealed = True
        return {"secret": scalar_bytes(self._x).hex()}

    def _not_revealed(self) -> None:
        if self._revealed:
            raise PartyRefusedError(f"this seat's key for round {self.round_id} is revealed")

    def _context(self, purpose: str, index: int) -> bytes:
        return cipher.context(self.table, self.round_id, self.actor, purpose, index)

    def _checked_key(self, value: Any, actor: str, taken: list[str]) -> str:
        try:
            return cipher.check_key(value, actor, self.table, self.round_id, taken)
        except FairdealError as e:
            raise PartyRefusedError(f"{actor}'s round key: {e}") from None

    def _checked_share(
        self, read: Read, party: str, position: int, share: Mapping[str, Any]
    ) -> bytes:
        """A published share with its proof checked for its party's key and context."""
        where = cipher.context(self.table, self.round_id, party, "share", position)
        try:
            decoded = Share.from_json(cipher.group(), dict(share))
            elgamal.verify_share(
                cipher.group(),
                bytes.fromhex(read.keys[party]),
                read.ciphertext(position),
                decoded,
                context=where,
            )
        except BlindError as e:
            raise PartyRefusedError(f"{party}'s share of position {position}: {e}") from None
        return decoded.share


@dataclass
class _Reader:
    """A round's events read one by one, as ``Party.check_chain`` holds them to the rules."""

    party: Party
    parties: list[str]  # the service, then each seat, in the steps' order
    keys: dict[str, str] = field(default_factory=dict)
    decks: list[list[Mapping[str, str]]] = field(
        default_factory=lambda: [list(cipher.public_deck())]
    )
    cards: dict[int, tuple[int, str]] = field(default_factory=dict)
    roles: tuple[int, int] | None = None  # (dealer, player)
    due: list[tuple[int, str]] = field(default_factory=list)  # cards the rules deal next

    def read(self, kind: str, actor: str, data: Mapping[str, Any]) -> None:
        if self.due and kind != CARD_DEALT:
            raise PartyRefusedError(f"{kind} where the rules deal a card to seat {self.due[0][0]}")
        if kind in (ROUND_OPENED, SEED_COMMITMENT):
            self._key(kind, actor, data)
        elif kind == DECK_SHUFFLED:
            self._step(actor, data)
        elif kind == DEALER_CHOSEN:
            self._roles(data)
        elif kind in (HIT, BLIND) and self.roles is not None:
            self.due = [(int(actor.removeprefix("seat:")), DOWN if kind == HIT else BLIND)]
        elif kind == CARD_DEALT:
            self._card(data)

    def joint(self) -> bytes:
        """The sum of every party's key; refused until each is logged, this seat's its own."""
        own = self.party.public_key()
        if set(self.keys) != set(self.parties) or self.keys[self.party.actor] != own:
            raise PartyRefusedError(
                "the log does not hold every party's round key, this seat's included"
            )
        keys = [bytes.fromhex(self.keys[p]) for p in self.parties]
        return elgamal.joint_key(cipher.group(), keys)

    def _key(self, kind: str, actor: str, data: Mapping[str, Any]) -> None:
        member = "server_key" if kind == ROUND_OPENED else "round_key"
        if (
            actor not in self.parties
            or actor in self.keys
            or (actor == SERVER) != (kind == ROUND_OPENED)
        ):
            raise PartyRefusedError(f"{kind} by {actor}: one key for each party of the round")
        value = data.get(member)
        self.keys[actor] = self.party._checked_key(value, actor, list(self.keys.values()))

    def _step(self, actor: str, data: Mapping[str, Any]) -> None:
        step = len(self.decks) - 1
        if step >= len(self.parties) or actor != self.parties[step]:
            raise PartyRefusedError(
                f"step {step} by {actor}: the service shuffles first, then each seat in turn"
            )
        party = self.party
        # its own step is the one it signed (the chain checked that): not checked again
        if actor != party.actor:
            where = cipher.context(party.table, party.round_id, actor, "shuffle", step)
            try:
                tw.verify_step(
                    cipher.group(), self.joint().hex(), self.decks[-1], data["deck"], data["proof"],
                    context=where,
                )  # fmt: skip
            except BlindError as e:
                raise PartyRefusedError(f"{actor}'s shuffle step does not verify: {e}") from None
        self.decks.append(data["deck"])

    def _roles(self, data: Mapping[str, Any]) -> None:
        dealer, player = data.get("dealer"), data.get("player")
        seats = {int(p.removeprefix("seat:")) for p in self.parties[1:]}
        if (
            self.roles is not None
            or len(self.decks) <= len(self.parties)
            or type(dealer) is not int
            or type(player) is not int
            or {dealer, player} != seats
        ):
            raise PartyRefusedError(
                "the dealer is chosen once, after every step, between the round's two seats"
            )
        self.roles = (dealer, player)
        self.due = [(player, DOWN), (dealer, UP), (player, DOWN), (dealer, DOWN)]

    def _card(self, data: Mapping[str, Any]) -> None:
        if not self.due:
            raise PartyRefusedError("a card dealt that no deal or draw deals")
        seat, face = self.due.pop(0)
        position, deck = len(self.cards), self.decks[-1]
        dealt = [data.get("position"), data.get("seat"), data.get("face")]
        ciphertext = deck[position] if position < len(deck) else None
        exact = all(type(n) is int for n in dealt[:2]) and dealt == [position, seat, face]
        if not exact or data.get("ciphertext") != ciphertext:
            raise PartyRefusedError(
                f"a card_dealt that is not the one the rules deal: position {position} of the "
                f"last deck, to seat {seat}, {face}"
            )
        self.cards[position] = (seat, face)


def _turns_over(
    kind: str, actor: str, data: Mapping[str, Any], roles: tuple[int, int], kinds: list[str]
) -> bool:
    """Whether ``kind`` by ``actor`` ends the play before a showdown: the dealer's own stand
    or move timeout, or the player's golden point claim before any draw of its own."""
    dealer, player = roles
    if kind == STAND:
        return actor == seat_actor(dealer)
    if kind == MOVE_TIMEOUT:
        return type(data.get("seat")) is int and data.get("seat") == dealer
    return kind == GOLDEN_POINT and actor == seat_actor(player) and not ({HIT, BLIND} & set(kinds))


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
