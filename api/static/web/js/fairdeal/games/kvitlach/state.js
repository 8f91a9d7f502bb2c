// fairdeal/games/kvitlach/state.py (SPEC 12.2, 12.3, 12.7): the state of a Kvitlach table,
// its seats, balances, the banker's term and the round. Everything here is public: hidden
// cards are deck positions only, their values come from the deck where the rules need them.
//
// Values are never changed once made (a state is shared between runs): each change makes a
// new object. Maps keyed by seat or deck position are Maps (an object would reorder them).

import { BANK } from "../../engine/money.js";
import { seatActor } from "../../engine/protocol.js";
import { get, mod, sorted } from "../../engine/pytypes.js";

// Hand statuses. A hand is "live" while its bet is covered by the bank.
export const WAITING = "waiting";
export const PLAYING = "playing";
export const OPEN = "open";
export const OUT = "out";
export const WON = "won";
export const LOST = "lost";
export const SKIPPED = "skipped";
export const LIVE = new Set([PLAYING, OPEN]);
// Round phases after the round is opened.
export const SEEDING = "seeding";
export const PLAYERS = "players";
export const BANKER = "banker";
export const SHOWDOWN = "showdown";
export const DONE = "done";

/** A copy of ``map`` with the ``[key, value]`` entries of ``changes`` set. */
export function changed(map, changes) {
  const next = new Map(map);
  for (const [key, value] of changes) next.set(key, value);
  return next;
}

/** One seat's cards in a round (deck positions, in order) and its bet. */
export function makeHand({
  seat,
  cards = [],
  bet = 0,
  status = WAITING,
  elvaroon = false, // called this round (once per hand)
  armed = false, // the Elvaroon protects the next card dealt
  protected: guarded = null, // that card's position, until the holder moves again
  burned = [],
}) {
  return { seat, cards, bet, status, elvaroon, armed, protected: guarded, burned };
}

/** A round's table: who plays in which order, the hands (a Map by seat), whose move it is. */
export function makePlay({
  banker,
  order, // the players (banker excluded) in their turn order
  hands,
  phase = SEEDING,
  turn = null,
  deadline = null,
  known = new Map(), // public cards by position
  dealt = 0, // cards dealt this round, burned ones included: the next deck position
}) {
  return { banker, order, hands, phase, turn, deadline, known, dealt };
}

/** The first card goes to each player in turn order, then to the banker. */
export function dealOrder(play) {
  return [...play.order, play.banker];
}

/** A banker's term: from funding the bank until the role passes. ``rounds``: rounds opened
 * in this term, this one included; ``paid``: a Set of the seated players whose ante is in
 * this term's bank (not who left). */
export function makeTerm({ banker, rounds, paid }) {
  return { banker, rounds, paid };
}

export function makeState({
  options,
  balances = {},
  seats = [],
  banker = 0, // the current banker, or who is next in line between terms
  term = null,
  rounds = 0,
  round = null,
  play = null,
  exit_offer = false, // an optional 4-or-7 exit the banker may take now
  round_ids = new Set(), // a round id is used once per table
}) {
  return { options, balances, seats, banker, term, rounds, round, play, exit_offer, round_ids };
}

export function inRound(state) {
  return state.round !== null && !state.round.revealed;
}

export function balance(state, seat) {
  return get(state.balances, seatActor(seat), 0);
}

export function bank(state) {
  return get(state.balances, BANK, 0);
}

/** A player plays a round with the term's ante paid (`paid`, a Set) and a unit left to bet,
 * or with the ante and a unit to pay now. */
export function canPlay(state, seat, paid) {
  return balance(state, seat) >= (paid.has(seat) ? 1 : state.options.ante + 1);
}

/** The term's seated players that could play its next round (SPEC 12.7 `no_players`). */
export function playersAble(state) {
  const term = state.term;
  return state.seats.filter((seat) => seat !== term.banker && canPlay(state, seat, term.paid));
}

/** What the bank has set aside: the bets of every hand still in play. */
export function covered(play) {
  return play === null ? 0 : staked(play.hands);
}

/** The bets of the hands still in play among ``hands``. */
export function staked(hands) {
  let total = 0;
  for (const hand of hands.values()) if (LIVE.has(hand.status)) total += hand.bet;
  return total;
}

export function uncovered(state) {
  return bank(state) - covered(state.play);
}

/** The other seats from ``start``'s left onwards: seat numbers upwards, wrapping. */
export function leftward(seats, start, maxSeats) {
  return sorted(seats.filter((s) => s !== start), { key: (s) => mod(s - start, maxSeats) });
}

/** The other seats from ``start``'s right onwards: seat numbers downwards, wrapping. */
export function rightward(seats, start, maxSeats) {
  return sorted(seats.filter((s) => s !== start), { key: (s) => mod(start - s, maxSeats) });
}

export function openHands(play) {
  return play.order.map((s) => play.hands.get(s)).filter((hand) => hand.status === OPEN);
}

export const EXIT_FROM_TERM_ROUND = 4;
export const EXIT_CARDS = ["4", "7"];

/** The banker's first card once it is public (at the showdown). */
export function bankerFirstCard(play) {
  const first = play.hands.get(play.banker).cards;
  return first.length ? (play.known.get(first[0]) ?? null) : null;
}

/** Rule 19: from the term's 4th round, a first card of 4 or 7 lets the banker out. */
export function exitCondition(state) {
  return (
    state.term !== null &&
    state.play !== null &&
    state.term.rounds >= EXIT_FROM_TERM_ROUND &&
    EXIT_CARDS.includes(bankerFirstCard(state.play))
  );
}
