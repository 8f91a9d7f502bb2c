"""Steps (8) and (9) of a dealer-blind round (protocol version 3, SPEC 15.13.12 items 1 to 5).

Read from the events alone, never through the game modules: the parties' round keys and
their proofs of knowledge; the shuffle chain from the public deck, each step's proof for its
context and the joint key, and the service's step recomputed from its revealed shuffle key;
the dealt ciphertexts and every decryption share; the opened and shown cards; the revealed
round keys; and, once every private key is known, the whole deck opened. ``RoundChecker``
(rounds.py) calls these for a chain of version 3 and keeps the rest: the seeds, the positions'
order and the rounds' ends.

A check that needs a value an earlier finding refused (a round key that is no element, a deck
that cannot be read, a revealed key that is not its seat's) is left out: one finding per
problem, as everywhere in the verifier.
"""

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from fairdeal import cards
from fairdeal.blind import elgamal, rounds
from fairdeal.blind import shuffle as tw
from fairdeal.blind.elgamal import Ciphertext, Share
from fairdeal.blind.group import (
    BlindError,
    Group,
    read_element,
    read_scalar_hex,
    ristretto255,
)
from fairdeal.blind.proofs import Proof, members, read_round_key, verify_knowledge
from fairdeal.events import Event
from fairdeal.protocol import SERVER

# Toto21's showdown event; its version-3 entries are {card, position} (SPEC 15.13.7.3)
CARDS_SHOWN = "cards_shown"
SHARED_FACES = ("up", "down")  # the faces the service shares at once (SPEC 15.13.6.2)
FACES = (*SHARED_FACES, "blind")
MAX_SEAT = 99  # the last seat an actor names (SPEC 5.1), and so a proof context
CARD_DEALT_MEMBERS = frozenset({"position", "seat", "face", "ciphertext", "server_share"})

Find = Callable[[str, Event, str], None]  # code, event, reason


def server_key_problem(data: Mapping[str, Any]) -> str | None:
    """(1) A version-3 ``round_opened`` without an object ``server_key`` (SPEC 7 step 1)."""
    if isinstance(data.get("server_key"), dict):
        return None
    return "a version-3 round_opened carries server_key, an object {key, proof}"


def card_dealt_problem(data: Mapping[str, Any]) -> str | None:
    """(1) A version-3 ``card_dealt`` not of exactly its five members (SPEC 15.13.6.1)."""
    seat, share = data.get("seat"), data.get("server_share")
    if (
        set(data) != CARD_DEALT_MEMBERS
        or type(data["position"]) is not int
        or not (seat is None or type(seat) is int)
        or data["face"] not in FACES
        or not isinstance(data["ciphertext"], dict)
        or not (share is None or isinstance(share, dict))
    ):
        return (
            "a version-3 card_dealt is exactly position (an integer), seat (an integer or "
            "null), face (up, down or blind), ciphertext (an object) and server_share "
            "(an object or null)"
        )
    return None


def party(seat: int) -> str:
    return f"seat:{seat}"


@dataclass
class Dealt:
    """A dealt position: its face, and its ciphertext in the round's deck (whose ``b`` every
    share of the position is of)."""

    face: str
    ciphertext: Ciphertext


@dataclass
class BlindRound:
    """What steps (8) and (9) carry through one blind round."""

    id: str
    parties: tuple[str, ...]  # "server", then each seat's actor in seats order
    server_secret: int | None  # x_0, from the revealed server seed
    keys: dict[str, bytes] = field(default_factory=dict)  # logged round keys: elements, not O
    sealed: bool = False
    shuffle_key: bytes | None = None  # from the seal, once the seed is revealed
    decks: list[Any] = field(default_factory=list)  # the public deck, then each step's output
    deck: tuple[Ciphertext, ...] | None = None  # the last step's output, read
    dealt: dict[int, Dealt] = field(default_factory=dict)
    # each party's share by position: verified, or None where refused
    shares: dict[int, dict[str, bytes | None]] = field(default_factory=dict)
    # each seat's revealed private round key: checked, or None where refused
    secrets: dict[str, int | None] = field(default_factory=dict)

    @property
    def steps(self) -> int:
        """The shuffle steps logged (the first entry of ``decks`` is the public deck)."""
        return max(len(self.decks) - 1, 0)

    @property
    def complete(self) -> bool:
        """Every party's step is logged: the round's deck is made, cards may be dealt."""
        return self.steps == len(self.parties)

    def unrevealed(self) -> list[str]:
        """The seats whose private round key is not logged, refused or not."""
        return [p for p in self.parties[1:] if p not in self.secrets]

    def private_keys(self) -> list[int] | None:
        """Every party's private round key, once all are known and checked."""
        found = [x for p in self.parties[1:] if (x := self.secrets.get(p)) is not None]
        if self.server_secret is None or len(found) < len(self.parties) - 1:
            return None
        return [self.server_secret, *found]


class BlindChecks:
    """The checks of a version-3 chain's rounds; ``find`` records a finding at an event."""

    def __init__(
        self, table: str, deck_rules: Mapping[str, Any], find: Find, group: Group | None = None
    ) -> None:
        self.table = table
        self.game, self.decks = deck_rules.get("game"), deck_rules.get("decks")
        self._find = find
        self._group = group
        self._points: list[bytes] | None = None
        self._public: list[dict[str, str]] | None = None

    @property
    def group(self) -> Group:
        """libsodium's group where it loads, else the pure-Python one (it only verifies)."""
        if self._group is None:
            self._group = ristretto255()
        return self._group

    def _context(self, round_id: str, who: str, purpose: str, index: int) -> bytes:
        return rounds.proof_context(self.table, round_id, who, purpose, index)

    # (8) round keys --------------------------------------------------------------------------

    def open(self, event: Event, seats: list[int], seed: bytes | None) -> BlindRound:
        """``round_opened``: the service's round key and its proof; with the revealed seed,
        that it is the seed's key."""
        secret = elgamal.server_round_key(seed) if seed is not None else None
        parties = [party(s) for s in seats if 0 <= s <= MAX_SEAT]
        current = BlindRound(str(event.round), (SERVER, *parties), secret)
        if len(parties) < len(seats):  # SPEC 5.1's actors: no context names another seat
            self._find("blind.key", event, f"seats {seats}: a party is seat:0 to seat:{MAX_SEAT}")
        value = event.data.get("server_key")
        if not isinstance(value, dict):
            return current  # (1) schema.data, rounds.py's
        key = self._round_key(current, event, SERVER, value)
        if key is not None and secret is not None and self.group.base(secret) != key:
            reason = "server_key is not the round key of the revealed server seed"
            self._find("blind.server_key", event, reason)
            current.server_secret = None  # no card is opened with a key that is not X_0's
        return current

    def commitment(self, current: BlindRound, event: Event, seat: int) -> None:
        """A seat's ``seed_commitment``: its ``round_key`` and proof (read by command data)."""
        if party(seat) not in current.parties:
            return  # (7) seed.client, rounds.py's
        self._round_key(current, event, party(seat), event.data.get("round_key"))

    def _round_key(self, current: BlindRound, event: Event, who: str, value: Any) -> bytes | None:
        """A party's round key with its proof (SPEC 15.9), recorded when it is an element
        other than O (the joint key needs it, even when its proof fails)."""
        try:
            raw, proof_json = members(value, ("key", "proof"), "a round key")
            key = read_round_key(self.group, read_element(self.group, raw, "key"))
        except BlindError as e:
            self._find("blind.key", event, f"{who}'s round key: {e}")
            return None
        others = [p for p, known in current.keys.items() if known == key]
        current.keys.setdefault(who, key)  # even a copied key: the steps are checked all the same
        if others:
            self._find("blind.key", event, f"{who}'s round key is {', '.join(others)}'s too")
            return key
        context = self._context(current.id, who, "round-key", 0)
        problem = _problem(
            lambda: verify_knowledge(
                self.group, key, context=context, proof=Proof.from_json(proof_json)
            )
        )
        if problem is not None:
            self._find("blind.key", event, f"{who}'s proof of knowledge: {problem}")
        return key

    def _joint_key(self, current: BlindRound) -> bytes | None:
        """X = Σ X_j, once every party's key is logged (None: some key is missing)."""
        if any(p not in current.keys for p in current.parties):
            return None
        return elgamal.joint_key(self.group, [current.keys[p] for p in current.parties])

    # (8) the shuffle chain -------------------------------------------------------------------

    def sealed(self, current: BlindRound, shuffle_key: bytes | None) -> None:
        """The seal: the steps may start; with the revealed seed, the shuffle key."""
        current.sealed, current.shuffle_key = True, shuffle_key

    def shuffled(self, current: BlindRound, event: Event) -> None:
        """A ``deck_shuffled``: the next step, by the next party, after the seal; its proof
        for its context, the joint key and the previous step's logged deck."""
        k = current.steps
        problem = self._out_of_order(current, event, k)
        if problem is not None:
            self._find("blind.shuffle", event, problem)
            return
        if not current.decks:
            public = self._public_deck()
            if public is None:
                self._find("deck.rules", event, f"no public deck for {self.game!r}, {self.decks!r}")
                return
            current.decks.append(public)
        inputs, outputs = current.decks[-1], event.data["deck"]
        current.decks.append(outputs)
        if current.complete:
            current.deck = self._read_deck(outputs)
        joint = self._joint_key(current)
        if joint is None:
            return  # a key is missing: blind.key
        who = current.parties[k]
        context = self._context(current.id, who, "shuffle", k)
        problem = self._verify_step(joint, inputs, outputs, event.data["proof"], context)
        if problem is not None:
            self._find("blind.shuffle", event, f"step {k} by {who}: {problem}")
        if k == rounds.SERVER_STEP and current.shuffle_key is not None:
            self._server_step(current, event, joint)

    def _out_of_order(self, current: BlindRound, event: Event, k: int) -> str | None:
        data = event.data
        if not current.sealed:
            return "a shuffle step before the seal"
        if k >= len(current.parties):
            return f"a shuffle step after the round's {len(current.parties)} steps"
        if set(data) != {"deck", "proof", "step"}:
            return "deck_shuffled carries exactly deck, proof and step"
        step, expected = data["step"], current.parties[k]
        if type(step) is not int or step != k or event.actor != expected:
            return f"step {step!r} by {event.actor}; the next is step {k}, by {expected}"
        return None

    def _public_deck(self) -> list[dict[str, str]] | None:
        """Step 0's input: (M_i, O) for each card of the table's deck, in canonical order (None:
        the table's rules name no deck)."""
        if self._public is None:
            try:
                deck = elgamal.public_deck(self.group, str(self.game), _decks(self.decks))
            except ValueError:
                return None
            self._public = tw.encode_deck(self.group, [(c.a, c.b) for c in deck])
        return self._public

    def _read_deck(self, value: Any) -> tuple[Ciphertext, ...] | None:
        if not isinstance(value, list):
            return None
        try:
            return tuple(Ciphertext.from_json(self.group, c) for c in value)
        except (BlindError, ValueError):
            return None  # blind.shuffle says why

    def _verify_step(
        self, joint: bytes, inputs: Any, outputs: Any, proof: Any, context: bytes
    ) -> str | None:
        """SPEC 15.11.7 for one step: None, or the failing step's reason (for step 5, the
        first equation that fails)."""
        group = self.group
        return _problem(
            lambda: tw.verify_step(group, joint.hex(), inputs, outputs, proof, context=context)
        )

    def _server_step(self, current: BlindRound, event: Event, joint: bytes) -> None:
        """With the revealed shuffle key, the service's deck is the one 15.12.3 draws: ψ and r'
        from the step key. Its proof is the replay's to recompute (steps 10 and 11)."""
        if event.data["deck"] != self._drawn_deck(current, joint):
            reason = "the service's deck is not the one its shuffle key gives"
            self._find("blind.server_step", event, reason)

    def _drawn_deck(self, current: BlindRound, joint: bytes) -> list[dict[str, str]]:
        """Output i is public card ψ(i) re-encrypted with r'_ψ(i) (SPEC 15.12.3), computed with
        the group's public operations: once the round is revealed, none of it is secret."""
        assert current.shuffle_key is not None
        group, decks = self.group, _decks(self.decks)
        of = rounds.RoundDeck(self.table, current.id, str(self.game), decks)
        witness = rounds.server_witness(
            rounds.step_key(group, current.shuffle_key, joint, of), len(current.decks[0])
        )
        public = elgamal.public_deck(group, str(self.game), decks)
        re_encrypted = [
            Ciphertext(group.add(c.a, group.mul(joint, r)), group.add(c.b, group.base(r)))
            for c, r in zip(public, witness.randomness, strict=True)
        ]
        return [re_encrypted[j].to_json() for j in witness.permutation]

    # (9) dealt cards and shares ---------------------------------------------------------------

    def dealt(self, current: BlindRound, event: Event) -> None:
        """A ``card_dealt`` (its form checked): its ciphertext is the deck's at its position,
        and the service's share is there, verified, for a card face up or down only."""
        data, deck = event.data, current.deck
        position = data["position"]
        if deck is None:
            return  # no deck: card.position (dealt before the last step) or blind.shuffle
        if not 0 <= position < len(deck):
            self._find("card.position", event, f"position {position} is past the deck's end")
            return
        ciphertext = deck[position]
        if data["ciphertext"] != ciphertext.to_json():
            reason = f"the ciphertext is not the deck's entry at position {position}"
            self._find("card.ciphertext", event, reason)
        current.dealt[position] = Dealt(data["face"], ciphertext)
        share = data["server_share"]
        if data["face"] not in SHARED_FACES:
            if share is not None:
                self._find("blind.share", event, f"a server share of the blind card {position}")
        elif share is None:
            self._find("blind.share", event, f"no server share of the {data['face']} card")
        else:
            self._share(current, event, SERVER, position, share)

    def shares(self, current: BlindRound, event: Event) -> None:
        """A seat's ``decryption_shares``: each entry's proof for its key and context."""
        entries = event.data.get("shares")
        if current.deck is None:
            return  # no deck to share: card.position or blind.shuffle
        if event.actor not in current.parties[1:] or not isinstance(entries, list):
            self._find("blind.share", event, "decryption_shares by a seat of the round, a list")
            return
        for entry in entries:
            try:
                position, proof, share = members(entry, ("position", "proof", "share"), "a share")
            except BlindError as e:
                self._find("blind.share", event, str(e))
                continue
            self._share(current, event, event.actor, position, {"proof": proof, "share": share})

    def _share(
        self, current: BlindRound, event: Event, who: str, position: Any, value: Any
    ) -> None:
        """One party's share of a dealt position: verified, recorded (None: refused)."""
        dealt = current.dealt.get(position) if type(position) is int else None
        if dealt is None:
            self._find("blind.share", event, f"{who}'s share of position {position!r}, not dealt")
            return
        shares = current.shares.setdefault(position, {})
        shares[who] = None
        key = current.keys.get(who)
        if key is None:
            return  # no round key to check it with: blind.key
        context = self._context(current.id, who, "share", position)
        try:
            share = Share.from_json(self.group, value)
        except BlindError as e:
            self._find("blind.share", event, f"{who}'s share of position {position}: {e}")
            return
        problem = _problem(
            lambda: elgamal.verify_share(self.group, key, dealt.ciphertext, share, context=context)
        )
        if problem is not None:
            self._find("blind.share", event, f"{who}'s share of position {position}: {problem}")
            return
        shares[who] = share.share

    # (9) opened, revealed and shown cards -----------------------------------------------------

    def card_opened(self, current: BlindRound, event: Event) -> None:
        """A ``card_opened``: the decryption of its position with every party's share."""
        position, card = event.data.get("position"), event.data.get("card")
        if current.deck is None:
            return  # no deck to open: card.position or blind.shuffle
        if type(position) is not int or position not in current.dealt:
            self._find("card.wrong_card", event, f"opens position {position!r}, never dealt")
            return
        dealt = current.dealt[position]
        logged = current.shares.get(position, {})
        missing = [p for p in current.parties if p not in logged]
        if missing:
            reason = f"position {position} is opened without the shares of {', '.join(missing)}"
            self._find("card.wrong_card", event, reason)
            return
        shares = [s for p in current.parties if (s := logged[p]) is not None]
        if len(shares) < len(current.parties):
            return  # a share refused: blind.share (or blind.key)
        point = elgamal.decrypt(self.group, dealt.ciphertext, shares)
        found = self._card(point)
        if found != card:
            reason = f"position {position} decrypts to {found or 'no card'}, not {card!r}"
            self._find("card.wrong_card", event, reason)

    def round_key(self, current: BlindRound, event: Event) -> None:
        """A seat's ``round_key``: the private key of its logged round key."""
        who, secret = event.actor, event.data.get("secret")
        if who not in current.parties[1:]:
            self._find("blind.reveal", event, f"a round key revealed by {who}, not of the round")
            return
        current.secrets[who] = None  # revealed: refused unless it checks
        key = current.keys.get(who)
        if set(event.data) != {"secret"}:
            self._find("blind.reveal", event, "round_key carries exactly secret")
        elif key is not None:  # else no round key to check it with: blind.key
            try:
                x = read_scalar_hex(secret, "secret")
                elgamal.verify_revealed_key(self.group, key, x)
            except BlindError as e:
                self._find("blind.reveal", event, f"{who}'s secret: {e}")
                return
            current.secrets[who] = x

    def shown(self, current: BlindRound, event: Event) -> None:
        """A ``cards_shown``: each {card, position} the decryption with the private keys."""
        entries = event.data.get("cards")
        keys = current.private_keys()
        if current.deck is None or not isinstance(entries, list):
            return  # no deck to open: card.position or blind.shuffle
        if current.unrevealed():
            reason = f"cards shown before {', '.join(current.unrevealed())} revealed its round key"
            self._find("card.shown", event, reason)
            return
        for entry in entries:
            if not isinstance(entry, dict) or set(entry) != {"card", "position"}:
                self._find("card.shown", event, "a version-3 shown card is {card, position}")
                continue
            position, card = entry["position"], entry["card"]
            dealt = current.dealt.get(position) if type(position) is int else None
            if dealt is None:
                self._find("card.shown", event, f"shows position {position!r}, never dealt")
            elif keys is not None:
                found = self._card(elgamal.decrypt_with_keys(self.group, dealt.ciphertext, keys))
                if found != card:
                    reason = f"position {position} decrypts to {found or 'no card'}, not {card!r}"
                    self._find("card.shown", event, reason)

    def revealed(self, current: BlindRound, event: Event) -> None:
        """At the reveal, with every private key: the whole deck opens to each card once."""
        keys = current.private_keys()
        if keys is None or current.deck is None:
            return
        found = [self._card(elgamal.decrypt_with_keys(self.group, c, keys)) for c in current.deck]
        order = cards.canonical_deck(str(self.game), _decks(self.decks))
        if sorted(found, key=lambda c: c or "") != sorted(order):
            missing = sorted(set(order) - set(filter(None, found)))
            reason = f"the opened deck is not every card once (missing {missing or 'none'})"
            self._find("blind.deck", event, reason)

    def _card(self, point: bytes) -> str | None:
        """The card code of a card point, None for a point that is no card."""
        if self._points is None:
            self._points = elgamal.card_points(self.group, str(self.game), _decks(self.decks))
        try:
            index = elgamal.card_index(self._points, point)
        except BlindError:
            return None
        return cards.canonical_deck(str(self.game), _decks(self.decks))[index]


def _problem(verify: Callable[[], None]) -> str | None:
    """None if ``verify`` returns, else why it raised."""
    try:
        verify()
    except (BlindError, ValueError) as e:
        return str(e) or type(e).__name__
    return None


def _decks(value: Any) -> int:
    return value if type(value) is int else 1
