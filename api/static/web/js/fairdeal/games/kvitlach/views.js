// fairdeal/games/kvitlach/views.py (SPEC 12.11): what each seat may see and send. A view
// never holds another seat's face-down card, nor any card before it is public, nor the
// server seed: hidden cards appear as positions only.

import * as dealing from "../../engine/dealing.js";
import { GameError } from "../../engine/errors.js";
import { SEAT_JOINED, SEAT_LEFT } from "../../engine/protocol.js";
import { sorted, sortedObject } from "../../engine/pytypes.js";
import { faceUp } from "./ending.js";
import { NAME } from "./options.js";
import { BANKER_MOVES, PLAYER_MOVES, checkBanker, checkPlayer } from "./play.js";
import { deckOf } from "./run.js";
import { nextFreeSeat } from "./seating.js";
import { PLAYERS, SEEDING, bank, covered, inRound } from "./state.js";

/** The command types ``seat`` may send now (``secret``: the round's server seed, or null). */
export function legalActions(state, seat, secret = null) {
  if (!state.seats.includes(seat)) {
    const joinable = !inRound(state) && seat === nextFreeSeat(state);
    return joinable ? [SEAT_JOINED] : [];
  }
  if (!inRound(state)) return betweenRounds(state, seat);
  const play = state.play;
  if (play.phase === SEEDING) return dealing.seedMoves(state.round, seat);
  if (play.turn !== seat || secret === null) return [];
  const deck = deckOf(state, secret);
  if (play.phase === PLAYERS) return PLAYER_MOVES.filter((kind) => allowed(checkPlayer, state, seat, kind, deck));
  return BANKER_MOVES.filter((kind) => allowed(checkBanker, state, seat, kind, deck));
}

function betweenRounds(state, seat) {
  const actions = [];
  if (state.term === null || state.term.banker !== seat) actions.push(SEAT_LEFT);
  if (state.exit_offer && seat === state.banker) actions.push("banker_exit");
  return actions;
}

function allowed(check, state, seat, kind, deck) {
  try {
    check(state, seat, kind, deck);
  } catch (error) {
    if (error instanceof GameError) return false;
    throw error;
  }
  return true;
}

// Views.

/** What ``seat`` (null: the public) may see. */
export function viewFor(state, seat = null, secret = null) {
  const term = state.term;
  const view = {
    game: NAME,
    options: state.options.toJson(),
    seats: [...state.seats],
    balances: sortedObject(state.balances),
    banker: state.banker,
    term: term === null ? null : { banker: term.banker, round: term.rounds, paid: sorted(term.paid) },
    rounds: state.rounds,
    exit_offer: state.exit_offer,
    round: roundView(state),
    you: seat,
  };
  if (seat !== null) {
    view.legal_actions = legalActions(state, seat, secret);
    view.your_cards = ownCards(state, seat, secret);
  }
  return view;
}

/** The seat's own cards with their salts, so it can check each card's commitment. */
function ownCards(state, seat, secret) {
  const play = state.play;
  const current = state.round;
  if (secret === null || play === null || current === null || !current.sealed) return [];
  if (!play.hands.has(seat)) return [];
  const deck = deckOf(state, secret);
  return play.hands.get(seat).cards.map((p) => faceUp(deck, p));
}

function roundView(state) {
  const current = state.round;
  const play = state.play;
  if (current === null || play === null) return null;
  return {
    id: current.round_id,
    number: current.number,
    commitment: current.commitment,
    seats: [...current.seats],
    ...dealing.seedsView(current),
    revealed: current.revealed,
    banker: play.banker,
    order: [...play.order],
    phase: play.phase,
    turn: play.turn,
    deadline: play.deadline,
    bank: bank(state),
    covered: inRound(state) ? covered(play) : 0,
    hands: [...play.order, play.banker].map((s) => handView(play, play.hands.get(s))),
  };
}

function handView(play, hand) {
  return {
    seat: hand.seat,
    cards: hand.cards.map((p) => ({ position: p, card: play.known.get(p) ?? null })),
    burned: hand.burned.map((p) => ({ position: p, card: play.known.get(p) })),
    bet: hand.bet,
    status: hand.status,
    elvaroon: hand.elvaroon,
    protected: hand.protected,
  };
}
