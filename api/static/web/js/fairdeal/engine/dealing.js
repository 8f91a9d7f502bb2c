// fairdeal/games/dealing.py: the round protocol both games share (SPEC 6.4): commit,
// contribute, seal, deal, reveal.
// Exports: UP, DOWN, BLIND, FACES, TIMED_OUT_SEED, SEAL, VOID, WAIT, Deck, deriveDeck,
// makeRoundState, clientSeeds, deck, roundDeck, checkSecret, opened, refuseIfSealed,
// seedDraft, commitmentDraft, seedTimeoutDraft, seedingDraft, seeding, missingSeeds,
// sealedDraft, dealDraft, revealedDraft, voidedDraft, applyOpened, applySeed,
// applyCommitment, applySeedsCommitted, applySeedTimeout, applySeeding, applySealed,
// applyRevealed, seedsView.
//
// A RoundState is a plain object with Python's field names: round_id, number, commitment,
// seats (array), seed_deadline (null or ms), seeds and commitments (Maps seat -> text),
// sealed, revealed, revealing, out (a Set of seats). `secret` is the round's 32-byte
// server seed as a Uint8Array, or null.

import { bytesToHex } from "../bytes.js";
import { cardCommitment, cardSalt, clientSeedCommitment, dealOf, seedCommitment } from "../randomness.js";
import { seedProblem } from "../rounds.js";
import { draft, record } from "./base.js";
import { CommitmentError, IllegalActionError, NotDueError, OutOfTurnError, SealedError, SeedError } from "./errors.js";
import {
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
  actorSeat,
  isHex64,
} from "./protocol.js";
import { get, isStr, item, must, pyEqual, sameKeys, sorted } from "./pytypes.js";

export const UP = "up";
export const DOWN = "down";
export const BLIND = "blind";
export const FACES = [UP, DOWN, BLIND];
export const TIMED_OUT_SEED = ""; // a seat whose seed time ran out contributes the empty string
export const SEAL = "seal"; // what follows a seat's seed step (`seeding`)
export const VOID = "void";
export const WAIT = "wait";

/** A round's deck order and per-card salts, derived from the shuffle key (bytes). */
export class Deck {
  #salts = new Map(); // each salt is asked for when its card is dealt and again when shown

  constructor(key, cards) {
    this.key = key;
    this.cards = cards;
    Object.freeze(this);
  }

  card(position) {
    return item(this.cards, position);
  }

  salt(position) {
    let salt = this.#salts.get(position);
    if (salt === undefined) {
      salt = cardSalt(this.key, position);
      this.#salts.set(position, salt);
    }
    return salt;
  }

  /** The card's commitment, as hex. */
  commitment(position) {
    return cardCommitment(this.salt(position), item(this.cards, position));
  }
}

/** A RoundState with Python's defaults filled in. */
export function makeRoundState({
  round_id,
  number,
  commitment,
  seats,
  seed_deadline,
  seeds = new Map(),
  sealed = false,
  revealed = false,
  commitments = new Map(),
  revealing = false,
  out = new Set(),
}) {
  return { round_id, number, commitment, seats, seed_deadline, seeds, sealed, revealed, commitments, revealing, out };
}

export function clientSeeds(current) {
  return current.seats.map((seat) => (current.seeds.has(seat) ? current.seeds.get(seat) : TIMED_OUT_SEED));
}

// The last deck `deck` derived, by the seeds Map of the round it was derived for: the
// copies a round evolves into share that Map until a seed changes it (Python's _memo).
const DECKS = new WeakMap();

/** The sealed round's deck, from the server seed; the seed must match the commitment. */
export function deck(current, secret, rules) {
  if (secret === null || secret === undefined || !current.sealed) {
    throw new IllegalActionError("the deck is known only from the server seed of a sealed round");
  }
  const memo = DECKS.get(current.seeds);
  if (
    memo &&
    memo.seats === current.seats &&
    memo.round_id === current.round_id &&
    memo.commitment === current.commitment &&
    pyEqual(memo.secret, secret) &&
    pyEqual(memo.rules, rules)
  ) {
    return memo.deck; // the seed was checked then
  }
  checkSecret(secret, current.commitment);
  const derived = roundDeck(secret, current.round_id, clientSeeds(current), rules);
  const { seats, round_id, commitment } = current;
  DECKS.set(current.seeds, { seats, round_id, commitment, secret, rules: { ...rules }, deck: derived });
  return derived;
}

/** The shuffle key from the seal, then the shuffled canonical deck; `rules` is the game's
 * deck rules, {game, decks}. */
export function roundDeck(serverSeed, roundId, seeds, rules) {
  const { key, deck: cards } = dealOf(seedHex(serverSeed), roundId, seeds, rules);
  return deriveDeck(key, cards);
}

/** A deck of these cards (already shuffled) under `key`. */
export function deriveDeck(key, cards) {
  return new Deck(key, Object.freeze(cards));
}

/** The seed as hex, once it is 32 bytes (Python's ValueError otherwise: a crash). */
function seedHex(secret) {
  if (!(secret instanceof Uint8Array) || secret.length !== 32) throw new RangeError("a server seed is 32 bytes");
  return bytesToHex(secret);
}

export function checkSecret(secret, commitment) {
  if (seedCommitment(seedHex(secret)) !== commitment) {
    throw new IllegalActionError("the server seed does not match the round's commitment");
  }
}

// Drafts. Each returns the event the game logs; the games decide when.

/** `round_opened` by the server: the commitment (checked against the seed where it is
 * known), the round's number, its seats in order and the seed deadline. */
export function opened(cmd, secret, number, seats, seedTime) {
  const commitment = get(cmd.data, "commitment");
  if (cmd.actor !== SERVER || cmd.round === null) throw new IllegalActionError("the server opens a round, naming it");
  if (!isHex64(commitment)) {
    throw new IllegalActionError("round_opened needs the commitment as 64 lowercase hex digits");
  }
  if (secret !== null && secret !== undefined) checkSecret(secret, commitment);
  const data = { commitment, number, seats: [...seats], seed_deadline: cmd.time + seedTime };
  return record(cmd, data);
}

/** A seed for a sealed round is late, also once the round is over (it was sealed). */
export function refuseIfSealed(current) {
  if (current.sealed) throw new SealedError("the round is sealed: no more client seeds");
}

/** The seat of `actor`, which may still send its seed or commitment now. */
function seatMaySeed(current, actor, now) {
  const seat = actorSeat(actor);
  refuseIfSealed(current);
  if (current.seed_deadline !== null && now >= current.seed_deadline) {
    throw new IllegalActionError("the seed time has run out; a seed_timeout is due");
  }
  if (seat === null || !current.seats.includes(seat)) {
    throw new OutOfTurnError("only a seat playing this round contributes a seed");
  }
  if (current.seeds.has(seat)) throw new IllegalActionError("this seat already contributed its seed");
  return seat;
}

/** `client_seed`: one per participating seat, only before the seal and its deadline. A
 * seat that committed sends it once the reveals are open, and it must open the
 * commitment; a seat that did not may send it straight away, before the reveals. */
export function seedDraft(current, actor, data, now) {
  const seat = seatMaySeed(current, actor, now);
  const seed = get(data, "seed");
  if (!isStr(seed) || !sameKeys(data, ["seed"])) {
    throw new IllegalActionError("client_seed carries exactly one text field, seed");
  }
  const problem = seedProblem(seed);
  if (problem) throw new SeedError(problem);
  const committed = current.commitments.has(seat) ? current.commitments.get(seat) : null;
  if (committed === null && current.revealing) {
    throw new IllegalActionError("the reveals are open: only a seat that committed sends a seed");
  }
  if (committed !== null && !current.revealing) {
    throw new IllegalActionError("this seat committed: it reveals once every seat has committed");
  }
  if (committed !== null && clientSeedCommitment(current.round_id, seat, seed) !== committed) {
    throw new CommitmentError("the seed does not open this seat's commitment");
  }
  return draft(CLIENT_SEED, actor, { seed }, current.round_id);
}

/** `seed_commitment`: a seat's commitment to its seed, before any seed is revealed. */
export function commitmentDraft(current, actor, data, now) {
  const seat = seatMaySeed(current, actor, now);
  if (current.revealing) throw new IllegalActionError("every seat has committed: the reveals are open");
  if (current.commitments.has(seat)) throw new IllegalActionError("this seat already committed");
  if (!sameKeys(data, ["commitment"]) || !isHex64(get(data, "commitment"))) {
    throw new IllegalActionError("seed_commitment carries exactly commitment, 64 lowercase hex");
  }
  return draft(SEED_COMMITMENT, actor, { commitment: data.commitment }, current.round_id);
}

/** `seed_timeout`: the seats whose seed (or commitment) time ran out, with the deadline. */
export function seedTimeoutDraft(current, data, now) {
  const expected = { deadline: current.seed_deadline, seats: missingSeeds(current) };
  if (current.sealed || current.seed_deadline === null || !pyEqual({ ...data }, expected)) {
    throw new IllegalActionError("no such seed deadline is pending");
  }
  if (now < current.seed_deadline) throw new NotDueError("the seed deadline has not passed");
  return draft(SEED_TIMEOUT, SERVER, expected, current.round_id);
}

/** The draft of a seat's `client_seed` or `seed_commitment`, or of the server's
 * `seed_timeout`, for the round in progress, `current`. */
export function seedingDraft(current, cmd) {
  if (cmd.type === CLIENT_SEED) return seedDraft(current, cmd.actor, cmd.data, cmd.time);
  if (cmd.type === SEED_COMMITMENT) return commitmentDraft(current, cmd.actor, cmd.data, cmd.time);
  if (cmd.actor !== SERVER) throw new IllegalActionError("the server times out seeds");
  return seedTimeoutDraft(current, cmd.data, cmd.time);
}

/** `[drafts, next]`: the drafts of a seed step (`seedingDraft`) and what the game does
 * next: SEAL once every seed is in or out, VOID (after `round_voided`, which the drafts
 * end with) when a committed seat withheld its seed, else WAIT. The last commitment (or
 * the commit timeout) opens the reveals, `revealTime` ms long, when a committed seed is
 * pending. */
export function seeding(current, cmd, revealTime) {
  const made = seedingDraft(current, cmd);
  const after = applySeeding(current, made);
  if (cmd.type === SEED_TIMEOUT && current.revealing) {
    const withheld = { reason: SEED_WITHHELD, seats: made.data.seats };
    return [[made, draft(ROUND_VOIDED, SERVER, withheld, current.round_id)], VOID];
  }
  if (missingSeeds(after).length) return [[made], WAIT];
  if (after.revealing || ![...after.commitments.keys()].some((seat) => !after.seeds.has(seat))) {
    return [[made], SEAL];
  }
  const deadline = { deadline: cmd.time + revealTime };
  return [[made, draft(SEEDS_COMMITTED, SERVER, deadline, current.round_id)], WAIT];
}

/** The seats a seed_timeout would name now: before the reveals, those that neither
 * committed nor sent a seed (nor timed out); once they are open, those that committed
 * and have not revealed. */
export function missingSeeds(current) {
  if (current.revealing) {
    return current.seats.filter((seat) => current.commitments.has(seat) && !current.seeds.has(seat));
  }
  return current.seats.filter(
    (seat) => !current.seeds.has(seat) && !current.commitments.has(seat) && !current.out.has(seat),
  );
}

/** What `seat` may send for the round's randomness now: before the reveals, a seat with
 * nothing in commits (or, trusting the operator with the deck, sends its seed in the clear);
 * once they are open, a seat that committed reveals. */
export function seedMoves(current, seat) {
  if (!missingSeeds(current).includes(seat)) return [];
  return current.revealing ? [CLIENT_SEED] : [SEED_COMMITMENT, CLIENT_SEED];
}

/** `round_sealed`: the client seeds in seat order, as the shuffle key binds them. */
export function sealedDraft(current) {
  return draft(ROUND_SEALED, SERVER, { client_seeds: clientSeeds(current) }, current.round_id);
}

/** `card_dealt` at `position`, the next the game has not dealt: the card if face up,
 * else its commitment only. */
export function dealDraft(current, dealt, position, seat, face) {
  if (!FACES.includes(face)) throw new RangeError(`face must be one of ${FACES}`);
  if (position >= dealt.cards.length) throw new IllegalActionError("the deck is exhausted");
  const data = { position, seat, face };
  if (face === UP) data.card = dealt.card(position);
  else data.commitment = dealt.commitment(position);
  return draft(CARD_DEALT, SERVER, data, current.round_id);
}

/** `round_revealed`: the server seed, the last event of every round. */
export function revealedDraft(current, secret) {
  if (secret === null || secret === undefined) throw new IllegalActionError("the reveal needs the round's server seed");
  checkSecret(secret, current.commitment);
  return draft(ROUND_REVEALED, SERVER, { server_seed: bytesToHex(secret) }, current.round_id);
}

/** `round_voided`: a round that cannot finish, with the reason; a reveal follows. */
export function voidedDraft(current, reason) {
  return draft(ROUND_VOIDED, SERVER, { reason }, current.round_id);
}

// Applying the shared events (an event or a draft: type, actor, round, data).

export function applyOpened(event) {
  const data = event.data;
  if (event.round === null) throw new TypeError("round_opened names its round");
  return makeRoundState({
    round_id: event.round,
    number: must(data, "number"),
    commitment: must(data, "commitment"),
    seats: [...must(data, "seats")],
    seed_deadline: must(data, "seed_deadline"),
  });
}

export function applySeed(current, event) {
  const seat = seatOf(event);
  return { ...current, seeds: new Map(current.seeds).set(seat, must(event.data, "seed")) };
}

export function applyCommitment(current, event) {
  const seat = seatOf(event);
  return { ...current, commitments: new Map(current.commitments).set(seat, must(event.data, "commitment")) };
}

export function applySeedsCommitted(current, event) {
  return { ...current, revealing: true, seed_deadline: must(event.data, "deadline") };
}

export function applySeedTimeout(current, event) {
  return { ...current, out: new Set([...current.out, ...must(event.data, "seats")]) };
}

function seatOf(event) {
  const seat = actorSeat(event.actor);
  if (seat === null) throw new TypeError(`${event.type} by the server`);
  return seat;
}

const SEEDING = new Map([
  [CLIENT_SEED, applySeed],
  [SEED_COMMITMENT, applyCommitment],
  [SEEDS_COMMITTED, applySeedsCommitted],
  [SEED_TIMEOUT, applySeedTimeout],
]);

/** The round after one of the seed events a seed step logs (see `seeding`). */
export function applySeeding(current, event) {
  const apply = SEEDING.get(event.type);
  if (apply === undefined) throw new TypeError(`KeyError: ${event.type}`);
  return apply(current, event);
}

export function applySealed(current) {
  return { ...current, sealed: true };
}

export function applyRevealed(current) {
  return { ...current, revealed: true };
}

/** Where the round's seeds stand, as both games' views show it. */
export function seedsView(current) {
  return {
    seed_deadline: current.seed_deadline,
    seeded: sorted(current.seeds),
    committed: sorted(current.commitments),
    revealing: current.revealing,
    sealed: current.sealed,
  };
}
