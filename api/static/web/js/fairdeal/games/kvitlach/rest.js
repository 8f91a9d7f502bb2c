// fairdeal/games/kvitlach/rest.py (SPEC 12.12, 6.6): Kvitlach's table at rest as JSON
// members (a table_state snapshot), and back.
//
// A snapshot holds what the rules read between rounds and nothing that grows with the
// table's age: not the round ids used, nor the last round's cards. Of the last round the
// rules read two things at rest: the banker's 4-or-7 exit offer, which the settlement already
// turned into ``exit_offer``; and its id, since a move naming it is refused as out of turn
// (play.js), a move naming any other round as naming no round in progress (decide.js).

import { EventSchemaError } from "../../engine/errors.js";
import * as resting from "../../engine/resting.js";
import { seatActor } from "../../engine/protocol.js";
import { BANK } from "../../engine/money.js";
import { get, isDict, isExactInt, pyEqual, sameKeys, sorted, sortedObject } from "../../engine/pytypes.js";
import { parse } from "./options.js";
import { EXIT_FROM_TERM_ROUND, inRound, makeState, makeTerm } from "./state.js";

export const MEMBERS = ["balances", "banker", "exit_offer", "last_round", "options", "rounds", "seats", "term"];
export const TERM_MEMBERS = ["paid", "rounds"];

/** The table at rest as JSON data members, or null while a round is open. */
export function snapshot(state) {
  if (inRound(state)) return null;
  const term = state.term;
  return {
    balances: sortedObject(state.balances),
    banker: state.banker,
    exit_offer: state.exit_offer,
    last_round: state.round === null ? null : state.round.round_id,
    options: state.options.toJson(),
    rounds: state.rounds,
    seats: [...state.seats],
    term: term === null ? null : { paid: sorted(term.paid), rounds: term.rounds },
  };
}

/** The state ``snapshot`` described; EventSchemaError for anything else. */
export function restore(members) {
  if (!isDict(members) || !sameKeys(members, MEMBERS)) {
    throw new EventSchemaError(`a kvitlach snapshot has exactly the members ${MEMBERS.join(", ")}`);
  }
  const options = resting.options(parse, members.options);
  const seats = seatsOf(members.seats, "seats", [...Array(options.max_seats).keys()]);
  const rounds = resting.integer(members.rounds, "rounds", 0);
  const banker = resting.integer(members.banker, "banker", 0, options.max_seats - 1);
  const balances = balancesOf(members.balances, seats, rounds);
  const term = termOf(members.term, banker, seats, rounds, get(balances, BANK, 0));
  const round = lastRound(members.last_round, rounds);
  const exitOffer = exitOfferOf(members.exit_offer, options, term);
  // The engine refuses it unless its snapshot is exactly ``members``.
  return makeState({ options, balances, seats, banker, term, rounds, round, exit_offer: exitOffer });
}

/** The last round as the rules read it at rest: its id, sealed and revealed. Its commitment,
 * seats, seeds and deadline are not kept (no rule reads them at rest), nor its play: ``play``
 * is null, which the rules read only within a round. */
function lastRound(value, rounds) {
  if (value === null) {
    if (rounds) throw new EventSchemaError("last_round names the last round of a table that opened any");
    return null;
  }
  return resting.sealedRound(value, rounds, []);
}

/** Seat numbers, ascending, each once, each one of ``allowed``. */
function seatsOf(value, name, allowed) {
  if (!Array.isArray(value) || value.some((s) => !isExactInt(s) || !allowed.includes(s))) {
    throw new EventSchemaError(`${name} is a list of seats among [${allowed.join(", ")}]`);
  }
  if (!pyEqual(value, sorted(new Set(value)))) {
    throw new EventSchemaError(`${name} are ascending, each once`);
  }
  return [...value];
}

/** Each seat's account, and the bank once a first round funded it. */
function balancesOf(value, seats, rounds) {
  const accounts = new Set(seats.map(seatActor));
  if (rounds) accounts.add(BANK);
  return resting.balances(value, accounts);
}

/** The banker's term: it lasts while the bank holds funds (the round that empties the bank
 * ends it); the banker is seated, and the ante payers are its other seats. */
function termOf(value, banker, seats, rounds, funds) {
  if (value === null) {
    if (funds) throw new EventSchemaError("the bank holds funds only during a term");
    return null;
  }
  if (!isDict(value) || !sameKeys(value, TERM_MEMBERS)) {
    throw new EventSchemaError(`term is null or has exactly the members ${TERM_MEMBERS.join(", ")}`);
  }
  const others = seats.filter((seat) => seat !== banker);
  if (!seats.includes(banker) || !others.length || !funds) {
    // The last player out ends the term, and so does the round that empties the bank.
    throw new EventSchemaError("a term's banker is seated with a player, its bank funded");
  }
  const paid = seatsOf(value.paid, "term's paid", others);
  const termRounds = resting.integer(value.rounds, "term's rounds", 1, rounds);
  return makeTerm({ banker, rounds: termRounds, paid: new Set(paid) });
}

/** The optional 4-or-7 exit, open only from a term's 4th round. */
function exitOfferOf(value, options, term) {
  if (typeof value !== "boolean") throw new EventSchemaError("exit_offer is true or false");
  const optional = options.banker_exit === "optional";
  if (value && (term === null || !optional || term.rounds < EXIT_FROM_TERM_ROUND)) {
    throw new EventSchemaError("no 4-or-7 exit is open without an optional exit's term");
  }
  return value;
}
