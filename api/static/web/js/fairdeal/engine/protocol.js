// fairdeal/protocol.py, with the event helpers the rules share from fairdeal/events.py and
// canonical.py (SPEC 5.1, 6.2, 6.4, 6.5).
// Exports: TABLE_CREATED, SEAT_JOINED, SEAT_LEFT, JOINER_ACCEPTED, JOINER_REJECTED,
// TABLE_STATE, ROUND_OPENED, SEED_COMMITMENT, SEEDS_COMMITTED, CLIENT_SEED, SEED_TIMEOUT,
// ROUND_SEALED, CARD_DEALT, ROUND_VOIDED, ROUND_REVEALED, SEED_WITHHELD, SERVER,
// VERSION, MAX_SAFE_INTEGER, isHex64, isId, seatActor, actorSeat.

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

// The actor of every event the service logs on its own account (SPEC 5.1).
export const SERVER = "server";

export const VERSION = 1; // events.py: a table's chain keeps its table_created's version
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
