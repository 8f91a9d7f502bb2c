// What fairdeal-verify is given, read and told apart as verifier/sources.py does: the
// input is a bundle, an export, a checkpoint or a proof, told from its content (never
// from a file name), or nothing (the pinned checkpoints are checked alone). A checkpoint
// or a proof is checked here (pinned.js); a bundle or an export is handed back as lines
// for verify.js to check. What cannot be read rejects with a FairdealError of step 0.

import { JsonError, parseJson } from "./canonical.js";
import { FairdealError } from "./errors.js";
import { linesOf, loads, refuseServerError, textOf } from "./inputs.js";
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
  const text = textOf(input, "the input"); // a whole export's, not its first line's alone
  const start = text.replace(/^[ \t\n\r\v\f]+/, "").charAt(0);
  if (!start) throw wrongFormat("the input is empty");
  if (start !== "{" && start !== "[") {
    if (!text.includes(NOTE_MARK)) throw wrongFormat("not a bundle, export, checkpoint or proof");
    return done(checkpointInput(readCheckpointFile(text, "the checkpoint"), opts, read.trust, read.pinned));
  }
  if (start === "[") {
    loads(text); // a JSON array is never a fairdeal input: say why it is unusable
    throw wrongFormat("a JSON array is not a bundle or an export");
  }
  let obj;
  try {
    obj = parseJson(text).value;
  } catch (e) {
    if (!(e instanceof JsonError)) throw e;
    return { ...read, lines: linesOf(text), isExport: true }; // several lines: an export
  }
  if (!Object.hasOwn(obj, "format")) return done(objectInput(text, obj, opts, read));
  return { ...read, pinned: { ...read.pinned, partial: true }, lines: [{ number: 1, text }], isExport: false };
}

/** (0) An export's text (or bytes) and the options: readInput's answer for its lines. */
export async function readExport(input, opts = {}) {
  const read = await readPinned(opts);
  const lines = linesOf(textOf(input, "the input"));
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
