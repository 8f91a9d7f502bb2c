// fairdeal/games/resting.py: what both games' rest.js read alike from a table_state's
// members (SPEC 6.6).
// Exports: options, integer, balances, sealedRound.

import { EventSchemaError, OptionsError } from "./errors.js";
import { makeRoundState } from "./dealing.js";
import { MAX_TABLE_TOTAL } from "./money.js";
import { MAX_SAFE_INTEGER, isId } from "./protocol.js";
import { isDict, isExactInt, sameKeys, sorted, sum } from "./pytypes.js";

/** The game's options (the engine has checked they are in full form). */
export function options(parse, raw) {
  if (!isDict(raw)) throw new EventSchemaError("options is an object");
  try {
    return parse(raw);
  } catch (e) {
    if (e instanceof OptionsError) throw new EventSchemaError(`options: ${e.message}`);
    throw e;
  }
}

/** An integer (never a bool) from `low` to `high`. */
export function integer(value, name, low, high = MAX_SAFE_INTEGER) {
  if (!isExactInt(value) || !(low <= value && value <= high)) {
    throw new EventSchemaError(`${name} must be an integer from ${low} to ${high}`);
  }
  return value;
}

/** Exactly these accounts (a Set), each holding what a table can (6.5), all within its bound. */
export function balances(value, accounts) {
  if (!isDict(value) || !sameKeys(value, accounts)) {
    throw new EventSchemaError(`balances has exactly the accounts ${JSON.stringify(sorted(accounts))}`);
  }
  const held = Object.fromEntries(sorted(value).map((name) => [name, integer(value[name], name, 0, MAX_TABLE_TOTAL)]));
  if (sum(Object.values(held)) > MAX_TABLE_TOTAL) {
    throw new EventSchemaError(`a table holds at most ${MAX_TABLE_TOTAL} in all`);
  }
  return held;
}

/** The last round as the rules read it at rest: its id, sealed and revealed. Its
 * commitment, seeds and deadline are not kept: no rule reads them at rest. */
export function sealedRound(value, rounds, seats) {
  if (!isId(value)) throw new EventSchemaError("last_round is null or a round id");
  if (!rounds) throw new EventSchemaError("last_round names a round of a table that opened none");
  return makeRoundState({
    round_id: value,
    number: rounds,
    commitment: "",
    seats: [...seats],
    seed_deadline: null,
    sealed: true,
    revealed: true,
  });
}
