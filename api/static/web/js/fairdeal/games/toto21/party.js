// fairdeal/games/toto21/party.py (SPEC 15.13): a seat as a party to a dealer-blind round — its
// private round key, and what it sends when the log asks: its key with a proof, its shuffle
// step, its decryption shares, its key at the showdown. What the browser's play page runs for
// its seat, as the SDK runs party.py.
//
// A party answers only what the chain it checked asks of it (15.13.6.3, 15.13.7.3): before a
// step it checks every key proof and every earlier step from the log; it never shares its own
// face-down card, a blind card or an undealt position, and it reveals its key only when a
// keys_due names it after the dealer's turn or a golden point claim. Each refusal throws
// PartyRefusedError: the client then stops playing and keeps the log as evidence.
//
// The private key is drawn from the platform's CSPRNG (crypto.getRandomValues, through
// blind/group.js's randomScalar) and kept in a private field: no property, JSON form or
// printed form holds it, until `reveal` gives it at the showdown. Every computation with it
// is constant time (blind/group.js's mul and base).

import { bytesToHex, hexToBytes } from "../../bytes.js";
import { decrypt } from "../../blind/elgamal.js";
import { BlindError } from "../../blind/errors.js";
import * as g from "../../blind/group.js";
import { writeProof, writeScalar } from "../../blind/json.js";
import { newRoundKey, publicKey } from "../../blind/keys.js";
import { proveKey, proveShare } from "../../blind/proofs.js";
import { prove, shuffle } from "../../blind/shuffle.js";
import * as dealing from "../../engine/dealing.js";
import { FairdealError } from "../../engine/errors.js";
import {
  DECK_SHUFFLED,
  GOLDEN_POINT,
  KEYS_DUE,
  ROUND_OPENED,
  SEED_COMMITMENT,
  SHARES_DUE,
  SHUFFLE_DUE,
  seatActor,
} from "../../engine/protocol.js";
import * as cipher from "./cipher.js";

export const UP_CARD = 1; // the dealer's up-card: the only position Toto21 deals face up

/** The log asks a party for something it must not give, or shows a proof that fails. */
export class PartyRefusedError extends FairdealError {}

/**
 * Seat `seat`'s part in round `roundId` of table `table`: a fresh private round key (never
 * derived from anything the service sees), kept in memory for the round. A logged event is
 * read as [type, actor, data], its data as the rules record them (statements.commandData).
 */
export class Party {
  #x;

  constructor(seat, table, roundId) {
    this.seat = seat;
    this.table = table;
    this.round_id = roundId;
    this.#x = newRoundKey();
    Object.freeze(this);
  }

  get actor() {
    return seatActor(this.seat);
  }

  /** The public round key X = x·G, as 64 hex. */
  publicKey() {
    return bytesToHex(publicKey(this.#x));
  }

  /** What printing or serialising a party shows: never its key. */
  toJSON() {
    return { seat: this.seat, table: this.table, round_id: this.round_id, key: this.publicKey() };
  }

  toString() {
    return `Party(seat=${this.seat}, table=${this.table}, round_id=${this.round_id})`;
  }

  /** seed_commitment's data: the seed commitment and the round key with its proof. */
  commitmentData(commitment) {
    const proof = proveKey(this.#x, this.#context("round-key", 0));
    return { commitment, round_key: { key: this.publicKey(), proof: writeProof(proof) } };
  }

  /** deck_shuffled's data: after checking every key and step the log holds, the last deck
   * shuffled and re-encrypted under the joint key, with its proof. `witness` ({psi, rPrime}:
   * output i is input psi[i], r' by input) is drawn fresh unless given: a test that arranges
   * the deck gives it. */
  step(state, events, witness = null) {
    const task = this.stepTask(state);
    this.checkChain(state, events);
    return makeStep(task, witness);
  }

  /** What this seat's step shuffles, once a shuffle_due asks this seat for it: the last deck,
   * the joint key and the proof's context. Nothing secret (a step needs no round key), so a
   * step may be made apart (the play page's worker) while the chain is checked. */
  stepTask(state) {
    const crypto = cryptoOf(state);
    const current = roundOf(state);
    const request = crypto.request;
    if (request === null || request.kind !== SHUFFLE_DUE || request.seats.length !== 1 || request.seats[0] !== this.seat) {
      throw new PartyRefusedError("no shuffle_due asks this seat for its step");
    }
    return {
      inputs: cipher.deckOfCrypto(crypto).map((entry) => cipher.readCiphertext(entry)),
      key: cipher.jointKey(crypto, current.seats),
      context: this.#context("shuffle", crypto.decks.length),
    };
  }

  /** Every round key's proof and every step's proof, as logged (15.13.3.3, 15.13.5.3). */
  checkChain(state, events) {
    const crypto = cryptoOf(state);
    const current = roundOf(state);
    const keys = [];
    const decks = [[...cipher.publicDeck()]];
    for (const [kind, actor, data] of events) {
      if (kind === ROUND_OPENED) keys.push(this.#checkedKey(data.server_key, actor, keys));
      else if (kind === SEED_COMMITMENT) keys.push(this.#checkedKey(data.round_key, actor, keys));
      else if (kind === DECK_SHUFFLED) {
        const where = cipher.context(this.table, this.round_id, actor, "shuffle", decks.length - 1);
        const joint = bytesToHex(cipher.jointKey(crypto, current.seats));
        try {
          cipher.verifyStep(joint, decks[decks.length - 1], data.deck, data.proof, where);
        } catch (e) {
          if (e instanceof BlindError) throw new PartyRefusedError(`${actor}'s shuffle step does not verify: ${e.message}`);
          throw e;
        }
        decks.push(data.deck);
      }
    }
    if (keys.length !== 1 + current.seats.length || !keys.includes(this.publicKey())) {
      throw new PartyRefusedError("the log does not hold every party's round key, this seat's included");
    }
  }

  /** decryption_shares' data for the positions asked of this seat, each one the rules let it
   * open: the up-card, or another seat's face-down card. */
  shares(state) {
    const crypto = cryptoOf(state);
    const hand = state.hand;
    const request = crypto.request;
    if (request === null || request.kind !== SHARES_DUE || !request.seats.includes(this.seat)) {
      throw new PartyRefusedError("no shares_due asks this seat for shares");
    }
    const held = new Map(hand.held.map((card) => [card.position, card]));
    const entries = [];
    for (const position of request.positions.get(this.seat)) {
      const card = held.get(position);
      const allowed =
        card !== undefined &&
        ((card.face === dealing.UP && position === UP_CARD) || (card.face === dealing.DOWN && card.seat !== this.seat));
      if (!allowed) throw new PartyRefusedError(`the service asks for a share of position ${position}: refused`);
      const where = this.#context("share", position);
      const made = proveShare(this.#x, cipher.ciphertext(crypto, position).b, where);
      entries.push({ position, proof: writeProof(made.proof), share: bytesToHex(made.share) });
    }
    return { shares: entries };
  }

  /** One of this seat's face-down cards: every published share checked, then its own added
   * (never published before the showdown). */
  open(state, position) {
    const crypto = cryptoOf(state);
    const hand = state.hand;
    const held = hand.held.find((c) => c.position === position);
    if (held === undefined || held.seat !== this.seat || held.face !== dealing.DOWN) {
      throw new PartyRefusedError(`position ${position} is not this seat's face-down card`);
    }
    const ciphertext = cipher.ciphertext(crypto, position);
    const published = crypto.shares.get(position) ?? {};
    const others = [cipher.party(null), ...roundOf(state).seats.filter((s) => s !== this.seat).map(seatActor)];
    const total = [];
    for (const party of others) {
      if (!Object.hasOwn(published, party)) throw new PartyRefusedError(`${party}'s share of position ${position} is not logged`);
      total.push(this.#checkedShare(state, party, position, published[party]));
    }
    total.push(g.mul(ciphertext.b, this.#x));
    return cipher.cardOf(decrypt(ciphertext, total));
  }

  /** Every face-down card of this seat whose shares are all logged: a Map position -> card. */
  ownCards(state) {
    const crypto = cryptoOf(state);
    const hand = state.hand;
    if (hand === null) return new Map();
    const mine = hand.held.filter((c) => c.seat === this.seat && c.face === dealing.DOWN).map((c) => c.position);
    const needed = 1 + roundOf(state).seats.length - 1;
    const complete = mine.filter((p) => Object.keys(crypto.shares.get(p) ?? {}).length >= needed);
    return new Map(complete.map((p) => [p, this.open(state, p)]));
  }

  /** round_key's data: only once a keys_due names this seat, after the dealer's turn or the
   * player's golden point claim (15.13.7.3). */
  reveal(state, events) {
    const request = cryptoOf(state).request;
    if (request === null || request.kind !== KEYS_DUE || !request.seats.includes(this.seat)) {
      throw new PartyRefusedError("no keys_due asks this seat for its key");
    }
    const kinds = [...events].map(([kind]) => kind);
    if (!kinds.includes(KEYS_DUE)) throw new PartyRefusedError("the log holds no keys_due");
    const at = kinds.lastIndexOf(KEYS_DUE);
    const before = at > 0 ? kinds[at - 1] : "nothing";
    if (!["stand", "move_timeout", GOLDEN_POINT].includes(before)) {
      throw new PartyRefusedError(`a keys_due after ${before}, not after the dealer's turn or a claim`);
    }
    const hand = state.hand;
    if (before !== GOLDEN_POINT && (hand === null || hand.turn !== null)) {
      throw new PartyRefusedError("a keys_due before the dealer's turn ended");
    }
    return { secret: writeScalar(this.#x) };
  }

  #context(purpose, index) {
    return cipher.context(this.table, this.round_id, this.actor, purpose, index);
  }

  #checkedKey(value, actor, taken) {
    try {
      return cipher.checkKey(value, actor, this.table, this.round_id, taken);
    } catch (e) {
      if (e instanceof FairdealError) throw new PartyRefusedError(`${actor}'s round key: ${e.message}`);
      throw e;
    }
  }

  /** A published share with its proof checked for its party's key and context. */
  #checkedShare(state, party, position, share) {
    const crypto = cryptoOf(state);
    const key = party === cipher.party(null) ? crypto.server_key : crypto.round_keys.get(Number(party.slice("seat:".length)));
    const where = cipher.context(this.table, this.round_id, party, "share", position);
    try {
      const decoded = cipher.readShare({ ...share });
      cipher.verifyDleq(hexToBytes(key), cipher.ciphertext(crypto, position), decoded, where);
      return decoded.share;
    } catch (e) {
      if (e instanceof BlindError) throw new PartyRefusedError(`${party}'s share of position ${position}: ${e.message}`);
      throw e;
    }
  }
}

/** A step of `task` (Party.stepTask's), deck_shuffled's data: the deck shuffled and
 * re-encrypted, with its proof. */
export function makeStep({ inputs, key, context }, witness = null) {
  const made = shuffle(inputs, key, witness ?? {});
  const proof = prove(context, key, inputs, made.output, made.psi, made.rPrime);
  return { deck: made.output.map((c) => ({ a: bytesToHex(c.a), b: bytesToHex(c.b) })), proof };
}

function cryptoOf(state) {
  if (state.crypto === null || state.crypto === undefined) throw new PartyRefusedError("not a dealer-blind round");
  return state.crypto;
}

function roundOf(state) {
  if (state.round === null) throw new PartyRefusedError("no round");
  return state.round;
}
