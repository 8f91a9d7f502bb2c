// fairdeal/games/kvitlach/play.py (SPEC 12.5, 12.6, 12.8, 12.9): the players' and the
// banker's moves during a round, and the move timeout.

import { record } from "../../engine/base.js";
import * as dealing from "../../engine/dealing.js";
import { IllegalActionError, LimitError, NotDueError, OutOfTurnError } from "../../engine/errors.js";
import { SERVER, actorSeat } from "../../engine/protocol.js";
import { get, isExactInt, pyEqual } from "../../engine/pytypes.js";
import { afterCard, faceUp, finish, showdown } from "./ending.js";
import * as hands from "./hands.js";
import { CLASSIC, PRESSBURG } from "./options.js";
import { cardsOf, deal, deckLeft, deckOf } from "./run.js";
import { BANKER, OPEN, OUT, PLAYERS, balance, inRound, uncovered } from "./state.js";

export const PLAYER_MOVES = ["bet", "hit", "open_card", "stand", "elvaroon", "reject"];
export const BANKER_MOVES = ["banker_draw", "banker_stop"];

/** The most a bet (or an Elvaroon raise) may add: the maximum bet less what is staked, the
 * bank's uncovered funds and the seat's chips not yet staked. */
export function stakeLimit(state, hand) {
  const maxBet = state.options.max_bet;
  return Math.min(maxBet - hand.bet, uncovered(state), balance(state, hand.seat) - hand.bet);
}

/** The card dealt after an Elvaroon is an 11 and the holder has not moved since. */
export function pendingEleven(hand, deck) {
  return hand.protected !== null && deck.card(hand.protected) === "11";
}

/** The house rule: the banker draws while the best total is at or below it. */
export function mustDraw(state, deck) {
  const threshold = state.options.banker_must_draw;
  if (threshold === "none" || !deckLeft(state)) return false;
  return hands.best(cardsOf(state.play.hands.get(state.play.banker), deck)) <= Number(threshold);
}

// Checks: each throws unless the move is legal now; legalActions asks the same ones.

function ruleSet(state, wanted, kind) {
  if (state.options.rule_set !== wanted) {
    throw new IllegalActionError(`${kind} is not a move of the ${state.options.rule_set} rules`);
  }
}

function hasBet(hand, kind) {
  if (!hand.bet) throw new IllegalActionError(`bet before you ${kind}`);
}

function drawable(state) {
  if (!deckLeft(state)) throw new IllegalActionError("the deck is exhausted: no more cards this round");
}

/** Returns the stake limit it checked: the bet's handler bounds the amount by it. */
function checkBet(state, hand) {
  if (state.options.rule_set === CLASSIC && hand.bet) {
    throw new IllegalActionError("the classic bet is placed once, before drawing");
  }
  if (state.options.rule_set === PRESSBURG) drawable(state);
  const limit = stakeLimit(state, hand);
  if (limit < 1) throw new LimitError("no bet fits the maximum, the bank's uncovered funds and your chips");
  return limit;
}

function checkHit(state, hand) {
  ruleSet(state, CLASSIC, "hit");
  hasBet(hand, "hit");
  drawable(state);
}

function checkOpenCard(state) {
  ruleSet(state, PRESSBURG, "open_card");
  drawable(state);
}

function checkStand(state, hand) {
  if (state.options.rule_set === CLASSIC) hasBet(hand, "stand");
}

function checkElvaroon(state, hand, deck) {
  if (state.options.rule_set === CLASSIC) hasBet(hand, "call Elvaroon");
  if (hand.elvaroon) throw new IllegalActionError("Elvaroon is called once per hand");
  if (!hands.canCallElvaroon(cardsOf(hand, deck))) throw new IllegalActionError("Elvaroon needs a total of exactly 11");
}

// Each reads the hand's cards from the deck only where it needs them; the bet's returns
// its stake limit.
const CHECKS = new Map([
  ["bet", checkBet],
  ["hit", checkHit],
  ["open_card", checkOpenCard],
  ["stand", checkStand],
  ["elvaroon", checkElvaroon],
]);

export function checkPlayer(state, seat, kind, deck) {
  const hand = playerToMove(state, seat, kind);
  checkPlayerMove(state, hand, kind, deck);
  return hand;
}

/** The hand of ``seat``, if a player's move is awaited and it is this seat's; checked before
 * the deck is asked for (a move before the seal is out of turn). */
function playerToMove(state, seat, kind) {
  const play = state.play;
  if (!inRound(state) || play === null || play.phase !== PLAYERS || play.turn === null) {
    throw new OutOfTurnError(`${kind}: no player's move is awaited`);
  }
  if (play.turn !== seat) throw new OutOfTurnError(`${kind}: it is seat:${play.turn}'s turn`);
  return play.hands.get(play.turn);
}

/** Throws unless the move is legal now; returns a bet's stake limit (see ``CHECKS``). */
function checkPlayerMove(state, hand, kind, deck) {
  const pending = pendingEleven(hand, deck);
  if (kind === "reject") {
    if (!pending) throw new IllegalActionError("reject follows only an 11 dealt after an Elvaroon");
    return null;
  }
  if (pending && hands.isBust(cardsOf(hand, deck))) {
    throw new IllegalActionError("the protected 11 busts this hand: reject it");
  }
  return CHECKS.get(kind)(state, hand, deck);
}

export function checkBanker(state, seat, kind, deck) {
  bankerToMove(state, seat, kind);
  checkBankerMove(state, kind, deck);
}

/** Throws unless the banker's move is awaited and ``seat`` is the banker (checked before the
 * deck is asked for). */
function bankerToMove(state, seat, kind) {
  const play = state.play;
  if (!inRound(state) || play === null || play.phase !== BANKER || play.turn !== seat) {
    throw new OutOfTurnError(`${kind}: it is not the banker's turn`);
  }
}

function checkBankerMove(state, kind, deck) {
  if (kind === "banker_draw") {
    drawable(state);
  } else if (mustDraw(state, deck)) {
    throw new IllegalActionError("the banker must draw at this total");
  }
}

// Handlers.

function amount(command, key, low, high, fallback) {
  const value = get(command.data, key, fallback);
  if (!isExactInt(value) || value < low) throw new IllegalActionError(`${key} must be an integer of at least ${low}`);
  if (value > high) throw new LimitError(`${key} may be at most ${high} now`);
  return value;
}

/** The most an Elvaroon may raise the bet: classic rule 17's stake limit; nothing in
 * Pressburg, whose source's Elvarun has no raise (a Pressburg bet raises, and deals a card). */
export function raiseLimit(state, hand) {
  return state.options.rule_set === CLASSIC ? stakeLimit(state, hand) : 0;
}

function elvaroonRaise(state, hand, command) {
  if (state.options.rule_set === PRESSBURG && !pyEqual(get(command.data, "raise", 0), 0)) {
    throw new IllegalActionError("a Pressburg Elvaroon raises nothing: bet to raise");
  }
  return amount(command, "raise", 0, raiseLimit(state, hand), 0);
}

export function playerMove(run, command, secret) {
  const hand = playerToMove(run.state, actorSeat(command.actor), command.type);
  const deck = deckOf(run.state, secret);
  const betLimit = checkPlayerMove(run.state, hand, command.type, deck);
  if (command.type === "bet") {
    run.emit(record(command, { amount: amount(command, "amount", 1, betLimit, null) }));
  } else if (command.type === "elvaroon") {
    run.emit(record(command, { raise: elvaroonRaise(run.state, hand, command) }));
  } else {
    run.emit(record(command, {}));
  }
  drawFor(run, deck, hand.seat, command.type);
  finish(run, deck, secret);
}

function drawFor(run, deck, seat, kind) {
  if (kind === "reject") {
    burnProtected(run, deck, seat);
  } else if (kind === "hit" || kind === "open_card" || (kind === "bet" && run.state.options.rule_set === PRESSBURG)) {
    deal(run, deck, seat, kind === "open_card" ? dealing.UP : dealing.DOWN);
    afterCard(run, deck, seat);
  }
}

export function bankerMove(run, command, secret) {
  bankerToMove(run.state, actorSeat(command.actor), command.type);
  const deck = deckOf(run.state, secret);
  checkBankerMove(run.state, command.type, deck);
  run.emit(record(command, {}));
  if (command.type === "banker_stop" || bankerDraws(run, deck)) showdown(run, deck, secret);
}

/** One face-up card; true when it ends the banker's play (exactly 21 or bust). */
function bankerDraws(run, deck) {
  deal(run, deck, run.play.banker, dealing.UP);
  const cards = cardsOf(run.play.hands.get(run.play.banker), deck);
  return hands.isTwentyOne(cards) || hands.isBust(cards);
}

/** A player without a bet sits out; with a bet stands (a protected 11 is rejected first);
 * the banker draws what the house rule forces, then stops. */
export function moveTimeout(run, command, secret) {
  const play = run.state.play;
  if (command.actor !== SERVER || !inRound(run.state) || play === null) {
    throw new IllegalActionError("no move is awaited");
  }
  const expected = { seat: play.turn, deadline: play.deadline };
  // Python's dict equality: true == 1 passes here, and record() then refuses it by type.
  if ((play.phase !== PLAYERS && play.phase !== BANKER) || !pyEqual(command.data, expected)) {
    throw new IllegalActionError("no such move deadline is pending");
  }
  if (play.deadline === null || command.time < play.deadline) throw new NotDueError("the move deadline has not passed");
  run.emit(record(command, expected));
  const deck = deckOf(run.state, secret);
  if (play.phase === BANKER) {
    while (mustDraw(run.state, deck)) if (bankerDraws(run, deck)) break;
    showdown(run, deck, secret);
    return;
  }
  timeOutPlayer(run, deck, play.hands.get(play.turn));
  finish(run, deck, secret);
}

function timeOutPlayer(run, deck, hand) {
  if (pendingEleven(hand, deck)) burnProtected(run, deck, hand.seat);
  if (run.play.turn === hand.seat) {
    const status = run.play.hands.get(hand.seat).bet ? OPEN : OUT;
    run.server("hand_closed", { seat: hand.seat, status });
  }
}

/** Reject the protected 11: burn it face up and deal the next card the same way. */
export function burnProtected(run, deck, seat) {
  const position = run.play.hands.get(seat).protected;
  const face = run.play.known.has(position) ? dealing.UP : dealing.DOWN;
  run.server("card_burned", { seat, ...faceUp(deck, position) });
  if (deckLeft(run.state)) {
    deal(run, deck, seat, face);
    afterCard(run, deck, seat);
  }
}
