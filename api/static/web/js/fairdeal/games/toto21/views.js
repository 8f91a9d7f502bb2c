// fairdeal/games/toto21/views.py (SPEC 11.7): what each seat may see and do. A view never
// holds another seat's hidden card, a blind card before the showdown, or the server seed
// before the reveal.

import { bytesToHex } from "../../bytes.js";
import * as dealing from "../../engine/dealing.js";
import {
  ANSWERS,
  CLIENT_SEED,
  GOLDEN_POINT,
  JOINER_ACCEPTED,
  JOINER_REJECTED,
  SEAT_JOINED,
  SHARES_DUE,
} from "../../engine/protocol.js";
import { deckOfCrypto } from "./cipher.js";
import { sortedObject } from "../../engine/pytypes.js";
import { NAME } from "./options.js";
import * as play from "./play.js";
import { DECIDING, OPEN, PLAYING, deckOf, inRound } from "./state.js";

/** The table as ``seat`` sees it (null: the public). */
export function viewFor(state, seat, secret) {
  return {
    game: NAME,
    viewer: seat,
    options: state.options.toJson(),
    phase: state.phase,
    seats: [...state.seats],
    balances: sortedObject(state.balances),
    score: [...state.score],
    worth: state.worth,
    game_deadline: state.game_deadline,
    rounds: state.rounds,
    round: roundView(state, seat, secret),
  };
}

/** The commands ``seat`` may send now (deadlines aside: the clock is the caller's). */
export function legalActions(state, seat, secret) {
  if (state.phase === OPEN) return seat === state.seats.length ? [SEAT_JOINED] : [];
  if (state.phase === DECIDING) return seat === 0 ? [JOINER_ACCEPTED, JOINER_REJECTED] : [];
  const current = state.round;
  const hand = state.hand;
  if (state.phase !== PLAYING || current === null || !inRound(state)) return [];
  const crypto = state.crypto;
  if (crypto !== null && crypto.request !== null) {
    return crypto.request.seats.includes(seat) ? [ANSWERS.get(crypto.request.kind)] : [];
  }
  if (!current.sealed) {
    const moves = dealing.seedMoves(current, seat);
    return moves.filter((m) => m !== CLIENT_SEED || current.revealing || crypto === null);
  }
  if (hand === null || hand.turn !== seat) return [];
  if (crypto !== null) {
    // the service cannot see the total: the seat's client applies 21
    const draws = seat === hand.player && !hand.blind_taken ? ["hit", "blind", "stand"] : [];
    const first = seat === hand.player && crypto.draws.every(([drawer]) => drawer !== seat);
    return [...(first ? [GOLDEN_POINT] : []), ...(draws.length ? draws : ["hit", "stand"])];
  }
  if (!play.mayDraw(state, secret, seat)) return ["stand"];
  const blind = seat === hand.player && !hand.blind_taken;
  return blind ? ["hit", "blind", "stand"] : ["hit", "stand"];
}

function roundView(state, seat, secret) {
  const current = state.round;
  const hand = state.hand;
  if (current === null) return null;
  const view = {
    id: current.round_id,
    number: current.number,
    commitment: current.commitment,
    seats: [...current.seats],
    ...dealing.seedsView(current),
    revealed: current.revealed,
  };
  if (current.revealed && secret !== null) {
    dealing.checkSecret(secret, current.commitment);
    view.server_seed = bytesToHex(secret);
  }
  if (state.crypto !== null) Object.assign(view, cryptoView(state.crypto));
  if (hand !== null) {
    Object.assign(view, {
      dealer: hand.dealer,
      player: hand.player,
      turn: hand.turn,
      move_deadline: hand.move_deadline,
      blind_taken: hand.blind_taken,
      cards: hand.held.map((held) => cardView(state, held, seat, secret)),
    });
  }
  return view;
}

/** A blind round's keys, steps and pending request: public (SPEC 15.13.10). */
function cryptoView(crypto) {
  const request = crypto.request;
  let pending = null;
  if (request !== null) {
    pending = { type: request.kind, deadline: request.deadline, seats: [...request.seats] };
    if (request.kind === SHARES_DUE) {
      pending.positions = Object.fromEntries([...request.positions].map(([s, p]) => [String(s), [...p]]));
    }
  }
  const seats = [...crypto.round_keys.keys()].sort((a, b) => a - b);
  return {
    server_key: crypto.server_key,
    round_keys: Object.fromEntries(seats.map((seat) => [String(seat), crypto.round_keys.get(seat)])),
    steps: crypto.decks.length,
    request: pending,
    claimed: crypto.claimed,
  };
}

/** Public cards with their code; the viewer's own face-down cards with code and salt. */
function cardView(state, held, seat, secret) {
  const card = { position: held.position, seat: held.seat, face: held.face };
  if (held.commitment !== null) card.commitment = held.commitment;
  const known = state.hand.known.get(held.position);
  const crypto = state.crypto;
  if (crypto !== null) {
    // the service never knows a hidden card (SPEC 15.13.10)
    card.ciphertext = { ...deckOfCrypto(crypto)[held.position] };
    card.shares = { ...(crypto.shares.get(held.position) ?? {}) };
  }
  if (known !== undefined) {
    card.card = known.card;
    if (known.salt !== null) card.salt = known.salt;
  } else if (held.face === dealing.DOWN && crypto === null && held.seat === seat && secret !== null) {
    const deck = deckOf(state, secret);
    card.card = deck.card(held.position);
    card.salt = bytesToHex(deck.salt(held.position));
  }
  return card;
}
