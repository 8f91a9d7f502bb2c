// fairdeal/games/toto21/play.py (SPEC 11.4 steps 6 and 7, 11.5): the turns, the player first,
// then the dealer; hit, blind card, stand, move timeout.

import { record } from "../../engine/base.js";
import * as dealing from "../../engine/dealing.js";
import { IllegalActionError, OutOfTurnError } from "../../engine/errors.js";
import * as blindRound from "./blind_round.js";
import { showdown } from "./ending.js";
import * as hands from "./hands.js";
import { Run, actingSeat, currentRound, inTime, moveDue, requireServer } from "./run.js";
import { cardsOf, dealt, deckOf, visibleToOwner } from "./state.js";
import * as timing from "./timing.js";

/** A card face down to the seat to move; the turn goes on. */
export function hit(state, cmd, secret) {
  return draw(state, cmd, secret, dealing.DOWN);
}

/** The round's player only, once a round: a card nobody sees until the showdown. */
export function blind(state, cmd, secret) {
  const hand = onTurn(state, cmd);
  if (hand.turn !== hand.player) throw new OutOfTurnError("only the round's player takes a blind card");
  if (hand.blind_taken) throw new IllegalActionError("the blind card was already taken this round");
  return draw(state, cmd, secret, dealing.BLIND);
}

export function stand(state, cmd, secret) {
  const hand = onTurn(state, cmd);
  const run = new Run(state, cmd);
  run.emit(record(cmd, {}, roundId(state)));
  endTurn(run, hand, secret);
  return run.decision();
}

/** The seat to move let its move time run out: it stands. */
export function moveTimeout(state, cmd, secret) {
  requireServer(cmd);
  currentRound(state, cmd);
  timing.checkDue(state, cmd);
  const hand = state.hand; // checkDue found a move deadline
  const run = new Run(state, cmd);
  run.emit(record(cmd, { seat: hand.turn, deadline: hand.move_deadline }, roundId(state)));
  endTurn(run, hand, secret);
  return run.decision();
}

/** While the cards the seat can see (its blind card not among them) total below 21. */
export function mayDraw(state, secret, seat) {
  const deck = deckOf(state, secret);
  return hands.mayDraw(cardsOf(deck, visibleToOwner(state.hand, seat)));
}

function roundId(state) {
  return state.round.round_id;
}

function draw(state, cmd, secret, face) {
  const hand = onTurn(state, cmd);
  if (state.options.blind) return blindRound.draw(state, cmd, secret, face);
  if (!mayDraw(state, secret, hand.turn)) {
    throw new IllegalActionError("a participant draws only while the cards they see total below 21");
  }
  const run = new Run(state, cmd);
  run.emit(record(cmd, {}, roundId(state)));
  const deck = deckOf(state, secret);
  run.emit(dealing.dealDraft(run.round(), deck, dealt(hand), hand.turn, face));
  run.emit(moveDue(roundId(state), hand.turn, cmd.time + state.options.move_time_ms));
  return run.decision();
}

/** The hand, if the command's seat is the one to move and within its move time (the game's
 * end does not cut a dealt round short). */
function onTurn(state, cmd) {
  currentRound(state, cmd);
  const seat = actingSeat(cmd);
  const hand = state.hand;
  if (hand === null) throw new OutOfTurnError("the round is not dealt yet: its seeds are still coming in");
  if (hand.turn !== seat) throw new OutOfTurnError(`it is seat:${hand.turn}'s move, not ${cmd.actor}'s`);
  inTime(hand.move_deadline, cmd.time, "move");
  return hand;
}

/** The player's turn passes to the dealer; the dealer's ends in the showdown. */
function endTurn(run, hand, secret) {
  if (hand.turn === hand.player) {
    const deadline = run.time + run.state.options.move_time_ms;
    run.emit(moveDue(roundId(run.state), hand.dealer, deadline));
  } else if (run.state.options.blind) {
    blindRound.askKeys(run);
  } else {
    showdown(run, secret);
  }
}
