// SPEC 1.1: canonical(v), RFC 8785 (JCS) on fairdeal's domain, and a strict JSON reader.
//
// The reader keeps what the encoder must refuse instead of losing it: a number written
// with a fraction or exponent becomes a JsonFloat, an integer beyond 2^53 - 1 a BigInt,
// and an object that repeats a member name is marked (DUPLICATE) with its last value kept.

export const MAX_DEPTH = 32;

export class EncodingError extends Error {
  constructor(message, { duplicate = false } = {}) {
    super(message);
    this.name = "EncodingError";
    this.code = duplicate ? "canonical.duplicate_key" : "canonical.encoding";
  }
}

export class JsonError extends Error {
  constructor(message) {
    super(message);
    this.name = "JsonError";
    this.code = "input.malformed_json";
  }
}

/** A number the text wrote with a fraction or exponent: read, never encoded. */
export class JsonFloat {
  constructor(text) {
    this.text = text;
  }
  valueOf() {
    return Number(this.text);
  }
}

/** Marks an object the reader found with a member name twice. */
export const DUPLICATE = Symbol("fairdeal.duplicate");
// What a reader takes as JSON at all (SPEC 7 step 0, verifier/inputs.py's): at most this many
// arrays and objects inside one another, and integers of at most this many digits.
export const MAX_READ_DEPTH = 512;
export const MAX_INTEGER_DIGITS = 4300;

/** The canonical text of ``value``; EncodingError for anything outside the domain. */
export function canonical(value) {
  return encode(value, 0);
}

function encode(value, depth) {
  if (value === null) return "null";
  switch (typeof value) {
    case "boolean":
      return value ? "true" : "false";
    case "number":
      if (!Number.isSafeInteger(value)) throw new EncodingError(`${value} is not an exact integer`);
      return value === 0 ? "0" : String(value);
    case "string":
      if (!value.isWellFormed()) throw new EncodingError("a string is not valid Unicode");
      return JSON.stringify(value); // on well-formed text this is JCS's escaping exactly
    case "object":
      break;
    default:
      throw new EncodingError(`${typeof value} has no canonical encoding`);
  }
  if (depth >= MAX_DEPTH) throw new EncodingError("value nested too deeply");
  if (Array.isArray(value)) {
    return "[" + value.map((item) => encode(item, depth + 1)).join(",") + "]";
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) {
    throw new EncodingError(`${value?.constructor?.name ?? "object"} has no canonical encoding`);
  }
  if (value[DUPLICATE]) {
    throw new EncodingError("a member name appears twice in one object", { duplicate: true });
  }
  const names = Object.keys(value).sort();
  let out = "{";
  for (let i = 0; i < names.length; i++) {
    const name = names[i];
    if (!/^[\x00-\x7f]*$/.test(name)) throw new EncodingError("object keys must be ASCII strings");
    if (i) out += ",";
    out += JSON.stringify(name) + ":" + encode(value[name], depth + 1);
  }
  return out + "}";
}

/** True when ``value`` has a canonical encoding. */
export function isCanonical(value) {
  try {
    canonical(value);
    return true;
  } catch (e) {
    if (e instanceof EncodingError) return false;
    throw e;
  }
}

// ---- the strict reader ------------------------------------------------------------

const NUMBER = /-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/y;
const WS = /[ \t\n\r]*/y;

/**
 * Parse JSON text strictly (RFC 8259: no NaN, no trailing commas, no comments). Returns
 * the value; marks objects that repeat a member name with DUPLICATE (see ``hasDuplicates``).
 * JsonError for text that is not JSON.
 */
export function parseJson(text) {
  const reader = new Reader(text);
  reader.skip();
  const value = reader.value(0);
  reader.skip();
  if (reader.at !== text.length) reader.fail("text after the value");
  return { value, duplicates: reader.duplicates };
}

/** parseJson's value, refusing a member name twice anywhere (JsonError). */
export function parseStrict(text) {
  const { value, duplicates } = parseJson(text);
  if (duplicates) throw new JsonError("a member name appears twice in one object");
  return value;
}

class Reader {
  constructor(text) {
    this.text = text;
    this.at = 0;
    this.duplicates = false;
  }

  fail(what) {
    throw new JsonError(`not JSON at character ${this.at}: ${what}`);
  }

  skip() {
    WS.lastIndex = this.at;
    WS.exec(this.text);
    this.at = WS.lastIndex;
  }

  value(depth) {
    const c = this.text[this.at];
    if ((c === "{" || c === "[") && depth >= MAX_READ_DEPTH) this.fail(`arrays and objects nested over ${MAX_READ_DEPTH} deep`);
    if (c === "{") return this.object(depth);
    if (c === "[") return this.array(depth);
    if (c === '"') return this.string();
    if (c === "-" || (c >= "0" && c <= "9")) return this.number();
    for (const [word, v] of [["true", true], ["false", false], ["null", null]]) {
      if (this.text.startsWith(word, this.at)) {
        this.at += word.length;
        return v;
      }
    }
    return this.fail("unexpected character");
  }

  object(depth) {
    const out = {};
    const seen = new Set();
    this.at++;
    this.skip();
    if (this.text[this.at] === "}") {
      this.at++;
      return out;
    }
    for (;;) {
      if (this.text[this.at] !== '"') this.fail("expected a member name");
      const name = this.string();
      this.skip();
      if (this.text[this.at] !== ":") this.fail("expected ':'");
      this.at++;
      this.skip();
      const item = this.value(depth + 1);
      if (seen.has(name)) {
        this.duplicates = true;
        Object.defineProperty(out, DUPLICATE, { value: true, enumerable: false });
      }
      seen.add(name);
      Object.defineProperty(out, name, {
        value: item,
        enumerable: true,
        writable: true,
        configurable: true,
      });
      this.skip();
      const c = this.text[this.at++];
      if (c === "}") return out;
      if (c !== ",") this.fail("expected ',' or '}'");
      this.skip();
    }
  }

  array(depth) {
    const out = [];
    this.at++;
    this.skip();
    if (this.text[this.at] === "]") {
      this.at++;
      return out;
    }
    for (;;) {
      out.push(this.value(depth + 1));
      this.skip();
      const c = this.text[this.at++];
      if (c === "]") return out;
      if (c !== ",") this.fail("expected ',' or ']'");
      this.skip();
    }
  }

  string() {
    // The closing quote is the first one not escaped; JSON.parse then reads the escapes.
    let end = this.at + 1;
    for (;;) {
      end = this.text.indexOf('"', end);
      if (end < 0) this.fail("unterminated string");
      let slashes = 0;
      while (this.text[end - 1 - slashes] === "\\") slashes++;
      if (slashes % 2 === 0) break;
      end++;
    }
    const raw = this.text.slice(this.at, end + 1);
    if (/[\x00-\x1f]/.test(raw)) this.fail("a control character in a string");
    this.at = end + 1;
    try {
      return JSON.parse(raw);
    } catch {
      return this.fail("a bad escape in a string");
    }
  }

  number() {
    NUMBER.lastIndex = this.at;
    const m = NUMBER.exec(this.text);
    if (!m) this.fail("a bad number");
    this.at = NUMBER.lastIndex;
    if (m[1] !== undefined || m[2] !== undefined) return new JsonFloat(m[0]);
    const n = Number(m[0]);
    if (Number.isSafeInteger(n)) return n === 0 ? 0 : n;
    if (m[0].replace("-", "").length > MAX_INTEGER_DIGITS) this.fail(`an integer of over ${MAX_INTEGER_DIGITS} digits`);
    return BigInt(m[0]);
  }
}
