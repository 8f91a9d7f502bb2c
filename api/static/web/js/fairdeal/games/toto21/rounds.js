// fairdeal/games/toto21/rounds.py (SPEC 11.4 steps 1-5, 6.4): a round's start: opening,
// client seeds, the seal, the dealer's choice and the deal.

import { draft } from "../../engine/base.js";
import * as dealing from "../../engine/dealing.js";
import { IllegalActionError } from "../../engine/errors.js";
import { SEED_TIMEOUT, SERVER } from "../../engine/protocol.js";
import { choose } from "../../randomness.js";
import * as blindRound from "./blind_round.js";
import { finishRound } from "./ending.js";
import * as hands from "./hands.js";
import { Run, currentRound, inTime, moveDue, requireServer, single } from "./run.js";
import { DEALER_PURPOSE, PLAYING, SEATS, cardsOf, dealt, deckOf, heldBy, inRound } from "./state.js";
import * as timing from "./timing.js";

/** ``round_opened``: only during the match, after the last round was revealed. */
export function openRound(state, cmd, secret) {
  requireServer(cmd);
  if (state.phase !== PLAYING || inRound(state)) {
    throw new IllegalActionError("a round opens only in a started match, after the last one");
  }
  inTime(state.game_deadline, cmd.time, "game");
  if (state.round_ids.has(cmd.round)) throw new IllegalActionError("this table already used that round id");
  if (state.options.blind) return single(state, cmd, blindRound.opened(state, cmd, secret));
  const seedTime = state.options.seed_time_ms;
  return single(state, cmd, dealing.opened(cmd, secret, state.rounds + 1, SEATS, seedTime));
}

/** A seat's seed or commitment, or the seed timeout; the step that completes the seeds
 * seals the round and deals, and a withheld reveal voids it (``dealing.seeding``). A seed
 * for the last round after it ended (at the deal, say) is late, as it is in Kvitlach, not
 * a stray command. */
export function seeding(state, cmd, secret) {
  const last = state.round;
  let current;
  if (cmd.type === SEED_TIMEOUT) {
    requireServer(cmd);
    current = currentRound(state, cmd);
    timing.checkDue(state, cmd);
  } else {
    if (last !== null && cmd.round === last.round_id) dealing.refuseIfSealed(last);
    current = currentRound(state, cmd);
    inTime(state.game_deadline, cmd.time, "game");
  }
  const run = new Run(state, cmd);
  const reveal = revealTime(state, cmd.time);
  const [drafts, then] = state.options.blind
    ? blindRound.seeding(state, current, cmd, reveal)
    : dealing.seeding(current, cmd, reveal);
  for (const made of drafts) run.emit(made);
  if (then === dealing.SEAL && state.options.blind) blindRound.seal(run, secret);
  else if (then === dealing.SEAL) sealAndDeal(run, secret);
  else if (then === dealing.VOID) run.emit(dealing.revealedDraft(run.round(), secret));
  return run.decision();
}

/** The reveals end by the game's end at the latest: a seat that withholds its reveal then
 * voids the round under its own name (``seed_withheld``), not the game clock. If the game's
 * time is already up (a commit timeout logged late), nobody can reveal and the game's end
 * voids the round, as before any seed was shown. */
function revealTime(state, now) {
  const seedTime = state.options.seed_time_ms;
  const end = state.game_deadline;
  return end === null || end <= now ? seedTime : Math.min(seedTime, end - now);
}

export { moveDue }; // run.js's, where Python's is now

function sealAndDeal(run, secret) {
  const roundId = run.round().round_id;
  run.emit(dealing.sealedDraft(run.round()));
  const deck = deckOf(run.state, secret);
  const seats = run.round().seats;
  const dealer = seats[choose(deck.key, DEALER_PURPOSE, seats.length)];
  const player = seats.find((seat) => seat !== dealer);
  run.emit(draft("dealer_chosen", SERVER, { dealer, player }, roundId));
  const deal = [
    [player, dealing.DOWN],
    [dealer, dealing.UP],
    [player, dealing.DOWN],
    [dealer, dealing.DOWN],
  ];
  for (const [seat, face] of deal) run.emit(dealing.dealDraft(run.round(), deck, dealt(run.hand()), seat, face));
  const hand = run.hand();
  const mine = cardsOf(deck, heldBy(hand, player));
  const theirs = cardsOf(deck, heldBy(hand, dealer));
  const golden = hands.goldenPoint(player, dealer, mine, theirs);
  if (golden !== null) finishRound(run, deck, golden, secret);
  else run.emit(moveDue(roundId, player, run.time + run.state.options.move_time_ms));
}
