// fairdeal/games/toto21/ending.py (SPEC 11.4 steps 8 and 9, 11.5): how rounds and the match
// end: showdown, outcome, the pot paid out, and the reveal.

import { bytesToHex } from "../../bytes.js";
import { draft } from "../../engine/base.js";
import * as dealing from "../../engine/dealing.js";
import * as money from "../../engine/money.js";
import { SERVER, seatActor } from "../../engine/protocol.js";
import { get } from "../../engine/pytypes.js";
import * as hands from "./hands.js";
import { SEATS, cardsOf, deckOf, heldBy, hidden } from "./state.js";

/** After the dealer's turn: every card counts, the blind card too. */
export function showdown(run, secret) {
  const deck = deckOf(run.state, secret);
  const hand = run.hand();
  const mine = cardsOf(deck, heldBy(hand, hand.player));
  const theirs = cardsOf(deck, heldBy(hand, hand.dealer));
  finishRound(run, deck, hands.showdown(hand.player, hand.dealer, mine, theirs), secret);
}

/** Show the hidden cards, log the outcome, reveal the seed; the match may end. */
export function finishRound(run, deck, outcome, secret) {
  const hand = run.hand();
  for (const seat of [hand.player, hand.dealer]) show(run, deck, seat);
  const totals = SEATS.map((seat) => hands.total(cardsOf(deck, heldBy(hand, seat))));
  run.emit(outcomeDraft(run.state, run.round().round_id, outcome, totals));
  endRound(run, secret);
}

/** After a round's outcome: the match's end if a seat reached the target, then the reveal. */
export function endRound(run, secret) {
  const score = run.state.score;
  const leader = SEATS.reduce((best, seat) => (score[seat] > score[best] ? seat : best)); // max(): the first on ties
  if (score[leader] >= run.state.options.target) {
    // Before the reveal: the round head then covers the match's settlement too.
    run.emit(matchWon(run.state, leader, "target"));
  }
  run.emit(dealing.revealedDraft(run.round(), secret));
}

function show(run, deck, seat) {
  const cards = hidden(run.hand(), seat);
  if (!cards.length) return;
  const shown = cards.map((h) => ({
    position: h.position,
    card: deck.card(h.position),
    salt: bytesToHex(deck.salt(h.position)),
  }));
  run.emit(draft("cards_shown", SERVER, { seat, cards: shown }, run.round().round_id));
}

/** `round_won` or `round_double_bust` with each seat's total (null: a round forfeited before
 * its cards could all be opened, SPEC 15.13.7.5). */
export function outcomeDraft(state, roundId, outcome, totals) {
  if (outcome.winner === null) {
    return draft("round_double_bust", SERVER, { totals, next_worth: state.worth + 1 }, roundId);
  }
  const score = SEATS.map((seat, i) => state.score[i] + (seat === outcome.winner ? state.worth : 0));
  const data = { seat: outcome.winner, points: state.worth, reason: outcome.reason, totals, score };
  return draft("round_won", SERVER, data, roundId);
}

/** The winner takes the whole pot. */
export function matchWon(state, seat, reason) {
  const pot = get(state.balances, money.POT, 0);
  const transfers = pot ? [money.makeTransfer({ source: money.POT, target: seatActor(seat), amount: pot })] : [];
  const data = { seat, reason, score: [...state.score] };
  return draft("match_won", SERVER, { ...data, ...money.settlement(state.balances, transfers) });
}

/** Equal points when the game time ends: each seat's stake comes back. */
export function matchDrawn(state) {
  const stake = state.options.stake;
  const back = (seat) => money.makeTransfer({ source: money.POT, target: seatActor(seat), amount: stake });
  const transfers = stake ? SEATS.map(back) : [];
  return draft("match_drawn", SERVER, { score: [...state.score], ...money.settlement(state.balances, transfers) });
}

/** The match's end on time: more points wins the pot, equal points is a draw. */
export function byPoints(state) {
  const [first, second] = state.score;
  if (first === second) return matchDrawn(state);
  return matchWon(state, first > second ? SEATS[0] : SEATS[1], "game_time_up");
}
