// fairdeal/games/kvitlach/seating.py (SPEC 12.2, 12.7): taking and leaving seats between
// rounds, and the banker's optional exit; money in and out.

import { record } from "../../engine/base.js";
import { IllegalActionError, LimitError, OutOfTurnError } from "../../engine/errors.js";
import * as money from "../../engine/money.js";
import { actorSeat, seatActor } from "../../engine/protocol.js";
import { get, isExactInt } from "../../engine/pytypes.js";
import { endTerm } from "./ending.js";
import { MAX_AMOUNT } from "./options.js";
import { balance, inRound, playersAble } from "./state.js";

/** Joiners take the lowest free seat number (a seat is a place at the table); null if none. */
export function nextFreeSeat(state) {
  for (let seat = 0; seat < state.options.max_seats; seat++) if (!state.seats.includes(seat)) return seat;
  return null;
}

/** The acting seat of a table-level command, which only comes between rounds. */
function betweenRounds(state, command) {
  if (inRound(state)) throw new IllegalActionError(`${command.type} only between rounds`);
  if (command.round !== null) throw new IllegalActionError(`${command.type} names no round`);
  const seat = actorSeat(command.actor);
  if (seat === null) throw new IllegalActionError(`${command.type} is a seat's command`);
  return seat;
}

export function seatJoined(run, command) {
  const seat = betweenRounds(run.state, command);
  if (seat !== nextFreeSeat(run.state)) throw new OutOfTurnError(`the next free seat is ${nextFreeSeat(run.state)}`);
  const buyIn = get(command.data, "buy_in", null);
  if (!isExactInt(buyIn) || !(buyIn >= 1 && buyIn <= MAX_AMOUNT)) {
    throw new LimitError(`buy_in must be an integer from 1 to ${MAX_AMOUNT}`);
  }
  const balances = money.afterDeposit(run.state.balances, seatActor(seat), buyIn);
  run.emit(record(command, { buy_in: buyIn, balances }));
}

export function seatLeft(run, command) {
  const state = run.state;
  const seat = betweenRounds(state, command);
  if (!state.seats.includes(seat)) throw new OutOfTurnError("this seat is not taken");
  if (state.term !== null && state.term.banker === seat) {
    throw new IllegalActionError("the banker stays until the term ends");
  }
  const leaving = seatActor(seat);
  const balances = Object.fromEntries(Object.entries(state.balances).filter(([name]) => name !== leaving));
  run.emit(record(command, { withdrawal: balance(state, seat), balances }));
  if (run.state.term !== null && !playersAble(run.state).length) endTerm(run, "no_players", null);
}

export function bankerExit(run, command) {
  const seat = betweenRounds(run.state, command);
  if (!run.state.exit_offer || seat !== run.state.banker) {
    throw new IllegalActionError("no 4-or-7 exit is open to this seat");
  }
  run.emit(record(command, {}));
  endTerm(run, "banker_exit", null);
}
