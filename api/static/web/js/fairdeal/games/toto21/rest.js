// fairdeal/games/toto21/rest.py (SPEC 11.9, 6.6): Toto21's table at rest as JSON members (a
// table_state snapshot), and back.
//
// A snapshot holds what the rules read between rounds and nothing that grows with the
// table's age: not the round ids used (a round id cannot come back), nor the last round's
// cards. Of the last round the rules read one thing at rest: a client seed naming it is
// refused as round_sealed if it was sealed (``rounds.seeding``), so its id is kept when it
// was. A round voided before its seal leaves no id: a seed naming it is refused as naming
// no round in progress, as any.

import { EventSchemaError } from "../../engine/errors.js";
import { POT } from "../../engine/money.js";
import { MAX_SAFE_INTEGER, seatActor } from "../../engine/protocol.js";
import { isDict, isExactInt, pyEqual, sameKeys, sortedObject, sum } from "../../engine/pytypes.js";
import * as resting from "../../engine/resting.js";
import { parse } from "./options.js";
import { DECIDING, OPEN, OVER, PLAYING, SEATS, inRound, makeState } from "./state.js";

export const MEMBERS = [
  "balances",
  "game_deadline",
  "last_round",
  "options",
  "phase",
  "rounds",
  "score",
  "seats",
  "worth",
];
export const PHASES = [OPEN, DECIDING, PLAYING, OVER];
const MATCH = [PLAYING, OVER]; // phases after the match started: clock, score and rounds

/** The table at rest as JSON data members, or null while a round is open. */
export function snapshot(state) {
  if (inRound(state)) return null;
  return {
    balances: sortedObject(state.balances),
    game_deadline: state.game_deadline,
    last_round: sealedRound(state),
    options: state.options.toJson(),
    phase: state.phase,
    rounds: state.rounds,
    score: [...state.score],
    seats: [...state.seats],
    worth: state.worth,
  };
}

/** The state ``snapshot`` described; EventSchemaError for anything else. */
export function restore(members) {
  if (!isDict(members) || !sameKeys(members, MEMBERS)) {
    throw new EventSchemaError(`a toto21 snapshot has exactly the members ${MEMBERS.join(", ")}`);
  }
  const options = resting.options(parse, members.options);
  const phase = members.phase;
  if (!PHASES.includes(phase)) throw new EventSchemaError(`phase must be one of ${PHASES.join(", ")}`);
  const seats = seatsOf(members.seats, phase);
  const started = MATCH.includes(phase);
  const rounds = resting.integer(members.rounds, "rounds", 0, started ? MAX_SAFE_INTEGER : 0);
  // The engine refuses the state unless its snapshot is exactly ``members``.
  return makeState({
    options,
    phase,
    seats,
    balances: balancesOf(members.balances, seats, options.stake, phase),
    score: scoreOf(members.score, options.target, phase),
    worth: resting.integer(members.worth, "worth", 1, started ? MAX_SAFE_INTEGER : 1),
    game_deadline: deadlineOf(members.game_deadline, started),
    rounds,
    round: lastRound(members.last_round, rounds),
  });
}

function sealedRound(state) {
  const last = state.round;
  return last !== null && last.sealed ? last.round_id : null;
}

/** The last round as the rules read it at rest: its id, sealed and revealed. A round
 * voided before its seal is none: no rule reads a round that dealt nothing once it is over. */
function lastRound(value, rounds) {
  if (value === null) return null;
  return resting.sealedRound(value, rounds, SEATS);
}

/** Seats are taken in order; both once the creator answers the joiner, and after. */
function seatsOf(value, phase) {
  const allowed = phase === OPEN ? [[], [0]] : [[0, 1]];
  if (!Array.isArray(value) || !allowed.some((seats) => pyEqual(seats, value)) || !value.every(isExactInt)) {
    throw new EventSchemaError(`seats in phase ${phase} must be one of ${JSON.stringify(allowed)}`);
  }
  return [...value];
}

/** The pot and each seat's account; the stakes are all there is (escrowed while the match
 * is played), so the table holds exactly one stake a seat. */
function balancesOf(value, seats, stake, phase) {
  const accounts = new Set([POT, ...seats.map(seatActor)]);
  const balances = resting.balances(value, accounts);
  if (sum(Object.values(balances)) !== stake * seats.length) {
    throw new EventSchemaError("the balances hold one stake for each seat, no more or less");
  }
  if (balances[POT] !== (phase === PLAYING ? stake * seats.length : 0)) {
    throw new EventSchemaError("the pot holds both stakes during the match, else nothing");
  }
  return balances;
}

/** Points: none before the match, below the target while it is played. */
function scoreOf(value, target, phase) {
  const high = { [OPEN]: 0, [DECIDING]: 0, [PLAYING]: target - 1 }[phase] ?? MAX_SAFE_INTEGER;
  if (!Array.isArray(value) || value.length !== SEATS.length) {
    throw new EventSchemaError("score is a list of two integers");
  }
  const [first, second] = value.map((points) => resting.integer(points, "score", 0, high));
  return [first, second];
}

/** The game clock's end: set when the match starts, never before. */
function deadlineOf(value, started) {
  if (!started) {
    if (value !== null) throw new EventSchemaError("game_deadline is null until the match starts");
    return null;
  }
  return resting.integer(value, "game_deadline", 0);
}
