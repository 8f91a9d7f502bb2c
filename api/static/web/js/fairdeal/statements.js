// SPEC 6.7: the bytes a keyed seat signs for a command (version 2).

import { concatBytes, utf8 } from "./bytes.js";
import { canonical } from "./canonical.js";
import { SEAT_STATEMENT } from "./tags.js";

/** The statement object of 6.7 (``after`` is {seq, hash} of the last event the seat saw). */
export function statement({ table, round, seat, type, data, n, after }) {
  return {
    after: { hash: after.hash, seq: after.seq },
    data,
    n,
    round: round ?? null,
    seat,
    table,
    type,
  };
}

/** SEAT_STATEMENT || canonical(statement): the message the seat's Ed25519 key signs. */
export function statementBytes(fields) {
  return concatBytes(SEAT_STATEMENT, utf8(canonical(statement(fields))));
}
