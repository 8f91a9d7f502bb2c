// fairdeal/games/kvitlach/apply.py (SPEC 12.2-12.9): the state after one logged event.
// Never decides; only records. Turn order is derived here from public facts (statuses,
// bets, the bank), so the service and the verifier move the turn identically without
// knowing hidden cards.
//
// Each handler gathers its changes to the play and to the state, and ``next`` makes them at
// once, the move clock included.

import * as dealing from "../../engine/dealing.js";
import { BANK } from "../../engine/money.js";
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
  actorSeat,
} from "../../engine/protocol.js";
import { get } from "../../engine/pytypes.js";
import {
  BANKER,
  DONE,
  LOST,
  OPEN,
  OUT,
  PLAYERS,
  PLAYING,
  SEEDING,
  SHOWDOWN,
  SKIPPED,
  WAITING,
  WON,
  bank,
  changed,
  exitCondition,
  makeHand,
  makePlay,
  makeTerm,
  staked,
} from "./state.js";

const UNCHANGED = Object.freeze({});
const MOVING = new Set([PLAYERS, BANKER]); // phases in which a move (and its deadline) is awaited

export function apply(state, event) {
  return applyAt(state, event, event.time);
}

/** ``apply`` for an event (or a draft) logged at ``time``. */
export function applyAt(state, event, time) {
  const handler = HANDLERS.get(event.type);
  if (handler === undefined) throw new TypeError(`Kvitlach has no event ${JSON.stringify(event.type)}`);
  return handler(state, event, time);
}

/** The state with the play's ``play`` changes and its own ``changes`` made. Each move has
 * its own time: the clock restarts with every event of the play while a player or the
 * banker is to move. */
function next(state, time, play = UNCHANGED, changes = {}) {
  const old = state.play;
  let all = changes;
  if (old !== null) {
    const current = Object.hasOwn(changes, "round") ? changes.round : state.round;
    const phase = Object.hasOwn(play, "phase") ? play.phase : old.phase;
    const waiting = current !== null && !current.revealed && MOVING.has(phase);
    const deadline = waiting ? time + state.options.move_time_ms : null;
    // Unchanged on most events after a command's first: then the play is kept.
    if (Object.keys(play).length || deadline !== old.deadline) {
      all = { ...changes, play: { ...old, ...play, deadline } };
    }
  }
  return Object.keys(all).length ? { ...state, ...all } : state;
}

/** The hands with some seats' hands changed: ``changes`` holds [seat, fields] entries. */
function withHands(hands, changes) {
  return changed(hands, changes.map(([seat, fields]) => [seat, { ...hands.get(seat), ...fields }]));
}

function hand(state, time, seat, fields) {
  return next(state, time, { hands: withHands(state.play.hands, [[seat, fields]]) });
}

function balances(event) {
  return { ...event.data.balances };
}

// Seats and the banker's term.

function joined(state, event, time) {
  const seats = [...state.seats, actorSeat(event.actor)].sort((a, b) => a - b);
  return next(state, time, UNCHANGED, { balances: balances(event), seats });
}

/** The seat is free again; its ante stays in the bank but is no newcomer's: whoever takes
 * the seat next in this term pays the ante at its first round. */
function left(state, event, time) {
  const seat = actorSeat(event.actor);
  const seats = state.seats.filter((s) => s !== seat);
  let term = state.term;
  if (term !== null) term = { ...term, paid: new Set([...term.paid].filter((s) => s !== seat)) };
  return next(state, time, UNCHANGED, { balances: balances(event), seats, term });
}

function termEnded(state, event, time) {
  const banker = event.data.next_banker;
  const changes = { balances: balances(event), term: null, banker, exit_offer: false };
  return next(state, time, UNCHANGED, changes);
}

function bankFunded(state, event, time) {
  const term = state.term;
  const paid = new Set([...term.paid, ...event.data.paid]);
  return next(state, time, UNCHANGED, { balances: balances(event), term: { ...term, paid } });
}

// The round's randomness and deal.

function opened(state, event) {
  // A new play, its players still seeding: no move and so no move deadline yet.
  const data = event.data;
  const banker = data.banker;
  const term =
    state.term === null
      ? makeTerm({ banker, rounds: 1, paid: new Set() })
      : { ...state.term, rounds: state.term.rounds + 1 };
  const hands = new Map(data.seats.map((seat) => [seat, makeHand({ seat })]));
  const play = makePlay({ banker, order: [...data.order], hands });
  const round = dealing.applyOpened(event);
  return {
    ...state,
    round,
    round_ids: new Set([...state.round_ids, round.round_id]),
    rounds: data.number,
    banker,
    term,
    play,
    exit_offer: false,
  };
}

function seeded(state, event, time) {
  return next(state, time, UNCHANGED, { round: dealing.applySeeding(state.round, event) });
}

function sealed(state, event, time) {
  return next(state, time, UNCHANGED, { round: dealing.applySealed(state.round) });
}

function dealt(state, event, time) {
  const data = event.data;
  const play = state.play;
  const { seat, position } = data;
  const old = play.hands.get(seat);
  const guarded = old.armed ? position : null;
  const fresh = { ...old, cards: [...old.cards, position], armed: false, protected: guarded };
  const hands = changed(play.hands, [[seat, fresh]]);
  const changes = { hands, dealt: play.dealt + 1 };
  if (Object.hasOwn(data, "card")) changes.known = changed(play.known, [[position, data.card]]);
  if (play.phase === SEEDING && [...hands.values()].every((h) => h.cards.length)) {
    Object.assign(changes, advanced(play, hands, bank(state)));
  }
  return next(state, time, changes);
}

function revealed(state, event, time) {
  const round = dealing.applyRevealed(state.round);
  return next(state, time, { phase: DONE, turn: null }, { round });
}

// Players' moves.

/** The play's changes that pass the turn (``hands`` being its next hands, ``funds`` the
 * bank) to the next waiting player; once the bank is all set aside (or nobody waits), the
 * rest are skipped and the banker plays. */
function advanced(play, hands, funds) {
  const waiting = play.order.filter((s) => hands.get(s).status === WAITING);
  if (waiting.length && funds - staked(hands) > 0) {
    // uncovered funds, with these hands
    const turn = waiting[0];
    return { hands: withHands(hands, [[turn, { status: PLAYING }]]), phase: PLAYERS, turn };
  }
  const skipped = waiting.map((seat) => [seat, { status: SKIPPED }]);
  return { hands: withHands(hands, skipped), phase: BANKER, turn: play.banker };
}

/** Any move of the holder ends the protection of the card dealt after an Elvaroon. */
function moved(state, event, time) {
  return hand(state, time, actorSeat(event.actor), { protected: null });
}

function bet(state, event, time) {
  const seat = actorSeat(event.actor);
  const amount = state.play.hands.get(seat).bet + event.data.amount;
  return hand(state, time, seat, { bet: amount, protected: null });
}

function elvaroon(state, event, time) {
  const seat = actorSeat(event.actor);
  const amount = state.play.hands.get(seat).bet + event.data.raise;
  return hand(state, time, seat, { bet: amount, elvaroon: true, armed: true, protected: null });
}

function close(state, seat, time) {
  const play = state.play;
  const status = play.hands.get(seat).bet ? OPEN : OUT;
  const hands = withHands(play.hands, [[seat, { status, protected: null }]]);
  return next(state, time, advanced(play, hands, bank(state)));
}

function stand(state, event, time) {
  return close(state, actorSeat(event.actor), time);
}

function handClosed(state, event, time) {
  return close(state, event.data.seat, time);
}

function burned(state, event, time) {
  const data = event.data;
  const play = state.play;
  const old = play.hands.get(data.seat);
  const cards = old.cards.filter((p) => p !== data.position);
  const burnt = [...old.burned, data.position];
  const hands = withHands(play.hands, [[old.seat, { cards, burned: burnt, protected: null }]]);
  const known = changed(play.known, [[data.position, data.card]]);
  return next(state, time, { hands, known });
}

function shown(state, event, time) {
  const play = state.play;
  const known = changed(play.known, event.data.cards.map((c) => [c.position, c.card]));
  if (event.data.seat === play.banker) return next(state, time, { known, phase: SHOWDOWN, turn: null });
  return next(state, time, { known });
}

function resolved(status) {
  return (state, event, time) => {
    const seat = event.data.seat;
    const play = state.play;
    const after = balances(event);
    const hands = withHands(play.hands, [[seat, { status, protected: null }]]);
    const changes = play.turn === seat ? advanced(play, hands, get(after, BANK, 0)) : { hands };
    return next(state, time, changes, { balances: after });
  };
}

function settled(state, event, time) {
  const results = event.data.results;
  const after = balances(event);
  const statuses = results.map((r) => [r.seat, { status: r.outcome === "win" ? WON : LOST }]);
  const hands = withHands(state.play.hands, statuses);
  // The banker's first card (for the exit) is the same in the play before and after.
  const exitOffer = state.options.banker_exit === "optional" && exitCondition(state) && get(after, BANK, 0) > 0;
  return next(state, time, { hands }, { balances: after, exit_offer: exitOffer });
}

function nothing(state, event, time) {
  return next(state, time);
}

const HANDLERS = new Map([
  [SEAT_JOINED, joined],
  [SEAT_LEFT, left],
  ["banker_exit", nothing],
  ["term_ended", termEnded],
  [ROUND_OPENED, opened],
  ["bank_funded", bankFunded],
  [SEED_COMMITMENT, seeded],
  [SEEDS_COMMITTED, seeded],
  [CLIENT_SEED, seeded],
  [SEED_TIMEOUT, seeded],
  [ROUND_VOIDED, nothing],
  [ROUND_SEALED, sealed],
  [CARD_DEALT, dealt],
  ["bet", bet],
  ["hit", moved],
  ["open_card", moved],
  ["stand", stand],
  ["elvaroon", elvaroon],
  ["reject", nothing],
  ["card_burned", burned],
  ["move_timeout", nothing],
  ["hand_closed", handClosed],
  ["cards_shown", shown],
  ["hand_won", resolved(WON)],
  ["hand_lost", resolved(LOST)],
  ["banker_draw", nothing],
  ["banker_stop", nothing],
  ["round_settled", settled],
  [ROUND_REVEALED, revealed],
]);
