// verifier/rules.py: SPEC 7 steps (10) legal actions and (11) server decisions, the chain
// replayed through the rules (table.js's `runs`), each failure a finding naming its seq.
// Exports: start, restart, replay, refusalCode.
//
// Each returns {replayed, finding}: the table (a Replayed) or null, and null or the first
// finding {code, table, round, seq, reason}. Data are compared as JSON values; the events
// already passed step (2), so their data's canonical text is what `texts` holds.

import { EncodingError, parseStrict } from "../canonical.js";
import "../games/index.js";
import {
  EventSchemaError,
  FairdealError,
  GameError,
  OptionsError,
  ReplayMismatchError,
  SeatKeyError,
  StateMismatchError,
} from "./errors.js";
import { SERVER } from "./protocol.js";
import { get, isDict, item } from "./pytypes.js";
import { registry } from "./registry.js";
import * as statements from "./statements.js";
import { NOTHING_SEEN, SIGNED } from "./statements.js";
import { CREATED, SEAT_KEYS, makeReplayed, runs, started, startedAt } from "./table.js";

/** The table as `table_created` makes it: a known game and options in full form.
 * `dataText` is its data's canonical text, `digestHex` its hash. */
export function start(created, dataText, digestHex) {
  const name = created.data.game;
  const game = typeof name === "string" ? (registry().get(name) ?? null) : null;
  let replayed;
  try {
    const known = new Map(game === null ? [] : [[game.name, game]]);
    const [game_, state] = started(known, parseStrict(dataText), created.version); // canonical text is JSON
    replayed = makeReplayed({ game: game_, state, standing: CREATED, version: created.version });
  } catch (e) {
    if (e instanceof EventSchemaError) return failed("rules.unknown_game", created, "no known game with options");
    // EncodingError is Python's too (a FairdealError): options no canonical text can hold
    if (e instanceof FairdealError || e instanceof EncodingError) return failed("rules.invalid_options", created, e.message);
    return failed("rules.crashed", created, `${e.name}: ${e.message}`);
  }
  if (created.version >= SIGNED) replayed = { ...replayed, seen: NOTHING_SEEN.then(created, digestHex) };
  return { replayed, finding: null };
}

/** The table as the `table_state` a bundle starts at (of hash `digestHex`) restores it
 * (SPEC 6.6). */
export function restart(snapshot, dataText, digestHex) {
  const data = parseStrict(dataText);
  if (snapshot.version >= SIGNED) {
    // (10) the seat_keys every later statement of its seats is checked with, of their shape
    try {
      statements.fromJson(data[SEAT_KEYS] ?? null);
    } catch (e) {
      if (e instanceof EventSchemaError) return failed("sig.seat_key", snapshot, `table_state: ${e.message}`);
      throw e;
    }
  }
  try {
    return { replayed: startedAt(registry(), snapshot, data, digestHex), finding: null };
  } catch (e) {
    if (e instanceof EventSchemaError) {
      // rules.unknown_game only for no known game with options, as for table_created;
      // members a known game does not restore are the operator's signed lie.
      const known = isDict(get(data, "options")) && registry().has(get(data, "game"));
      return failed(known ? "rules.crashed" : "rules.unknown_game", snapshot, `table_state: ${e.message}`);
    }
    if (e instanceof OptionsError) return failed("rules.invalid_options", snapshot, `table_state: ${e.message}`);
    return crashed(snapshot, e); // a game refusing a forged snapshot in its own way
  }
}

/** Replay runs of `events` (none of them table_created), whose data `texts` has as
 * canonical text and whose hashes (hex) are `digestsHex`; `seeds` maps a round id to its
 * revealed server seed (a Uint8Array). Resolves to the table after them, or the first
 * failure. */
export async function replay(table, events, texts, digestsHex, seeds) {
  let index = 0;
  let replayed = table;
  try {
    for await (const [end, after] of runs(table, events, seeds, texts, digestsHex)) {
      [index, replayed] = [end, after]; // the next run starts at events[index]
    }
  } catch (e) {
    if (e instanceof ReplayMismatchError) {
      // (11) a run that is not the rules' drafts; an intact chain: seq by seq
      const event = item(events, index + e.seq - events[index].seq);
      return failed(e instanceof StateMismatchError ? "rules.state" : "rules.mismatch", event, e.reason);
    }
    if (e instanceof GameError) return refused(events[index], e); // (10) a player's action, (11) a server's
    return crashed(events[index], e); // a game crashing on forged input is still a finding
  }
  return { replayed, finding: null };
}

// (10) A seat's command the engine refuses for its statement (SPEC 6.7), by the error's code.
const SEAT_SIGNATURES = new Map([
  ["signature_missing", "sig.seat_missing"],
  ["signature_invalid", "sig.seat_bad"],
  ["signature_replayed", "sig.seat_replayed"],
  ["signature_unexpected", "sig.seat_unexpected"],
  ["signature_stale", "sig.seat_stale"],
]);

// The rules.* codes of verifier/findings.py's CODES.
const RULES_CODES = new Set([
  "rules.illegal_action",
  "rules.out_of_turn",
  "rules.over_limit",
  "rules.round_sealed",
  "rules.not_due",
  "rules.invalid_options",
  "rules.unknown_game",
  "rules.server_refused",
  "rules.mismatch",
  "rules.crashed",
  "rules.state",
]);

function refused(event, error) {
  return failed(refusalCode(event, error), event, `${event.type} by ${event.actor}: ${error.message}`);
}

/** The finding code of a refusal (a GameError) of ``event``, as verifier/rules.py gives it. */
export function refusalCode(event, error) {
  if (SEAT_SIGNATURES.has(error.code)) return SEAT_SIGNATURES.get(error.code);
  if (error instanceof SeatKeyError) return "sig.seat_key";
  let code = `rules.${error.code}`;
  if (event.actor === SERVER && code !== "rules.not_due" && code !== "rules.invalid_options") {
    code = "rules.server_refused";
  }
  if (!RULES_CODES.has(code)) code = event.actor !== SERVER ? "rules.illegal_action" : "rules.server_refused";
  return code;
}

function crashed(event, error) {
  return failed("rules.crashed", event, `${event.type}: ${error?.name}: ${error?.message}`);
}

function failed(code, event, reason) {
  const finding = { code, table: event.table, round: event.round, seq: event.seq, reason: reason.slice(0, 200) };
  return { replayed: null, finding };
}
