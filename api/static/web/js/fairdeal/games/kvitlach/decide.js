// fairdeal/games/kvitlach/decide.py (SPEC 12.10, 6.1): the drafts a command causes, the
// command itself first. Consequence-only event types are refused as commands, so a forged
// log cannot inject a deal, a win or a settlement.

import { unknownCommand } from "../../engine/base.js";
import { IllegalActionError } from "../../engine/errors.js";
import {
  CARD_DEALT,
  CLIENT_SEED,
  ROUND_OPENED,
  ROUND_REVEALED,
  ROUND_SEALED,
  ROUND_VOIDED,
  SEAT_JOINED,
  SEAT_LEFT,
  SEED_COMMITMENT,
  SEED_TIMEOUT,
  SEEDS_COMMITTED,
  TABLE_CREATED,
  actorSeat,
} from "../../engine/protocol.js";
import { applyAt } from "./apply.js";
import * as play from "./play.js";
import * as rounds from "./rounds.js";
import { Run } from "./run.js";
import * as seating from "./seating.js";
import { legalActions } from "./views.js";

export const CONSEQUENCES = new Set([
  TABLE_CREATED, "bank_funded", ROUND_SEALED, CARD_DEALT, "card_burned",
  "cards_shown", "hand_won", "hand_lost", "hand_closed", "round_settled",
  "term_ended", ROUND_REVEALED, ROUND_VOIDED, SEEDS_COMMITTED,
]); // prettier-ignore

const COMMANDS = new Map([
  [SEAT_JOINED, seating.seatJoined], // the table-level handlers take no secret
  [SEAT_LEFT, seating.seatLeft],
  ["banker_exit", seating.bankerExit],
  [ROUND_OPENED, rounds.roundOpened],
  [SEED_COMMITMENT, rounds.seeding],
  [CLIENT_SEED, rounds.seeding],
  [SEED_TIMEOUT, rounds.seeding],
  ["move_timeout", play.moveTimeout],
  ...play.PLAYER_MOVES.map((kind) => [kind, play.playerMove]),
  ...play.BANKER_MOVES.map((kind) => [kind, play.bankerMove]),
]);
const TABLE_COMMANDS = new Set([SEAT_JOINED, SEAT_LEFT, "banker_exit", ROUND_OPENED]);
const ROUND_COMMANDS = new Set([...COMMANDS.keys()].filter((kind) => !TABLE_COMMANDS.has(kind)));

export function decide(state, command, secret) {
  if (CONSEQUENCES.has(command.type)) {
    throw new IllegalActionError(`${command.type} is the rules' consequence, never a command`);
  }
  const handler = COMMANDS.get(command.type);
  if (handler === undefined) {
    const seat = actorSeat(command.actor);
    const legal = seat === null ? [] : legalActions(state, seat, secret);
    throw unknownCommand("Kvitlach", command.type, COMMANDS, legal);
  }
  if (ROUND_COMMANDS.has(command.type) && (state.round === null || command.round !== state.round.round_id)) {
    throw new IllegalActionError(`${command.type} must name the round in progress`);
  }
  const run = new Run(state, command.time, applyAt);
  handler(run, command, secret);
  return run.decision();
}
