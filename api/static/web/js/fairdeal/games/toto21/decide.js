// fairdeal/games/toto21/decide.py (SPEC 11.6): which function decides each Toto21 command;
// anything else is refused. Consequence-only events (card_dealt, dealer_chosen, move_due,
// cards_shown, round_won, match_started, seat_left, match_won, ...) have no entry here, so
// a forged log cannot inject them as commands.

import { unknownCommand } from "../../engine/base.js";
import {
  CLIENT_SEED,
  JOINER_ACCEPTED,
  JOINER_REJECTED,
  ROUND_OPENED,
  SEAT_JOINED,
  SEED_COMMITMENT,
  SEED_TIMEOUT,
  actorSeat,
} from "../../engine/protocol.js";
import * as play from "./play.js";
import * as rounds from "./rounds.js";
import * as seating from "./seating.js";
import * as timing from "./timing.js";
import { legalActions } from "./views.js";

export const COMMANDS = new Map([
  [SEAT_JOINED, seating.join],
  [JOINER_ACCEPTED, seating.accept],
  [JOINER_REJECTED, seating.reject],
  [ROUND_OPENED, rounds.openRound],
  [SEED_COMMITMENT, rounds.seeding],
  [CLIENT_SEED, rounds.seeding],
  [SEED_TIMEOUT, rounds.seeding],
  ["hit", play.hit],
  ["blind", play.blind],
  ["stand", play.stand],
  ["move_timeout", play.moveTimeout],
  ["game_time_up", timing.gameTimeUp],
]);

export function decide(state, cmd, secret) {
  const decider = COMMANDS.get(cmd.type);
  if (decider === undefined) {
    const seat = actorSeat(cmd.actor);
    const legal = seat === null ? [] : legalActions(state, seat, secret);
    throw unknownCommand("Toto21", cmd.type, COMMANDS, legal);
  }
  return decider(state, cmd, secret);
}
