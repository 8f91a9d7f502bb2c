// SPEC 7 (1)-(5) for each signed event against the chain head before it: schema,
// canonical form, table/seq/prev/genesis/version, hash and signature, time.

import { bytesToHex, concatBytes, hexToBytes, isHex, utf8 } from "./bytes.js";
import { DUPLICATE, EncodingError, canonical } from "./canonical.js";
import { ed25519Verify, sha256 } from "./crypto.js";
import { GENESIS } from "./events.js";
import { EVENT, EVENT_SIGNATURE } from "./tags.js";

const VERSIONS = [1, 2, 3];
export const FIELDS = ["version", "table", "round", "seq", "prev", "time", "type", "actor", "data"];
const ID = /^[A-Za-z0-9._:-]{1,64}$/;
const TYPE = /^[a-z][a-z0-9_]{0,39}$/;
const ACTOR = /^(?:server|seat:(?:0|[1-9][0-9]?))$/;
const isInt = (v) => typeof v === "number" && Number.isSafeInteger(v);
const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const hasExactly = (obj, names) =>
  isObject(obj) && Object.keys(obj).length === names.length && names.every((n) => Object.hasOwn(obj, n));

class SchemaError extends Error {}

/** Whether any object inside ``value`` was read with a member name twice. */
export function hasDuplicates(value) {
  if (value === null || typeof value !== "object") return false;
  if (value[DUPLICATE]) return true;
  return Object.values(value).some(hasDuplicates);
}

// SPEC 5.1's constraint on each field, in its table's order, with the reason it fails (events.py's
// _SHAPES: 3 is the dealer-blind protocol, SPEC 15.13).
const SHAPES = {
  version: [(v) => isInt(v) && VERSIONS.includes(v), "version must be 1, 2 or 3"],
  table: [(v) => typeof v === "string" && ID.test(v), "bad table id"],
  round: [(v) => v === null || (typeof v === "string" && ID.test(v)), "bad round id"],
  seq: [(v) => isInt(v) && v >= 0, "seq must be a non-negative integer"],
  prev: [(v) => isHex(v, 64), "prev must be 64 lowercase hex digits"],
  time: [(v) => isInt(v) && v >= 0, "time must be a non-negative integer"],
  type: [(v) => typeof v === "string" && TYPE.test(v), "bad event type"],
  actor: [(v) => typeof v === "string" && ACTOR.test(v), "bad actor"],
  data: [isObject, "data must be an object"],
};

/** Whether ``value`` meets SPEC 5.1's constraint on the event field ``name``, or 5.3's on a
 * signed event's key_id (events.py's has_shape). */
export function hasShape(name, value) {
  return name === "key_id" ? isHex(value, 32) : SHAPES[name][0](value);
}

/** SPEC 5.1's constraints in its table's order; the first that fails is thrown. */
function checkShape(e) {
  const seq = e.seq;
  const failed = Object.entries(SHAPES).find(([name, [holds]]) => !holds(e[name]));
  if (failed) throw new SchemaError(`seq ${JSON.stringify(typeof seq === "bigint" ? String(seq) : seq) ?? "?"}: ${failed[1][1]}`);
}

/** A signed event read (5.3, 5.1, 1.1): {signed, hash (hex, recomputed)}; throws. */
async function readSigned(raw) {
  if (!hasExactly(raw, ["event", "hash", "key_id", "signature"])) {
    throw new SchemaError("a signed event has exactly event, hash, key_id, signature");
  }
  if (!isHex(raw.hash, 64) || !isHex(raw.signature, 128)) {
    throw new SchemaError("hash or signature is not lowercase hex of the right length");
  }
  if (!isHex(raw.key_id, 32)) throw new SchemaError("key_id is not 32 lowercase hex digits");
  if (!hasExactly(raw.event, FIELDS)) {
    throw new SchemaError(`an event has exactly the fields ${FIELDS.join(", ")}`);
  }
  checkShape(raw.event);
  return eventHash(raw.event);
}

/** An event's hash (5.2) as hex, whatever its fields; EncodingError: no canonical form. */
export function eventHash(event) {
  return bytesToHex(sha256(concatBytes(EVENT, utf8(canonical(event)))));
}

/** Checks events one by one; ``intact`` while (1)-(3) hold for all of them. */
export class ChainChecker {
  constructor(table, keySet, opening) {
    Object.assign(this, { table, keySet, opening });
    this.next = { seq: 0, prev: GENESIS, time: 0 };
    this.version = null;
    this.findings = [];
    this.intact = true;
    this.unverified = [];
  }

  find(code, round, seq, reason) {
    this.findings.push(this.finding(code, round, seq, reason));
  }

  finding(code, round, seq, reason) {
    if (/^(schema|canonical|chain)\./.test(code)) this.intact = false;
    return { code, table: this.table, round: typeof round === "string" ? round : null, seq: isInt(seq) ? seq : null, reason };
  }

  /** (1)-(5) for each raw signed event: the ones read, as {signed, hash}. */
  async check(raws) {
    const read = [];
    for (const raw of raws) {
      const one = await this.read(raw);
      if (one) read.push(one);
    }
    await this.verifySignatures();
    return read;
  }

  async read(raw) {
    let hash;
    try {
      if (hasDuplicates(raw)) throw new EncodingError("a member name appears twice", { duplicate: true });
      hash = await readSigned(raw); // (1) schema, (2) canonical form
    } catch (e) {
      if (!(e instanceof SchemaError || e instanceof EncodingError || e instanceof TypeError)) throw e;
      const event = isObject(raw) && isObject(raw.event) ? raw.event : {};
      const code = e instanceof EncodingError ? e.code : "schema.event";
      this.find(code, event.round, event.seq, code === "canonical.duplicate_key" ? "a member name appears twice" : e.message);
      return null;
    }
    const event = raw.event;
    if (this.opening) this.openAt(event);
    this.links(event);
    if (hash !== raw.hash) this.find("sig.hash_mismatch", event.round, event.seq, "stated hash is not its hash");
    else this.unverified.push({ place: this.findings.length, signed: raw, hash });
    if (event.time < this.next.time) {
      this.find("time.went_back", event.round, event.seq, `time ${event.time} is before ${this.next.time}`);
    }
    this.next = { seq: event.seq + 1, prev: hash, time: event.time };
    return { signed: raw, hash };
  }

  openAt(event) {
    // (3) a bundle of the second format starts at table_created or at a table_state
    this.opening = false;
    if (event.seq === 0 && event.type === "table_created") return;
    if (event.type !== "table_state") {
      this.find("chain.start", event.round, event.seq, `the bundle starts with ${event.type} at seq ${event.seq}`);
    }
    this.next = { seq: event.seq, prev: event.prev, time: event.time };
  }

  links(event) {
    // (3) table, seq, prev, genesis, version
    if (event.table !== this.table) this.find("chain.table", event.round, event.seq, `event of table ${JSON.stringify(event.table)}`);
    if (event.seq !== this.next.seq) this.find("chain.gap", event.round, event.seq, `expected seq ${this.next.seq}`);
    else if (event.prev !== this.next.prev) this.find("chain.fork", event.round, event.seq, "prev is not the previous hash");
    if ((event.seq === 0) !== (event.type === "table_created")) {
      this.find("chain.genesis", event.round, event.seq, "table_created is seq 0 only");
    }
    if (this.version === null) this.version = event.version;
    else if (event.version !== this.version) {
      this.find("chain.version", event.round, event.seq, `version ${event.version} in a chain of version ${this.version}`);
    }
  }

  async verifySignatures() {
    // (4) key ids and signatures; each finding goes at its event's place
    const late = [];
    // hot: browser.py export row: WebCrypto verifies on its own threads, all at once
    const problems = await Promise.all(this.unverified.map((item) => this.signature(item.signed, item.hash)));
    this.unverified.forEach((item, i) => problems[i] && late.push([item.place, problems[i]]));
    if (late.length && late.length === this.unverified.length && late.every(([, p]) => p.code === "sig.unknown_key")) {
      const signers = [...new Set(this.unverified.map((u) => u.signed.key_id))].join(", ");
      const trusted = [...this.keySet.byId.keys()].sort().join(", ") || "none";
      const reason = `the key given signed nothing here: is it the operator's key? It was signed by key id ${signers}; trusted: ${trusted}`;
      late.splice(0, late.length, [late[0][0], this.finding("sig.wrong_key", null, null, reason)]);
    }
    for (const [place, problem] of late.reverse()) this.findings.splice(place, 0, problem);
  }

  async signature(signed, hash) {
    const event = signed.event;
    const key = this.keySet.byId.get(signed.key_id);
    if (!key) return this.finding("sig.unknown_key", event.round, event.seq, `key id ${signed.key_id} is not a trusted key`);
    const message = concatBytes(EVENT_SIGNATURE, hexToBytes(hash));
    if (!(await ed25519Verify(key.cryptoKey, hexToBytes(signed.signature), message))) {
      return this.finding("sig.bad_signature", event.round, event.seq, `signature does not verify under key ${signed.key_id}`);
    }
    return null;
  }
}
