// SPEC 7 (18), 10.5: witnesses. With witnesses given, a checkpoint counts only with the
// cosignatures of a quorum of them (C2SP tlog-cosignature v1, Ed25519), as
// verifier/witnesses.py reads them. Each witness's lines are checked apart, so that one
// bad line names its witness and the others still count. The time at which the quorum was
// reached bounds from above when every leaf of the checkpoint was logged: the
// witness-bounded time.

import { bytesToHex, equalBytes, utf8 } from "./bytes.js";
import { ed25519Verify } from "./crypto.js";
import { FairdealError } from "./errors.js";
import { MAX_KEYS, namedKey } from "./keys.js";
import { readNote } from "./note.js";

const COSIGNATURE_TYPE = 0x04;
const MAX_TIME = 2n ** 63n - 1n;
const BLOB_SIZE = 4 + 8 + 64; // key ID, u64be(time), signature

/** A witness's verifier key string "<name>+<key id>+<base64(0x04 || key)>": {name, keyId,
 * raw, cryptoKey}; rejects with input.wrong_format for anything else (a note key among them). */
export async function importWitnessKey(text) {
  try {
    return await namedKey(String(text).trim(), COSIGNATURE_TYPE);
  } catch (e) {
    if (!(e instanceof FairdealError)) throw e;
    throw new FairdealError("input.wrong_format", `bad witness key: ${e.message}`);
  }
}

/**
 * The witnesses a checkpoint needs (``fairdeal-verify --witness``, ``--witness-quorum``):
 * {witnesses, quorum}, the quorum by default all of them; null when none is given. Rejects
 * with input.wrong_format for a bad key or two of one name, RangeError for a quorum out of
 * 1..their number or one without witnesses (the command line's usage error).
 */
export async function importWitnesses(keys = [], quorum = null) {
  const list = [...(keys ?? [])];
  if (!list.length) {
    if (quorum !== null && quorum !== undefined) throw new RangeError("a witness quorum needs witnesses");
    return null;
  }
  if (list.length > MAX_KEYS) throw new FairdealError("input.too_large", `more than ${MAX_KEYS} keys`);
  const witnesses = await Promise.all(list.map(importWitnessKey));
  const names = witnesses.map((w) => w.name);
  const twice = [...new Set(names.filter((n, i) => names.indexOf(n) !== i))].sort();
  if (twice.length) {
    throw new FairdealError("input.wrong_format", `one key per witness name: ${twice.join(", ")} given twice`);
  }
  const needed = quorum ?? witnesses.length;
  if (!Number.isSafeInteger(needed) || needed < 1 || needed > witnesses.length) {
    throw new RangeError(`a witness quorum takes 1 to ${witnesses.length}, the witnesses given`);
  }
  return { witnesses, quorum: needed, seen: new Map() };
}

/**
 * (18) What the checkpoint ``note``'s cosignatures by the given witnesses show:
 * {given, quorum, valid: [{name, time (BigInt seconds)}] (each witness's earliest valid
 * one, earliest first), bad: [reason]}; null when no witness is given.
 */
export async function witnessing(note, trust) {
  if (!trust) return null;
  if (!trust.seen.has(note)) trust.seen.set(note, read(note, trust));
  return trust.seen.get(note);
}

async function read(note, trust) {
  const given = trust.witnesses.map((w) => w.name);
  let body, signatures;
  try {
    ({ body, signatures } = readNote(note));
  } catch {
    return { given, quorum: trust.quorum, valid: [], bad: [] }; // step 16 reports it
  }
  const valid = [];
  const bad = [];
  for (const witness of trust.witnesses) {
    try {
      const time = await earliest(witness, body, signatures);
      if (time !== null) valid.push({ name: witness.name, time });
    } catch (e) {
      if (!(e instanceof FairdealError)) throw e;
      bad.push(`${e.message} (key ${witness.name}+${bytesToHex(witness.keyId)})`);
    }
  }
  valid.sort((a, b) => (a.time < b.time ? -1 : a.time > b.time ? 1 : byCodePoint(a.name, b.name)));
  return { given, quorum: trust.quorum, valid, bad };
}

/** ``witness``'s earliest cosignature among ``signatures``, null if none names it; any
 * line naming it that is malformed or does not verify rejects with witness.signature. */
async function earliest(witness, body, signatures) {
  let found = null;
  for (const line of signatures) {
    if (line.name !== witness.name || !equalBytes(line.keyId, witness.keyId)) continue;
    const time = await verifyCosignature(witness, body, line.signature);
    if (found === null || time < found) found = time;
  }
  return found;
}

/** The time (BigInt seconds) of ``witness``'s cosignature ``rest`` (time and signature,
 * after the key ID) over the checkpoint ``body``. */
async function verifyCosignature(witness, body, rest) {
  const bad = (why) => new FairdealError("witness.signature", `the cosignature by ${witness.name} ${why}`);
  if (rest.length !== BLOB_SIZE - 4) throw bad("is malformed");
  const time = new DataView(rest.buffer, rest.byteOffset, 8).getBigUint64(0);
  if (time > MAX_TIME) throw bad(`has time ${time}`);
  const message = utf8(`cosignature/v1\ntime ${time}\n${body}`);
  if (!(await ed25519Verify(witness.cryptoKey, rest.slice(8), message))) throw bad("does not verify");
  return time;
}

// How far a witness's clock may run behind the operator's (verifier/witnesses.py).
export const WITNESS_CLOCK_SLACK_MS = 60000n;

/** The witness-bounded time (BigInt POSIX seconds): the quorum-th earliest valid
 * cosignature's; null without a quorum. */
export function witnessBound(w) {
  return w.valid.length >= w.quorum ? w.valid[w.quorum - 1].time : null;
}

/** The witnesses whose cosignatures reached the quorum. */
export function quorumNames(w) {
  return w.valid.slice(0, w.quorum).map((c) => c.name);
}

/**
 * (18) The findings ({code, reason}) of ``w``; ``headTime`` (milliseconds), the time of
 * the bundle's head when its checkpoint is proved to include it, else null.
 */
export function witnessFindings(w, headTime = null) {
  const found = w.bad.map((reason) => ({ code: "witness.signature", reason }));
  const bound = witnessBound(w);
  if (bound === null) {
    const names = w.valid.map((c) => c.name).join(", ") || "none";
    const reason =
      `${w.valid.length} valid cosignature(s) of the ${w.quorum} required, by ${names} ` +
      `(witnesses given: ${w.given.join(", ")}): the checkpoint is not witnessed`;
    found.push({ code: "witness.quorum", reason });
  } else if (headTime !== null && bound * 1000n + 999n + WITNESS_CLOCK_SLACK_MS < BigInt(headTime)) {
    const reason =
      `the quorum of ${w.quorum} cosigned at ${bound} s, more than ${WITNESS_CLOCK_SLACK_MS / 1000n} s ` +
      `before the head's time ${headTime} ms: the head is stamped later than it was logged ` +
      "(a witness's clock behind the operator's by less than that is not a finding)";
    found.push({ code: "witness.time", reason });
  }
  return found;
}

function byCodePoint(a, b) {
  const [x, y] = [Array.from(a, (c) => c.codePointAt(0)), Array.from(b, (c) => c.codePointAt(0))];
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] - y[i];
  return x.length - y.length;
}
