// Pinned operator keys (SPEC 5.4, 7): a PEM public key (SPKI) or a C2SP verifier key
// string "<name>+<key id>+<base64(0x01 || key)>" (10.3), as ``fairdeal-verify --key`` takes.
// Keys inside a bundle are never trusted: a key set is made only from what the user gives.

import { base64ToBytes, bytesToHex, concatBytes, utf8 } from "./bytes.js";
import { importRawEd25519, importSpkiEd25519, rawOf, sha256 } from "./crypto.js";
import { PY_SPACE } from "./engine/pytypes.js";
import { FairdealError } from "./errors.js";
import { KEY_ID } from "./tags.js";

/** SPEC 5.4: hex(SHA-256(KEY_ID || raw public key)[0:16]), 32 hex digits. */
export async function keyId(raw) {
  return bytesToHex((await sha256(concatBytes(KEY_ID, raw))).slice(0, 16));
}

/** SPEC 10.3: the note key ID, SHA-256(name || 0x0A || type || key)[0:4]. */
export async function noteKeyId(name, raw, type = 0x01) {
  return (await sha256(concatBytes(utf8(name), Uint8Array.of(0x0a, type), raw))).slice(0, 4);
}

const NOT_IN_A_NAME = new RegExp(`[+\\x00-\\x1f${PY_SPACE}]`, "u");

/** A key name of 10.3: non-empty, no "+", no whitespace (as Python's str.isspace), no ASCII
 * control character but DEL. */
export function isKeyName(name) {
  return typeof name === "string" && name.length > 0 && !NOT_IN_A_NAME.test(name);
}

/**
 * The key set of one operator key given as text (PEM SPKI or C2SP verifier key string).
 * Rejects with FairdealError code "input.wrong_format" when it is neither.
 */
export async function importOperatorKey(text) {
  const trimmed = String(text).trim();
  if (trimmed.includes("BEGIN")) return keySetOf([await pemKey(trimmed)]);
  if (trimmed.split("+").length >= 3) return keySetOf([await verifierKey(trimmed)]);
  throw new FairdealError("input.wrong_format", "not a PEM public key nor a verifier key string");
}

/** The most keys, or witnesses, one verification takes (SPEC 7 step 0). */
export const MAX_KEYS = 64;

/** One key set of several (each a key set or a key of ``importOperatorKey``'s sets); rejects
 * with input.too_large for more than MAX_KEYS keys. */
export function keySetOf(keys) {
  const list = keys.flatMap((k) => (k.keys ? k.keys : [k]));
  if (list.length > MAX_KEYS) throw new FairdealError("input.too_large", `more than ${MAX_KEYS} keys`);
  return { keys: list, byId: new Map(list.map((k) => [k.id, k])) };
}

async function pemKey(text) {
  const m = /^-----BEGIN PUBLIC KEY-----\r?\n([A-Za-z0-9+/=\r\n]+)-----END PUBLIC KEY-----$/.exec(
    text,
  );
  if (!m) throw new FairdealError("input.wrong_format", "not a PEM public key (SPKI)");
  let der;
  try {
    der = base64ToBytes(m[1].replace(/\r?\n/g, ""));
  } catch {
    throw new FairdealError("input.wrong_format", "the PEM key's base64 is malformed");
  }
  let cryptoKey;
  try {
    cryptoKey = await importSpkiEd25519(der);
  } catch (e) {
    throw new FairdealError("input.wrong_format", e.message);
  }
  const raw = await rawOf(cryptoKey);
  return { raw, cryptoKey, id: await keyId(raw), noteName: null };
}

async function verifierKey(text) {
  const { name, raw, cryptoKey } = await namedKey(text);
  return { raw, cryptoKey, id: await keyId(raw), noteName: name };
}

/**
 * SPEC 10.3, 10.5: "<name>+<key id>+<base64(type || key)>" for the signature ``type``
 * (0x01 a note key, 0x04 a witness's): {name, keyId (4 bytes), raw, cryptoKey}. Rejects
 * with input.wrong_format for anything else, a key of another type among them.
 */
export async function namedKey(text, type = 0x01) {
  const bad = (why) => new FairdealError("input.wrong_format", `bad verifier key string: ${why}`);
  const first = text.indexOf("+");
  const second = first < 0 ? -1 : text.indexOf("+", first + 1);
  if (second < 0) throw bad("a verifier key is name+keyid+key");
  const [name, idHex, material] = [
    text.slice(0, first),
    text.slice(first + 1, second),
    text.slice(second + 1),
  ];
  if (!isKeyName(name)) throw bad(`bad key name ${JSON.stringify(name)}`);
  let typed;
  try {
    typed = base64ToBytes(material);
  } catch (e) {
    throw bad(e.message);
  }
  if (typed.length !== 33 || typed[0] !== type) {
    throw bad(`not an Ed25519 key of signature type 0x${type.toString(16).padStart(2, "0")}`);
  }
  const raw = typed.slice(1);
  if (!/^[0-9a-f]{8}$/.test(idHex)) throw bad("a key ID is 8 lowercase hex digits");
  const id = await noteKeyId(name, raw, type);
  if (bytesToHex(id) !== idHex) throw bad("the key ID does not match the key");
  const cryptoKey = await importRawEd25519(raw);
  if (!cryptoKey) throw bad("not an Ed25519 public key");
  return { name, keyId: id, raw, cryptoKey };
}
