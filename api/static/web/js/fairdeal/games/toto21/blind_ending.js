// fairdeal/games/toto21/blind_ending.py (SPEC 15.13.7): how a dealer-blind round ends — every
// card opened with the revealed keys and judged with the claims and draws, or a forfeit for a
// withheld share or key.

import { draft } from "../../engine/base.js";
import { ROUND_VOIDED, SERVER } from "../../engine/protocol.js";
import * as cipher from "./cipher.js";
import { endRound, outcomeDraft } from "./ending.js";
import * as hands from "./hands.js";
import { SEATS, heldBy, hidden } from "./state.js";

export const FIRST_FOUR = 4; // the golden point reads the initial deal alone (SPEC 15.13.7.1)

const outcome = (winner, reason) => ({ winner, reason });

/** Both keys are in: every hidden card shown, then the outcome (15.13.7.4). */
export function showdown(run, secret) {
  const hand = run.hand();
  const crypto = run.state.crypto;
  const roundId = run.round().round_id;
  if (secret === null || secret === undefined) {
    throw new RangeError("the showdown opens the cards with the service's key: the seed"); // Python's ValueError
  }
  const opened = cipher.cardsWithKeys(
    crypto,
    secret,
    hand.held.map((held) => held.position),
  );
  for (const seat of [hand.player, hand.dealer]) {
    const cards = hidden(hand, seat).map((held) => ({ card: opened.get(held.position), position: held.position }));
    if (cards.length) run.emit(draft("cards_shown", SERVER, { seat, cards }, roundId));
  }
  run.emit(judged(run, opened));
  endRound(run, secret);
}

function judged(run, opened) {
  const state = run.state;
  const hand = run.hand();
  const roundId = run.round().round_id;
  const crypto = state.crypto;
  const first = [0, 1, 2, 3].map((p) => opened.get(p));
  const golden = hands.goldenPoint(
    hand.player,
    hand.dealer,
    first.filter((_, i) => i % 2 === 0),
    first.filter((_, i) => i % 2 === 1),
  );
  if (golden !== null) {
    const totals = SEATS.map((seat) => total(hand, opened, seat, FIRST_FOUR));
    return outcomeDraft(state, roundId, golden, totals);
  }
  const totals = SEATS.map((seat) => total(hand, opened, seat));
  if (crypto.claimed) return outcomeDraft(state, roundId, outcome(hand.dealer, "false_claim"), totals);
  const cheats = [...new Set(crypto.draws.filter(([, seen]) => over(seen, opened)).map(([seat]) => seat))].sort(
    (a, b) => a - b,
  );
  if (cheats.length === 1) {
    const other = SEATS.find((seat) => seat !== cheats[0]);
    return outcomeDraft(state, roundId, outcome(other, "illegal_draw"), totals);
  }
  if (cheats.length) return draft(ROUND_VOIDED, SERVER, { reason: "illegal_draw", seats: cheats }, roundId);
  const [mine, theirs] = [hand.player, hand.dealer].map((seat) =>
    heldBy(hand, seat).map((held) => opened.get(held.position)),
  );
  return outcomeDraft(state, roundId, hands.showdown(hand.player, hand.dealer, mine, theirs), totals);
}

function total(hand, opened, seat, below = null) {
  const held = heldBy(hand, seat).filter((h) => below === null || h.position < below);
  return hands.total(held.map((h) => opened.get(h.position)));
}

/** A draw made when the cards its seat could see totalled 21 or more (15.13.7.2). */
function over(seen, opened) {
  return !hands.mayDraw(seen.map((p) => opened.get(p)));
}

/** A seat that withheld a share or its key loses the round; both: the round is void. */
export function forfeit(run, seats, reason, secret) {
  const roundId = run.round().round_id;
  if (seats.length === 1) {
    const winner = SEATS.find((seat) => seat !== seats[0]);
    run.emit(outcomeDraft(run.state, roundId, outcome(winner, reason), null));
  } else {
    run.emit(draft(ROUND_VOIDED, SERVER, { reason, seats }, roundId));
  }
  endRound(run, secret);
}
