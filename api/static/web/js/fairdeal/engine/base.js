// fairdeal/games/base.py: the command that drives a game, the drafts it decides, the Run
// that applies each draft as it is made, and the plugin that makes a game's eleven
// functions (SPEC 6.1; the contract is fairdeal/games/README.md).
// Exports: command, tableOf, commandOf, draft, Run, record, unknownCommand, unknownOptions,
// deckRules, plugin.
//
// A Command is {type, actor, time, data, round, table}, a Draft {type, actor, data, round} (and
// `earlier`, where an earlier service logged other data for it, SPEC 7.19), a Decision
// {drafts, state}: plain values, never changed once made.

import { closeMatch } from "./difflib.js";
import { IllegalActionError, OptionsError } from "./errors.js";
import { get, pyEqual, pyType, repr, sorted } from "./pytypes.js";

/** A request to change a table: by a seat ("seat:N") or by the server ("server").
 * `table` is the table's id, which the engine sets before the rules decide: a dealer-blind
 * table's proofs are bound to it (SPEC 15.12.1). No other rule reads it. */
export function command({ type, actor, time, data = {}, round = null, table = "" }) {
  // "" (Python's default) is left out, so that a command compares as it did before tables
  // were named: read it as `tableOf(cmd)`
  return table ? { type, actor, time, data, round, table } : { type, actor, time, data, round };
}

/** The table a command names ("" where the engine has not set it). */
export function tableOf(cmd) {
  return cmd.table ?? "";
}

/** The command an event records (the first event of each decided run). */
export function commandOf(event) {
  const { type, actor, time, data, round, table } = event;
  return command({ type, actor, time, data, round, table: table ?? "" });
}

/** What a game decides: an event before the chain gives it seq, prev and time. */
export function draft(type, actor, data = {}, round = null, earlier = []) {
  return earlier.length ? { type, actor, data, round, earlier } : { type, actor, data, round };
}

/** The drafts of one command being decided, each applied as it is made with the game's
 * `applyAt(state, draft, time)`, so that the state reached is the fold of `apply` over
 * the logged run. A game's own Run extends this one with its accessors. */
export class Run {
  constructor(state, time, applyAt) {
    this.state = state;
    this.time = time;
    this.drafts = [];
    this.applyAt = applyAt;
  }

  emit(made) {
    this.state = this.applyAt(this.state, made, this.time);
    this.drafts.push(made);
  }

  decision() {
    return { drafts: this.drafts, state: this.state };
  }
}

/** The rules the seal binds (SPEC 3.3): the game's name and its number of decks. */
export function deckRules(game, decks = 1) {
  return { game, decks };
}

/** The draft that records `cmd` with its full `data`: the command may omit derived fields
 * but may not contradict them (by value or by type) or add others. */
export function record(cmd, data, roundId = null) {
  for (const [key, value] of Object.entries(cmd.data)) {
    if (!Object.hasOwn(data, key)) throw new IllegalActionError(`${cmd.type} has no field '${key}'`);
    if (!pyEqual(data[key], value) || pyType(data[key]) !== pyType(value)) {
      throw new IllegalActionError(`${cmd.type}: ${key} must be ${JSON.stringify(data[key])}`);
    }
  }
  return draft(cmd.type, cmd.actor, { ...data }, roundId || cmd.round);
}

/** The refusal of a command type `game` does not have: the nearest of its `commands` (a
 * typo is the likeliest cause), and `legal`, what the sender may send now. */
export function unknownCommand(game, kind, commands, legal) {
  const now = legal.length ? `legal now: ${legal.join(", ")}` : "nothing is legal for this sender now";
  return new IllegalActionError(`${game} has no command ${nearest(kind, commands)}; ${now}`);
}

/** The refusal of options `game` does not have, each with the nearest it does (a typo is
 * the likeliest cause), and the options it has. */
export function unknownOptions(game, unknown, known) {
  const named = sorted(unknown).map((key) => nearest(key, known)).join(", ");
  return new OptionsError(`${game} has no option ${named}; its options: ${sorted(known).join(", ")}`);
}

/** `word` quoted, with the nearest of `words` where one is near. */
function nearest(word, words) {
  const near = closeMatch(word, sorted(words));
  return near === null ? repr(word) : `${repr(word)} (did you mean ${repr(near)}?)`;
}

/**
 * A game made of its package's functions (Python's Plugin): `parse(raw)` gives the game's
 * Options, which have a `toJson()` method (Python's `to_json`), or throws OptionsError;
 * `start(options)` a new table's state; `decks` a Map of each number of decks to its
 * canonical order. `step`, `apply`, `legalActions`, `viewFor`, `due`, `snapshot` and
 * `restore` are kept as they are, not wrapped. `tell` (the browser's own, not the
 * Python's) tells a checked round's hands to a person: {id, dealt, events} to
 * [{seat, role, cards, total, result}].
 */
export function plugin({ name, decks, parse, start, step, apply, legalActions, viewFor, due, snapshot, restore, tell }) {
  const options = (raw) => parse(raw).toJson();
  return Object.freeze({
    name,
    decks: new Map(decks),
    parse,
    start,
    step,
    apply,
    legalActions,
    viewFor,
    due,
    snapshot,
    restore,
    tell,
    options,
    deckRules: (raw) => deckRules(name, get(options(raw), "decks", 1)),
    new: (raw) => start(parse(raw)),
    decide: (state, cmd, secret) => step(state, cmd, secret).drafts,
  });
}
