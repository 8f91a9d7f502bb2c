// SPEC 7 step 0: reading untrusted input, as verifier/inputs.py reads it. Text is UTF-8
// without a byte order mark; JSON is what the log could write (canonical.js's strict
// reader: no NaN, and no member name twice in one object, except inside a signed event,
// which step 2 reports). What cannot be read rejects with a FairdealError of step 0.

import { fromUtf8, utf8 } from "./bytes.js";
import { DUPLICATE, JsonError, parseStrict } from "./canonical.js";
import { FairdealError } from "./errors.js";

const MAX_SMALL_BYTES = 4 << 20; // a checkpoint, a proof, a key
const BOM = [0xef, 0xbb, 0xbf]; // UTF-8's byte order mark
const BLANK = /^[ \t\n\r\v\f]*$/;
const malformed = (reason) => new FairdealError("input.malformed_json", reason);
export const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

/** (0) input.malformed_json when ``input`` (a string, or bytes) starts with a byte order
 * mark: a file's text has none. */
export function refuseBom(input, what) {
  const marked = input instanceof Uint8Array ? BOM.every((b, i) => input[i] === b) : input.startsWith("\ufeff");
  if (marked) throw malformed(`${what} starts with a byte order mark`);
}

/** The text of ``input`` (a string as read, or bytes read as strict UTF-8), or null when
 * its bytes are not UTF-8. */
export function decoded(input) {
  if (!(input instanceof Uint8Array)) return input;
  try {
    return fromUtf8(input);
  } catch {
    return null;
  }
}

/** (0) The text of an input: input.malformed_json when its bytes are not UTF-8 or it starts
 * with a byte order mark. */
export function textOf(input, what) {
  refuseBom(input, what);
  const text = decoded(input);
  if (text === null) throw malformed(`${what} is not UTF-8 text`);
  return text;
}

/** (0) textOf a small input (a checkpoint or proof file): input.too_large over 4 MiB. */
export function smallText(input, what) {
  const size = input instanceof Uint8Array ? input.length : utf8(String(input)).length;
  if (size > MAX_SMALL_BYTES) throw new FairdealError("input.too_large", `${what} over ${MAX_SMALL_BYTES} bytes`);
  return textOf(input, what);
}

/** (0) JSON read strictly, a member name twice refused too (input.malformed_json). */
export function loads(text) {
  try {
    return parseStrict(text);
  } catch (e) {
    if (!(e instanceof JsonError)) throw e;
    throw malformed(e.message);
  }
}

/** What the service said, if ``obj`` is its error body ({"error": {"code", "message",
 * "details"}}), as one line; else null. */
export function serverSaid(obj) {
  const error = isObject(obj) && Object.keys(obj).length === 1 ? obj.error : undefined;
  if (!isObject(error) || !Object.hasOwn(error, "code") || !Object.hasOwn(error, "message")) return null;
  const said = `the server answered ${error.code}: ${error.message}`;
  if (!error.details) return said;
  return `${said} (${typeof error.details === "string" ? error.details : JSON.stringify(error.details)})`;
}

/** (0) input.wrong_format relaying what the service said, for its error body saved in
 * place of a bundle, checkpoint or proof. */
export function refuseServerError(obj, what) {
  const said = serverSaid(obj);
  if (said !== null) throw new FairdealError("input.wrong_format", what === "the input" ? said : `${what}: ${said}`);
}

function hasDuplicates(value) {
  if (value === null || typeof value !== "object") return false;
  return Boolean(value[DUPLICATE]) || Object.values(value).some(hasDuplicates);
}

/** Whether an object of ``value`` other than those under its ``member`` was read with a
 * member name twice: outside a bundle's events, no step reports it, so it is unreadable. */
export function duplicatedOutside(value, member) {
  if (!isObject(value)) return hasDuplicates(value);
  return Boolean(value[DUPLICATE]) || Object.entries(value).some(([k, v]) => k !== member && hasDuplicates(v));
}

/** (0) An export's lines (of its text or bytes) that are not blank, each {number (from 1),
 * text}: the text of a line whose bytes are not UTF-8 is null, for that line alone cannot
 * be read (SPEC 7 step 0). */
export function linesOf(input) {
  const text = decoded(input);
  const lines = text === null ? byteLines(input).map(decoded) : text.split("\n");
  return lines
    .map((line, i) => ({ number: i + 1, text: line }))
    .filter((line) => line.text === null || !BLANK.test(line.text));
}

function byteLines(bytes) {
  const lines = [];
  let start = 0;
  for (let end = bytes.indexOf(0x0a); end >= 0; end = bytes.indexOf(0x0a, start)) {
    lines.push(bytes.subarray(start, end));
    start = end + 1;
  }
  lines.push(bytes.subarray(start));
  return lines;
}
