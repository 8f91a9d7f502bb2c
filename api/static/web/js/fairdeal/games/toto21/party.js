// fairdeal/games/toto21/party.py (SPEC 15.13): a seat as a party to a dealer-blind round — its
// private round key, and what it sends when the log asks: its key with a proof, its shuffle
// step, its decryption shares, its key at the showdown. What the browser's play page runs for
// its seat, as the SDK runs party.py.
//
// A party answers only what the chain it checked asks of it (15.13.6.3, 15.13.7.3). The state
// it is given is the rules' fold of the log, which takes the service's events as they come: so
// before every answer the party reads the round's events itself (checkChain) and holds them to
// the rules it relies on: one opening, a round key for each of its parties (the service and
// two distinct seats, this one among them) with its proof, the steps by the service and then
// each seat in turn with their proofs, the dealer chosen once after the last step, then each
// card dealt in order as the deal or the draw just logged deals it (seat, face, and the last
// deck's ciphertext). It never shares its own face-down card, a blind card or an undealt
// position, and it reveals its key only when a keys_due follows the dealer's own stand or
// move timeout, or the player's golden point claim on its first move; after that it answers
// nothing else (a round id logged again cannot reuse its key). Each refusal throws
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
import { jointKey, newRoundKey, publicKey } from "../../blind/keys.js";
import { proveKey, proveShare } from "../../blind/proofs.js";
import { prove, shuffle } from "../../blind/shuffle.js";
import * as dealing from "../../engine/dealing.js";
import { FairdealError } from "../../engine/errors.js";
import { pyEqual } from "../../engine/pytypes.js";
import {
  CARD_DEALT,
  DECK_SHUFFLED,
  GOLDEN_POINT,
  KEYS_DUE,
  ROUND_OPENED,
  SEED_COMMITMENT,
  SERVER,
  SHARES_DUE,
  SHUFFLE_DUE,
  seatActor,
} from "../../engine/protocol.js";
import * as cipher from "./cipher.js";

export const UP_CARD = 1; // the dealer's up-card: the only position Toto21 deals face up
const [DEALER_CHOSEN, HIT, STAND, MOVE_TIMEOUT] = ["dealer_chosen", "hit", "stand", "move_timeout"];

/** The log asks a party for something it must not give, or shows a proof that fails. */
export class PartyRefusedError extends FairdealError {}

/**
 * Seat `seat`'s part in round `roundId` of table `table`: a fresh private round key (never
 * derived from anything the service sees), kept in memory for the round. A logged event is
 * read as [type, actor, data], its data as the rules record them (statements.commandData).
 */
export class Party {
  #x;
  #revealed = false;

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
    this.#notRevealed();
    const proof = proveKey(this.#x, this.#context("round-key", 0));
    return { commitment, round_key: { key: this.publicKey(), proof: writeProof(proof) } };
  }

  /** deck_shuffled's data: after checking every key and step the log holds, the last deck
   * shuffled and re-encrypted under the joint key, with its proof. `witness` ({psi, rPrime}:
   * output i is input psi[i], r' by input) is drawn fresh unless given: a test that arranges
   * the deck gives it. */
  step(state, events, witness = null) {
    const task = this.stepTask(state, events);
    this.checkChain(state, events);
    return makeStep(task, witness);
  }

  /** What this seat's step shuffles, once a shuffle_due asks this seat for it: the last deck,
   * the joint key and the proof's context, from the round's events read without checking
   * the steps' proofs (the caller checks them: checkChain). Nothing secret (a step needs no
   * round key), so a step may be made apart (the play page's worker) while they are checked. */
  stepTask(state, events) {
    const request = cryptoOf(state).request;
    if (request === null || request.kind !== SHUFFLE_DUE || request.seats.length !== 1 || request.seats[0] !== this.seat) {
      throw new PartyRefusedError("no shuffle_due asks this seat for its step");
    }
    this.#notRevealed();
    const read = this.#read(state, events, false);
    const step = read.decks.length - 1;
    if (step !== 1 + roundOf(state).seats.indexOf(this.seat) || read.roles !== null) {
      throw new PartyRefusedError(`step ${step} is not this seat's turn to shuffle`);
    }
    return {
      inputs: read.decks[read.decks.length - 1].map((entry) => cipher.readCiphertext(entry)),
      key: read.joint,
      context: this.#context("shuffle", step),
    };
  }

  /** The round's events read and held to the rules the party relies on (the module's
   * comment): every round key's proof and every step's proof (15.13.3.3, 15.13.5.3), the
   * steps' order, the dealer's choice and each card dealt. {keys, joint, decks, cards, roles}. */
  checkChain(state, events) {
    return this.#read(state, events, true);
  }

  #read(state, events, proofs) {
    const seats = [...roundOf(state).seats];
    if (new Set(seats).size !== seats.length || seats.length !== 2 || !seats.includes(this.seat)) {
      throw new PartyRefusedError(`the round's seats [${seats.join(", ")}] are not two seats, this one among them`);
    }
    const checkedKey = (value, actor, taken) => this.#checkedKey(value, actor, taken);
    const reader = new Reader(this, checkedKey, [SERVER, ...seats.map(seatActor)], proofs);
    for (const [kind, actor, data] of events) reader.read(kind, actor, data);
    return { keys: reader.keys, joint: reader.joint(), decks: reader.decks, cards: reader.cards, roles: reader.roles };
  }

  /** decryption_shares' data for the positions asked of this seat, each one the rules let it
   * open as the party reads the round: the up-card, or another seat's face-down card, of the
   * last deck. */
  shares(state, events) {
    const request = cryptoOf(state).request;
    if (request === null || request.kind !== SHARES_DUE || !request.seats.includes(this.seat)) {
      throw new PartyRefusedError("no shares_due asks this seat for shares");
    }
    this.#notRevealed();
    const read = this.checkChain(state, events);
    const entries = [];
    for (const position of request.positions.get(this.seat)) {
      const [seat, face] = read.cards.get(position) ?? [null, null];
      const allowed = (face === dealing.UP && position === UP_CARD) || (face === dealing.DOWN && seat !== this.seat);
      if (!allowed) throw new PartyRefusedError(`the service asks for a share of position ${position}: refused`);
      const where = this.#context("share", position);
      const made = proveShare(this.#x, ciphertextOf(read, position).b, where);
      entries.push({ position, proof: writeProof(made.proof), share: bytesToHex(made.share) });
    }
    return { shares: entries };
  }

  /** One of this seat's face-down cards: every published share checked, then its own added
   * (never published before the showdown). */
  open(state, events, position) {
    return this.#open(state, this.checkChain(state, events), position);
  }

  /** Every face-down card of this seat whose shares are all logged: a Map position -> card. */
  ownCards(state, events) {
    const crypto = cryptoOf(state);
    const read = this.checkChain(state, events);
    const mine = [...read.cards].filter(([, [seat, face]]) => seat === this.seat && face === dealing.DOWN).map(([p]) => p);
    const needed = read.keys.size - 1; // the service's share and every other seat's
    const complete = mine.filter((p) => Object.keys(crypto.shares.get(p) ?? {}).length >= needed);
    return new Map(complete.map((p) => [p, this.#open(state, read, p)]));
  }

  #open(state, read, position) {
    const [seat, face] = read.cards.get(position) ?? [null, null];
    if (seat !== this.seat || face !== dealing.DOWN) throw new PartyRefusedError(`position ${position} is not this seat's face-down card`);
    const ciphertext = ciphertextOf(read, position);
    const published = cryptoOf(state).shares.get(position) ?? {};
    const total = [];
    for (const party of [...read.keys.keys()].filter((p) => p !== this.actor)) {
      if (!Object.hasOwn(published, party)) throw new PartyRefusedError(`${party}'s share of position ${position} is not logged`);
      total.push(this.#checkedShare(read, party, position, published[party]));
    }
    total.push(g.mul(ciphertext.b, this.#x));
    try {
      return cipher.cardOf(decrypt(ciphertext, total));
    } catch (e) {
      if (e instanceof FairdealError) throw new PartyRefusedError(`position ${position} opens to no card: ${e.message}`);
      throw e;
    }
  }

  /** round_key's data: only once a keys_due names this seat right after the dealer's own
   * stand or move timeout, or the player's golden point claim on its first move (15.13.7.3).
   * The party answers nothing else in the round after it. */
  reveal(state, events) {
    const request = cryptoOf(state).request;
    if (request === null || request.kind !== KEYS_DUE || !request.seats.includes(this.seat)) {
      throw new PartyRefusedError("no keys_due asks this seat for its key");
    }
    const read = this.checkChain(state, events);
    const kinds = [...events].map(([kind]) => kind);
    if (!kinds.includes(KEYS_DUE)) throw new PartyRefusedError("the log holds no keys_due");
    const at = kinds.lastIndexOf(KEYS_DUE);
    const [before, actor, data] = at > 0 ? events[at - 1] : ["nothing", "", {}];
    if (read.roles === null || !turnsOver(before, actor, data, read.roles, kinds.slice(0, at))) {
      throw new PartyRefusedError(`a keys_due after ${before}, not after the dealer's turn or a claim`);
    }
    const hand = state.hand;
    if (before !== GOLDEN_POINT && (hand === null || hand.turn !== null)) {
      throw new PartyRefusedError("a keys_due before the dealer's turn ended");
    }
    this.#revealed = true;
    return { secret: writeScalar(this.#x) };
  }

  #notRevealed() {
    if (this.#revealed) throw new PartyRefusedError(`this seat's key for round ${this.round_id} is revealed`);
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
  #checkedShare(read, party, position, share) {
    const where = cipher.context(this.table, this.round_id, party, "share", position);
    try {
      const decoded = cipher.readShare({ ...share });
      cipher.verifyDleq(hexToBytes(read.keys.get(party)), ciphertextOf(read, position), decoded, where);
      return decoded.share;
    } catch (e) {
      if (e instanceof BlindError) throw new PartyRefusedError(`${party}'s share of position ${position}: ${e.message}`);
      throw e;
    }
  }
}

/** A round's events read one by one, as Party.checkChain holds them to the rules. */
class Reader {
  constructor(party, checkedKey, parties, proofs) {
    this.party = party;
    this.proofs = proofs; // whether the steps' proofs are checked (else their order alone)
    this.checkedKey = checkedKey;
    this.parties = parties; // the service, then each seat, in the steps' order
    this.keys = new Map(); // party -> its round key (hex), each proof checked
    this.decks = [[...cipher.publicDeck()]];
    this.cards = new Map(); // position -> [seat, face]
    this.roles = null; // [dealer, player]
    this.due = []; // the cards the rules deal next
  }

  read(kind, actor, data) {
    if (this.due.length && kind !== CARD_DEALT) throw new PartyRefusedError(`${kind} where the rules deal a card to seat ${this.due[0][0]}`);
    if (kind === ROUND_OPENED || kind === SEED_COMMITMENT) this.key(kind, actor, data);
    else if (kind === DECK_SHUFFLED) this.step(actor, data);
    else if (kind === DEALER_CHOSEN) this.chosen(data);
    else if ((kind === HIT || kind === dealing.BLIND) && this.roles !== null) this.due = [[Number(actor.slice("seat:".length)), kind === HIT ? dealing.DOWN : dealing.BLIND]];
    else if (kind === CARD_DEALT) this.card(data);
  }

  /** The sum of every party's key; refused until each is logged, this seat's its own. */
  joint() {
    const all = this.keys.size === this.parties.length && this.parties.every((p) => this.keys.has(p));
    if (!all || this.keys.get(this.party.actor) !== this.party.publicKey()) {
      throw new PartyRefusedError("the log does not hold every party's round key, this seat's included");
    }
    return jointKey(this.parties.map((p) => hexToBytes(this.keys.get(p))));
  }

  key(kind, actor, data) {
    const member = kind === ROUND_OPENED ? "server_key" : "round_key";
    if (!this.parties.includes(actor) || this.keys.has(actor) || (actor === SERVER) !== (kind === ROUND_OPENED)) {
      throw new PartyRefusedError(`${kind} by ${actor}: one key for each party of the round`);
    }
    this.keys.set(actor, this.checkedKey(data[member], actor, [...this.keys.values()]));
  }

  step(actor, data) {
    const step = this.decks.length - 1;
    if (step >= this.parties.length || actor !== this.parties[step]) {
      throw new PartyRefusedError(`step ${step} by ${actor}: the service shuffles first, then each seat in turn`);
    }
    const where = cipher.context(this.party.table, this.party.round_id, actor, "shuffle", step);
    // its own step is the one it signed (the chain checked that): not checked again
    try {
      if (this.proofs && actor !== this.party.actor) cipher.verifyStep(bytesToHex(this.joint()), this.decks[this.decks.length - 1], data.deck, data.proof, where);
    } catch (e) {
      if (e instanceof BlindError) throw new PartyRefusedError(`${actor}'s shuffle step does not verify: ${e.message}`);
      throw e;
    }
    this.decks.push(data.deck);
  }

  chosen(data) {
    const { dealer, player } = data;
    const seats = this.parties.slice(1).map((p) => Number(p.slice("seat:".length)));
    const picked = [dealer, player];
    const between = picked.every((s) => Number.isInteger(s)) && dealer !== player && picked.every((s) => seats.includes(s));
    if (this.roles !== null || this.decks.length <= this.parties.length || !between) {
      throw new PartyRefusedError("the dealer is chosen once, after every step, between the round's two seats");
    }
    this.roles = [dealer, player];
    this.due = [
      [player, dealing.DOWN],
      [dealer, dealing.UP],
      [player, dealing.DOWN],
      [dealer, dealing.DOWN],
    ];
  }

  card(data) {
    if (!this.due.length) throw new PartyRefusedError("a card dealt that no deal or draw deals");
    const [seat, face] = this.due.shift();
    const position = this.cards.size;
    const deck = this.decks[this.decks.length - 1];
    const dealt = [data.position, data.seat, data.face];
    const ciphertext = position < deck.length ? deck[position] : null;
    const exact = Number.isInteger(dealt[0]) && Number.isInteger(dealt[1]) && dealt[0] === position && dealt[1] === seat && dealt[2] === face;
    if (!exact || !pyEqual(data.ciphertext, ciphertext)) {
      throw new PartyRefusedError(`a card_dealt that is not the one the rules deal: position ${position} of the last deck, to seat ${seat}, ${face}`);
    }
    this.cards.set(position, [seat, face]);
  }
}

/** Whether `kind` by `actor` ends the play before a showdown: the dealer's own stand or move
 * timeout, or the player's golden point claim before any draw of its own. */
function turnsOver(kind, actor, data, [dealer, player], kinds) {
  if (kind === STAND) return actor === seatActor(dealer);
  if (kind === MOVE_TIMEOUT) return Number.isInteger(data.seat) && data.seat === dealer;
  return kind === GOLDEN_POINT && actor === seatActor(player) && !kinds.some((k) => k === HIT || k === dealing.BLIND);
}

/** A step of `task` (Party.stepTask's), deck_shuffled's data: the deck shuffled and
 * re-encrypted, with its proof. */
export function makeStep({ inputs, key, context }, witness = null) {
  const made = shuffle(inputs, key, witness ?? {});
  const proof = prove(context, key, inputs, made.output, made.psi, made.rPrime);
  return { deck: made.output.map((c) => ({ a: bytesToHex(c.a), b: bytesToHex(c.b) })), proof };
}

function ciphertextOf(read, position) {
  return cipher.readCiphertext(read.decks[read.decks.length - 1][position]);
}

function cryptoOf(state) {
  if (state.crypto === null || state.crypto === undefined) throw new PartyRefusedError("not a dealer-blind round");
  return state.crypto;
}

function roundOf(state) {
  if (state.round === null) throw new PartyRefusedError("no round");
  return state.round;
}
