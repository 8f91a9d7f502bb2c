// fairdeal/games/toto21/decide.py (SPEC 11.6): which function decides each Toto21 command;
// anything else is refused. Consequence-only events (card_dealt, dealer_chosen, move_due,
// cards_shown, round_won, match_started, seat_left, match_won, ...) have no entry here, so
// a forged log cannot inject them as commands.

import { unknownCommand } from "../../engine/base.js";
import {
  CLIENT_SEED,
  DECK_SHUFFLED,
  DECRYPTION_SHARES,
  GOLDEN_POINT,
  JOINER_ACCEPTED,
  JOINER_REJECTED,
  KEYS_TIMEOUT,
  ROUND_KEY,
  ROUND_OPENED,
  SEAT_JOINED,
  SEED_COMMITMENT,
  SEED_TIMEOUT,
  SHARES_TIMEOUT,
  SHUFFLE_TIMEOUT,
  actorSeat,
} from "../../engine/protocol.js";
import * as blindRound from "./blind_round.js";
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
  // a dealer-blind table's (SPEC 15.13); refused at any other
  [DECK_SHUFFLED, blindRound.shuffled],
  [SHUFFLE_TIMEOUT, blindRound.shuffleTimeout],
  [DECRYPTION_SHARES, blindRound.shares],
  [SHARES_TIMEOUT, blindRound.sharesTimeout],
  [GOLDEN_POINT, blindRound.goldenPoint],
  [ROUND_KEY, blindRound.roundKey],
  [KEYS_TIMEOUT, blindRound.keysTimeout],
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
