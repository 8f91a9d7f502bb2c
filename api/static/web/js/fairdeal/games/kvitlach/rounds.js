// fairdeal/games/kvitlach/rounds.py (SPEC 12.2, 12.3): a round's start: the banker, who
// plays and in which order, the bank's funding, the client seeds, the seal and the deal.

import { record } from "../../engine/base.js";
import * as dealing from "../../engine/dealing.js";
import { IllegalActionError } from "../../engine/errors.js";
import { BANK, makeTransfer, settlement } from "../../engine/money.js";
import { SERVER, seatActor } from "../../engine/protocol.js";
import { get } from "../../engine/pytypes.js";
import { finish } from "./ending.js";
import { deal, deckOf } from "./run.js";
import { balance, canPlay, dealOrder, inRound, leftward, rightward } from "./state.js";

export function roundOpened(run, command, secret) {
  const state = run.state;
  if (command.actor !== SERVER) throw new IllegalActionError("the server opens a round");
  if (inRound(state)) throw new IllegalActionError("a round is in progress");
  if (state.round_ids.has(command.round)) throw new IllegalActionError("a round id is used once per table");
  const banker = bankerOf(state);
  const paid = state.term !== null ? state.term.paid : new Set();
  const players = playersOf(state, banker, paid);
  const termRound = state.term !== null ? state.term.rounds + 1 : 1;
  const order = orderOf(state, banker, players, termRound);
  const seats = [...players, banker].sort((a, b) => a - b);
  // The shared draft knows only its own fields; record() below checks the command's others.
  const bare = { ...command, data: { commitment: get(command.data, "commitment", null) } };
  const opened = dealing.opened(bare, secret, state.rounds + 1, seats, state.options.seed_time_ms);
  const data = { ...opened.data, banker, term_round: termRound, order };
  run.emit(record(command, data));
  fund(run, banker, players.filter((p) => !paid.has(p)));
}

/** The term's banker; between terms the next in line, passing over (to the right) any seat
 * that cannot fund the bank. */
function bankerOf(state) {
  if (state.term !== null) return state.term.banker;
  const maxSeats = state.options.max_seats;
  const line = state.seats.includes(state.banker) ? [state.banker] : [];
  line.push(...rightward(state.seats, state.banker, maxSeats));
  for (const seat of line) if (balance(state, seat) >= state.options.bank_funding) return seat;
  throw new IllegalActionError("no seat can fund the bank");
}

/** Seats that play: the ante paid (or payable now) and a unit left to bet. */
function playersOf(state, banker, paid) {
  const players = state.seats.filter((seat) => seat !== banker && canPlay(state, seat, paid));
  if (!players.length) throw new IllegalActionError("nobody can play against the bank");
  return players;
}

/** Classic: from the banker's left. Pressburg: odd rounds of the term from the banker's
 * right going right, even rounds from the left going left. */
function orderOf(state, banker, players, termRound) {
  const maxSeats = state.options.max_seats;
  if (state.options.order === "alternate" && termRound % 2 === 1) return rightward(players, banker, maxSeats);
  return leftward(players, banker, maxSeats);
}

/** ``bank_funded``: the banker's funding at a term's start, and each new player's ante. */
function fund(run, banker, payers) {
  const opts = run.state.options;
  const term = run.state.term;
  const transfers = [];
  const pay = (seat, amount) => makeTransfer({ source: seatActor(seat), target: BANK, amount });
  if (term.rounds === 1) transfers.push(pay(banker, opts.bank_funding));
  if (opts.ante) transfers.push(...payers.map((p) => pay(p, opts.ante)));
  if (!transfers.length && !payers.length) return;
  const data = { banker, paid: payers };
  run.server("bank_funded", { ...data, ...settlement(run.state.balances, transfers) });
}

// Seeds and the deal.

/** A seat's ``client_seed`` or ``seed_commitment``, or the server's ``seed_timeout``; then
 * the seal once every seed is in, or the reveal of a round a withheld seed voided (it moved
 * no money: the antes paid stay in the bank for the term's next rounds). */
export function seeding(run, command, secret) {
  const current = currentOf(run.state, command);
  const [drafts, then] = dealing.seeding(current, command, run.state.options.seed_time_ms);
  for (const each of drafts) run.emit(each);
  if (then === dealing.SEAL) {
    sealAndDeal(run, secret);
  } else if (then === dealing.VOID) {
    run.emit(dealing.revealedDraft(run.round, secret));
  }
}

function currentOf(state, command) {
  if (!inRound(state) || command.round !== state.round.round_id) {
    throw new IllegalActionError(`${command.type} belongs to the round in progress`);
  }
  return state.round;
}

/** Seal, then one face-down card to each player in turn order and the banker last. */
function sealAndDeal(run, secret) {
  run.emit(dealing.sealedDraft(run.round));
  const deck = deckOf(run.state, secret);
  for (const seat of dealOrder(run.play)) deal(run, deck, seat, dealing.DOWN);
  finish(run, deck, secret);
}
