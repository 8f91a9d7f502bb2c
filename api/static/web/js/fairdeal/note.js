// SPEC 10.3: C2SP signed notes and checkpoint bodies, strict; signatures by keys not
// pinned (witness cosignatures among them) are ignored.

import { base64ToBytes, equalBytes, utf8 } from "./bytes.js";
import { ed25519Verify } from "./crypto.js";
import { FairdealError } from "./errors.js";
import { isKeyName, noteKeyId } from "./keys.js";

const MAX_NOTE_BYTES = 1 << 20;
const MAX_SIGNATURES = 100;
const DASH = "\u2014 ";

const malformed = (message) => new FairdealError("checkpoint.malformed", message);

function checkText(text) {
  if (typeof text !== "string" || text.length > MAX_NOTE_BYTES) throw malformed("note too large");
  if (!text.isWellFormed()) throw malformed("note is not valid UTF-8");
  if (utf8(text).length > MAX_NOTE_BYTES) throw malformed("note too large");
  if (/[\x00-\x09\x0b-\x1f]/.test(text)) {
    throw malformed("note contains a control character other than newline");
  }
}

/** The body and its signature lines ({name, keyId, signature}), none verified. */
export function readNote(text) {
  checkText(text);
  const split = text.lastIndexOf("\n\n");
  if (split < 0) throw malformed("no blank line before the signatures");
  const body = text.slice(0, split + 1);
  const block = text.slice(split + 2);
  if (!block) throw malformed("no signatures");
  if (!block.endsWith("\n")) throw malformed("a note ends with a newline");
  const lines = block.slice(0, -1).split("\n");
  if (lines.length > MAX_SIGNATURES) throw malformed(`more than ${MAX_SIGNATURES} signatures`);
  return { body, signatures: lines.map(signatureLine) };
}

function signatureLine(line) {
  if (!line.startsWith(DASH)) throw malformed("a signature line starts with an em dash and a space");
  const fields = line.slice(DASH.length).split(" ");
  if (fields.length !== 2) throw malformed("a signature line is a name and a base64 signature");
  const [name, material] = fields;
  if (!isKeyName(name)) throw malformed(`bad key name ${JSON.stringify(name)}`);
  let blob;
  try {
    blob = base64ToBytes(material);
  } catch (e) {
    throw malformed(e.message);
  }
  if (blob.length <= 4) throw malformed("a signature is a key ID and signature bytes");
  return { name, keyId: blob.slice(0, 4), signature: blob.slice(4) };
}

/** A checkpoint body (10.3): {origin, size (BigInt), rootHash, extensions}. */
export function parseCheckpoint(body) {
  checkText(body);
  if (!body.endsWith("\n")) throw malformed("a checkpoint ends with a newline");
  const lines = body.slice(0, -1).split("\n");
  if (lines.length < 3) throw malformed("a checkpoint has origin, size and root lines");
  const [origin, size, root, ...extensions] = lines;
  if (!/^(?:0|[1-9][0-9]{0,19})$/.test(size) || BigInt(size) > 2n ** 64n - 1n) {
    throw malformed(`${JSON.stringify(size.slice(0, 24))} is not a tree size in canonical decimal`);
  }
  let rootHash;
  try {
    rootHash = base64ToBytes(root);
  } catch (e) {
    throw malformed(e.message);
  }
  return { origin, size: BigInt(size), rootHash, extensions };
}

/**
 * SPEC 7 (16): the checkpoint of ``note``, signed under ``origin`` by a pinned key of
 * ``keySet`` (a PEM key under any log name, a verifier key string under its own name).
 * Rejects with checkpoint.malformed, checkpoint.signature or checkpoint.origin.
 */
export async function openCheckpoint(note, keySet, origin) {
  // In verifier/log.py's order: the keys under that name, then the note, then its signatures.
  const trusted = [];
  const seen = new Set();
  for (const key of keySet.keys) {
    if ((key.noteName !== null && key.noteName !== origin) || seen.has(key.id)) continue;
    if (!isKeyName(origin)) throw malformed(`bad key name ${JSON.stringify(origin)}`);
    seen.add(key.id);
    trusted.push({ key, keyId: await noteKeyId(origin, key.raw) });
  }
  if (!trusted.length) {
    throw new FairdealError("checkpoint.signature", `no pinned key is named ${JSON.stringify(origin)}`);
  }
  const { body, signatures } = readNote(note);
  const message = utf8(body);
  let verified = false;
  for (const line of signatures) {
    const match = trusted.find((t) => line.name === origin && equalBytes(t.keyId, line.keyId));
    if (!match) continue;
    if (!(await ed25519Verify(match.key.cryptoKey, line.signature, message))) {
      throw new FairdealError("checkpoint.signature", `the signature by ${line.name} does not verify`);
    }
    verified = true;
  }
  if (!verified) {
    const names = [...new Set(signatures.map((s) => s.name))].join(", ") || "nobody";
    throw new FairdealError("checkpoint.signature", `no trusted signature: signed by ${names}`);
  }
  const checkpoint = parseCheckpoint(body);
  if (checkpoint.origin !== origin) {
    throw new FairdealError(
      "checkpoint.origin",
      `checkpoint of ${JSON.stringify(checkpoint.origin)}, not ${JSON.stringify(origin)}`,
    );
  }
  return checkpoint;
}
