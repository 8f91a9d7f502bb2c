// fairdeal/games/toto21/blind_round.py (SPEC 15.13): a dealer-blind Toto21 round — the round
// keys in the seed phase, the shuffle chain, dealing ciphertexts with the service's shares,
// the seats' shares, the golden point claim and the key reveals, and the timeouts of each
// request.
//
// rounds.js and play.js hand a blind table's commands here; blind_ending.js decides how the
// round ends once the keys are in, or a request's time ran out.

import { draft, record } from "../../engine/base.js";
import { canonical } from "../../canonical.js";
import * as dealing from "../../engine/dealing.js";
import { IllegalActionError, OutOfTurnError } from "../../engine/errors.js";
import {
  CARD_DEALT,
  CARD_OPENED,
  CLIENT_SEED,
  DECK_SHUFFLED,
  KEYS_DUE,
  ROUND_VOIDED,
  SEED_COMMITMENT,
  SEED_TIMEOUT,
  SEED_WITHHELD,
  SERVER,
  SHARES_DUE,
  SHUFFLE_DUE,
} from "../../engine/protocol.js";
import { get, isExactInt } from "../../engine/pytypes.js";
import { choose } from "../../randomness.js";
import * as blindEnding from "./blind_ending.js";
import * as cipher from "./cipher.js";
import { Run, actingSeat, currentRound, inTime, moveDue, requireServer } from "./run.js";
import { DEALER_PURPOSE, dealt, deckOf } from "./state.js";
import * as timing from "./timing.js";

export const SERVER_KEY = "server_key";
export const ROUND_KEY_MEMBER = "round_key";

const without = (data, member) => Object.fromEntries(Object.entries(data).filter(([name]) => name !== member));

// ---- round keys and seeds (SPEC 15.13.3, 15.13.4) -----------------------------------------

/** `round_opened` with the service's round key and proof (derived from the seed; given by the
 * command where the seed is not known, and then checked). */
export function opened(state, cmd, secret) {
  const given = get(cmd.data, SERVER_KEY);
  const bare = { ...cmd, data: without(cmd.data, SERVER_KEY) };
  const seedTime = state.options.seed_time_ms;
  const made = dealing.opened(bare, secret, state.rounds + 1, [0, 1], seedTime);
  const roundId = made.round ?? "";
  const table = cmd.table ?? "";
  let key;
  if (secret !== null && secret !== undefined) {
    key = cipher.serverKey(secret, table, roundId);
    if (given !== null && canonical(given) !== canonical(key)) {
      throw new IllegalActionError("server_key is not the one the server seed gives");
    }
  } else if (given === null) {
    throw new IllegalActionError("round_opened needs server_key where the seed is not known");
  } else {
    cipher.checkKey(given, SERVER, table, roundId, []);
    key = given;
  }
  return { ...made, data: { ...made.data, [SERVER_KEY]: key } };
}

/** `dealing.seeding` at a blind table: every seat commits, with its round key; a plain seed in
 * the commit phase is refused, and a missed commitment voids the round. */
export function seeding(state, current, cmd, revealTime) {
  if (cmd.type === CLIENT_SEED && !current.revealing) {
    throw new IllegalActionError("at a blind table every seat commits first, with its round key");
  }
  if (cmd.type === SEED_TIMEOUT && !current.revealing) {
    const made = dealing.seedingDraft(current, cmd);
    const withheld = { reason: SEED_WITHHELD, seats: made.data.seats };
    return [[made, draft(ROUND_VOIDED, SERVER, withheld, current.round_id)], dealing.VOID];
  }
  if (cmd.type !== SEED_COMMITMENT) return dealing.seeding(current, cmd, revealTime);
  const key = get(cmd.data, ROUND_KEY_MEMBER);
  const bare = without(cmd.data, ROUND_KEY_MEMBER);
  const [drafts, then] = dealing.seeding(current, { ...cmd, data: bare }, revealTime);
  if (key === null) throw new IllegalActionError("a blind table's seed_commitment carries round_key");
  const crypto = cryptoOf(state);
  const taken = [crypto.server_key, ...crypto.round_keys.values()];
  cipher.checkKey(key, cmd.actor, cmd.table ?? "", current.round_id, taken);
  const [first, ...rest] = drafts;
  return [[{ ...first, data: { ...first.data, [ROUND_KEY_MEMBER]: key } }, ...rest], then];
}

/** The seal's run: `round_sealed`, the service's shuffle step, the first seat asked. */
export function seal(run, secret) {
  const current = run.round();
  run.emit(dealing.sealedDraft(current));
  const shuffleKey = deckOf(run.state, secret).key;
  const crypto = cryptoOf(run.state);
  const step = cipher.serverStep(crypto, current.seats, shuffleKey, run.table, current.round_id);
  run.emit(draft(DECK_SHUFFLED, SERVER, { ...step, step: cipher.SERVER_STEP }, current.round_id));
  askStep(run, current.seats[0]);
}

// ---- the shuffle chain (SPEC 15.13.5) -----------------------------------------------------

/** A seat's `deck_shuffled`: its step verified against the last one; the last seat's step is
 * followed by the dealer's choice and the deal. */
export function shuffled(state, cmd, secret) {
  if (cmd.actor === SERVER) throw new IllegalActionError("the service's step is logged by the rules, never sent");
  const current = currentRound(state, cmd);
  const seat = actingSeat(cmd);
  const crypto = cryptoOf(state);
  const request = asked(crypto, SHUFFLE_DUE, seat, cmd);
  inTime(request.deadline, cmd.time, "shuffle");
  const step = crypto.decks.length;
  const data = cmd.data;
  const names = Object.keys(data).filter((name) => name !== "step");
  if (names.length !== 2 || !names.includes("deck") || !names.includes("proof")) {
    throw new IllegalActionError("deck_shuffled carries exactly deck and proof");
  }
  if (Object.hasOwn(data, "step") && (!isExactInt(data.step) || data.step !== step)) {
    throw new IllegalActionError(`this is step ${step}`);
  }
  const where = cipher.context(cmd.table ?? "", current.round_id, cmd.actor, "shuffle", step);
  cipher.checkStep(crypto, current.seats, step, data, where);
  const run = new Run(state, cmd);
  run.emit(record(cmd, { deck: data.deck, proof: data.proof, step }, current.round_id));
  if (step < current.seats.length) askStep(run, current.seats[step]);
  else deal(run, secret);
  return run.decision();
}

/** The seat asked for its step did not send it in time: the round is void (15.13.5.4). */
export function shuffleTimeout(state, cmd, secret) {
  const request = timedOut(state, cmd, SHUFFLE_DUE);
  const run = new Run(state, cmd);
  const seat = request.seats[0];
  const roundId = run.round().round_id;
  run.emit(record(cmd, { seat, deadline: request.deadline }, roundId));
  run.emit(draft(ROUND_VOIDED, SERVER, { reason: "shuffle_withheld", seats: [seat] }, roundId));
  run.emit(dealing.revealedDraft(run.round(), secret));
  return run.decision();
}

function askStep(run, seat) {
  const deadline = run.time + run.state.options.seed_time_ms;
  run.emit(draft(SHUFFLE_DUE, SERVER, { seat, deadline }, run.round().round_id));
}

// ---- dealing and shares (SPEC 15.13.6) ----------------------------------------------------

/** The dealer chosen by the shuffle key, then four cards, then the shares they need. */
function deal(run, secret) {
  const current = run.round();
  const seats = current.seats;
  const dealer = seats[choose(deckOf(run.state, secret).key, DEALER_PURPOSE, seats.length)];
  const player = seats.find((seat) => seat !== dealer);
  run.emit(draft("dealer_chosen", SERVER, { dealer, player }, current.round_id));
  const faces = [
    [player, dealing.DOWN],
    [dealer, dealing.UP],
    [player, dealing.DOWN],
    [dealer, dealing.DOWN],
  ];
  for (const [seat, face] of faces) dealCard(run, secret, seat, face);
  askShares(run, [0, 1, 2, 3]);
}

/** `card_dealt` of the next position: its ciphertext and, unless face blind, the service's
 * share (SPEC 15.13.6.1). */
export function dealCard(run, secret, seat, face) {
  const crypto = cryptoOf(run.state);
  const roundId = run.round().round_id;
  const position = dealt(run.hand());
  const deck = cipher.deckOfCrypto(crypto);
  if (position >= deck.length) throw new IllegalActionError("the deck is exhausted");
  let share = null;
  if (face !== dealing.BLIND) {
    if (secret === null || secret === undefined) {
      throw new IllegalActionError("a card is dealt with the service's share: the seed is needed");
    }
    share = cipher.serverShare(crypto, secret, run.table, roundId, position);
  }
  const data = { position, seat, face, ciphertext: { ...deck[position] }, server_share: share };
  run.emit(draft(CARD_DEALT, SERVER, data, roundId));
  return position;
}

/** `shares_due`: each seat's shares of the cards just dealt, face up (every seat) or face
 * down to another seat (SPEC 15.13.6.2). */
export function askShares(run, positions) {
  const hand = run.hand();
  const current = run.round();
  const held = new Map(hand.held.map((card) => [card.position, card]));
  const requests = [];
  for (const seat of current.seats) {
    const owed = positions.filter((p) => {
      const card = held.get(p);
      return card.face === dealing.UP || (card.face === dealing.DOWN && card.seat !== seat);
    });
    if (owed.length) requests.push({ seat, positions: owed });
  }
  const data = { deadline: run.time + run.state.options.seed_time_ms, requests };
  run.emit(draft(SHARES_DUE, SERVER, data, current.round_id));
}

/** A seat's `decryption_shares`; the last answer opens the face-up cards and gives the move
 * to the seat whose turn it is. */
export function shares(state, cmd, secret) {
  const [current, seat, crypto, request] = answer(state, cmd, SHARES_DUE, "shares");
  const positions = request.positions.get(seat);
  const entries = cipher.checkShares(crypto, seat, positions, cmd.data.shares, [cmd.table ?? "", current.round_id]);
  const run = new Run(state, cmd);
  run.emit(record(cmd, { shares: entries }, current.round_id));
  const after = cryptoOf(run.state);
  if (after.request === null) {
    const held = new Map(run.hand().held.map((card) => [card.position, card]));
    const asked_ = [...new Set([...request.positions.values()].flat())].sort((a, b) => a - b);
    for (const position of asked_.filter((p) => held.get(p).face === dealing.UP)) {
      const card = cipher.openedCard(after, position);
      run.emit(draft(CARD_OPENED, SERVER, { position, card }, current.round_id));
    }
    const deadline = run.time + run.state.options.move_time_ms;
    run.emit(moveDue(current.round_id, after.then, deadline));
  }
  return run.decision();
}

/** A share not sent in time: its seat loses the round (SPEC 15.13.7.5). */
export function sharesTimeout(state, cmd, secret) {
  return withheld(state, cmd, SHARES_DUE, "shares_withheld", secret);
}

// ---- play (SPEC 15.13.7.1, 15.13.7.2) -----------------------------------------------------

/** A hit (face down: the other seat's share is asked) or the blind card (no share). The draw
 * limit is not applied here: the service cannot see the total (15.13.7.2). */
export function draw(state, cmd, secret, face) {
  const hand = state.hand; // play.onTurn checked
  const run = new Run(state, cmd);
  run.emit(record(cmd, {}, run.round().round_id));
  const position = dealCard(run, secret, hand.turn, face);
  if (face === dealing.DOWN) askShares(run, [position]);
  else run.emit(moveDue(run.round().round_id, hand.turn, run.time + state.options.move_time_ms));
  return run.decision();
}

/** The player claims two aces on its first move: the showdown comes at once. */
export function goldenPoint(state, cmd, secret) {
  const crypto = cryptoOf(state);
  const current = currentRound(state, cmd);
  const seat = actingSeat(cmd);
  const hand = state.hand;
  if (hand === null || hand.turn !== seat) throw new OutOfTurnError(`${cmd.actor} is not the seat to move`);
  if (seat !== hand.player) throw new OutOfTurnError("only the round's player claims the golden point");
  if (crypto.draws.some(([drawer]) => drawer === seat)) {
    throw new IllegalActionError("the golden point is claimed on the first move only");
  }
  inTime(hand.move_deadline, cmd.time, "move");
  const run = new Run(state, cmd);
  run.emit(record(cmd, {}, current.round_id));
  askKeys(run);
  return run.decision();
}

// ---- the showdown: every seat's round key (SPEC 15.13.7.3) --------------------------------

export function askKeys(run) {
  const current = run.round();
  const data = { deadline: run.time + run.state.options.seed_time_ms, seats: [...current.seats] };
  run.emit(draft(KEYS_DUE, SERVER, data, current.round_id));
}

/** A seat's private round key; the last one opens every card and ends the round. */
export function roundKey(state, cmd, secret) {
  const [current, seat, crypto] = answer(state, cmd, KEYS_DUE, "secret");
  cipher.checkSecret(crypto, seat, cmd.data.secret);
  const run = new Run(state, cmd);
  run.emit(record(cmd, { secret: cmd.data.secret }, current.round_id));
  if (cryptoOf(run.state).request === null) blindEnding.showdown(run, secret);
  return run.decision();
}

/** A key not revealed in time: its seat loses the round (SPEC 15.13.7.5). */
export function keysTimeout(state, cmd, secret) {
  return withheld(state, cmd, KEYS_DUE, "key_withheld", secret);
}

// ---- shared checks ------------------------------------------------------------------------

function cryptoOf(state) {
  if (state.crypto === null) throw new IllegalActionError("only a dealer-blind table's round has this step");
  return state.crypto;
}

/** A seat's answer to the pending `kind`, in time, its data exactly `member`: [the round, the
 * seat, the round's cryptography, the request] (SPEC 15.13.6.3, 15.13.7.3). */
function answer(state, cmd, kind, member) {
  const current = currentRound(state, cmd);
  const seat = actingSeat(cmd);
  const crypto = cryptoOf(state);
  const request = asked(crypto, kind, seat, cmd);
  inTime(request.deadline, cmd.time, "answer");
  const names = Object.keys(cmd.data);
  if (names.length !== 1 || names[0] !== member) throw new IllegalActionError(`${cmd.type} carries exactly ${member}`);
  return [current, seat, crypto, request];
}

/** The pending request of `kind` that `seat` still owes an answer to. */
function asked(crypto, kind, seat, cmd) {
  const request = crypto.request;
  if (request === null || request.kind !== kind || !request.seats.includes(seat)) {
    throw new OutOfTurnError(`no ${kind} asks ${cmd.actor} for ${cmd.type} now`);
  }
  return request;
}

function timedOut(state, cmd, kind) {
  requireServer(cmd);
  currentRound(state, cmd);
  const request = cryptoOf(state).request;
  if (request === null || request.kind !== kind) throw new IllegalActionError(`no ${kind} is pending`);
  timing.checkDue(state, cmd);
  return request;
}

function withheld(state, cmd, kind, reason, secret) {
  const request = timedOut(state, cmd, kind);
  const run = new Run(state, cmd);
  const seats = [...request.seats];
  run.emit(record(cmd, { deadline: request.deadline, seats }, run.round().round_id));
  blindEnding.forfeit(run, seats, reason, secret);
  return run.decision();
}
