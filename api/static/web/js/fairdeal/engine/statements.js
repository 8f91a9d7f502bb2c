// fairdeal/statements.py: seat keys and the statements seats sign (SPEC 6.7), the
// engine's part of version 2, as the replay checks them.
// Exports: FIRST, SIGNED, BLIND, KEY, SIGNATURE, MAX_N, makeSeatKey, NO_KEYS, Seen, NOTHING_SEEN,
// verifies, admit, asSent, logged, commandData, after, toJson, fromJson, isStrongKey.
//
// SeatKeys are a Map seat -> {key (64 hex or null), n}; never changed once made.

import { hexToBytes } from "../bytes.js";
import { ed25519Verify, importRawEd25519 } from "../crypto.js";
import { statementBytes } from "../statements.js";
import {
  EventSchemaError,
  IllegalActionError,
  KeyRequiredError,
  SeatKeyError,
  SeatSignatureError,
  SignatureMissingError,
  SignatureReplayedError,
  SignatureStaleError,
  SignatureUnexpectedError,
} from "./errors.js";
import { ANSWERS, CLIENT_SEED, ROUND_OPENED, SEAT_JOINED, SEED_COMMITMENT, SEEDS_COMMITTED, TABLE_STATE, actorSeat, isHex64 } from "./protocol.js";
import { get, isDict, isExactInt, isStr, must, pyEqual, sameKeys, sorted, truthy } from "./pytypes.js";

// protocol versions: SIGNED binds seat keys and takes seed commitments, BLIND is that of
// dealer-blind tables (SPEC 15.13), where a seat's signed members are logged once
export const FIRST = 1;
export const SIGNED = 2;
export const BLIND = 3;
export const KEY = "key"; // the members the engine owns in a command's event
export const SIGNATURE = "signed";
export const MAX_N = Number.MAX_SAFE_INTEGER;

/** A seat's bound public key (64 hex; null: keyless) and the last `n` it signed. */
export function makeSeatKey({ key, n = 0 }) {
  return Object.freeze({ key, n });
}

export const NO_KEYS = new Map();

/** The events a statement may name as the one it was made `after` (SPEC 6.7): from the
 * event before the last table_state on, by their hashes (hex) from seq `start`; the seq of
 * the round's seeds_committed, which a reveal must name or follow; and (version 3) the seq
 * of the last request of the round's cryptography (shuffle_due, shares_due, keys_due),
 * which an answer must name or follow (SPEC 15.13.11). */
export class Seen {
  constructor(start = 0, hashes = [], reveals_at = null, answers_at = null) {
    this.start = start;
    this.hashes = hashes;
    this.reveals_at = reveals_at;
    this.answers_at = answers_at;
    Object.freeze(this);
  }

  /** What may be named once `event` (of hash `eventHash`, hex) is logged. */
  then(event, eventHash) {
    if (event.type === TABLE_STATE) return new Seen(event.seq - 1, [event.prev, eventHash]);
    let revealsAt = this.reveals_at;
    let answersAt = this.answers_at;
    if (event.type === ROUND_OPENED) revealsAt = answersAt = null;
    else if (event.type === SEEDS_COMMITTED) revealsAt = event.seq;
    else if (ANSWERS.has(event.type)) answersAt = event.seq;
    return new Seen(this.start, [...this.hashes, eventHash], revealsAt, answersAt);
  }

  /** `after` must be {seq, hash} of an event this one allows (else the statement was made
   * against another log, or an older view than the table takes). */
  check(cmd, after) {
    if (!isDict(after) || !sameKeys(after, ["seq", "hash"])) throw new SeatSignatureError("signed.after is {seq, hash}");
    const seq = must(after, "seq");
    const digest = must(after, "hash");
    if (!isExactInt(seq) || !isHex64(digest)) {
      throw new SeatSignatureError("signed.after is an integer seq and a 64-hex hash");
    }
    if (!(this.start <= seq && seq < this.start + this.hashes.length)) {
      const span = `${this.start} to ${this.start + this.hashes.length - 1}`;
      throw new SignatureStaleError(`statements now name an event of seq ${span}: look again`);
    }
    if (this.hashes[seq - this.start] !== digest) {
      throw new SeatSignatureError(`the event at seq ${seq} is not the one the seat saw`);
    }
    if (cmd.type === CLIENT_SEED && this.reveals_at !== null && seq < this.reveals_at) {
      throw new SignatureStaleError("a reveal names seeds_committed or an event after it");
    }
    if (ANSWER_TYPES.has(cmd.type) && this.answers_at !== null && seq < this.answers_at) {
      throw new SignatureStaleError(`a ${cmd.type} names its request or an event after it`);
    }
  }
}

export const NOTHING_SEEN = new Seen();
const ANSWER_TYPES = new Set(ANSWERS.values());

// Imported keys by their hex (Python's lru_cache of public keys): a seat signs many commands.
const IMPORTED = new Map();
/** Whether `signature` (128 lowercase hex) is `key`'s (64 hex) over `message`. */
export async function verifies(key, message, signature) {
  if (!isStr(signature) || !/^[0-9a-f]{128}$/.test(signature)) return false;
  if (!IMPORTED.has(key)) IMPORTED.set(key, importRawEd25519(hexToBytes(key)));
  return ed25519Verify(await IMPORTED.get(key), hexToBytes(signature), message);
}

/** `[command, members]`: the command the game decides, and the members the engine adds
 * to its first event (a seat_joined's key, or a keyed seat's checked signature), or null.
 * Throws a SeatSignatureError (or IllegalActionError) for a command this version refuses. */
export async function admit(version, keys, seen, table, cmd) {
  const data = cmd.data;
  if (version < SIGNED) {
    if (cmd.type === SEED_COMMITMENT) throw new IllegalActionError("a version-1 table takes no seed commitments");
    return [cmd, null];
  }
  const seat = actorSeat(cmd.actor);
  if (seat === null) return [cmd, null];
  if (cmd.type === SEAT_JOINED) {
    const key = get(data, KEY);
    if (key === null && version >= BLIND) {
      throw new KeyRequiredError("a dealer-blind table seats only keyed seats: send key, your Ed25519 public key");
    }
    if (key !== null && !(isHex64(key) && isStrongKey(key))) {
      throw new SeatKeyError("key is a 64-hex Ed25519 public key of a point of large order, or null");
    }
    return [{ ...cmd, data: without(data, KEY) }, { [KEY]: key }];
  }
  const bound = keys.get(seat) ?? null;
  const signed = get(data, SIGNATURE);
  if (bound === null || bound.key === null) {
    if (signed !== null) throw new SignatureUnexpectedError("this seat has no key: its commands carry no signature");
    return [cmd, null];
  }
  if (signed === null) {
    throw new SignatureMissingError(`seat ${seat} has a key: its commands carry signed {n, after, signature}`);
  }
  if (!isDict(signed) || !sameKeys(signed, ["n", "after", "signature"])) {
    throw new SeatSignatureError("signed is {n, after, signature}");
  }
  const n = signed.n;
  const signature = signed.signature;
  if (!isExactInt(n) || !(0 < n && n <= MAX_N) || !isStr(signature)) {
    throw new SeatSignatureError("signed.n is a positive integer and signed.signature 128 hex");
  }
  if (n <= bound.n) throw new SignatureReplayedError(`seat ${seat}'s statements are numbered above ${bound.n}`);
  const after = signed.after;
  seen.check(cmd, after);
  const bare = without(data, SIGNATURE);
  const message = statementBytes({ table, round: cmd.round, seat, type: cmd.type, data: bare, n, after });
  if (!(await verifies(bound.key, message, signature))) {
    throw new SeatSignatureError(`the signature is not seat ${seat}'s over this statement`);
  }
  const member = { n, after: { ...after }, data: bare, signature };
  return [{ ...cmd, data: bare }, { [SIGNATURE]: member }];
}

/** The command a logged first event records, as its seat sent it: for a signed one, the
 * data the seat signed and its {n, after, signature} (`admit` checks them again). */
export function asSent(cmd) {
  const logged = get(cmd.data, SIGNATURE);
  if (!isDict(logged)) return cmd;
  const data = get(logged, "data");
  if (!isDict(data)) throw new SeatSignatureError("a logged signed holds the data the seat signed");
  const sent = { n: get(logged, "n"), after: get(logged, "after"), signature: get(logged, "signature") };
  return { ...cmd, data: { ...data, [SIGNATURE]: sent } };
}

/** The command's first draft with the engine's members added. In version 3 a member the
 * seat signed is logged once, inside `signed` (SPEC 15.13.11): the draft's copy is left out
 * (`record` made it equal to the signed value). */
export function logged(made, members, version = SIGNED) {
  if (!truthy(members)) return made;
  const signed = get(members, SIGNATURE);
  let data = { ...made.data };
  if (version >= BLIND && isDict(signed)) {
    const names = new Set(Object.keys(signed.data));
    data = Object.fromEntries(Object.entries(data).filter(([name]) => !names.has(name)));
  }
  return { ...made, data: { ...data, ...members } };
}

/** An event's data as the rules record them (SPEC 6.7, 15.13.11): without the statement a
 * seat signed (`signed`), and in version 3 with the members it signed, which are logged
 * inside it, put back. Data of no seat's statement are returned as they are. */
export function commandData(version, data) {
  const signed = get(data, SIGNATURE);
  if (!isDict(signed)) return data;
  const others = without(data, SIGNATURE);
  const inner = get(signed, "data");
  if (version >= BLIND && isDict(inner)) return { ...inner, ...others };
  return others;
}

/** The seat keys after these events: a seat_joined binds its seat's key (a seat taken
 * again gets its new occupant's), a signed command moves its seat's `n` on. */
export function after(keys, drafts) {
  const changes = new Map();
  for (const made of drafts) {
    const seat = actorSeat(made.actor);
    if (seat === null) continue;
    if (made.type === SEAT_JOINED && Object.hasOwn(made.data, KEY)) {
      changes.set(seat, makeSeatKey({ key: made.data[KEY] }));
    }
    const signed = get(made.data, SIGNATURE);
    if (isDict(signed) && isExactInt(get(signed, "n"))) {
      const current = changes.get(seat) ?? keys.get(seat) ?? makeSeatKey({ key: null });
      changes.set(seat, makeSeatKey({ key: current.key, n: signed.n }));
    }
  }
  if (!changes.size) return keys;
  return new Map([...keys, ...changes]);
}

/** The seat keys as a table_state logs them (SPEC 6.6): by seat. */
export function toJson(keys) {
  return sorted(keys).map((seat) => ({ seat, key: keys.get(seat).key, n: keys.get(seat).n }));
}

/** `toJson`'s inverse, for exactly what it gives; EventSchemaError otherwise. */
export function fromJson(value) {
  if (!Array.isArray(value)) throw new EventSchemaError("seat_keys is a list");
  const keys = new Map();
  for (const entry of value) {
    if (!isDict(entry) || !sameKeys(entry, ["seat", "key", "n"])) {
      throw new EventSchemaError("each seat key is {seat, key, n}");
    }
    const { seat, key, n } = entry;
    if (!isExactInt(seat) || !isExactInt(n) || !(0 <= n && n <= MAX_N)) {
      throw new EventSchemaError("a seat key's seat and n are integers");
    }
    if (key !== null && !isHex64(key)) throw new EventSchemaError("a seat key is 64 lowercase hex, or null");
    keys.set(seat, makeSeatKey({ key, n }));
  }
  if (!pyEqual(toJson(keys), value)) throw new EventSchemaError("seat_keys are listed once each, by seat");
  return keys;
}

const P = 2n ** 255n - 19n;
// The encodings of the eight Ed25519 points of small order (8·A = identity), and the two
// non-canonical ones of x = 0 with the sign bit set: libsodium refuses the same keys.
const SMALL_ORDER = new Set([
  "01" + "00".repeat(31), // the identity (0, 1)
  "ec" + "ff".repeat(30) + "7f", // (0, -1), of order 2
  "00".repeat(32), // (sqrt(-1), 0) and its negation, of order 4
  "00".repeat(31) + "80",
  "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a", // order 8
  "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",
  "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
  "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85",
  "01" + "00".repeat(30) + "80", // x = 0 with the sign bit: not canonical
  "ec" + "ff".repeat(31),
]);

/** Whether 64 lowercase hex digits may be a seat's key (SPEC 6.7): y below p (a canonical
 * encoding) and not a point of small order, under which some signatures verify for any
 * message, so that anyone could sign for the seat. */
export function isStrongKey(key) {
  const bytes = hexToBytes(key);
  let y = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) y = (y << 8n) | BigInt(bytes[i]);
  y &= (1n << 255n) - 1n;
  return y < P && !SMALL_ORDER.has(key);
}

function without(data, member) {
  return Object.fromEntries(Object.entries(data).filter(([name]) => name !== member));
}
