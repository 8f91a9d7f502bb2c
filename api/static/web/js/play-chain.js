// One table's chain as this page has checked it: every receipt and every event fetched is
// checked the moment it arrives (the operator's signature under the pinned key, the link to
// the last checked event, and every keyed seat's signed statement, the other seats' too),
// and every hidden card this seat is shown must open the commitment signed when it was
// dealt. A failed check throws a CheckFailure naming the check and seq.

import { SeatStatements, checkCardOpening, checkLink, checkSignedEvent } from "/static/web/js/fairdeal/index.js";
import { api } from "./play-api.js";
import { Results } from "./play-results.js";

/** A check that failed: ``code`` names it (the verifier's finding code), ``seq`` the event. */
export class CheckFailure extends Error {
  constructor(code, seq, message) {
    super(`${code}${seq === null ? "" : ` at event seq ${seq}`}: ${message}`);
    this.name = "CheckFailure";
    Object.assign(this, { code, seq });
  }
}

export class Chain {
  constructor(tableId, keySet) {
    this.tableId = tableId;
    this.keySet = keySet;
    this.statements = new SeatStatements(tableId); // every seat's key, n and what it saw
    this.last = null; // the last checked signed event
    this.hashes = []; // by seq, as checked
    this.dealt = new Map(); // "round/position" -> commitment, or "card:" + code if face up
    this.seeding = null; // the round opened and not yet sealed, voided or revealed
    this.revealsOpen = null; // that round, once its seeds_committed is logged
    this.departures = []; // each seat_left checked, with the joiner_rejected that caused it (Toto21)
    this.rejected = null;
    this.ended = null; // the last round whose round_revealed this page checked
    this.results = new Results(); // each round's, match's and term's result, in words
    this.listeners = [];
  }

  get checked() {
    return this.hashes.length;
  }

  /** The last checked event as a seat's statement names the log it saw: {seq, hash}. */
  get after() {
    return { seq: this.last.event.seq, hash: this.last.hash };
  }

  /** Check a reply's receipts (fetching and checking first any event missed before them). */
  async receive(events) {
    if (events.length && events[0].event?.seq > this.hashes.length) await this.sync();
    for (const signed of events) await this.follow(signed);
    return events;
  }

  /** Fetch and check every event of the table not checked yet. */
  async sync() {
    let from = this.hashes.length;
    while (from !== null && from !== undefined) {
      const page = await api("GET", `/v1/tables/${this.tableId}/events?from_seq=${from}`);
      for (const signed of page.events) await this.follow(signed);
      from = page.next_from_seq;
    }
  }

  async follow(signed) {
    const seq = signed?.event?.seq;
    if (typeof seq !== "number") throw new CheckFailure("schema.event", null, "not a signed event");
    if (seq < this.hashes.length) {
      await this.guard(seq, () => checkSignedEvent(signed, this.keySet));
      if (signed.hash !== this.hashes[seq]) {
        throw new CheckFailure("chain.fork", seq, "not the event this page checked at that seq");
      }
      return;
    }
    await this.guard(seq, () => checkSignedEvent(signed, this.keySet));
    await this.guard(seq, () => checkLink(this.last, signed));
    if (signed.event.table !== this.tableId) {
      throw new CheckFailure("chain.table", seq, `an event of table ${signed.event.table}`);
    }
    await this.guard(seq, () => this.statements.follow(signed.event, signed.hash));
    this.last = signed;
    this.hashes.push(signed.hash);
    this.note(signed.event);
    for (const listener of this.listeners) listener(signed);
  }

  note(event) {
    const { type, round, data } = event;
    this.results.follow(event);
    if (type === "round_opened") [this.seeding, this.revealsOpen] = [round, null];
    else if (type === "seeds_committed") this.revealsOpen = round;
    else if (["round_sealed", "round_voided", "round_revealed"].includes(type)) {
      this.seeding = this.revealsOpen = null;
    }
    if (type === "round_revealed") this.ended = round;
    if (type === "joiner_rejected") this.rejected = event;
    if (type === "seat_left") {
      const seat = data.seat ?? Number(event.actor.split(":")[1]);
      this.departures.push({ seat, left: event, rejected: this.rejected });
      this.rejected = null;
    }
    if (type === "card_dealt") {
      this.dealt.set(`${round}/${data.position}`, data.commitment ?? `card:${data.card}`);
    }
  }

  /** How ``seat`` left the table after event ``since``: {seat, left, rejected}, or undefined. */
  departure(seat, since) {
    return this.departures.find((d) => d.seat === seat && d.left.seq > since);
  }

  async guard(seq, check) {
    try {
      await check();
    } catch (e) {
      if (e instanceof CheckFailure) throw e;
      throw new CheckFailure(e.code ?? "check.error", seq, e.message);
    }
  }

  /** The view's head is an event this page checked, with the same hash (else a fork). */
  async checkHead(head) {
    if (head.seq >= this.hashes.length) await this.sync();
    if (this.hashes[head.seq] !== head.hash) {
      throw new CheckFailure("chain.fork", head.seq, "the view's head is not the checked event");
    }
  }

  /** Every {position, card, salt} the view shows this seat opens its signed commitment. */
  async checkCards(roundId, cards) {
    let opened = 0;
    for (const shown of cards) {
      const key = `${roundId}/${shown.position}`;
      if (!this.dealt.has(key)) await this.sync();
      const dealt = this.dealt.get(key);
      if (dealt === undefined) {
        throw new CheckFailure("card.commitment", null, `no card dealt at position ${shown.position}`);
      }
      if (dealt.startsWith("card:")) {
        if (dealt !== `card:${shown.card}`) {
          throw new CheckFailure("card.commitment", null, `position ${shown.position} was dealt face up as another card`);
        }
      } else {
        await this.guard(null, () => checkCardOpening(dealt, shown.card, shown.salt));
      }
      opened += 1;
    }
    return opened;
  }
}

/** The cards with salts a seat's view shows it (its own hidden cards), anywhere in it. */
export function privateCards(value, found = []) {
  if (Array.isArray(value)) {
    for (const item of value) privateCards(item, found);
  } else if (value && typeof value === "object") {
    if ("position" in value && "card" in value && "salt" in value) found.push(value);
    for (const item of Object.values(value)) privateCards(item, found);
  }
  return found;
}
