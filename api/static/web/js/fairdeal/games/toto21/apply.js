// fairdeal/games/toto21/apply.py (SPEC 11.4, 11.6): folding logged events into the Toto21
// state. Trusts data that ``decide`` produced.

import * as dealing from "../../engine/dealing.js";
import {
  CARD_DEALT,
  CARD_OPENED,
  CLIENT_SEED,
  DECK_SHUFFLED,
  DECRYPTION_SHARES,
  GOLDEN_POINT,
  JOINER_ACCEPTED,
  JOINER_REJECTED,
  KEYS_DUE,
  KEYS_TIMEOUT,
  ROUND_KEY,
  ROUND_OPENED,
  ROUND_REVEALED,
  ROUND_SEALED,
  ROUND_VOIDED,
  SEAT_JOINED,
  SEAT_LEFT,
  SEED_COMMITMENT,
  SEED_TIMEOUT,
  SEEDS_COMMITTED,
  SHARES_DUE,
  SHARES_TIMEOUT,
  SHUFFLE_DUE,
  SHUFFLE_TIMEOUT,
  actorSeat,
} from "../../engine/protocol.js";
import { get } from "../../engine/pytypes.js";
import { makeCrypto, makeRequest } from "./cipher.js";
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
  const serverKey = get(event.data, "server_key");
  const crypto = serverKey === null ? null : makeCrypto({ server_key: serverKey.key });
  return { ...state, round, hand: null, crypto, rounds: state.rounds + 1, round_ids };
}

function dealerChosen(state, event) {
  const hand = makeHand({ dealer: event.data.dealer, player: event.data.player });
  if (state.crypto === null) return { ...state, hand };
  // a blind round's first move is the player's, once the deal's shares are in
  return { ...state, hand, crypto: { ...state.crypto, then: hand.player } };
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
    held.face === dealing.UP && Object.hasOwn(data, "card")
      ? new Map(hand.known).set(held.position, makeKnown({ card: data.card, salt: null }))
      : hand.known;
  const blind_taken = hand.blind_taken || held.face === dealing.BLIND;
  const after = { ...state, hand: { ...hand, held: [...hand.held, held], known, blind_taken } };
  const share = get(data, "server_share");
  if (state.crypto === null || share === null) return after;
  return { ...after, crypto: withShares(state.crypto, "server", new Map([[held.position, share]])) };
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
  for (const c of event.data.cards) known.set(c.position, makeKnown({ card: c.card, salt: get(c, "salt") }));
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

// A dealer-blind round's events (SPEC 15.13)

function onCrypto(update) {
  return (state, event) => ({ ...state, crypto: update(state.crypto, event) });
}

function withShares(crypto, party, shares) {
  const published = new Map(crypto.shares);
  for (const [position, share] of shares) {
    published.set(position, { ...(published.get(position) ?? {}), [party]: share });
  }
  return { ...crypto, shares: published };
}

/** The pending request once `seat` answered it: null once every seat has. */
function answered(crypto, seat) {
  const request = crypto.request;
  const seats = request.seats.filter((s) => s !== seat);
  return seats.length ? { ...request, seats } : null;
}

function committed(state, event) {
  const after = { ...state, round: dealing.applySeeding(state.round, event) };
  const key = get(event.data, "round_key");
  if (after.crypto === null || key === null) return after;
  const round_keys = new Map(after.crypto.round_keys).set(actorSeat(event.actor), key.key);
  return { ...after, crypto: { ...after.crypto, round_keys } };
}

function shuffled(crypto, event) {
  return { ...crypto, decks: [...crypto.decks, [...event.data.deck]], request: null };
}

/** A *_due of the round's cryptography: no move runs while it is pending. */
function requested(state, event) {
  const data = event.data;
  const seats = state.round.seats;
  let request;
  if (event.type === SHARES_DUE) {
    const owed = new Map(data.requests.map((r) => [r.seat, [...r.positions]]));
    request = makeRequest({ kind: event.type, deadline: data.deadline, seats: seats.filter((s) => owed.has(s)), positions: owed });
  } else if (event.type === SHUFFLE_DUE) {
    request = makeRequest({ kind: event.type, deadline: data.deadline, seats: [data.seat] });
  } else {
    request = makeRequest({ kind: event.type, deadline: data.deadline, seats: [...data.seats] });
  }
  return { ...turnOver(state), crypto: { ...state.crypto, request } };
}

function sharesGiven(crypto, event) {
  const seat = actorSeat(event.actor);
  const given = new Map(event.data.shares.map((e) => [e.position, { proof: e.proof, share: e.share }]));
  const after = withShares(crypto, `seat:${seat}`, given);
  return { ...after, request: answered(after, seat) };
}

function keyGiven(crypto, event) {
  const seat = actorSeat(event.actor);
  const bytes = event.data.secret.match(/../g).map((h) => BigInt(parseInt(h, 16)));
  const secret = bytes.reduceRight((acc, b) => (acc << 8n) | b, 0n); // little-endian
  return { ...crypto, secrets: new Map(crypto.secrets).set(seat, secret), request: answered(crypto, seat) };
}

function timedOut(crypto) {
  return { ...crypto, request: null };
}

function claimed(crypto) {
  return { ...crypto, claimed: true };
}

/** A blind table's hit or blind card: the drawing seat's cards it could see then (for the
 * draw limit, checked at the showdown) and that it moves again once the card is in. */
function drew(state, event) {
  if (state.crypto === null) return state;
  const seat = actorSeat(event.actor);
  const seen = state.hand.held.filter((h) => h.seat === seat && h.face !== dealing.BLIND).map((h) => h.position);
  const crypto = state.crypto;
  return { ...state, crypto: { ...crypto, draws: [...crypto.draws, [seat, seen]], then: seat } };
}

function cardOpened(state, event) {
  const known = new Map(state.hand.known).set(event.data.position, makeKnown({ card: event.data.card, salt: null }));
  return { ...state, hand: { ...state.hand, known } };
}

const APPLIERS = new Map([
  [SEAT_JOINED, joined],
  [JOINER_ACCEPTED, unchanged],
  [JOINER_REJECTED, unchanged],
  [SEAT_LEFT, left],
  ["match_started", started],
  [ROUND_OPENED, opened],
  [SEED_COMMITMENT, committed],
  [SEEDS_COMMITTED, seeding],
  [CLIENT_SEED, seeding],
  [SEED_TIMEOUT, seeding],
  [ROUND_SEALED, onRound((current) => dealing.applySealed(current))],
  ["dealer_chosen", dealerChosen],
  [CARD_DEALT, dealtCard],
  ["move_due", moveDue],
  ["hit", drew],
  ["blind", drew],
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
  [DECK_SHUFFLED, onCrypto(shuffled)],
  [SHUFFLE_DUE, requested],
  [SHUFFLE_TIMEOUT, onCrypto(timedOut)],
  [SHARES_DUE, requested],
  [DECRYPTION_SHARES, onCrypto(sharesGiven)],
  [SHARES_TIMEOUT, onCrypto(timedOut)],
  [CARD_OPENED, cardOpened],
  [GOLDEN_POINT, onCrypto(claimed)],
  [KEYS_DUE, requested],
  [ROUND_KEY, onCrypto(keyGiven)],
  [KEYS_TIMEOUT, onCrypto(timedOut)],
]);
