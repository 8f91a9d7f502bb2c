// fairdeal/games/kvitlach/run.py (SPEC 6.1, 12.3): the run of one command, each drafted
// event applied at once, so the next decision sees the state it leaves (one rules path for
// service and verifier); and the deck it deals from.

import { Run as BaseRun, deckRules, draft } from "../../engine/base.js";
import * as dealing from "../../engine/dealing.js";
import { SERVER } from "../../engine/protocol.js";
import { NAME, canonicalOrder } from "./options.js";

/** The drafts of one decided command and the state after each, with Kvitlach's applyAt. */
export class Run extends BaseRun {
  get play() {
    return this.state.play;
  }

  get round() {
    return this.state.round;
  }

  /** A server event of the round; `earlier`, data an earlier service logged for it (SPEC 7.19). */
  server(kind, data, earlier = []) {
    this.emit(draft(kind, SERVER, data, this.state.round.round_id, earlier));
  }
}

export function deckOf(state, secret) {
  return dealing.deck(state.round, secret, deckRules(NAME, state.options.decks));
}

/** Whether the deck still has a card (an empty deck stops all drawing). */
export function deckLeft(state) {
  return state.play.dealt < canonicalOrder(state.options).length;
}

export function cardsOf(hand, deck) {
  return hand.cards.map((position) => deck.cards[position]);
}

export function deal(run, deck, seat, face) {
  const state = run.state;
  run.emit(dealing.dealDraft(state.round, deck, state.play.dealt, seat, face));
}
