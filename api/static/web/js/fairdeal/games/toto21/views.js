// fairdeal/games/toto21/views.py (SPEC 11.7): what each seat may see and do. A view never
// holds another seat's hidden card, a blind card before the showdown, or the server seed
// before the reveal.

import { bytesToHex } from "../../bytes.js";
import * as dealing from "../../engine/dealing.js";
import { JOINER_ACCEPTED, JOINER_REJECTED, SEAT_JOINED } from "../../engine/protocol.js";
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
  if (!current.sealed) return dealing.seedMoves(current, seat);
  if (hand === null || hand.turn !== seat) return [];
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

/** Public cards with their code; the viewer's own face-down cards with code and salt. */
function cardView(state, held, seat, secret) {
  const card = { position: held.position, seat: held.seat, face: held.face };
  if (held.commitment !== null) card.commitment = held.commitment;
  const known = state.hand.known.get(held.position);
  if (known !== undefined) {
    card.card = known.card;
    if (known.salt !== null) card.salt = known.salt;
  } else if (held.face === dealing.DOWN && held.seat === seat && secret !== null) {
    const deck = deckOf(state, secret);
    card.card = deck.card(held.position);
    card.salt = bytesToHex(deck.salt(held.position));
  }
  return card;
}
