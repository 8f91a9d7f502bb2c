// What fairdeal-verify is given, read and told apart as verifier/sources.py does: the
// input is a bundle, an export, a checkpoint or a proof, told from its content (never
// from a file name), or nothing (the pinned checkpoints are checked alone). A checkpoint
// or a proof is checked here (pinned.js); a bundle or an export is handed back as lines
// for verify.js to check. What cannot be read rejects with a FairdealError of step 0.

import { JsonError, parseJson } from "./canonical.js";
import { FairdealError } from "./errors.js";
import { decoded, linesOf, loads, refuseBom, refuseServerError, textOf } from "./inputs.js";
import {
  checkpointInput,
  checkpointsOnly,
  consistencyInput,
  inclusionInput,
  readCheckpointFile,
  readPinned,
} from "./pinned.js";

const NOTE_MARK = "\n\n\u2014 "; // a signed note's blank line, then its first signature line
const CONSISTENCY = ["from", "to", "proof"];
const INCLUSION = ["leaf_index", "tree_size", "head_hash", "proof"];
const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d, 0x0b, 0x0c]); // bytes.lstrip()'s
const wrongFormat = (reason) => new FairdealError("input.wrong_format", reason);
const hasAll = (obj, members) => members.every((m) => Object.hasOwn(obj, m));

/**
 * (0) The input (text, bytes, or null: the pinned checkpoints alone) and the options
 * (pinned.js's readPinned). Resolves to readPinned's {trust, pinned, findings} with, for
 * a bundle or an export, its ``lines`` ({number, text}) and ``isExport`` (a bundle alone
 * is one leaf of the log: its ``pinned.partial`` is true); for anything else, ``findings``
 * holds every finding and there are no lines.
 */
export async function readInput(input, opts = {}) {
  const alone = input === null || input === undefined;
  if (alone && opts.checkpoint == null) throw new RangeError("give an input, or a checkpoint to check");
  const read = await readPinned(opts);
  const done = async (more) => ({ ...read, findings: [...read.findings, ...(await more)] });
  if (alone) return done(checkpointsOnly(read.pinned));
  refuseBom(input, "the input"); // a whole export's, not its first line's alone
  const start = startOf(input);
  if (!start) throw wrongFormat("the input is empty");
  if (start !== "{" && start !== "[") {
    const text = textOf(input, "the input");
    if (!text.includes(NOTE_MARK)) throw wrongFormat("not a bundle, export, checkpoint or proof");
    return done(checkpointInput(readCheckpointFile(text, "the checkpoint"), opts, read.trust, read.pinned));
  }
  if (start === "[") {
    loads(textOf(input, "the input")); // a JSON array is never a fairdeal input: say why it is unusable
    throw wrongFormat("a JSON array is not a bundle or an export");
  }
  const text = decoded(input); // not UTF-8: an export, whose lines are read one by one
  const obj = text === null ? undefined : oneValue(text);
  if (obj === undefined) return { ...read, lines: linesOf(text ?? input), isExport: true }; // several lines
  if (!Object.hasOwn(obj, "format")) return done(objectInput(text, obj, opts, read));
  return { ...read, pinned: { ...read.pinned, partial: true }, lines: [{ number: 1, text }], isExport: false };
}

/** The first character of ``input`` (text or bytes: a byte as the character of its code)
 * after JSON's and a note's leading whitespace; "" when there is none. */
function startOf(input) {
  const code = input instanceof Uint8Array ? (i) => input[i] : (i) => input.charCodeAt(i);
  let i = 0;
  while (i < input.length && WHITESPACE.has(code(i))) i++;
  return i < input.length ? String.fromCharCode(code(i)) : "";
}

/** The JSON value ``text`` holds, or undefined when it is not one value (an export's lines). */
function oneValue(text) {
  try {
    return parseJson(text).value;
  } catch (e) {
    if (!(e instanceof JsonError)) throw e;
    return undefined;
  }
}

/** (0) An export's text (or bytes) and the options: readInput's answer for its lines. */
export async function readExport(input, opts = {}) {
  const read = await readPinned(opts);
  refuseBom(input, "the input");
  const lines = linesOf(input);
  if (!lines.length) throw wrongFormat("the input is empty");
  return { ...read, lines, isExport: true };
}

/** A JSON object other than a bundle: a proof, or a checkpoint in its JSON form. */
async function objectInput(text, obj, opts, { trust, pinned }) {
  refuseServerError(obj, "the input");
  if (hasAll(obj, CONSISTENCY)) return consistencyInput(text, pinned);
  if (Object.hasOwn(obj, "note")) {
    return checkpointInput(readCheckpointFile(text, "the checkpoint"), opts, trust, pinned);
  }
  if (hasAll(obj, INCLUSION)) return inclusionInput(text, pinned);
  throw wrongFormat("not a bundle, export, checkpoint or proof");
}
