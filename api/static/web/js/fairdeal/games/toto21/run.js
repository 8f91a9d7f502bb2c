// fairdeal/games/toto21/run.py (SPEC 6.1, 11.4, 11.5): the shared pieces of ``decide``: who
// may act, on which round, in time; and the run builder.

import * as base from "../../engine/base.js";
import { draft, tableOf } from "../../engine/base.js";
import { IllegalActionError, OutOfTurnError } from "../../engine/errors.js";
import { SERVER } from "../../engine/protocol.js";
import { applyAt } from "./apply.js";
import { PLAYING, inRound } from "./state.js";

const SEAT_ACTORS = new Map([
  ["seat:0", 0],
  ["seat:1", 1],
]);

/** The drafts one command causes, each applied as it is made so later steps see it; the
 * states it passes through are the ones ``apply`` builds from the logged events. */
export class Run extends base.Run {
  constructor(state, cmd) {
    super(state, cmd.time, applyAt);
    this.table = tableOf(cmd); // a dealer-blind round's proofs name it (SPEC 15.12.1)
  }

  round() {
    return this.state.round;
  }

  hand() {
    return this.state.hand;
  }
}

export function actingSeat(cmd) {
  const seat = SEAT_ACTORS.get(cmd.actor);
  if (seat === undefined) throw new OutOfTurnError(`${cmd.type} is sent by seat:0 or seat:1`);
  return seat;
}

export function requireServer(cmd) {
  if (cmd.actor !== SERVER) throw new IllegalActionError(`only the server sends ${cmd.type}`);
}

export function tableLevel(cmd) {
  if (cmd.round !== null) throw new IllegalActionError(`${cmd.type} belongs to the table, not to a round`);
}

/** The round in progress, which the command must name (or leave unnamed). */
export function currentRound(state, cmd) {
  if (state.phase !== PLAYING || state.round === null || !inRound(state)) {
    throw new IllegalActionError(`${cmd.type}: no round is in progress`);
  }
  if (cmd.round !== null && cmd.round !== state.round.round_id) {
    throw new IllegalActionError(`${cmd.type} names a round that is not in progress`);
  }
  return state.round;
}

/** Seat commands at or after a deadline are refused: the server's timeout is due. */
export function inTime(deadline, now, what) {
  if (deadline !== null && now >= deadline) throw new IllegalActionError(`the ${what} time is up`);
}

/** ``move_due``: the seat to move and its deadline (logged, so timeouts are checkable). */
export function moveDue(roundId, seat, deadline) {
  return draft("move_due", SERVER, { seat, deadline }, roundId);
}

/** The decision of a command that causes nothing but its own record. */
export function single(state, cmd, made) {
  const run = new Run(state, cmd);
  run.emit(made);
  return run.decision();
}
