// fairdeal/games/kvitlach/ending.py (SPEC 12.5, 12.6, 12.7): how hands, rounds and terms
// end: an immediate win or bust, the showdown and its settlement, the term's end, the reveal.

import { bytesToHex } from "../../bytes.js";
import { draft } from "../../engine/base.js";
import * as dealing from "../../engine/dealing.js";
import * as money from "../../engine/money.js";
import { SERVER, seatActor } from "../../engine/protocol.js";
import * as hands from "./hands.js";
import { cardsOf } from "./run.js";
import { BANKER, bank, exitCondition, openHands, playersAble, rightward } from "./state.js";

/** A card of the deck with its salt, as it is shown: {position, card, salt}. */
export function faceUp(deck, position) {
  return { position, card: deck.card(position), salt: bytesToHex(deck.salt(position)) };
}

/** ``cards_shown``: the hand turned face up, each card with its salt. */
export function show(run, deck, seat) {
  const shown = run.play.hands.get(seat).cards.map((p) => faceUp(deck, p));
  run.server("cards_shown", { seat, cards: shown });
}

/** An immediate 21 wins, a bust loses; a protected 11 waits for the holder's word. */
export function afterCard(run, deck, seat) {
  const hand = run.play.hands.get(seat);
  const cards = cardsOf(hand, deck);
  if (hands.isTwentyOne(cards)) {
    show(run, deck, seat);
    resolve(run, "hand_won", hand, { reason: hands.winReason(cards) });
  } else if ((hand.protected === null || cards.at(-1) !== "11") && hands.isBust(cards)) {
    show(run, deck, seat);
    resolve(run, "hand_lost", hand, {});
  }
}

/** A hand's bet, paid by the bank to a winner or by a loser to the bank. */
function paid(wins, seat, bet) {
  return wins
    ? money.makeTransfer({ source: money.BANK, target: seat, amount: bet })
    : money.makeTransfer({ source: seat, target: money.BANK, amount: bet });
}

function resolve(run, kind, hand, extra) {
  const seat = seatActor(hand.seat);
  const transfers = hand.bet ? [paid(kind === "hand_won", seat, hand.bet)] : [];
  const data = { seat: hand.seat, bet: hand.bet, ...extra };
  run.server(kind, { ...data, ...money.settlement(run.state.balances, transfers) });
}

/** The banker does not play when no bet is open: straight to the showdown. */
export function finish(run, deck, secret) {
  const play = run.play;
  if (play.phase === BANKER && !openHands(play).length) showdown(run, deck, secret);
}

/** Cards up, one settlement of every open bet, the term's end if due, the reveal. */
export function showdown(run, deck, secret) {
  show(run, deck, run.play.banker);
  for (const hand of openHands(run.play)) show(run, deck, hand.seat);
  const banker = cardsOf(run.play.hands.get(run.play.banker), deck);
  const settled = settlement(run, banker, deck);
  // Services before 7.19's correction logged a framed pair's own best total.
  const earlier = hands.isFramedPair(banker) && hands.best(banker) !== hands.TWENTY_ONE
    ? [{ ...settled, banker_total: hands.best(banker) }] : [];
  run.server("round_settled", settled, earlier);
  const roundId = run.round.round_id;
  if (bank(run.state) === 0) {
    endTerm(run, "bank_empty", roundId);
  } else if (run.state.options.banker_exit === "mandatory" && exitCondition(run.state)) {
    endTerm(run, "four_or_seven", roundId);
  } else if (!playersAble(run.state).length) {
    endTerm(run, "no_players", roundId);
  }
  run.emit(dealing.revealedDraft(run.round, secret));
}

/** `round_settled` against the banker's `banker` cards: a framed pair counts as exactly 21,
 * and its total is logged as 21. */
export function settlement(run, banker, deck) {
  const twentyOne = hands.isTwentyOne(banker);
  const total = twentyOne ? hands.TWENTY_ONE : hands.best(banker);
  const result = twentyOne ? "21" : hands.isBust(banker) ? "bust" : "below";
  const results = [];
  const transfers = [];
  for (const hand of openHands(run.play)) {
    const player = hands.best(cardsOf(hand, deck));
    const wins = result === "bust" || (result === "below" && player > total);
    const seat = seatActor(hand.seat);
    transfers.push(paid(wins, seat, hand.bet));
    results.push({ seat: hand.seat, bet: hand.bet, total: player, outcome: wins ? "win" : "lose" });
  }
  const head = { banker_total: total, banker_result: result, results };
  return { ...head, ...money.settlement(run.state.balances, transfers) };
}

/** ``term_ended``: the banker takes what is left in the bank; the role passes right. */
export function endTerm(run, reason, roundId) {
  const state = run.state;
  const old = state.banker;
  const others = rightward(state.seats, old, state.options.max_seats);
  const funds = bank(state);
  const transfers = funds ? [money.makeTransfer({ source: money.BANK, target: seatActor(old), amount: funds })] : [];
  const data = { banker: old, next_banker: others.length ? others[0] : old, reason };
  run.emit(draft("term_ended", SERVER, { ...data, ...money.settlement(state.balances, transfers) }, roundId));
}
