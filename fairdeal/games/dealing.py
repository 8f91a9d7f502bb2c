"""The round protocol both games share: commit, contribute, seal, deal, reveal.

A round opens with the server's commitment; each participating seat adds a client
seed (or times out); the seal fixes the shuffle key; cards leave the deck strictly in
order; the round ends with the server seed revealed. The game modules call these
helpers from ``decide`` and ``apply`` and add their own rules around them.

A seat may first commit to its seed (``seed_commitment``, SPEC 6.4): once every seat
has committed, sent its seed or timed out, ``seeds_committed`` opens the reveals, and a
seat that committed and does not reveal in time voids the round under its own name
(``seed_withheld``). A round in which no seat commits is the first protocol's round.
"""

import hmac
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from fairdeal import cards, randomness
from fairdeal.errors import (
    CommitmentError,
    IllegalActionError,
    NotDueError,
    OutOfTurnError,
    SealedError,
)
from fairdeal.events import Draft, actor_seat
from fairdeal.frozen import evolve
from fairdeal.games.base import Command, Logged, record
from fairdeal.protocol import (
    CARD_DEALT,
    CLIENT_SEED,
    ROUND_REVEALED,
    ROUND_SEALED,
    ROUND_VOIDED,
    SEED_COMMITMENT,
    SEED_TIMEOUT,
    SEED_WITHHELD,
    SEEDS_COMMITTED,
    SERVER,
    is_hex64,
)

UP, DOWN, BLIND = "up", "down", "blind"
FACES = (UP, DOWN, BLIND)
TIMED_OUT_SEED = ""  # a seat whose seed time ran out contributes the empty string
SEAL, VOID, WAIT = "seal", "void", "wait"  # what follows a seat's seed step (``seeding``)


@dataclass(frozen=True)
class Deck:
    """A round's deck order and per-card salts, derived from the shuffle key."""

    key: bytes
    cards: tuple[str, ...]
    # hot: toto21 rounds, events (with the round's deck below). Each salt is asked for
    # when its card is dealt (the commitment) and again when it is shown: kept.
    _salts: dict[int, bytes] = field(default_factory=dict, init=False, repr=False, compare=False)

    def card(self, position: int) -> str:
        return self.cards[position]

    def salt(self, position: int) -> bytes:
        salt = self._salts.get(position)
        if salt is None:
            salt = self._salts[position] = randomness.card_salt(self.key, position)
        return salt

    def commitment(self, position: int) -> str:
        return randomness.card_commitment(self.salt(position), self.cards[position]).hex()


def derive_deck(key: bytes, canonical_order: tuple[str, ...]) -> Deck:
    return Deck(key, tuple(randomness.shuffle(key, canonical_order)))


@dataclass(frozen=True)
class _DeckMemo:
    """A deck ``RoundState.deck`` derived, with everything it was derived from."""

    secret: bytes
    rules: Mapping[str, Any]
    round: tuple[str, str, tuple[int, ...], Mapping[int, str]]  # id, commitment, seats, seeds
    deck: Deck

    def fits(self, secret: bytes, rules: Mapping[str, Any], current: "RoundState") -> bool:
        """Derived from this seed and these rules, for a copy of the same sealed round: a
        copy shares the round's id, commitment, seats and seeds (the very objects)."""
        round_id, commitment, seats, seeds = self.round
        return (
            seeds is current.seeds
            and seats is current.seats
            and round_id is current.round_id
            and commitment is current.commitment
            and self.secret == secret
            and self.rules == rules
        )


@dataclass(frozen=True)
class RoundState:
    """Where a round's randomness stands. Seeds are kept in seat order once sealed."""

    round_id: str
    number: int
    commitment: str
    seats: tuple[int, ...]
    seed_deadline: int | None  # the commit (or seed) deadline, then the reveal deadline
    seeds: Mapping[int, str] = field(default_factory=dict)
    sealed: bool = False
    revealed: bool = False
    commitments: Mapping[int, str] = field(default_factory=dict)
    revealing: bool = False  # seeds_committed is logged: only committed seats send seeds
    out: frozenset[int] = frozenset()  # seats a seed_timeout left out
    # hot: toto21 rounds, events; kvitlach rounds, events. The last deck derived, shared
    # with the copies this state evolves into: the rules ask for it at nearly every move.
    _memo: list[_DeckMemo] = field(default_factory=list, init=False, repr=False, compare=False)

    def client_seeds(self) -> list[str]:
        return [self.seeds.get(seat, TIMED_OUT_SEED) for seat in self.seats]

    def deck(self, secret: bytes | None, rules: Mapping[str, Any]) -> Deck:
        """The sealed round's deck, from the server seed; the seed must match the commitment."""
        if secret is None or not self.sealed:
            raise IllegalActionError(
                "the deck is known only from the server seed of a sealed round"
            )
        memo = self._memo
        if memo and memo[0].fits(secret, rules, self):  # the seed was checked then
            return memo[0].deck
        check_secret(secret, self.commitment)
        deck = round_deck(secret, self.round_id, self.client_seeds(), rules)
        source = (self.round_id, self.commitment, self.seats, self.seeds)
        memo[:] = [_DeckMemo(secret, dict(rules), source, deck)]
        return deck


def round_deck(
    server_seed: bytes, round_id: str, client_seeds: Sequence[str], rules: Mapping[str, Any]
) -> Deck:
    """The deck of a round: the shuffle key from the seal, then the shuffled canonical deck.

    ``rules`` is the game's deck rules, {"game": name, "decks": n}. ``RoundState.deck``
    keeps the deck it derived, so a round derives its deck once.
    """
    commitment = randomness.seed_commitment(server_seed)
    key = randomness.shuffle_key(server_seed, round_id, commitment, client_seeds, rules)
    return derive_deck(key, cards.canonical_deck(rules["game"], rules["decks"]))


def check_secret(secret: bytes, commitment: str) -> None:
    if not hmac.compare_digest(randomness.seed_commitment(secret).hex(), commitment):
        raise IllegalActionError("the server seed does not match the round's commitment")


# Drafts. Each returns the event the game logs; the games decide when.


def opened(
    command: Command, secret: bytes | None, number: int, seats: Sequence[int], seed_time: int
) -> Draft:
    """``round_opened`` by the server: the commitment (checked against the seed where it is
    known), the round's number, its seats in order and the seed deadline."""
    commitment = command.data.get("commitment")
    if command.actor != SERVER or command.round is None:
        raise IllegalActionError("the server opens a round, naming it")
    if not is_hex64(commitment):
        raise IllegalActionError("round_opened needs the commitment as 64 lowercase hex digits")
    if secret is not None:
        check_secret(secret, commitment)
    data = {
        "commitment": commitment,
        "number": number,
        "seats": list(seats),
        "seed_deadline": command.time + seed_time,
    }
    return record(command, data)


def refuse_if_sealed(current: RoundState) -> None:
    """A seed for a sealed round is late, also once the round is over (it was sealed)."""
    if current.sealed:
        raise SealedError("the round is sealed: no more client seeds")


def _seat_may_seed(current: RoundState, actor: str, now: int) -> int:
    """The seat of ``actor``, which may still send its seed or commitment now."""
    seat = actor_seat(actor)
    refuse_if_sealed(current)
    if current.seed_deadline is not None and now >= current.seed_deadline:
        raise IllegalActionError("the seed time has run out; a seed_timeout is due")
    if seat is None or seat not in current.seats:
        raise OutOfTurnError("only a seat playing this round contributes a seed")
    if seat in current.seeds:
        raise IllegalActionError("this seat already contributed its seed")
    return seat


def seed_draft(current: RoundState, actor: str, data: Mapping[str, Any], now: int) -> Draft:
    """``client_seed``: one per participating seat, only before the seal and its deadline.
    A seat that committed sends it once the reveals are open, and it must open the
    commitment; a seat that did not may send it straight away, before the reveals."""
    seat = _seat_may_seed(current, actor, now)
    seed = data.get("seed")
    if not isinstance(seed, str) or set(data) != {"seed"}:
        raise IllegalActionError("client_seed carries exactly one text field, seed")
    randomness.check_client_seed(seed)
    committed = current.commitments.get(seat)
    if committed is None and current.revealing:
        raise IllegalActionError("the reveals are open: only a seat that committed sends a seed")
    if committed is not None and not current.revealing:
        raise IllegalActionError("this seat committed: it reveals once every seat has committed")
    if committed is not None:
        opened = randomness.client_seed_commitment(current.round_id, seat, seed).hex()
        if not hmac.compare_digest(opened, committed):
            raise CommitmentError("the seed does not open this seat's commitment")
    return Draft(CLIENT_SEED, actor, {"seed": seed}, current.round_id)


def commitment_draft(current: RoundState, actor: str, data: Mapping[str, Any], now: int) -> Draft:
    """``seed_commitment``: a seat's commitment to its seed, before any seed is revealed."""
    seat = _seat_may_seed(current, actor, now)
    if current.revealing:
        raise IllegalActionError("every seat has committed: the reveals are open")
    if seat in current.commitments:
        raise IllegalActionError("this seat already committed")
    if set(data) != {"commitment"} or not is_hex64(data.get("commitment")):
        raise IllegalActionError("seed_commitment carries exactly commitment, 64 lowercase hex")
    return Draft(SEED_COMMITMENT, actor, {"commitment": data["commitment"]}, current.round_id)


def seed_timeout_draft(current: RoundState, data: Mapping[str, Any], now: int) -> Draft:
    """``seed_timeout``: the seats whose seed (or commitment) time ran out, with the deadline."""
    expected = {"deadline": current.seed_deadline, "seats": missing_seeds(current)}
    if current.sealed or current.seed_deadline is None or dict(data) != expected:
        raise IllegalActionError("no such seed deadline is pending")
    if now < current.seed_deadline:
        raise NotDueError("the seed deadline has not passed")
    return Draft(SEED_TIMEOUT, SERVER, expected, current.round_id)


def seeding_draft(current: RoundState, command: Command) -> Draft:
    """The draft of a seat's ``client_seed`` or ``seed_commitment``, or of the server's
    ``seed_timeout``, for the round in progress, ``current``."""
    if command.type == CLIENT_SEED:
        return seed_draft(current, command.actor, command.data, command.time)
    if command.type == SEED_COMMITMENT:
        return commitment_draft(current, command.actor, command.data, command.time)
    if command.actor != SERVER:
        raise IllegalActionError("the server times out seeds")
    return seed_timeout_draft(current, command.data, command.time)


def seeding(current: RoundState, command: Command, reveal_time: int) -> tuple[list[Draft], str]:
    """The drafts of a seed step (``seeding_draft``) and what the game does next: SEAL once
    every seed is in or out, VOID (after ``round_voided``, which the drafts end with) when
    a committed seat withheld its seed, else WAIT. The last commitment (or the commit
    timeout) opens the reveals, ``reveal_time`` ms long, when a committed seed is pending."""
    draft = seeding_draft(current, command)
    after = apply_seeding(current, draft)
    if command.type == SEED_TIMEOUT and current.revealing:
        withheld = {"reason": SEED_WITHHELD, "seats": draft.data["seats"]}
        return [draft, Draft(ROUND_VOIDED, SERVER, withheld, current.round_id)], VOID
    if missing_seeds(after):
        return [draft], WAIT
    if after.revealing or not any(seat not in after.seeds for seat in after.commitments):
        return [draft], SEAL
    deadline = {"deadline": command.time + reveal_time}
    return [draft, Draft(SEEDS_COMMITTED, SERVER, deadline, current.round_id)], WAIT


def missing_seeds(current: RoundState) -> list[int]:
    """The seats a seed_timeout would name now: before the reveals, those that neither
    committed nor sent a seed (nor timed out); once they are open, those that committed
    and have not revealed."""
    if current.revealing:
        return [
            seat
            for seat in current.seats
            if seat in current.commitments and seat not in current.seeds
        ]
    return [
        seat
        for seat in current.seats
        if seat not in current.seeds and seat not in current.commitments and seat not in current.out
    ]


def seed_moves(current: RoundState, seat: int) -> list[str]:
    """What ``seat`` may send for the round's randomness now: before the reveals, a seat
    with nothing in commits (or, trusting the operator with the deck, sends its seed in
    the clear); once they are open, a seat that committed reveals."""
    if seat not in missing_seeds(current):
        return []
    return [CLIENT_SEED] if current.revealing else [SEED_COMMITMENT, CLIENT_SEED]


def sealed_draft(current: RoundState) -> Draft:
    """``round_sealed``: the client seeds in seat order, as the shuffle key binds them."""
    return Draft(ROUND_SEALED, SERVER, {"client_seeds": current.client_seeds()}, current.round_id)


def deal_draft(
    current: RoundState, deck: Deck, position: int, seat: int | None, face: str
) -> Draft:
    """``card_dealt`` at ``position``, the next the game has not dealt (each game counts its
    cards dealt in its own play state, which every card changes anyway): the card if
    face up, else its commitment only."""
    if face not in FACES:
        raise ValueError(f"face must be one of {FACES}")
    if position >= len(deck.cards):
        raise IllegalActionError("the deck is exhausted")
    data: dict[str, Any] = {"position": position, "seat": seat, "face": face}
    if face == UP:
        data["card"] = deck.card(position)
    else:
        data["commitment"] = deck.commitment(position)
    return Draft(CARD_DEALT, SERVER, data, current.round_id)


def revealed_draft(current: RoundState, secret: bytes | None) -> Draft:
    """``round_revealed``: the server seed, the last event of every round."""
    if secret is None:
        raise IllegalActionError("the reveal needs the round's server seed")
    check_secret(secret, current.commitment)
    return Draft(ROUND_REVEALED, SERVER, {"server_seed": secret.hex()}, current.round_id)


def voided_draft(current: RoundState, reason: str) -> Draft:
    """``round_voided``: a round that cannot finish, with the reason; a reveal follows."""
    return Draft(ROUND_VOIDED, SERVER, {"reason": reason}, current.round_id)


# Applying the shared events.


def apply_opened(event: Logged) -> RoundState:
    data = event.data
    assert event.round is not None
    return RoundState(
        round_id=event.round,
        number=data["number"],
        commitment=data["commitment"],
        seats=tuple(data["seats"]),
        seed_deadline=data["seed_deadline"],
    )


def apply_seed(current: RoundState, event: Logged) -> RoundState:
    seat = actor_seat(event.actor)
    assert seat is not None
    return evolve(current, seeds={**current.seeds, seat: event.data["seed"]})


def apply_commitment(current: RoundState, event: Logged) -> RoundState:
    seat = actor_seat(event.actor)
    assert seat is not None
    return evolve(current, commitments={**current.commitments, seat: event.data["commitment"]})


def apply_seeds_committed(current: RoundState, event: Logged) -> RoundState:
    return evolve(current, revealing=True, seed_deadline=event.data["deadline"])


def apply_seed_timeout(current: RoundState, event: Logged) -> RoundState:
    return evolve(current, out=current.out | frozenset(event.data["seats"]))


_SEEDING = {
    CLIENT_SEED: apply_seed,
    SEED_COMMITMENT: apply_commitment,
    SEEDS_COMMITTED: apply_seeds_committed,
    SEED_TIMEOUT: apply_seed_timeout,
}


def apply_seeding(current: RoundState, event: Logged) -> RoundState:
    """The round after one of the seed events a seed step logs (see ``seeding``)."""
    return _SEEDING[event.type](current, event)


def apply_sealed(current: RoundState) -> RoundState:
    return evolve(current, sealed=True)


def apply_revealed(current: RoundState) -> RoundState:
    return evolve(current, revealed=True)


def seeds_view(current: RoundState) -> dict[str, Any]:
    """Where the round's seeds stand, as both games' views show it: the seats that sent
    their seed (or revealed it), those that committed, whether the reveals are open, and
    the deadline running (the commit deadline, then the reveal deadline)."""
    return {
        "seed_deadline": current.seed_deadline,
        "seeded": sorted(current.seeds),
        "committed": sorted(current.commitments),
        "revealing": current.revealing,
        "sealed": current.sealed,
    }
