// SPEC 7 (5) timeouts, (6) commitment, (7) client seeds, (8) shuffle, (9) cards, (14)
// rounds finished: the round protocol read from the shared round events alone.
//
// In a version-3 (dealer-blind) table every seat commits, with its round key, and a commitment
// missed voids the round; no deck is drawn from the shuffle key: steps (8) and (9) check the
// round keys, the shuffle chain, the ciphertexts, the shares and the opened cards instead
// (blindround.js). A seat's event is read by its command data (SPEC 15.13.11).

import { bytesToHex, isHex } from "./bytes.js";
import { PY_SPACE, pyEqual, sameKeys } from "./engine/pytypes.js";
import * as blind from "./blindround.js";
import {
  canonicalDeck,
  cardCommitment,
  cardSalt,
  clientSeedCommitment,
  dealOf,
  seedCommitment,
  shuffleKey,
} from "./randomness.js";

const SIGNED = 2;
const BLIND = 3;

const FACES = { up: "card", down: "commitment", blind: "commitment" };
const isInt = (v) => typeof v === "number" && Number.isSafeInteger(v);
const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const BLANK = new RegExp(`^[${PY_SPACE}]*$`); // as Python's str.strip() leaves nothing
export const actorSeat = (actor) => (actor === "server" ? null : Number(actor.slice(5)));
export const isTimeout = (type) => type.endsWith("_timeout") || type.endsWith("time_up");

/** SPEC 3.2: a client seed is 1 to 256 printable ASCII characters. */
export function seedProblem(seed) {
  if (!/^[\x20-\x7e]{1,256}$/.test(seed)) return "a client seed is 1 to 256 printable ASCII characters";
  return null;
}

/** Each round's revealed server seed (well-formed ones only). */
export function revealedSeeds(events) {
  const seeds = new Map();
  for (const e of events) {
    const seed = e.type === "round_revealed" ? e.data.server_seed : undefined;
    if (e.round !== null && isHex(seed, 64) && !seeds.has(e.round)) seeds.set(e.round, seed);
  }
  return seeds;
}

export function snapshotProblem(event) {
  const d = event.data;
  const ok =
    typeof d.game === "string" &&
    isObject(d.options) &&
    isObject(d.balances) &&
    Object.values(d.balances).every((v) => isInt(v) && v >= 0);
  return ok ? null : "table_state needs game, options and balances";
}

/** Follows the rounds of one chain, event by event (``await check(event)``). */
export class RoundChecker {
  constructor(deckRules, seeds, bounded, version, table) {
    Object.assign(this, { deckRules, seeds, bounded, version, table });
    this.current = null;
    this.finished = new Set();
    this.findings = [];
    this.rounds = new Map(); // id -> round, for the story
    this.blind = new blind.BlindChecks(table, deckRules, (code, event, reason) => this.find(code, event, reason));
  }

  find(code, event, reason) {
    this.findings.push({ code, event, reason });
  }

  async check(event) {
    // (5) a timeout is stamped at or after the deadline it names
    if (isTimeout(event.type)) {
      const deadline = event.data.deadline;
      if (isInt(deadline) && event.time < deadline) {
        this.find("time.timeout_early", event, `at ${event.time}, deadline ${deadline}`);
      }
    }
    if (event.round === null) {
      if (event.type === "table_state") {
        this.bounded = true;
        const problem = snapshotProblem(event);
        if (problem) this.find("schema.data", event, problem);
      }
      return;
    }
    if (event.type === "round_opened") return this.open(event);
    const current = this.current;
    if (current === null || current.id !== event.round) {
      return this.find("chain.misplaced", event, "an event of a round that is not in progress");
    }
    if (current.revealed) return this.find("round.after_reveal", event, "a round event after the reveal");
    current.events.push(event);
    const recorded = this.asRecorded(event);
    const blindHandler = BLIND_HANDLERS[recorded.type];
    const handler = HANDLERS[recorded.type];
    if (current.blind && blindHandler) blindHandler.call(this.blind, current.blind, recorded);
    else if (handler) await handler.call(this, current, recorded);
    if (current.deck) {
      for (const shown of shownCards(recorded.data)) await this.checkShown(current, recorded, shown);
    }
  }

  /** A seat's event as the rules record it: in version 2, without the statement the seat
   * signed (``signed``); in version 3, its command data, the members it signed being logged
   * inside ``signed`` (15.13.11). */
  asRecorded(event) {
    if (this.version < SIGNED || event.actor === "server" || !("signed" in event.data)) return event;
    const logged = this.version >= BLIND ? blind.commandData(this.version, event.data) : event.data;
    const { signed, ...data } = logged;
    return { ...event, data };
  }

  open(event) {
    const data = event.data;
    const id = event.round;
    if (this.finished.has(id) || this.current?.id === id) {
      this.find("chain.misplaced", event, `round id ${id} is used twice`);
    } else if (this.bounded && !(isInt(data.number) && id === `${this.table}.${data.number}`)) {
      this.find("chain.misplaced", event, `round id ${id} is not ${this.table}.<number> after a table_state`);
    }
    this.closeCurrent(event);
    const { seats, commitment, seed_deadline: deadline } = data;
    if (
      !(
        isHex(commitment, 64) &&
        Array.isArray(seats) &&
        seats.every(isInt) &&
        new Set(seats).size === seats.length &&
        isInt(deadline) &&
        isInt(data.number)
      )
    ) {
      this.find("schema.data", event, "round_opened needs commitment, number, seats, deadline");
      this.current = null;
      return;
    }
    this.current = {
      id,
      opened: event,
      events: [],
      commitment,
      seats: [...seats],
      seedDeadline: deadline,
      seeds: new Map(),
      timedOut: new Set(),
      commitments: new Map(),
      revealing: false,
      withheld: [],
      voided: false,
      sealed: false,
      nextPosition: 0,
      revealed: false,
      deck: null,
      key: null,
      dealt: [],
      blind: null, // version 3: what steps (8) and (9) carry (blindround.js)
    };
    this.rounds.set(id, this.current);
    if (this.version >= BLIND) {
      const problem = blind.serverKeyProblem(data);
      if (problem) this.find("schema.data", event, problem);
      this.current.blind = this.blind.open(event, [...seats], this.seeds.get(id));
    }
  }

  closeCurrent(event) {
    const c = this.current;
    if (c && !c.revealed && c.sealed) {
      this.find("round.unfinished", event, `round ${c.id} was sealed and never settled, voided or revealed`);
    }
  }

  finish(last) {
    if (last) this.closeCurrent(last);
  }

  // (7) client seeds before the seal
  async clientSeed(c, event) {
    const seat = actorSeat(event.actor);
    const seed = event.data.seed;
    let problem = null;
    if (c.sealed) problem = "a client seed after the seal";
    else if (!c.seats.includes(seat)) problem = "a client seed from a seat not in the round";
    else if (c.seeds.has(seat) || c.timedOut.has(seat)) problem = "a second seed, or a seed after the seat timed out";
    else if (typeof seed !== "string" || !sameKeys(event.data, ["seed"])) problem = "client_seed carries exactly one text member, seed";
    else if (this.version >= BLIND && !c.revealing) {
      problem = "a plain client seed in a blind round's commit phase: every seat commits";
    }
    if (problem === null) problem = seedProblem(String(seed));
    if (problem !== null) return this.find("seed.client", event, problem);
    if (seat === null) return;
    await this.checkReveal(c, event, seat, seed);
    c.seeds.set(seat, seed);
  }

  async checkReveal(c, event, seat, seed) {
    const committed = c.commitments.get(seat);
    let problem;
    if (committed === undefined && c.revealing) problem = "sent during the reveals by a seat that did not commit";
    else if (committed !== undefined && !c.revealing) problem = "sent before seeds_committed opened the reveals";
    else if (committed !== undefined && (await clientSeedCommitment(c.id, seat, seed)) !== committed) {
      problem = "does not open the seat's commitment";
    } else return;
    this.find("seed.reveal", event, `seat ${seat}'s seed ${problem}`);
  }

  seedCommitment(c, event) {
    const seat = actorSeat(event.actor);
    const commitment = event.data.commitment;
    let problem = null;
    if (this.version < 2) problem = "a version-1 table takes no seed commitments";
    else if (c.sealed || c.revealing) problem = "a seed commitment once the reveals are open";
    else if (!c.seats.includes(seat)) problem = "a seed commitment from a seat not in the round";
    else if (c.commitments.has(seat) || c.seeds.has(seat) || c.timedOut.has(seat)) {
      problem = "a second commitment, or one after the seat's seed or timeout";
    } else if (!sameKeys(event.data, commitmentMembers(this.version)) || !isHex(commitment, 64)) {
      const members = [...commitmentMembers(this.version)].sort().join(" and ");
      problem = `seed_commitment carries exactly ${members}, commitment 64 lowercase hex`;
    }
    if (problem !== null) this.find("seed.client", event, problem);
    else if (seat !== null) {
      c.commitments.set(seat, commitment);
      if (c.blind) this.blind.commitment(c.blind, event, seat); // (8) its round key
    }
  }

  seedsCommitted(c, event) {
    const deadline = event.data.deadline;
    const waiting = waitingSeats(c);
    let problem = null;
    if (c.sealed || c.revealing) problem = "seeds_committed after the seal, or twice";
    else if (!sameKeys(event.data, ["deadline"]) || !isInt(deadline)) problem = "seeds_committed carries exactly deadline, an integer";
    else if (waiting.length) problem = `seats ${JSON.stringify(waiting)} have neither committed, sent a seed nor timed out`;
    else if (!unrevealed(c).length) problem = "no committed seed is left to reveal";
    if (problem !== null) this.find("seed.client", event, problem);
    c.revealing = true;
    if (isInt(deadline)) c.seedDeadline = deadline;
  }

  seedTimeout(c, event) {
    const missing = c.revealing ? unrevealed(c) : waitingSeats(c);
    const expected = { deadline: c.seedDeadline, seats: missing };
    if (c.sealed || !pyEqual(event.data, expected) || !missing.length) {
      this.find("seed.client", event, `seed_timeout must be ${JSON.stringify(expected)} before the seal`);
    } else if (c.revealing || this.version >= BLIND) c.withheld = missing;
    else for (const s of missing) c.timedOut.add(s);
  }

  async sealed(c, event) {
    const expected = c.seats.map((s) => c.seeds.get(s) ?? "");
    const ready = !waitingSeats(c).length && !unrevealed(c).length;
    if (c.withheld.length) this.find("seed.withheld", event, `seats ${JSON.stringify(c.withheld)} withheld: no seal`);
    else if (c.sealed || !ready || !pyEqual(event.data, { client_seeds: expected })) {
      this.find("seed.client", event, `the seal must carry the seeds ${JSON.stringify(expected)}`);
    }
    c.sealed = true;
    c.clientSeeds = expected;
    await this.deriveDeck(c, event, expected);
    if (c.blind) this.blind.sealed(c.blind, c.key ?? null); // version 3: the key draws the service's step only
  }

  // (6) commitment and (8) the shuffle
  async deriveDeck(c, event, clientSeeds) {
    const seed = this.seeds.get(c.id);
    if (seed === undefined) return;
    // the seal binds the committed seed's commitment as logged, as the verifier does
    try {
      if (c.blind) {
        canonicalDeck(this.deckRules); // version 3 draws no deck from the key (blindround.js)
        c.key = shuffleKey(seed, c.id, clientSeeds, this.deckRules, c.commitment);
      } else Object.assign(c, dealOf(seed, c.id, clientSeeds, this.deckRules, c.commitment));
    } catch (e) {
      if (e?.code !== "deck.rules") throw e; // no deck of a registered game for these rules
      this.find("deck.rules", event, `no deck for the rules ${JSON.stringify(this.deckRules)}`);
    }
  }

  // (9) every dealt card
  /** Positions are dealt in order, none skipped or repeated, once the deck is ready. */
  position(c, event, position, ready) {
    if (!ready || position !== c.nextPosition) {
      let reason = `position ${position}, expected ${c.nextPosition} after the seal`;
      if (c.blind && !c.blind.complete) reason = `position ${position} dealt before the last shuffle step`;
      this.find("card.position", event, reason);
    }
    c.nextPosition = Math.max(c.nextPosition, position + 1);
  }

  async dealt(c, event) {
    if (c.blind) return this.dealtBlind(c, c.blind, event);
    const data = event.data;
    const { position, face, seat } = data;
    const members = ["position", "seat", "face", FACES[String(face)] ?? "card"];
    if (!(typeof face === "string" && Object.hasOwn(FACES, face)) || !sameKeys(data, members) || !isInt(position)) {
      return this.find("schema.data", event, "card_dealt needs position, seat, face, card|commitment");
    }
    if (!(seat === null || isInt(seat))) this.find("schema.data", event, "card_dealt's seat is an integer or null");
    this.position(c, event, position, c.sealed);
    c.dealt.push({ seq: event.seq, position, seat, face, card: c.deck?.[position] ?? data.card ?? null });
    const deck = c.deck;
    if (!deck) return;
    if (!(position >= 0 && position < deck.length)) {
      this.find("card.position", event, `position ${position} is past the deck's end`);
    } else if (face === "up" && data.card !== deck[position]) {
      this.find("card.wrong_card", event, `position ${position} is ${deck[position]}`);
    } else if (face !== "up" && data.commitment !== (await cardCommitment(await cardSalt(c.key, position), deck[position]))) {
      this.find("card.commitment", event, `not the commitment of position ${position}`);
    }
  }

  /** (1) a version-3 card_dealt's form, (9) its position, ciphertext and share. The story's
   * card is the one the round opens (cardOpened, cardsShown: explain.js), not known here. */
  dealtBlind(c, blindRound, event) {
    const problem = blind.cardDealtProblem(event.data);
    if (problem !== null) return this.find("schema.data", event, problem);
    const { position, seat, face } = event.data;
    this.position(c, event, position, c.sealed && blindRound.complete);
    c.dealt.push({ seq: event.seq, position, seat, face, card: null });
    this.blind.dealt(blindRound, event);
  }

  async checkShown(c, event, shown) {
    const { position, card, salt } = shown;
    if (!isInt(position) || !(position >= 0 && position < c.nextPosition)) {
      return this.find("card.shown", event, `shows position ${JSON.stringify(position)}, never dealt`);
    }
    const expected = bytesToHex(await cardSalt(c.key, position));
    if (card !== c.deck[position] || salt !== expected) {
      this.find("card.shown", event, `position ${position} is not ${JSON.stringify(card)} with that salt`);
    }
  }

  // (14) settled or voided with a reason; (7) a withheld reveal voids the round
  voided(c, event) {
    const reason = event.data.reason;
    if (typeof reason !== "string" || BLANK.test(reason)) this.find("round.void_reason", event, "a voided round must say why");
    if (c.withheld.length || reason === "seed_withheld") {
      const expected = { reason: "seed_withheld", seats: c.withheld };
      if (!c.withheld.length) this.find("seed.withheld", event, "no seed_timeout at the reveal deadline names its seats");
      else if (!pyEqual(event.data, expected)) {
        this.find("seed.withheld", event, `the void must be ${JSON.stringify(expected)}`);
      }
    }
    c.voided = true;
  }

  async revealed(c, event) {
    if (c.withheld.length && !c.voided) {
      this.find("seed.withheld", event, `seats ${JSON.stringify(c.withheld)} withheld their seeds: the round is not voided`);
    }
    const seed = event.data.server_seed;
    if (!sameKeys(event.data, ["server_seed"]) || typeof seed !== "string") {
      this.find("schema.data", event, "round_revealed carries exactly server_seed");
    } else if (!isHex(seed, 64)) {
      this.find("schema.data", event, "server_seed is not 64 lowercase hex digits");
    } else if ((await seedCommitment(seed)) !== c.commitment) {
      this.find("seed.commitment", event, "the revealed seed is not the committed one");
      c.seedBad = true; // its deck proves nothing: the rules refuse the seed (step 11)
    }
    if (c.blind) this.blind.revealed(c.blind, event);
    c.revealed = true;
    c.serverSeed = seed;
    this.finished.add(c.id);
  }
}

const HANDLERS = {
  seed_commitment: RoundChecker.prototype.seedCommitment,
  seeds_committed: RoundChecker.prototype.seedsCommitted,
  client_seed: RoundChecker.prototype.clientSeed,
  seed_timeout: RoundChecker.prototype.seedTimeout,
  round_sealed: RoundChecker.prototype.sealed,
  card_dealt: RoundChecker.prototype.dealt,
  round_voided: RoundChecker.prototype.voided,
  round_revealed: RoundChecker.prototype.revealed,
};

// Events only a version-3 (blind) round's checks read; a blind round has none of the committed
// deck's salts, so the scan of shown cards does not apply to it either
const BLIND_HANDLERS = {
  deck_shuffled: blind.BlindChecks.prototype.shuffled,
  decryption_shares: blind.BlindChecks.prototype.shares,
  card_opened: blind.BlindChecks.prototype.cardOpened,
  round_key: blind.BlindChecks.prototype.roundKeyRevealed,
  [blind.CARDS_SHOWN]: blind.BlindChecks.prototype.shown,
};

/** A seed_commitment's members: version 3 adds the seat's round key (SPEC 15.13.3.2). */
const commitmentMembers = (version) => (version >= BLIND ? ["commitment", "round_key"] : ["commitment"]);

const waitingSeats = (c) =>
  c.seats.filter((s) => !c.seeds.has(s) && !c.commitments.has(s) && !c.timedOut.has(s));
const unrevealed = (c) => c.seats.filter((s) => c.commitments.has(s) && !c.seeds.has(s));

/** Every {position, card, salt} object anywhere in data, in document order. */
export function shownCards(value, found = []) {
  if (Array.isArray(value)) {
    for (const item of value) if (item !== null && typeof item === "object") shownCards(item, found);
  } else if (isObject(value)) {
    if ("position" in value && "card" in value && "salt" in value) found.push(value);
    for (const item of Object.values(value)) if (item !== null && typeof item === "object") shownCards(item, found);
  }
  return found;
}
