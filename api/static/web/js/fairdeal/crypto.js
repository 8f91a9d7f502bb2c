// SHA-256 and HMAC-SHA256 synchronously, by the vendored @noble/hashes (the rules replay
// needs them inside synchronous game steps; WebCrypto's are async); Ed25519 by WebCrypto,
// the same in browsers and Node 20 (SPEC 1).

import { hmac as nobleHmac } from "../vendor/noble-hashes/hmac.js";
import { sha256 as nobleSha256 } from "../vendor/noble-hashes/sha2.js";
import { concatBytes } from "./bytes.js";

const subtle = globalThis.crypto.subtle;
const ED25519 = { name: "Ed25519" };

export function sha256(bytes) {
  return nobleSha256(bytes);
}

export function hmac(key, message) {
  return nobleHmac(nobleSha256, key, message);
}

/** Import a raw 32-byte Ed25519 public key; null when WebCrypto refuses it. */
export async function importRawEd25519(raw) {
  try {
    return await subtle.importKey("raw", raw, ED25519, true, ["verify"]);
  } catch {
    return null;
  }
}

/** Import a DER SubjectPublicKeyInfo Ed25519 key (TypeError when it is not one). */
export async function importSpkiEd25519(der) {
  try {
    return await subtle.importKey("spki", der, ED25519, true, ["verify"]);
  } catch (e) {
    throw new TypeError(`not an Ed25519 public key: ${e.message}`);
  }
}

export async function rawOf(cryptoKey) {
  return new Uint8Array(await subtle.exportKey("raw", cryptoKey));
}

/** True when ``signature`` (64 bytes) is ``cryptoKey``'s over ``message``. */
export async function ed25519Verify(cryptoKey, signature, message) {
  if (!cryptoKey || signature.length !== 64) return false;
  try {
    return await subtle.verify(ED25519, cryptoKey, signature, message);
  } catch {
    return false;
  }
}

export function sha256Of(...parts) {
  return sha256(concatBytes(...parts));
}
