// fairdeal/games/toto21/seating.py (SPEC 11.3): joining the table and the creator's answer
// to the joiner; money in and out. A seat's deposit (its stake) is the only way money
// enters the table, a returned deposit the only way it leaves before the match:
// conservation is checked against both.

import { draft, record } from "../../engine/base.js";
import { IllegalActionError, OutOfTurnError } from "../../engine/errors.js";
import * as money from "../../engine/money.js";
import { SEAT_LEFT, SERVER, seatActor } from "../../engine/protocol.js";
import { Run, actingSeat, single, tableLevel } from "./run.js";
import { DECIDING, OPEN, SEATS } from "./state.js";

export const JOINER = 1;

/** ``seat_joined``: the next free seat takes its place and deposits the stake. */
export function join(state, cmd) {
  const seat = actingSeat(cmd);
  tableLevel(cmd);
  if (state.phase !== OPEN || seat !== state.seats.length) {
    throw new OutOfTurnError(`${cmd.actor} is not the next free seat`);
  }
  const stake = state.options.stake;
  const balances = money.afterDeposit(state.balances, seatActor(seat), stake);
  return single(state, cmd, record(cmd, { seat, deposit: stake, balances }));
}

/** ``joiner_accepted``: both stakes go into the pot and the game clock starts. */
export function accept(state, cmd) {
  creatorDeciding(state, cmd);
  const run = new Run(state, cmd);
  run.emit(record(cmd, { seat: JOINER }));
  const stake = state.options.stake;
  const into = (seat) => money.makeTransfer({ source: seatActor(seat), target: money.POT, amount: stake });
  const escrow = stake ? SEATS.map(into) : [];
  const data = {
    ...money.settlement(state.balances, escrow),
    game_deadline: cmd.time + state.options.game_time_ms,
  };
  run.emit(draft("match_started", SERVER, data));
  return run.decision();
}

/** ``joiner_rejected``: the joiner leaves with its deposit; the seat is free again. */
export function reject(state, cmd) {
  creatorDeciding(state, cmd);
  const run = new Run(state, cmd);
  run.emit(record(cmd, { seat: JOINER }));
  const account = seatActor(JOINER);
  const balances = Object.fromEntries(Object.entries(state.balances).filter(([name]) => name !== account));
  const data = { seat: JOINER, withdrawal: state.balances[account], balances };
  run.emit(draft(SEAT_LEFT, SERVER, data));
  return run.decision();
}

function creatorDeciding(state, cmd) {
  tableLevel(cmd);
  if (actingSeat(cmd) !== 0) throw new OutOfTurnError("only the table's creator (seat:0) decides on the joiner");
  if (state.phase !== DECIDING) throw new IllegalActionError("no joiner is waiting for the creator's answer");
}
