"""A synthetic dealer-blind round (protocol version 3, SPEC 15.13), as the verifier reads it.

Built from the primitives of ``fairdeal.blind``, never the game engine: the service's key and
shares from a fixed server seed (``rounds.server_key_with_proof``, ``rounds.server_share``), its
step from the shuffle key the verifier derives (``rounds.server_step``), the seats' keys, steps
and shares with their own proofs. The events are unsigned; a seat's event is logged as version 3
logs it (SPEC 15.13.11): its signed members inside ``signed.data``, the derived ones beside it.
``check`` runs them through ``RoundChecker`` alone (steps 5 to 9 and 14), with a given backend.

The round: the service's key, both seats' commitments with their keys, both reveals, the seal
with the service's step, both seats' steps, the deal (player down, dealer up, player down,
dealer down) with the shares asked, the up-card opened, a hit and a blind card for the player,
both keys revealed, the cards shown and the reveal.
"""

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from fairdeal import cards, randomness
from fairdeal.blind import elgamal, rounds
from fairdeal.blind import shuffle as tw
from fairdeal.blind.elgamal import Ciphertext
from fairdeal.blind.group import Group, hash_to_scalar
from fairdeal.blind.proofs import prove_knowledge
from fairdeal.events import Event
from fairdeal.protocol import SERVER
from fairdeal.statements import BLIND, SIGNATURE
from fairdeal.verifier.findings import Finding
from fairdeal.verifier.rounds import RoundChecker, revealed_seeds

TABLE = "blind-t"
ROUND = f"{TABLE}.1"
SEATS = (0, 1)
PLAYER, DEALER = 0, 1
GAME, DECKS = "toto21", 1
DECK_RULES = {"game": GAME, "decks": DECKS}
SERVER_SEED = hashlib.sha256(b"blind round server seed").digest()
CLIENT_SEEDS = ("seat zero's seed", "seat one's seed")
T0 = 1_760_000_000_000  # the deadlines the events name are from T0 on
LOGGED_AT = T0 + 100_000  # the events' times: any timeout is due
DEAL = ((PLAYER, "down"), (DEALER, "up"), (PLAYER, "down"), (DEALER, "down"))
HIT, BLIND_CARD = 4, 5  # the player's hit (face down) and blind card

Deck = tuple[tw.Ciphertext[bytes], ...]
# A tamper of a step as it is logged: (k, deck, proof JSON) -> (deck, proof JSON)
StepTamper = Callable[[int, Deck, dict[str, Any]], tuple[Deck, dict[str, Any]]]


def at_step(step: int, change: Callable[[list[Any]], None]) -> StepTamper:
    """A tamper of one step's output deck, before it is logged (later steps shuffle it)."""

    def tamper(k: int, deck: Deck, proof: dict[str, Any]) -> tuple[Deck, dict[str, Any]]:
        if k != step:
            return deck, proof
        changed = list(deck)
        change(changed)
        return tuple(changed), proof

    return tamper


def joint_key(group: Group, key_seed: bytes = SERVER_SEED) -> bytes:
    """X = X_0 + X_seat0 + X_seat1 of the round ``build`` makes."""
    secrets = [elgamal.server_round_key(key_seed), *map(seat_secret, SEATS)]
    return elgamal.joint_key(group, [group.base(x) for x in secrets])


def seat_secret(seat: int) -> int:
    return hash_to_scalar(b"blind round seat key " + bytes([seat]))


def party(seat: int) -> str:
    return f"seat:{seat}"


@dataclass
class Logged:
    """An event's type, actor and data as logged (mutable, for the tests' tampering)."""

    type: str
    actor: str
    data: dict[str, Any]

    @property
    def command(self) -> dict[str, Any]:
        """A seat's signed members (SPEC 15.13.11); the data themselves for the server's."""
        signed = self.data.get(SIGNATURE)
        return signed["data"] if isinstance(signed, dict) else self.data


@dataclass
class BlindRound:
    """The round's events and what made them."""

    group: Group
    events: list[Logged] = field(default_factory=list)
    decks: list[Deck] = field(default_factory=list)  # each step's logged output
    proofs: list[dict[str, Any]] = field(default_factory=list)
    cards: dict[int, str] = field(default_factory=dict)  # each dealt position's card

    @property
    def deck(self) -> Deck:
        return self.decks[-1]

    def find(self, type_: str, actor: str | None = None, **where: Any) -> Logged:
        """The one event of this type (and actor) whose data, read as command data, have these
        values."""
        (found,) = self.every(type_, actor, **where)
        return found

    def every(self, type_: str, actor: str | None = None, **where: Any) -> list[Logged]:
        return [
            e
            for e in self.events
            if e.type == type_
            and actor in (None, e.actor)
            and all({**e.data, **e.command}.get(k) == v for k, v in where.items())
        ]

    def server_share(self, position: int) -> dict[str, Any]:
        a, b = self.deck[position]
        share = rounds.server_share(
            self.group,
            SERVER_SEED,
            Ciphertext(a, b),
            table=TABLE,
            round_id=ROUND,
            position=position,
        )
        return share.to_json()


def build(
    group: Group,
    *,
    after_step: StepTamper | None = None,
    shuffle_key: bytes | None = None,
    key_seed: bytes = SERVER_SEED,
) -> BlindRound:
    """The round on ``group`` (secret-safe). ``after_step`` changes a step before it is
    logged (later steps shuffle what is logged); ``shuffle_key`` draws the service's step
    from another key than the seal's; ``key_seed`` gives the service's round key and shares
    from another server seed than the one revealed."""
    built = BlindRound(group)
    server = rounds.server_key_with_proof(group, key_seed, table=TABLE, round_id=ROUND)
    secrets = {SERVER: server.private, **{party(s): seat_secret(s) for s in SEATS}}
    commitment = randomness.seed_commitment(SERVER_SEED).hex()
    _open(built, server, commitment)
    _commit(built, secrets)
    joint = elgamal.joint_key(group, [group.base(x) for x in secrets.values()])
    key = shuffle_key or randomness.shuffle_key(
        SERVER_SEED, ROUND, bytes.fromhex(commitment), list(CLIENT_SEEDS), DECK_RULES
    )
    _shuffle(built, joint, key, after_step or (lambda k, deck, proof: (deck, proof)))
    _deal(built, secrets, key_seed)
    _show(built, secrets)
    return built


def _emit(built: BlindRound, type_: str, actor: str, data: dict[str, Any], **derived: Any) -> None:
    """An event: a seat's data signed (logged inside ``signed``), the derived ones beside."""
    if actor != SERVER:
        after = {"seq": len(built.events), "hash": "00" * 32}
        n = 1 + sum(e.actor == actor for e in built.events)
        signed = {"n": n, "after": after, "data": data, "signature": "00" * 64}
        data = {SIGNATURE: signed}
    built.events.append(Logged(type_, actor, {**data, **derived}))


def _open(built: BlindRound, server: rounds.ServerKey, commitment: str) -> None:
    server_key = {"key": server.key.hex(), "proof": server.proof.to_json()}
    data = {
        "commitment": commitment,
        "number": 1,
        "seats": list(SEATS),
        "seed_deadline": T0 + 10_000,
        "server_key": server_key,
    }
    _emit(built, "round_opened", SERVER, data)


def _commit(built: BlindRound, secrets: dict[str, int]) -> None:
    group = built.group
    for seat, seed in zip(SEATS, CLIENT_SEEDS, strict=True):
        x = secrets[party(seat)]
        context = rounds.proof_context(TABLE, ROUND, party(seat), "round-key", 0)
        proof = prove_knowledge(group, x, context=context)
        round_key = {"key": group.base(x).hex(), "proof": proof.to_json()}
        committed = randomness.client_seed_commitment(ROUND, seat, seed).hex()
        _emit(
            built, "seed_commitment", party(seat), {"commitment": committed, "round_key": round_key}
        )
    _emit(built, "seeds_committed", SERVER, {"deadline": T0 + 20_000})
    for seat, seed in zip(SEATS, CLIENT_SEEDS, strict=True):
        _emit(built, "client_seed", party(seat), {"seed": seed})
    _emit(built, "round_sealed", SERVER, {"client_seeds": list(CLIENT_SEEDS)})


def _shuffle(built: BlindRound, joint: bytes, key: bytes, tamper: StepTamper) -> None:
    group = built.group
    of = rounds.RoundDeck(TABLE, ROUND, GAME, DECKS)
    step = rounds.server_step(group, key, joint, of)
    deck, proof = tamper(0, step.outputs, tw.encode_proof(group, step.proof))
    _log_step(built, 0, SERVER, deck, proof)
    for k, seat in enumerate(SEATS, start=1):
        _emit(built, "shuffle_due", SERVER, {"deadline": T0 + 30_000, "seat": seat})
        context = rounds.proof_context(TABLE, ROUND, party(seat), "shuffle", k)
        outputs, witness = tw.shuffle(group, joint, built.deck)
        statement = tw.Statement(group, joint, built.deck, outputs, context)
        deck, proof = tamper(k, outputs, tw.encode_proof(group, tw.prove(statement, witness)))
        _log_step(built, k, party(seat), deck, proof)


def _log_step(built: BlindRound, k: int, actor: str, deck: Deck, proof: dict[str, Any]) -> None:
    data = {"deck": tw.encode_deck(built.group, deck), "proof": proof}
    if actor == SERVER:
        _emit(built, "deck_shuffled", actor, {**data, "step": k})
    else:
        _emit(built, "deck_shuffled", actor, data, step=k)
    built.decks.append(deck)
    built.proofs.append(proof)


def _deal(built: BlindRound, secrets: dict[str, int], key_seed: bytes) -> None:
    _emit(built, "dealer_chosen", SERVER, {"dealer": DEALER, "player": PLAYER})
    for position, (seat, face) in enumerate(DEAL):
        _card(built, secrets, key_seed, position, seat, face)
    requests = [{"seat": PLAYER, "positions": [1, 3]}, {"seat": DEALER, "positions": [0, 1, 2]}]
    _emit(built, "shares_due", SERVER, {"deadline": T0 + 40_000, "requests": requests})
    _shares(built, secrets, PLAYER, [1, 3])
    _shares(built, secrets, DEALER, [0, 1, 2])
    _emit(built, "card_opened", SERVER, {"position": 1, "card": built.cards[1]})
    _emit(built, "move_due", SERVER, {"deadline": T0 + 50_000, "seat": PLAYER})
    _emit(built, "hit", party(PLAYER), {})
    _card(built, secrets, key_seed, HIT, PLAYER, "down")
    requests = [{"seat": DEALER, "positions": [HIT]}]
    _emit(built, "shares_due", SERVER, {"deadline": T0 + 60_000, "requests": requests})
    _shares(built, secrets, DEALER, [HIT])
    _emit(built, "blind", party(PLAYER), {})
    _card(built, secrets, key_seed, BLIND_CARD, PLAYER, "blind")
    _emit(built, "stand", party(PLAYER), {})
    _emit(built, "stand", party(DEALER), {})
    _emit(built, "keys_due", SERVER, {"deadline": T0 + 70_000, "seats": list(SEATS)})


def _card(
    built: BlindRound, secrets: dict[str, int], key_seed: bytes, position: int, seat: int, face: str
) -> None:
    group = built.group
    a, b = built.deck[position]
    ciphertext = Ciphertext(a, b)
    share = None
    if face != "blind":
        made = rounds.server_share(
            group, key_seed, ciphertext, table=TABLE, round_id=ROUND, position=position
        )
        share = made.to_json()
    data = {
        "position": position,
        "seat": seat,
        "face": face,
        "ciphertext": ciphertext.to_json(),
        "server_share": share,
    }
    _emit(built, "card_dealt", SERVER, data)
    point = elgamal.decrypt_with_keys(group, ciphertext, list(secrets.values()))
    index = elgamal.card_index(elgamal.card_points(group, GAME, DECKS), point)
    built.cards[position] = cards.canonical_deck(GAME, DECKS)[index]


def _shares(built: BlindRound, secrets: dict[str, int], seat: int, positions: list[int]) -> None:
    entries = []
    for position in positions:
        a, b = built.deck[position]
        context = rounds.proof_context(TABLE, ROUND, party(seat), "share", position)
        made = elgamal.decryption_share(
            built.group, secrets[party(seat)], Ciphertext(a, b), context=context
        )
        entries.append({"position": position, **made.to_json()})
    _emit(built, "decryption_shares", party(seat), {"shares": entries})


def _show(built: BlindRound, secrets: dict[str, int]) -> None:
    for seat in SEATS:
        _emit(built, "round_key", party(seat), {"secret": scalar(secrets[party(seat)])})
    for seat in SEATS:
        hidden = [p for p, (owner, face) in enumerate(_dealt()) if owner == seat and face != "up"]
        shown = [{"card": built.cards[p], "position": p} for p in hidden]
        _emit(built, "cards_shown", SERVER, {"cards": shown, "seat": seat})
    won = {"points": 1, "reason": "higher_total", "score": [0, 1], "seat": DEALER, "totals": []}
    _emit(built, "round_won", SERVER, won)
    _emit(built, "round_revealed", SERVER, {"server_seed": SERVER_SEED.hex()})


def _dealt() -> list[tuple[int, str]]:
    """Every dealt position's owner and face, by position."""
    return [*DEAL, (PLAYER, "down"), (PLAYER, "blind")]


def scalar(x: int) -> str:
    return x.to_bytes(32, "little").hex()


def events(built: BlindRound) -> list[Event]:
    """The round's events as the checker reads them (version 3, unsigned)."""
    return [
        Event(BLIND, TABLE, ROUND, seq, "00" * 32, LOGGED_AT + seq, e.type, e.actor, e.data)
        for seq, e in enumerate(built.events, start=1)
    ]


def check(built: BlindRound, group: Group | None = None) -> list[Finding]:
    """Steps 5 to 9 and 14 of the round's events (``RoundChecker``), on ``group``'s backend
    (the round's own by default)."""
    logged = events(built)
    checker = RoundChecker(
        TABLE, DECK_RULES, revealed_seeds(logged), version=BLIND, group=group or built.group
    )
    for event in logged:
        checker.check(event)
    checker.finish(logged[-1])
    return checker.findings


def codes(built: BlindRound, group: Group | None = None) -> set[str]:
    return {finding.code for finding in check(built, group)}
