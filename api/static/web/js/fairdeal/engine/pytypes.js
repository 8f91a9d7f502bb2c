// Python's semantics where the rules' ports need them exactly (the port contract): its
// `isinstance` tests, `==`, truthiness, `dict[k]`, `dict.get`, indexing, `//`, `%`, `sorted`,
// a string's `repr`.
// Exports: PY_SPACE, isInt, isExactInt, isStr, isList, isDict, pyType, pyEqual, truthy, must, get,
// item, sameKeys, sum, floorDiv, mod, cmpStr, compare, sorted, sortedObject, repr.
//
// Where Python raises (KeyError, IndexError, TypeError, ZeroDivisionError) these throw a
// TypeError or RangeError: never a GameError, so a replay reports it as rules.crashed.

/** The characters of Python's `str.isspace()`, for a regex class (JS's `\s` and `trim()`
 * differ: U+001C..U+001F and U+0085 are Python's whitespace, U+FEFF is not). */
export const PY_SPACE = "\\t-\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";

/** `isinstance(v, int)`: true for booleans too. */
export const isInt = (v) => typeof v === "boolean" || Number.isInteger(v);

/** `type(v) is int`: booleans excluded. */
export const isExactInt = (v) => Number.isInteger(v);

export const isStr = (v) => typeof v === "string";

export const isList = (v) => Array.isArray(v);

/** `isinstance(v, dict)` (or Mapping) for JSON-like values: a plain object or a Map. */
export function isDict(v) {
  if (v === null || typeof v !== "object") return false;
  if (v instanceof Map) return true;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** The name of `type(v)`, for the places the rules compare types (`base.record`). */
export function pyType(v) {
  if (v === null || v === undefined) return "NoneType";
  if (typeof v === "boolean") return "bool";
  if (typeof v === "number") return Number.isInteger(v) ? "int" : "float";
  if (typeof v === "string") return "str";
  if (Array.isArray(v)) return "list";
  if (v instanceof Set) return "set";
  if (v instanceof Uint8Array) return "bytes";
  if (isDict(v)) return "dict";
  return v.constructor?.name ?? "object";
}

const numeric = (v) => (typeof v === "boolean" ? Number(v) : v);

function entries(d) {
  return d instanceof Map ? [...d.entries()] : Object.entries(d);
}

function has(d, key) {
  return d instanceof Map ? d.has(key) : typeof key === "string" && Object.hasOwn(d, key);
}

function lookup(d, key) {
  return d instanceof Map ? d.get(key) : d[key];
}

/** Python `a == b`, by value: `True == 1`, lists item by item, dicts by their items, sets by
 * their members, bytes by their bytes; objects of one class by their own fields. */
export function pyEqual(a, b) {
  if (a === b) return true;
  if (a === null || b === null || a === undefined || b === undefined) return false;
  const ta = typeof a;
  const tb = typeof b;
  if ((ta === "number" || ta === "boolean") && (tb === "number" || tb === "boolean")) {
    return numeric(a) === numeric(b);
  }
  if (ta !== "object" || tb !== "object") return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => pyEqual(x, b[i]));
  }
  if (a instanceof Set || b instanceof Set) {
    return a instanceof Set && b instanceof Set && a.size === b.size && [...a].every((x) => b.has(x));
  }
  if (a instanceof Uint8Array || b instanceof Uint8Array) {
    return a instanceof Uint8Array && b instanceof Uint8Array && a.length === b.length && a.every((x, i) => x === b[i]);
  }
  if (!(isDict(a) && isDict(b)) && Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  const items = entries(a);
  if (items.length !== entries(b).length) return false;
  return items.every(([k, v]) => has(b, k) && pyEqual(v, lookup(b, k)));
}

/** Python truthiness: None, False, 0, "" and empty lists, dicts and sets are false. */
export function truthy(v) {
  if (v === null || v === undefined) return false;
  if (Array.isArray(v) || typeof v === "string") return v.length > 0;
  if (v instanceof Map || v instanceof Set) return v.size > 0;
  if (isDict(v)) return Object.keys(v).length > 0;
  return Boolean(v);
}

/** `d[key]`: TypeError (Python's KeyError) when `d` has no such key. */
export function must(d, key) {
  if (!isDict(d)) throw new TypeError(`${pyType(d)} is not subscriptable by ${JSON.stringify(key)}`);
  if (!has(d, key)) throw new TypeError(`KeyError: ${JSON.stringify(key)}`);
  return lookup(d, key);
}

/** `d.get(key, fallback)`: null for a missing key; TypeError when `d` is no dict. */
export function get(d, key, fallback = null) {
  if (!isDict(d)) throw new TypeError(`${pyType(d)} has no get`);
  return has(d, key) ? lookup(d, key) : fallback;
}

/** `seq[i]` with Python's negative indices; RangeError (IndexError) past either end. */
export function item(seq, i) {
  if (!isInt(i)) throw new TypeError("indices must be integers");
  const at = numeric(i) < 0 ? seq.length + numeric(i) : numeric(i);
  if (at < 0 || at >= seq.length) throw new RangeError("IndexError: index out of range");
  return seq[at];
}

/** `set(d) == set(names)`: the dict's keys are exactly these. */
export function sameKeys(d, names) {
  const keys = d instanceof Map ? [...d.keys()] : Object.keys(d);
  const wanted = new Set(names);
  return keys.length === wanted.size && keys.every((k) => wanted.has(k));
}

/** `sum(values)`, booleans counting 1 and 0. */
export function sum(values) {
  let total = 0;
  for (const v of values) {
    if (!isInt(v)) throw new TypeError(`cannot add ${pyType(v)}`);
    total += numeric(v);
  }
  return total;
}

/** `a % b`: the sign of the divisor. */
export function mod(a, b) {
  if (numeric(b) === 0) throw new RangeError("ZeroDivisionError: integer modulo by zero");
  const r = numeric(a) % numeric(b);
  return r !== 0 && r < 0 !== numeric(b) < 0 ? r + numeric(b) : r + 0;
}

/** `a // b`: floored, exact on safe integers (a - a % b is a multiple of b). */
export function floorDiv(a, b) {
  const difference = numeric(a) - mod(a, b);
  if (Number.isSafeInteger(difference)) return difference / numeric(b) + 0;
  const [x, y] = [BigInt(numeric(a)), BigInt(numeric(b))];
  const q = x / y;
  return Number(q * y !== x && x < 0n !== y < 0n ? q - 1n : q);
}

/** Strings by code point, as Python compares them (JS `<` compares UTF-16 units, which
 * differ where a surrogate pair meets U+E000..U+FFFF). */
export function cmpStr(a, b) {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointOrder(x) - codePointOrder(y);
  }
  return a.length - b.length;
}

const codePointOrder = (unit) => (unit >= 0xd800 ? (unit >= 0xe000 ? unit - 0x800 : unit + 0x2000) : unit);

/** Python's `<` as a comparator: numbers (and bools), strings by code point, lists
 * (tuples) item by item; TypeError for values Python does not order. */
export function compare(a, b) {
  const ta = typeof a;
  const tb = typeof b;
  if ((ta === "number" || ta === "boolean") && (tb === "number" || tb === "boolean")) {
    return numeric(a) - numeric(b);
  }
  if (ta === "string" && tb === "string") return cmpStr(a, b);
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      if (!pyEqual(a[i], b[i])) return compare(a[i], b[i]);
    }
    return a.length - b.length;
  }
  throw new TypeError(`'<' not supported between ${pyType(a)} and ${pyType(b)}`);
}

/** `sorted(values, key=key, reverse=reverse)`: stable, by `compare`; a dict's keys, a
 * Map's keys or a Set's members for those. */
export function sorted(values, { key = null, reverse = false } = {}) {
  const list = values instanceof Map ? [...values.keys()] : isDict(values) ? Object.keys(values) : [...values];
  const keyed = list.map((v) => [key ? key(v) : v, v]);
  keyed.sort((x, y) => (reverse ? compare(y[0], x[0]) : compare(x[0], y[0])));
  return keyed.map(([, v]) => v);
}

/** `dict(sorted(d.items()))` for string keys: a new object with its members in order. */
export function sortedObject(d) {
  return Object.fromEntries(sorted(Object.keys(d)).map((k) => [k, d[k]]));
}

// Python's str.isprintable() is false for these categories, a space apart.
const UNPRINTABLE = /^[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]$/u;
const ESCAPES = { "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r" };

/** `repr(text)` of a string: in single quotes (double where it holds a single quote and
 * no double one), what is not printable escaped. */
export function repr(text) {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  const escaped = (c) => {
    const code = c.codePointAt(0);
    if (c === quote) return `\\${c}`;
    if (Object.hasOwn(ESCAPES, c)) return ESCAPES[c];
    if (code < 0x20 || code === 0x7f) return `\\x${hex(code, 2)}`;
    if (code < 0x7f || !UNPRINTABLE.test(c)) return c;
    if (code <= 0xff) return `\\x${hex(code, 2)}`;
    return code <= 0xffff ? `\\u${hex(code, 4)}` : `\\U${hex(code, 8)}`;
  };
  return quote + Array.from(text, escaped).join("") + quote;
}

const hex = (code, digits) => code.toString(16).padStart(digits, "0");
