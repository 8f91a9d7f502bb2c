// fairdeal/games/toto21/apply.py (SPEC 11.4, 11.6): folding logged events into the Toto21
// state. Trusts data that ``decide`` produced.

import * as dealing from "../../engine/dealing.js";
import {
  CARD_DEALT,
  CLIENT_SEED,
  JOINER_ACCEPTED,
  JOINER_REJECTED,
  ROUND_OPENED,
  ROUND_REVEALED,
  ROUND_SEALED,
  ROUND_VOIDED,
  SEAT_JOINED,
  SEAT_LEFT,
  SEED_COMMITMENT,
  SEED_TIMEOUT,
  SEEDS_COMMITTED,
} from "../../engine/protocol.js";
import { get } from "../../engine/pytypes.js";
import { DECIDING, OPEN, OVER, PLAYING, makeHand, makeHeld, makeKnown } from "./state.js";

export function apply(state, event) {
  return applyAt(state, event, event.time);
}

/** ``apply`` for an event (or a draft) logged at ``time``, which Toto21 never reads: its
 * deadlines are logged in the events' data. */
export function applyAt(state, event, time) {
  const applier = APPLIERS.get(event.type);
  if (applier === undefined) throw new RangeError(`toto21 logs no event ${JSON.stringify(event.type)}`);
  return applier(state, event);
}

function unchanged(state) {
  return state;
}

function joined(state, event) {
  const seats = [...state.seats, event.data.seat];
  return { ...state, seats, phase: seats.length === 2 ? DECIDING : OPEN, balances: event.data.balances };
}

function left(state, event) {
  const seats = state.seats.filter((seat) => seat !== event.data.seat);
  return { ...state, seats, phase: OPEN, balances: event.data.balances };
}

function started(state, event) {
  const data = event.data;
  return { ...state, phase: PLAYING, balances: data.balances, game_deadline: data.game_deadline };
}

function ended(state, event) {
  return { ...state, phase: OVER, balances: event.data.balances };
}

function onRound(update) {
  return (state, event) => ({ ...state, round: update(state.round, event) });
}

function opened(state, event) {
  const round = dealing.applyOpened(event);
  const round_ids = new Set([...state.round_ids, round.round_id]);
  return { ...state, round, hand: null, rounds: state.rounds + 1, round_ids };
}

function dealerChosen(state, event) {
  return { ...state, hand: makeHand({ dealer: event.data.dealer, player: event.data.player }) };
}

function dealtCard(state, event) {
  const data = event.data;
  const hand = state.hand;
  const held = makeHeld({
    seat: data.seat,
    position: data.position,
    face: data.face,
    commitment: get(data, "commitment"),
  });
  const known =
    held.face === dealing.UP
      ? new Map(hand.known).set(held.position, makeKnown({ card: data.card, salt: null }))
      : hand.known;
  const blind_taken = hand.blind_taken || held.face === dealing.BLIND;
  return { ...state, hand: { ...hand, held: [...hand.held, held], known, blind_taken } };
}

function moveDue(state, event) {
  return { ...state, hand: { ...state.hand, turn: event.data.seat, move_deadline: event.data.deadline } };
}

function turnOver(state) {
  if (state.hand === null) return state; // a round voided before its seal has no hand
  return { ...state, hand: { ...state.hand, turn: null, move_deadline: null } };
}

function shown(state, event) {
  const known = new Map(state.hand.known);
  for (const c of event.data.cards) known.set(c.position, makeKnown({ card: c.card, salt: c.salt }));
  return { ...state, hand: { ...state.hand, known } };
}

function won(state, event) {
  const [first, second] = event.data.score;
  return { ...turnOver(state), score: [first, second], worth: 1 };
}

function doubleBust(state, event) {
  return { ...turnOver(state), worth: event.data.next_worth };
}

const seeding = onRound(dealing.applySeeding);

const APPLIERS = new Map([
  [SEAT_JOINED, joined],
  [JOINER_ACCEPTED, unchanged],
  [JOINER_REJECTED, unchanged],
  [SEAT_LEFT, left],
  ["match_started", started],
  [ROUND_OPENED, opened],
  [SEED_COMMITMENT, seeding],
  [SEEDS_COMMITTED, seeding],
  [CLIENT_SEED, seeding],
  [SEED_TIMEOUT, seeding],
  [ROUND_SEALED, onRound((current) => dealing.applySealed(current))],
  ["dealer_chosen", dealerChosen],
  [CARD_DEALT, dealtCard],
  ["move_due", moveDue],
  ["hit", unchanged],
  ["blind", unchanged],
  ["stand", turnOver],
  ["move_timeout", turnOver],
  ["cards_shown", shown],
  ["round_won", won],
  ["round_double_bust", doubleBust],
  [ROUND_VOIDED, turnOver],
  [ROUND_REVEALED, onRound((current) => dealing.applyRevealed(current))],
  ["game_time_up", unchanged],
  ["match_won", ended],
  ["match_drawn", ended],
]);
