// fairdeal/games/toto21/state.py (SPEC 11.3, 11.4): Toto21's table state, its seats,
// money, score and the current round.
//
// Values are never changed once made (a state is shared between runs): each change makes a
// new object. A hand's known cards are a Map by deck position (an object would reorder them).

import { deckRules } from "../../engine/base.js";
import * as dealing from "../../engine/dealing.js";
import { POT } from "../../engine/money.js";
import { NAME } from "./options.js";

export const SEATS = [0, 1];
// Table phases: waiting for a joiner, the creator deciding on the joiner, the match, the end.
export const OPEN = "open";
export const DECIDING = "deciding";
export const PLAYING = "playing";
export const OVER = "over";
export const DEALER_PURPOSE = "dealer"; // the shuffle key's stream that picks the dealer
export const DECK_RULES = deckRules(NAME);

/** A card a seat holds: its deck position, face and (if not face up) commitment. */
export function makeHeld({ seat, position, face, commitment }) {
  return { seat, position, face, commitment };
}

/** A card everyone may see: face up when dealt, or shown later with its salt. */
export function makeKnown({ card, salt }) {
  return { card, salt };
}

/** The play of a sealed round: roles, cards held, whose move it is and until when. */
export function makeHand({
  dealer,
  player,
  held = [],
  known = new Map(),
  turn = null,
  move_deadline = null,
  blind_taken = false,
}) {
  return { dealer, player, held, known, turn, move_deadline, blind_taken };
}

/** The cards dealt this round, so the next deck position: every card is held. */
export function dealt(hand) {
  return hand.held.length;
}

/** The cards ``seat`` holds (Python's ``Hand.of``). */
export function heldBy(hand, seat) {
  return hand.held.filter((held) => held.seat === seat);
}

/** The seat's cards nobody has been shown yet (down and blind). */
export function hidden(hand, seat) {
  return heldBy(hand, seat).filter((held) => !hand.known.has(held.position));
}

export function makeState({
  options,
  phase = OPEN,
  seats = [],
  balances = { [POT]: 0 },
  score = [0, 0],
  worth = 1, // points the next round is worth (rises after double busts)
  game_deadline = null,
  rounds = 0,
  round_ids = new Set(), // a round id is used once per table
  round = null,
  hand = null,
  crypto = null, // a dealer-blind table's round (SPEC 15.13): cipher.makeCrypto
}) {
  return { options, phase, seats, balances, score, worth, game_deadline, rounds, round_ids, round, hand, crypto };
}

/** A round is opened and not yet revealed. */
export function inRound(state) {
  return state.round !== null && !state.round.revealed;
}

export function deckOf(state, secret) {
  return dealing.deck(state.round, secret, DECK_RULES);
}

export function cardsOf(deck, held) {
  const order = deck.cards; // read directly: the rules ask for the cards at every move
  return held.map((card) => order[card.position]);
}

/** The cards a seat itself can see: all its own but the blind card. */
export function visibleToOwner(hand, seat) {
  return heldBy(hand, seat).filter((held) => held.face !== dealing.BLIND);
}
