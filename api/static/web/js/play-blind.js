// A dealer-blind Toto21 table (protocol version 3, SPEC 15.13) as this page takes part in it:
// the game's state folded by the rules from the chain this page checks (every event as it
// arrives), and, for the seat this page holds, its party to the round in play (its private
// round key, made here when the seat commits its seed, held in this tab's memory only: never
// stored, never sent, lost on a reload). The party answers, with no player action, what the
// log asks of this seat: its shuffle step (shuffle_due), its decryption shares (shares_due),
// its round key at the showdown (keys_due); it opens the seat's own face-down cards itself.
// A request the party refuses (PartyRefusedError) stops play: the log asked this browser for
// something it must not give.

import "/static/web/js/fairdeal/games/index.js";
import { FairdealError } from "/static/web/js/fairdeal/engine/errors.js";
import { registry } from "/static/web/js/fairdeal/engine/registry.js";
import { BLIND, commandData } from "/static/web/js/fairdeal/engine/statements.js";
import { started } from "/static/web/js/fairdeal/engine/table.js";
import { Party, PartyRefusedError, makeStep } from "/static/web/js/fairdeal/games/toto21/party.js";
import { twoAces } from "/static/web/js/fairdeal/games/toto21/hands.js";
import { totoTotal } from "/static/web/js/fairdeal/index.js";
import { CheckFailure } from "./play-chain.js";

// The answers a party sends, each for the request that asks it; never the player's buttons.
export const ANSWERS = ["deck_shuffled", "decryption_shares", "round_key"];
const MAX_ANSWERS = 6; // a round never owes this many answers at once
// What the page says while its party makes each answer (a shuffle step takes seconds).
export const ANSWERING = {
  deck_shuffled: "Shuffling… this browser shuffles the deck and locks it with its own key.",
  decryption_shares: "Opening the cards… this browser unlocks the other seat's cards and the up-card (never its own).",
  round_key: "Showdown… this browser gives its key, so that every card can be shown.",
};

/** Whether a table's view is a dealer-blind one. */
export function isBlindView(view) {
  return view?.options?.dealing === "blind";
}

export class BlindTable {
  constructor() {
    this.version = null; // the chain's protocol version (table_created's)
    this.game = null;
    this.state = null; // the game's state after the last checked event
    this.roundEvents = []; // the current round's events as a party reads them: [type, actor, data]
    this.party = null; // this seat's party to the round in play, if this tab made it
    this.lost = null; // the round this seat committed to in a tab before this one (a reload)
    this.opened = { checked: -1, cards: new Map() }; // this seat's own cards, opened by its party
  }

  get blind() {
    return this.version !== null && this.version >= BLIND;
  }

  /** Fold one checked event (a Chain listener): as the SDK's TableLog does. */
  follow(event) {
    if (event.type === "table_created") this.version = event.version;
    if (!this.blind) return;
    let recorded = null;
    try {
      if (event.type === "table_created") {
        [this.game, this.state] = started(registry(), event.data, event.version);
        return;
      }
      if (this.game === null || event.type === "table_state") return;
      recorded = { ...event, data: commandData(event.version, event.data) };
      this.state = this.game.apply(this.state, recorded);
    } catch (e) {
      if (e instanceof FairdealError || e instanceof TypeError || e instanceof RangeError) {
        throw new CheckFailure("rules.follow", event.seq, `the rules cannot follow ${event.type}: ${e.message}`);
      }
      throw e;
    }
    if (event.type === "round_opened") {
      this.roundEvents = [];
      if (this.party?.round_id !== event.round) this.party = null;
    }
    if (event.round !== null && event.round !== undefined) this.roundEvents.push([event.type, event.actor, recorded.data]);
  }

  /** The round in play (not revealed), or null. */
  get round() {
    const round = this.state?.round ?? null;
    return round && !round.revealed ? round : null;
  }

  /** A fresh party for ``roundId``, for the seat's seed commitment (SPEC 15.13.3). */
  partyFor(seat, tableId, roundId) {
    if (this.party?.round_id !== roundId) this.party = new Party(seat, tableId, roundId);
    return this.party;
  }

  /** Forget a party whose commitment the service refused (a fresh one is made next time). */
  drop(roundId) {
    if (this.party?.round_id === roundId) this.party = null;
  }

  /** The answer ``seat`` owes the round now, as the rules list it: a type or null. */
  owed(seat) {
    if (!this.blind || this.round === null) return null;
    const legal = this.game.legalActions(this.state, seat, null);
    return ANSWERS.find((kind) => legal.includes(kind)) ?? null;
  }

  /** Whether this seat committed to the round in play without this tab's party: this page
   * was reloaded (or opened again) after the commitment, and the round key is gone. */
  noteLost(seat) {
    const round = this.round;
    if (round === null || this.party?.round_id === round.round_id) return (this.lost = null);
    const committed = this.roundEvents.some(([type, actor]) => type === "seed_commitment" && actor === `seat:${seat}`);
    this.lost = committed ? round.number : null;
    return this.lost;
  }

  /**
   * Send every answer ``seat`` owes now, each signed after the request it answers (the chain
   * is checked up to it): ``send(kind, data, roundId)`` posts it and checks its receipts, which
   * fold the state on. ``before(kind)`` is called first (the page says what it is doing).
   * The kinds sent. Throws a CheckFailure ("party.refused") if the party refuses.
   */
  async answer(seat, send, before = async () => {}) {
    const sent = [];
    for (let kind = this.owed(seat); kind !== null; kind = this.owed(seat)) {
      const round = this.round;
      if (this.party?.round_id !== round.round_id) break; // a reload lost this round's key
      if (sent.length === MAX_ANSWERS) throw new CheckFailure("party.refused", null, `the log still asks this seat for ${kind}`);
      await before(kind);
      const data = kind === "deck_shuffled" ? await this.stepped() : this.refusing(() => this.made(kind));
      await send(kind, data, round.round_id);
      sent.push(kind);
    }
    return sent;
  }

  /** This seat's shuffle step: made apart (stepApart) while this thread checks every key and
   * step the log holds; given only once both are done, the check passed. */
  async stepped() {
    const task = this.refusing(() => this.party.stepTask(this.state, this.roundEvents));
    const making = stepApart(task);
    making.catch(() => {}); // abandoned if the check below refuses
    this.refusing(() => this.party.checkChain(this.state, this.roundEvents));
    return await making;
  }

  made(kind) {
    if (kind === "decryption_shares") return this.party.shares(this.state, this.roundEvents);
    return this.party.reveal(this.state, this.roundEvents);
  }

  /** ``work()``, a PartyRefusedError made the page's failure: play stops, the log is kept. */
  refusing(work) {
    try {
      return work();
    } catch (e) {
      if (!(e instanceof PartyRefusedError)) throw e;
      const text =
        `the log asked this browser for something it must not give (${e.message}). ` +
        "The operator may be cheating: this page stopped playing and sends nothing more. The events it checked stay listed below, and the service keeps the signed log: keep this page open, or fetch the table's events, as evidence.";
      throw new CheckFailure("party.refused", null, text);
    }
  }

  /** This seat's face-down cards of the round in play that its party can open: a Map
   * position -> card (opened again only when the chain has moved on). */
  ownCards(checked) {
    const round = this.round;
    if (round === null || this.party?.round_id !== round.round_id || !this.state.hand) return new Map();
    if (this.opened.checked !== checked || this.opened.round !== round.round_id) {
      const cards = this.refusing(() => this.party.ownCards(this.state, this.roundEvents));
      this.opened = { checked, round: round.round_id, cards };
    }
    return this.opened.cards;
  }
}

let stepWorker = null;
let stepsAsked = 0;

/** A step made in a worker where the platform has them (the page stays responsive, and the
 * proof is made while the chain is checked), else here. Each answer names its task, so that
 * one abandoned (its check refused) never answers a later one. */
function stepApart(task) {
  if (typeof Worker === "undefined") return Promise.resolve().then(() => makeStep(task));
  stepWorker ??= new Worker(new URL("./play-step-worker.js", import.meta.url), { type: "module" });
  const id = ++stepsAsked;
  return new Promise((resolve, reject) => {
    stepWorker.onmessage = ({ data }) => {
      if (data.id !== id) return;
      if (data.error === undefined) resolve(data.made);
      else reject(new Error(data.error));
    };
    stepWorker.onerror = (e) => reject(new Error(`the shuffle worker failed: ${e.message}`));
    stepWorker.postMessage({ id, task });
  });
}

/** The seat's view with its own face-down cards put in, as its party opened them (``cards``:
 * a Map position -> card); marked ``opened`` (this browser alone sees them). */
export function withOwnCards(reply, cards) {
  const round = reply.view.round;
  if (!round?.cards || !cards.size) return reply;
  const shown = round.cards.map((c) => (cards.has(c.position) && !c.card ? { ...c, card: cards.get(c.position), opened: true } : c));
  return { ...reply, view: { ...reply.view, round: { ...round, cards: shown } } };
}

/** The moves offered to the player: never an answer (the party sends those), and at a blind
 * table (the service cannot see cards: these rules are this page's) no draw at 21 or more,
 * and the golden point claimed only with two aces (a false claim loses the round). */
export function playerMoves(reply) {
  const legal = reply.legal_actions.filter((kind) => !ANSWERS.includes(kind));
  const round = reply.view.round;
  if (!isBlindView(reply.view) || !round?.cards) return legal;
  const seen = round.cards.filter((c) => c.seat === reply.seat && c.card && c.face !== "blind").map((c) => c.card);
  const refused = new Set();
  if (seen.length && totoTotal(seen) >= 21) refused.add("hit").add("blind");
  if (!twoAces(seen.slice(0, 2))) refused.add("golden_point");
  return legal.filter((kind) => !refused.has(kind));
}

/** What the round waits for, in plain words; null when nothing cryptographic is pending. */
export function blindStatus(view, you, lost = false) {
  const round = view.round;
  if (!isBlindView(view) || view.phase !== "playing" || !round || round.revealed) return null;
  const request = round.request;
  if (!request) return round.sealed ? null : `Round ${round.number}: both browsers are making this round's keys and seeds…`;
  const mine = you !== null && request.seats.includes(you);
  if (mine && lost) return "This browser cannot answer in this round (its round key was lost with a reload): the round ends at its deadline.";
  const others = request.seats.filter((s) => s !== you);
  const whose = others.length === 1 ? `seat ${others[0]}'s browser` : "the seats' browsers";
  // A seat that does not answer in time voids the round before the deal and loses it after
  // (15.13.5.4, 15.13.6.4, 15.13.7.5).
  const stakes = you === null ? "" : " If it does not answer in time, you win the round.";
  if (request.type === "shuffle_due") {
    return mine ? ANSWERING.deck_shuffled : `Waiting for ${whose} to shuffle…${you === null ? "" : " If it does not in time, the round is void."}`;
  }
  if (request.type === "shares_due") {
    return mine ? ANSWERING.decryption_shares : `Waiting for ${whose} to open the cards…${stakes}`;
  }
  if (request.type === "keys_due") {
    return mine ? ANSWERING.round_key : `Waiting for ${whose} to give its key…${stakes}`;
  }
  return null;
}

/** Why this page cannot take part in round ``number`` (a reload lost its key), plainly. */
export function lostText(number) {
  return (
    `This page was reloaded during round ${number}: the round key this browser made for it was held in the tab's memory only, ` +
    "so it cannot shuffle, open its cards or show them in this round. The round ends at its next deadline without this seat's answers " +
    "(void before the deal, lost by this seat after it); the next round starts afresh with a new key."
  );
}
