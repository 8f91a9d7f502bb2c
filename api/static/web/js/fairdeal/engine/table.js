// fairdeal/table.py, its replay side (SPEC 6.3, 6.6, 6.7): a table's start, its restart
// at a table_state, and `runs`, which replays a logged chain through the game's rules and
// checks that every run of events is exactly what the rules decide for the command its
// first event records.
// Exports: FRESH, RESTING, PLAYING, Standing, CREATED, makeReplayed, SEAT_KEYS,
// createdDraft, versionFor, createdVersion, checkVersion, stateDraft, restingDraft, restored,
// started, startedAt, runs, checkState, checkRun, records.
//
// A Replayed is {game, state, standing, version, seats, seen}: a table as a replay has it.

import { canonical, EncodingError } from "../canonical.js";
import { draft, commandOf } from "./base.js";
import { EventSchemaError, IllegalActionError, OptionsError, ReplayMismatchError, StateMismatchError } from "./errors.js";
import {
  BLIND_DEALING,
  DEALING,
  ROUND_OPENED,
  ROUND_REVEALED,
  SERVER,
  TABLE_CREATED,
  TABLE_STATE,
  VERSION,
} from "./protocol.js";
import { get, isDict, isList, pyEqual, sorted } from "./pytypes.js";
import * as statements from "./statements.js";
import { BLIND, NO_KEYS, NOTHING_SEEN, SIGNED } from "./statements.js";

// Where a table stands for SPEC 6.6: at rest just after table_created or table_state (no
// snapshot due), at rest after another run (a table_state comes first), or in a round.
export const FRESH = "fresh";
export const RESTING = "resting";
export const PLAYING = "playing";

/** Where a table stands, and whether its chain has logged a table_state: from then on
 * every run that starts at rest must follow one (a chain logged before SPEC 6.6 has none). */
export class Standing {
  constructor(phase = FRESH, bounded = false) {
    this.phase = phase;
    this.bounded = bounded;
    Object.freeze(this);
  }

  /** Where the table stands after events of these types, in order. */
  after(types) {
    let { phase, bounded } = this;
    for (const kind of types) {
      if (kind === ROUND_OPENED) phase = PLAYING;
      else if (kind === ROUND_REVEALED) phase = RESTING;
      else if (kind === TABLE_STATE) [phase, bounded] = [FRESH, true];
      else if (phase === FRESH) phase = RESTING;
    }
    return phase === this.phase && bounded === this.bounded ? this : new Standing(phase, bounded);
  }
}

export const CREATED = new Standing(); // a table just created

/** A Replayed with Python's defaults filled in. */
export function makeReplayed({ game, state, standing = CREATED, version = VERSION, seats = NO_KEYS, seen = NOTHING_SEEN }) {
  return { game, state, standing, version, seats, seen };
}

export function createdDraft(game, rawOptions) {
  return draft(TABLE_CREATED, SERVER, { game: game.name, options: game.options(rawOptions) });
}

/** The protocol version a table with these full options is created in (SPEC 6.2): 3 exactly
 * when they ask for dealer-blind dealing, else 2. */
export function versionFor(options) {
  return get(options, DEALING) === BLIND_DEALING ? BLIND : SIGNED;
}

/** The version the service creates a table of `game` with these options in (6.2). */
export function createdVersion(game, rawOptions) {
  return versionFor(game.options(rawOptions));
}

/** A table's version and options agree (SPEC 6.2): version 3 exactly for blind dealing;
 * versions 1 and 2 for every other table. Throws OptionsError. */
export function checkVersion(options, version) {
  if ((version >= BLIND) !== (versionFor(options) === BLIND)) {
    throw new OptionsError(`a version-${version} table does not take these options`);
  }
}

/** The drafts a command causes and the state they lead to: the engine's members (a seat's
 * key, its checked signature: SPEC 6.7) around what the game decides. */
async function decided(at, tableId, cmd, secret) {
  const [admitted, members] = await statements.admit(at.version, at.seats, at.seen, tableId, cmd);
  // the table's id, which a dealer-blind table's proofs are bound to (SPEC 15.12.1)
  const bare = (admitted.table ?? "") === tableId ? admitted : { ...admitted, table: tableId };
  const decision = at.game.step(at.state, bare, secret);
  if (!members || !decision.drafts.length) return [decision.drafts, decision.state];
  const [first, ...rest] = decision.drafts;
  if (Object.hasOwn(members, statements.SIGNATURE) && (first.round ?? null) !== (cmd.round ?? null)) {
    throw new IllegalActionError(`a signed ${cmd.type} names the round its event does`);
  }
  return [[statements.logged(first, members, at.version), ...rest], decision.state];
}

export const SEAT_KEYS = "seat_keys"; // the engine's own member of a version-2 table_state

/** The table_state that logs `state` at rest: the game's name and its snapshot (null while
 * a round is open), and in version 2 the seats' keys (`seats`). */
export function stateDraft(game, state, seats = null) {
  const members = game.snapshot(state) ?? null;
  if (members === null) return null;
  const data = { game: game.name, ...members };
  if (seats !== null) data[SEAT_KEYS] = statements.toJson(seats);
  return draft(TABLE_STATE, SERVER, data);
}

const keysOf = (version, seats) => (version >= SIGNED ? seats : null);

/** The table_state the engine would log of a replayed table now (null mid-round). */
export function restingDraft(table) {
  return stateDraft(table.game, table.state, keysOf(table.version, table.seats));
}

/** `[state, seats]` a table_state's data describe, if they are exactly what the engine
 * would log of them (SPEC 6.6). Throws EventSchemaError or OptionsError. */
export function restored(game, data, version = VERSION) {
  const members = Object.fromEntries(Object.entries(data).filter(([key]) => key !== "game" && key !== SEAT_KEYS));
  const options = get(members, "options");
  if (!pyEqual(get(data, "game"), game.name) || !isDict(options)) {
    throw new EventSchemaError("table_state names another game or has no options");
  }
  if (canonical(game.options(options)) !== canonical(options)) throw new OptionsError("options are not in their full form");
  checkVersion(options, version);
  const seats = version >= SIGNED ? statements.fromJson(get(data, SEAT_KEYS)) : NO_KEYS;
  const state = game.restore(members);
  const again = stateDraft(game, state, keysOf(version, seats));
  if (again === null || canonical(again.data) !== canonical(data)) {
    throw new EventSchemaError("table_state is not a table at rest as the game logs it");
  }
  return [state, seats];
}

/** `gameOf.get(name)` as Python's dict lookup: TypeError for a name no dict key can be. */
function gameNamed(gameOf, name) {
  if (isList(name) || isDict(name)) throw new TypeError(`unhashable type: ${isList(name) ? "list" : "dict"}`);
  return gameOf.get(name) ?? null;
}

/** `[game, state]`: the game table_created's data name, and its first state: a known game,
 * with options in their full form that the chain's protocol `version` takes (SPEC 6.2).
 * `gameOf` is a Map name -> game. */
export function started(gameOf, data, version) {
  const game = gameNamed(gameOf, get(data, "game", ""));
  const options = get(data, "options");
  if (game === null || !isDict(options)) throw new EventSchemaError("table_created names no known game or has no options");
  if (canonical(createdDraft(game, options).data) !== canonical(data)) {
    throw new OptionsError("options are not in their full form");
  }
  checkVersion(options, version);
  return [game, game.new(options)];
}

/** The table a table_state (`event`, its `data` as parsed from the log, its hash as hex)
 * describes, to replay the events after it (SPEC 6.6). */
export function startedAt(gameOf, event, data, eventHash) {
  const game = gameNamed(gameOf, get(data, "game", ""));
  if (game === null) throw new EventSchemaError("table_state names no known game");
  const [state, seats] = restored(game, data, event.version);
  const seen = event.version >= SIGNED ? NOTHING_SEEN.then(event, eventHash) : NOTHING_SEEN;
  return makeReplayed({ game, state, standing: CREATED.after([TABLE_STATE]), version: event.version, seats, seen });
}

/**
 * Replay `events` (none of them table_created) from `table`, run by run (SPEC 6.3, 6.6):
 * after each run, once it is checked, yields [the index of the event after it, the table
 * it leaves]. `seeds` maps a round id to its 32-byte server seed; `texts` are the events'
 * data as canonical text and `hashes` their hashes as hex. A command the rules refuse
 * throws their GameError as is; a run that is not exactly the rules' drafts,
 * ReplayMismatchError (StateMismatchError for a table_state).
 */
export async function* runs(table, events, seeds, texts, hashes) {
  const { game } = table;
  let { state, standing, version, seats, seen } = table;
  let index = 0;
  while (index < events.length) {
    const first = events[index];
    let end;
    if (first.type === TABLE_STATE) {
      checkState(game, state, keysOf(version, seats), first, texts[index]); // the state goes on
      end = index + 1;
      standing = standing.after([TABLE_STATE]);
      if (version >= SIGNED) seen = seen.then(first, hashes[index]);
    } else {
      if (standing.bounded && standing.phase === RESTING) {
        throw new ReplayMismatchError(first.seq, `the rules give table_state before ${first.type} here`);
      }
      let cmd = commandOf(first);
      if (version >= SIGNED) cmd = statements.asSent(cmd);
      const secret = seeds.get(first.round || "") ?? null;
      const at = makeReplayed({ game, state, standing, version, seats, seen });
      let drafts;
      [drafts, state] = await decided(at, first.table, cmd, secret);
      if (!drafts.length) throw new ReplayMismatchError(first.seq, "the rules record nothing here");
      end = index + drafts.length;
      checkRun(events.slice(index, end), texts.slice(index, end), drafts);
      // Every logged event equals its draft, so the decided state is the logged one.
      standing = standing.after(drafts.map((made) => made.type));
      if (version >= SIGNED) {
        seats = statements.after(seats, drafts);
        for (let at = index; at < end; at++) seen = seen.then(events[at], hashes[at]);
      }
    }
    index = end;
    yield [index, makeReplayed({ game, state, standing, version, seats, seen })];
  }
}

/** A logged table_state must be the snapshot of `state`, the table at rest. */
export function checkState(game, state, seats, event, text) {
  const made = stateDraft(game, state, seats);
  if (made === null) throw new ReplayMismatchError(event.seq, "a table_state while a round is open");
  if (!records(event, made, text)) {
    throw new StateMismatchError(event.seq, withData("not the table at rest", event, made));
  }
}

/** The logged events of a run (and their data's texts) are exactly the drafts, at one time. */
export function checkRun(events, texts, drafts) {
  const first = events[0];
  for (let i = 0; i < Math.min(drafts.length, events.length); i++) {
    const [made, event] = [drafts[i], events[i]];
    if (!records(event, made, texts[i]) || event.time !== first.time) {
      const reason = `the rules give ${made.type} by ${made.actor} here, the log ${event.type}`;
      throw new ReplayMismatchError(event.seq, withData(reason, event, made));
    }
  }
  if (events.length < drafts.length) {
    throw new ReplayMismatchError(events.at(-1).seq, `the log ends before ${drafts[events.length].type}`);
  }
}

/** `reason`, or for an event of the draft's type, the first member its data differ in. */
function withData(reason, event, made) {
  if (event.type !== made.type) return reason;
  try {
    for (const key of sorted(new Set([...Object.keys(event.data), ...Object.keys(made.data)]))) {
      const given = canonical(get(made.data, key));
      if (canonical(get(event.data, key)) !== given) {
        return `${event.type}: the rules give ${key}=${given.slice(0, 60)}`;
      }
    }
  } catch (e) {
    if (!(e instanceof EncodingError)) throw e;
  }
  return reason;
}

/** Whether a logged event is the draft the rules give: the same type, actor and round,
 * and data equal as JSON text (so true is not 1) to the draft's or to one of its earlier
 * forms (SPEC 7.19); `dataText` is the event's data as canonical text. */
export function records(event, made, dataText) {
  if (event.type !== made.type || event.actor !== made.actor || (event.round ?? null) !== (made.round ?? null)) {
    return false;
  }
  try {
    if (dataText === canonical(made.data)) return true;
    return (made.earlier ?? []).some((data) => dataText === canonical(data));
  } catch (e) {
    if (e instanceof EncodingError) return false; // data no JSON text can hold
    throw e;
  }
}
