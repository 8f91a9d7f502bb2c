// Steps (8) and (9) of a dealer-blind round (protocol version 3, SPEC 15.13.12 items 1 to 5):
// verifier/blind.py, check for check, finding for finding, in the same order.
//
// Read from the events alone, never through the game modules: the parties' round keys and
// their proofs of knowledge; the shuffle chain from the public deck, each step's proof for its
// context and the joint key, and the service's step recomputed from its revealed shuffle key;
// the dealt ciphertexts and every decryption share; the opened and shown cards; the revealed
// round keys; and, once every private key is known, the whole deck opened. rounds.js's
// RoundChecker calls these for a chain of version 3 and keeps the rest: the seeds, the
// positions' order and the rounds' ends.
//
// A check that needs a value an earlier finding refused (a round key that is no element, a
// deck that cannot be read, a revealed key that is not its seat's) is left out: one finding per
// problem, as everywhere in the verifier.
//
// Every value checked here is public (the proofs' scalars, the logged elements) or revealed
// (the service's x_0 and shuffle key from its revealed seed, the seats' revealed keys); the
// service's x_0 and its step's draws still go through the group's constant-time paths.

import { bytesToHex, hexToBytes } from "./bytes.js";
import { canonicalDeck as deckOf } from "./engine/cards.js";
import { pyEqual, repr, sameKeys } from "./engine/pytypes.js";
import { cardIndex, cardPoints, decrypt } from "./blind/elgamal.js";
import { BlindEncodingError, BlindError } from "./blind/errors.js";
import * as g from "./blind/group.js";
import { readElement, readProof, readScalar } from "./blind/json.js";
import { checkRevealedKey, jointKey, roundKeyPoint, serverRoundKey } from "./blind/keys.js";
import { verifyKey, verifyShare } from "./blind/proofs.js";
import { decryptWithKeys, proofContext, serverPermutation, serverReencryption, serverStepKey } from "./blind/round.js";
import { shuffle, verifyStep } from "./blind/shuffle.js";

const SERVER = "server";
// Toto21's showdown event; its version-3 entries are {card, position} (SPEC 15.13.7.3)
export const CARDS_SHOWN = "cards_shown";
const SHARED_FACES = ["up", "down"]; // the faces the service shares at once (SPEC 15.13.6.2)
const FACES = [...SHARED_FACES, "blind"];
const MAX_SEAT = 99; // the last seat an actor names (SPEC 5.1), and so a proof context
const CARD_DEALT_MEMBERS = ["position", "seat", "face", "ciphertext", "server_share"];
const SERVER_STEP = 0; // the service's step is step 0 of a round's chain (SPEC 15.12.3)
const BLIND = 3;
const SIGNATURE = "signed";

const isInt = (v) => typeof v === "number" && Number.isSafeInteger(v);
const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
// A value in a reason as Python's !r writes it (strings and the values the checks meet)
const show = (v) =>
  typeof v === "string" ? repr(v) : v === undefined || v === null ? "None" : typeof v === "boolean" ? (v ? "True" : "False") : JSON.stringify(v);
const party = (seat) => `seat:${seat}`;
const decksOf = (value) => (isInt(value) ? value : 1);

/**
 * An event's data as the rules record them (SPEC 6.7, 15.13.11): without the statement a seat
 * signed (``signed``), and in version 3 with the members it signed, which are logged inside
 * it, put back. Data of no seat's statement are returned as they are. (fairdeal/statements.py's
 * command_data; a local copy, so that the verifier's own checks need nothing of the engine's.)
 */
export function commandData(version, data) {
  const signed = data[SIGNATURE];
  if (!isObject(signed)) return data;
  const others = Object.fromEntries(Object.entries(data).filter(([name]) => name !== SIGNATURE));
  const inner = signed.data;
  if (version >= BLIND && isObject(inner)) return { ...inner, ...others };
  return others;
}

/** (1) A version-3 ``round_opened`` without an object ``server_key`` (SPEC 7 step 1). */
export function serverKeyProblem(data) {
  if (isObject(data.server_key)) return null;
  return "a version-3 round_opened carries server_key, an object {key, proof}";
}

/** (1) A version-3 ``card_dealt`` not of exactly its five members (SPEC 15.13.6.1). */
export function cardDealtProblem(data) {
  const { seat, server_share: share } = data;
  if (
    !sameKeys(data, CARD_DEALT_MEMBERS) ||
    !isInt(data.position) ||
    !(seat === null || isInt(seat)) ||
    !FACES.includes(data.face) ||
    !isObject(data.ciphertext) ||
    !(share === null || isObject(share))
  ) {
    return (
      "a version-3 card_dealt is exactly position (an integer), seat (an integer or " +
      "null), face (up, down or blind), ciphertext (an object) and server_share " +
      "(an object or null)"
    );
  }
  return null;
}

/** The values of a JSON object with exactly the members ``names``, in that order
 * (fairdeal/blind/proofs.py's members, its message too). */
function members(value, names, what) {
  if (!isObject(value) || !sameKeys(value, names)) {
    throw new BlindEncodingError(`${what}: an object with exactly ${names.join(", ")}`);
  }
  return names.map((name) => value[name]);
}

/** A ciphertext from its JSON form: {a, b} of two elements, decoded. */
function readCiphertext(value) {
  const [a, b] = members(value, ["a", "b"], "ciphertext");
  return { a: readElement(a), b: readElement(b) };
}

const ciphertextJson = (c) => ({ a: bytesToHex(c.a), b: bytesToHex(c.b) });

// Each deck's card points, computed once (36 hashes to the group for Toto21's deck)
const POINTS = new Map();

/** The card points of (game, decks), in canonical order; RangeError for no such deck. */
function pointsOf(game, decks) {
  const key = JSON.stringify([game, decks]);
  if (!POINTS.has(key)) POINTS.set(key, Object.freeze(cardPoints(game, decks)));
  return POINTS.get(key);
}

/** The public deck (M_i, O) of (game, decks), as ciphertexts of bytes. */
function publicDeck(game, decks) {
  const O = g.identity();
  return pointsOf(game, decks).map((M) => ({ a: M, b: O }));
}

/** What one blind round carries through steps (8) and (9) (verifier/blind.py's BlindRound). */
export class BlindRound {
  constructor(id, parties, serverSecret) {
    this.id = id;
    this.parties = parties; // "server", then each seat's actor in seats order
    this.serverSecret = serverSecret; // x_0, from the revealed server seed (or null)
    this.keys = new Map(); // party -> logged round key (bytes): elements, not O
    this.sealed = false;
    this.shuffleKey = null; // from the seal, once the seed is revealed
    this.decks = []; // the public deck, then each step's output (JSON, as logged)
    this.deck = null; // the last step's output, read: [{a, b}] of bytes
    this.dealt = new Map(); // position -> {face, ciphertext}
    this.shares = new Map(); // position -> Map(party -> share bytes, or null where refused)
    this.secrets = new Map(); // seat's party -> its revealed private key (BigInt), null if refused
  }

  /** The shuffle steps logged (the first entry of ``decks`` is the public deck). */
  get steps() {
    return Math.max(this.decks.length - 1, 0);
  }

  /** Every party's step is logged: the round's deck is made, cards may be dealt. */
  get complete() {
    return this.steps === this.parties.length;
  }

  /** The seats whose private round key is not logged, refused or not. */
  unrevealed() {
    return this.parties.slice(1).filter((p) => !this.secrets.has(p));
  }

  /** Every party's private round key, once all are known and checked. */
  privateKeys() {
    const found = this.parties
      .slice(1)
      .map((p) => this.secrets.get(p))
      .filter((x) => x !== undefined && x !== null);
    if (this.serverSecret === null || found.length < this.parties.length - 1) return null;
    return [this.serverSecret, ...found];
  }
}

/** The checks of a version-3 chain's rounds; ``find(code, event, reason)`` records a finding. */
export class BlindChecks {
  constructor(table, deckRules, find) {
    this.table = table;
    this.game = deckRules.game;
    this.decks = deckRules.decks;
    this.find = find;
    this.points = null;
    this.public = null;
  }

  context(roundId, who, purpose, index) {
    return proofContext(this.table, roundId, who, purpose, index);
  }

  // (8) round keys -----------------------------------------------------------------------

  /** ``round_opened``: the service's round key and its proof; with the revealed seed (hex),
   * that it is the seed's key. */
  open(event, seats, seedHex) {
    const secret = seedHex === undefined || seedHex === null ? null : serverRoundKey(hexToBytes(seedHex));
    const parties = seats.filter((s) => s >= 0 && s <= MAX_SEAT).map(party);
    const current = new BlindRound(String(event.round), [SERVER, ...parties], secret);
    if (parties.length < seats.length) {
      // SPEC 5.1's actors: no context names another seat
      this.find("blind.key", event, `seats ${JSON.stringify(seats)}: a party is seat:0 to seat:${MAX_SEAT}`);
    }
    const value = event.data.server_key;
    if (!isObject(value)) return current; // (1) schema.data, rounds.js's
    const key = this.roundKey(current, event, SERVER, value);
    // x_0 is revealed by now; still the constant-time path, as for any key
    if (key !== null && secret !== null && bytesToHex(g.base(secret)) !== bytesToHex(key)) {
      this.find("blind.server_key", event, "server_key is not the round key of the revealed server seed");
      current.serverSecret = null; // no card is opened with a key that is not X_0's
    }
    return current;
  }

  /** A seat's ``seed_commitment``: its ``round_key`` and proof (read by command data). */
  commitment(current, event, seat) {
    if (!current.parties.includes(party(seat))) return; // (7) seed.client, rounds.js's
    this.roundKey(current, event, party(seat), event.data.round_key);
  }

  /** A party's round key with its proof (SPEC 15.9), recorded when it is an element other
   * than O (the joint key needs it, even when its proof fails). */
  roundKey(current, event, who, value) {
    let key;
    let proofJson;
    try {
      let raw;
      [raw, proofJson] = members(value, ["key", "proof"], "a round key");
      key = readElement(raw);
      roundKeyPoint(key);
    } catch (e) {
      if (!(e instanceof BlindError)) throw e;
      this.find("blind.key", event, `${who}'s round key: ${e.message}`);
      return null;
    }
    const hex = bytesToHex(key);
    const others = [...current.keys].filter(([, known]) => bytesToHex(known) === hex).map(([p]) => p);
    if (!current.keys.has(who)) current.keys.set(who, key); // even a copied key: the steps are checked all the same
    if (others.length) {
      this.find("blind.key", event, `${who}'s round key is ${others.join(", ")}'s too`);
      return key;
    }
    const context = this.context(current.id, who, "round-key", 0);
    const problem = problemOf(() => verifyKey(key, context, readProof(proofJson)));
    if (problem !== null) this.find("blind.key", event, `${who}'s proof of knowledge: ${problem}`);
    return key;
  }

  /** X = Σ X_j, once every party's key is logged (null: some key is missing). */
  jointKey(current) {
    if (current.parties.some((p) => !current.keys.has(p))) return null;
    return jointKey(current.parties.map((p) => current.keys.get(p)));
  }

  // (8) the shuffle chain ----------------------------------------------------------------

  /** The seal: the steps may start; with the revealed seed, the shuffle key. */
  sealed(current, shuffleKey) {
    current.sealed = true;
    current.shuffleKey = shuffleKey;
  }

  /** A ``deck_shuffled``: the next step, by the next party, after the seal; its proof for its
   * context, the joint key and the previous step's logged deck. */
  shuffled(current, event) {
    const k = current.steps;
    const problem = this.outOfOrder(current, event, k);
    if (problem !== null) return this.find("blind.shuffle", event, problem);
    if (!current.decks.length) {
      const deck = this.publicDeck();
      if (deck === null) {
        const reason = `no public deck for ${show(this.game)}, ${show(this.decks)}`;
        return this.find("deck.rules", event, reason);
      }
      current.decks.push(deck);
    }
    const inputs = current.decks.at(-1);
    const outputs = event.data.deck;
    current.decks.push(outputs);
    if (current.complete) current.deck = readDeck(outputs);
    const joint = this.jointKey(current);
    if (joint === null) return; // a key is missing: blind.key
    const who = current.parties[k];
    const context = this.context(current.id, who, "shuffle", k);
    const found = verifyStepOf(joint, inputs, outputs, event.data.proof, context);
    if (found !== null) this.find("blind.shuffle", event, `step ${k} by ${who}: ${found}`);
    if (k === SERVER_STEP && current.shuffleKey !== null) this.serverStep(current, event, joint);
  }

  outOfOrder(current, event, k) {
    const data = event.data;
    if (!current.sealed) return "a shuffle step before the seal";
    if (k >= current.parties.length) return `a shuffle step after the round's ${current.parties.length} steps`;
    if (!sameKeys(data, ["deck", "proof", "step"])) return "deck_shuffled carries exactly deck, proof and step";
    const step = data.step;
    const expected = current.parties[k];
    if (!isInt(step) || step !== k || event.actor !== expected) {
      return `step ${show(step)} by ${event.actor}; the next is step ${k}, by ${expected}`;
    }
    return null;
  }

  /** Step 0's input: (M_i, O) for each card of the table's deck, in canonical order, as JSON
   * (null: the table's rules name no deck). */
  publicDeck() {
    if (this.public === null) {
      try {
        this.public = publicDeck(String(this.game), decksOf(this.decks)).map(ciphertextJson);
      } catch (e) {
        if (!(e instanceof RangeError)) throw e;
        return null;
      }
    }
    return this.public;
  }

  /** With the revealed shuffle key, the service's deck is the one 15.12.3 draws: ψ and r' from
   * the step key. Its proof is the replay's to recompute (steps 10 and 11). */
  serverStep(current, event, joint) {
    const where = { table: this.table, round: current.id, game: String(this.game), decks: decksOf(this.decks) };
    if (!pyEqual(event.data.deck, drawnDeck(current.shuffleKey, joint, where))) {
      this.find("blind.server_step", event, "the service's deck is not the one its shuffle key gives");
    }
  }

  // (9) dealt cards and shares -----------------------------------------------------------

  /** A ``card_dealt`` (its form checked): its ciphertext is the deck's at its position, and
   * the service's share is there, verified, for a card face up or down only. */
  dealt(current, event) {
    const data = event.data;
    const deck = current.deck;
    const position = data.position;
    if (deck === null) return; // no deck: card.position (dealt before the last step) or blind.shuffle
    if (!(position >= 0 && position < deck.length)) {
      return this.find("card.position", event, `position ${position} is past the deck's end`);
    }
    const ciphertext = deck[position];
    if (!pyEqual(data.ciphertext, ciphertextJson(ciphertext))) {
      this.find("card.ciphertext", event, `the ciphertext is not the deck's entry at position ${position}`);
    }
    current.dealt.set(position, { face: data.face, ciphertext });
    const share = data.server_share;
    if (!SHARED_FACES.includes(data.face)) {
      if (share !== null) this.find("blind.share", event, `a server share of the blind card ${position}`);
    } else if (share === null) {
      this.find("blind.share", event, `no server share of the ${data.face} card`);
    } else {
      this.share(current, event, SERVER, position, share);
    }
  }

  /** A seat's ``decryption_shares``: each entry's proof for its key and context. */
  shares(current, event) {
    const entries = event.data.shares;
    if (current.deck === null) return; // no deck to share: card.position or blind.shuffle
    if (!current.parties.slice(1).includes(event.actor) || !Array.isArray(entries)) {
      return this.find("blind.share", event, "decryption_shares by a seat of the round, a list");
    }
    for (const entry of entries) {
      let position, proof, share;
      try {
        [position, proof, share] = members(entry, ["position", "proof", "share"], "a share");
      } catch (e) {
        if (!(e instanceof BlindError)) throw e;
        this.find("blind.share", event, e.message);
        continue;
      }
      this.share(current, event, event.actor, position, { proof, share });
    }
  }

  /** One party's share of a dealt position: verified, recorded (null: refused). */
  share(current, event, who, position, value) {
    const dealt = isInt(position) ? current.dealt.get(position) : undefined;
    if (dealt === undefined) {
      return this.find("blind.share", event, `${who}'s share of position ${show(position)}, not dealt`);
    }
    if (!current.shares.has(position)) current.shares.set(position, new Map());
    const shares = current.shares.get(position);
    shares.set(who, null);
    const key = current.keys.get(who);
    if (key === undefined) return; // no round key to check it with: blind.key
    const context = this.context(current.id, who, "share", position);
    let read;
    try {
      const [proof, share] = members(value, ["proof", "share"], "decryption share");
      read = { share: readElement(share), proof: readProof(proof) };
    } catch (e) {
      if (!(e instanceof BlindError)) throw e;
      return this.find("blind.share", event, `${who}'s share of position ${position}: ${e.message}`);
    }
    const problem = problemOf(() => verifyShare(key, dealt.ciphertext.b, read.share, context, read.proof));
    if (problem !== null) {
      return this.find("blind.share", event, `${who}'s share of position ${position}: ${problem}`);
    }
    shares.set(who, read.share);
  }

  // (9) opened, revealed and shown cards -------------------------------------------------

  /** A ``card_opened``: the decryption of its position with every party's share. */
  cardOpened(current, event) {
    const { position, card } = event.data;
    if (current.deck === null) return; // no deck to open: card.position or blind.shuffle
    if (!isInt(position) || !current.dealt.has(position)) {
      return this.find("card.wrong_card", event, `opens position ${show(position)}, never dealt`);
    }
    const dealt = current.dealt.get(position);
    const logged = current.shares.get(position) ?? new Map();
    const missing = current.parties.filter((p) => !logged.has(p));
    if (missing.length) {
      const reason = `position ${position} is opened without the shares of ${missing.join(", ")}`;
      return this.find("card.wrong_card", event, reason);
    }
    const shares = current.parties.map((p) => logged.get(p)).filter((s) => s !== null);
    if (shares.length < current.parties.length) return; // a share refused: blind.share (or blind.key)
    const found = this.card(decrypt(dealt.ciphertext, shares));
    if (found !== card) {
      const reason = `position ${position} decrypts to ${found ?? "no card"}, not ${show(card)}`;
      this.find("card.wrong_card", event, reason);
    }
  }

  /** A seat's ``round_key``: the private key of its logged round key. */
  roundKeyRevealed(current, event) {
    const who = event.actor;
    const secret = event.data.secret;
    if (!current.parties.slice(1).includes(who)) {
      return this.find("blind.reveal", event, `a round key revealed by ${who}, not of the round`);
    }
    current.secrets.set(who, null); // revealed: refused unless it checks
    const key = current.keys.get(who);
    if (!sameKeys(event.data, ["secret"])) {
      this.find("blind.reveal", event, "round_key carries exactly secret");
    } else if (key !== undefined) {
      // else no round key to check it with: blind.key
      let x;
      try {
        x = readScalar(secret);
        checkRevealedKey(key, x);
      } catch (e) {
        if (!(e instanceof BlindError)) throw e;
        return this.find("blind.reveal", event, `${who}'s secret: ${e.message}`);
      }
      current.secrets.set(who, x);
    }
  }

  /** A ``cards_shown``: each {card, position} the decryption with the private keys. */
  shown(current, event) {
    const entries = event.data.cards;
    const keys = current.privateKeys();
    if (current.deck === null || !Array.isArray(entries)) return; // card.position or blind.shuffle
    const unrevealed = current.unrevealed();
    if (unrevealed.length) {
      return this.find("card.shown", event, `cards shown before ${unrevealed.join(", ")} revealed its round key`);
    }
    for (const entry of entries) {
      if (!isObject(entry) || !sameKeys(entry, ["card", "position"])) {
        this.find("card.shown", event, "a version-3 shown card is {card, position}");
        continue;
      }
      const { position, card } = entry;
      const dealt = isInt(position) ? current.dealt.get(position) : undefined;
      if (dealt === undefined) {
        this.find("card.shown", event, `shows position ${show(position)}, never dealt`);
      } else if (keys !== null) {
        const found = this.card(decryptWithKeys(dealt.ciphertext, keys));
        if (found !== card) {
          const reason = `position ${position} decrypts to ${found ?? "no card"}, not ${show(card)}`;
          this.find("card.shown", event, reason);
        }
      }
    }
  }

  /** At the reveal, with every private key: the whole deck opens to each card once. */
  revealed(current, event) {
    const keys = current.privateKeys();
    if (keys === null || current.deck === null) return;
    const found = current.deck.map((c) => this.card(decryptWithKeys(c, keys)));
    const order = this.order();
    const sortedFound = found.map((c) => c ?? "").sort(byCodePoint);
    const sortedOrder = [...order].sort(byCodePoint);
    if (sortedFound.length !== sortedOrder.length || sortedFound.some((c, i) => c !== sortedOrder[i])) {
      const have = new Set(found.filter((c) => c));
      const missing = [...new Set(order)].filter((c) => !have.has(c)).sort(byCodePoint);
      const listed = missing.length ? `[${missing.map((c) => `'${c}'`).join(", ")}]` : "none";
      this.find("blind.deck", event, `the opened deck is not every card once (missing ${listed})`);
    }
  }

  order() {
    return deckOf(String(this.game), decksOf(this.decks));
  }

  /** The card code of a card point, null for a point that is no card. */
  card(point) {
    if (this.points === null) this.points = pointsOf(String(this.game), decksOf(this.decks));
    let index;
    try {
      index = cardIndex(point, this.points);
    } catch (e) {
      if (!(e instanceof BlindError)) throw e;
      return null;
    }
    return this.order()[index];
  }
}

const byCodePoint = (a, b) => (a < b ? -1 : a > b ? 1 : 0); // ASCII card codes: Python's order

/** Output i is public card ψ(i) re-encrypted with r'_ψ(i) (SPEC 15.12.3): blind/round.js's
 * draws from the step key of ``shuffleKey``, re-encrypted on the constant-time path
 * (shuffle.js's shuffle), as JSON. */
function drawnDeck(shuffleKey, joint, where) {
  const input = publicDeck(where.game, where.decks);
  const stepKey = serverStepKey(shuffleKey, joint, where);
  const [psi, rPrime] = [serverPermutation(stepKey, input.length), serverReencryption(stepKey, input.length)];
  return shuffle(input, joint, { psi, rPrime }).output.map(ciphertextJson);
}

/** The last step's output read, or null (blind.shuffle says why). */
function readDeck(value) {
  if (!Array.isArray(value)) return null;
  try {
    return value.map(readCiphertext);
  } catch (e) {
    if (!(e instanceof BlindError)) throw e;
    return null;
  }
}

/** SPEC 15.11.7 for one step: null, or the failing step's reason. */
function verifyStepOf(joint, inputs, outputs, proof, context) {
  return problemOf(() => verifyStep(context, bytesToHex(joint), inputs, outputs, proof));
}

/** null if ``verify`` returns, else why it threw (a BlindError, or RangeError: refused data). */
function problemOf(verify) {
  try {
    verify();
  } catch (e) {
    if (!(e instanceof BlindError || e instanceof RangeError)) throw e;
    return e.message || e.name;
  }
  return null;
}
