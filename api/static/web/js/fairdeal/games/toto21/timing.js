// fairdeal/games/toto21/timing.py (SPEC 11.5): deadlines, which server timeout is due,
// refusing any other, and the game clock's end.
//
// Pending deadlines are the game's end, the seed deadline of an unsealed round, at a
// dealer-blind table the deadline of the request pending (a shuffle step, shares, keys), and
// the move deadline of the seat to move. The earliest passed one is due first (the game's end first
// on equal times), and ``decide`` accepts no other, so the server cannot pick the order of
// timeouts to its liking. The game's end waits while a dealt round is in play: that round
// is finished by moves and move timeouts, so a seat that sees a losing hand cannot have it
// voided by letting the game clock run out.

import { command, record } from "../../engine/base.js";
import * as dealing from "../../engine/dealing.js";
import { IllegalActionError, NotDueError } from "../../engine/errors.js";
import {
  KEYS_DUE,
  KEYS_TIMEOUT,
  SEED_TIMEOUT,
  SERVER,
  SHARES_DUE,
  SHARES_TIMEOUT,
  SHUFFLE_DUE,
  SHUFFLE_TIMEOUT,
} from "../../engine/protocol.js";
import { byPoints } from "./ending.js";
import { Run, requireServer } from "./run.js";
import { PLAYING, inRound } from "./state.js";

export const VOID_REASON = "game_time_up";

/** A running deadline and the server command it calls for; ``rank`` breaks ties: the
 * reveals' end (-1), the game's end (0), a round's others (1). */
export function makeDeadline({ time, rank, command }) {
  return { time, rank, command };
}

/** Every deadline now running, earliest first. */
export function pending(state) {
  if (state.phase !== PLAYING || state.game_deadline === null) return [];
  const found = [];
  if (!dealtRoundInPlay(state)) {
    const end = state.game_deadline;
    const gameEnd = command({
      type: "game_time_up",
      actor: SERVER,
      time: end,
      data: { deadline: end },
      round: gameEndRound(state),
    });
    found.push(makeDeadline({ time: end, rank: 0, command: gameEnd }));
  }
  const current = state.round;
  const hand = state.hand;
  if (current !== null && inRound(state) && !current.sealed) {
    const data = { deadline: current.seed_deadline, seats: dealing.missingSeeds(current) };
    const time = current.seed_deadline;
    const cmd = command({ type: SEED_TIMEOUT, actor: SERVER, time, data, round: current.round_id });
    // The reveals end by the game's end (rounds.seeding): at that same time, the void of a
    // withheld reveal comes first, so that it names the withholding seats.
    found.push(makeDeadline({ time, rank: current.revealing ? -1 : 1, command: cmd }));
  } else if (current !== null && state.crypto !== null && state.crypto.request !== null) {
    found.push(requestDeadline(current.round_id, state.crypto.request));
  } else if (current !== null && hand !== null && hand.move_deadline !== null) {
    const data = { seat: hand.turn, deadline: hand.move_deadline };
    const time = hand.move_deadline;
    const cmd = command({ type: "move_timeout", actor: SERVER, time, data, round: current.round_id });
    found.push(makeDeadline({ time, rank: 1, command: cmd }));
  }
  return found.sort((a, b) => a.time - b.time || a.rank - b.rank);
}

const TIMEOUTS = new Map([
  [SHUFFLE_DUE, SHUFFLE_TIMEOUT],
  [SHARES_DUE, SHARES_TIMEOUT],
  [KEYS_DUE, KEYS_TIMEOUT],
]);

/** A dealer-blind round's pending request: its timeout names the seats that owe an answer
 * (the one asked for its step), SPEC 15.13.8. */
function requestDeadline(roundId, request) {
  const data = { deadline: request.deadline };
  if (request.kind === SHUFFLE_DUE) data.seat = request.seats[0];
  else data.seats = [...request.seats];
  const cmd = command({ type: TIMEOUTS.get(request.kind), actor: SERVER, time: request.deadline, data, round: roundId });
  return makeDeadline({ time: request.deadline, rank: 1, command: cmd });
}

/** A round is sealed, and so dealt (the seal's run deals), and not yet revealed. */
export function dealtRoundInPlay(state) {
  return state.round !== null && inRound(state) && state.round.sealed;
}

/** The round ``game_time_up`` names: the one it voids (never a dealt one), if any. */
export function gameEndRound(state) {
  return state.round !== null && inRound(state) ? state.round.round_id : null;
}

/** The server command for the earliest deadline passed at ``now``, stamped ``now``. */
export function due(state, now) {
  const first = pending(state)[0];
  if (first === undefined || first.time > now) return null;
  return { ...first.command, time: now };
}

/** A timeout is accepted only when its deadline passed and no other came first. */
export function checkDue(state, cmd) {
  const passed = pending(state).filter((d) => d.time <= cmd.time);
  if (passed.every((d) => d.command.type !== cmd.type)) throw new NotDueError(`no ${cmd.type} is due at ${cmd.time}`);
  if (passed[0].command.type !== cmd.type) throw new IllegalActionError(`${passed[0].command.type} is due first`);
}

/** Void the unsealed round in progress, decide the match by points, then reveal the seed.
 * A dealt round is never voided: the game's end waits until it is revealed.
 *
 * With a round in progress the command names it, so a replay has the seed to check the
 * reveal with; otherwise it names no round. */
export function gameTimeUp(state, cmd, secret) {
  requireServer(cmd);
  if (state.phase !== PLAYING) throw new IllegalActionError("the game clock runs only during the match");
  if (dealtRoundInPlay(state)) {
    throw new NotDueError("the game time ends the match only once the dealt round is finished");
  }
  const roundId = gameEndRound(state);
  if (cmd.round !== null && cmd.round !== roundId) {
    throw new IllegalActionError("game_time_up names the round in progress, or none");
  }
  checkDue(state, cmd);
  const run = new Run(state, cmd);
  run.emit(record(cmd, { deadline: state.game_deadline }, roundId));
  // The match's settlement comes before the reveal, so that the round head (the reveal, a
  // leaf of the transparency log) covers the money too.
  const voiding = state.round !== null && inRound(state);
  if (voiding) run.emit(dealing.voidedDraft(run.round(), VOID_REASON));
  run.emit(byPoints(run.state));
  if (voiding) run.emit(dealing.revealedDraft(run.round(), secret));
  return run.decision();
}
