// fairdeal/protocol.py, with the event helpers the rules share from fairdeal/events.py and
// canonical.py (SPEC 5.1, 6.2, 6.4, 6.5).
// Exports: TABLE_CREATED, SEAT_JOINED, SEAT_LEFT, JOINER_ACCEPTED, JOINER_REJECTED,
// TABLE_STATE, ROUND_OPENED, SEED_COMMITMENT, SEEDS_COMMITTED, CLIENT_SEED, SEED_TIMEOUT,
// ROUND_SEALED, CARD_DEALT, ROUND_VOIDED, ROUND_REVEALED, SEED_WITHHELD, DEALING,
// BLIND_DEALING, DECK_SHUFFLED, SHUFFLE_DUE, SHUFFLE_TIMEOUT, SHARES_DUE, DECRYPTION_SHARES,
// SHARES_TIMEOUT, CARD_OPENED, KEYS_DUE, ROUND_KEY, KEYS_TIMEOUT, GOLDEN_POINT, ANSWERS, SERVER,
// VERSION, VERSIONS, MAX_SAFE_INTEGER, isHex64, isId, seatActor, actorSeat.

import { isHex } from "../bytes.js";

// Table-level events (SPEC 6.2, 6.5; seats and joins, SPEC 11.3 and 12.2).
export const TABLE_CREATED = "table_created";
export const SEAT_JOINED = "seat_joined";
export const SEAT_LEFT = "seat_left";
export const JOINER_ACCEPTED = "joiner_accepted";
export const JOINER_REJECTED = "joiner_rejected";
// The table at rest, logged by the engine before a run that starts at rest (SPEC 6.6).
export const TABLE_STATE = "table_state";

// The round protocol every game uses (SPEC 6.4), in the order a round logs them.
export const ROUND_OPENED = "round_opened";
export const SEED_COMMITMENT = "seed_commitment";
export const SEEDS_COMMITTED = "seeds_committed";
export const CLIENT_SEED = "client_seed";
export const SEED_TIMEOUT = "seed_timeout";
export const ROUND_SEALED = "round_sealed";
export const CARD_DEALT = "card_dealt";
export const ROUND_VOIDED = "round_voided";
export const ROUND_REVEALED = "round_revealed";

// Why a round is voided when a seat that committed to its seed does not reveal it (SPEC 6.4).
export const SEED_WITHHELD = "seed_withheld";

// Dealer-blind tables (protocol version 3, SPEC 15.13): the option that asks for one, and the
// events of the round's cryptography, in the order a round logs them.
export const DEALING = "dealing";
export const BLIND_DEALING = "blind";
export const DECK_SHUFFLED = "deck_shuffled";
export const SHUFFLE_DUE = "shuffle_due";
export const SHUFFLE_TIMEOUT = "shuffle_timeout";
export const SHARES_DUE = "shares_due";
export const DECRYPTION_SHARES = "decryption_shares";
export const SHARES_TIMEOUT = "shares_timeout";
export const CARD_OPENED = "card_opened";
export const KEYS_DUE = "keys_due";
export const ROUND_KEY = "round_key";
export const KEYS_TIMEOUT = "keys_timeout";
export const GOLDEN_POINT = "golden_point";
// A seat's answer to each request, which its statement must name or follow (SPEC 15.13.11)
export const ANSWERS = new Map([
  [SHUFFLE_DUE, DECK_SHUFFLED],
  [SHARES_DUE, DECRYPTION_SHARES],
  [KEYS_DUE, ROUND_KEY],
]);

// The actor of every event the service logs on its own account (SPEC 5.1).
export const SERVER = "server";

export const VERSION = 1; // events.py: a table's chain keeps its table_created's version
// events.py's VERSIONS (SPEC 5.1): 2 is the protocol with seat keys and seed commitments
// (6.7), 3 that of dealer-blind tables (15.13)
export const VERSIONS = Object.freeze([1, 2, 3]);
export const MAX_SAFE_INTEGER = Number.MAX_SAFE_INTEGER; // canonical.py: 2^53 - 1

/** A seed, a commitment or a hash as the log writes them: 64 lowercase hex digits. */
export const isHex64 = (value) => isHex(value, 64);

const ID = /^[A-Za-z0-9._:-]{1,64}$/;

/** A table or round id as SPEC 5.1 allows them. */
export const isId = (value) => typeof value === "string" && ID.test(value);

export const seatActor = (seat) => `seat:${seat}`;

/** The seat number an actor names, or null for the server; TypeError for no actor. */
export function actorSeat(actor) {
  if (actor === SERVER) return null;
  const digits = typeof actor === "string" && actor.startsWith("seat:") ? actor.slice(5) : "";
  if (!/^[0-9]+$/.test(digits)) throw new TypeError(`no seat in actor ${JSON.stringify(actor)}`);
  return Number(digits);
}
