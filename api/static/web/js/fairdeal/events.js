// SPEC 5.2-5.6: the event hash, the signed event, its signature, the chain's links.

import { bytesToHex, concatBytes, hexToBytes, isHex, utf8 } from "./bytes.js";
import { canonical } from "./canonical.js";
import { ed25519Verify, sha256 } from "./crypto.js";
import { FairdealError } from "./errors.js";
import { EVENT, EVENT_SIGNATURE } from "./tags.js";

export const GENESIS = "0".repeat(64);

/** SPEC 5.2: hex of SHA-256(EVENT || canonical(event)). EncodingError outside the domain. */
export async function eventHash(event) {
  return bytesToHex(await sha256(concatBytes(EVENT, utf8(canonical(event)))));
}

/**
 * SPEC 5.5: the stated hash is the event's, its key id names a pinned key, and the
 * signature verifies under it. Resolves to nothing; rejects with FairdealError
 * (code sig.hash_mismatch, sig.unknown_key or sig.bad_signature).
 */
export async function checkSignedEvent(signed, keySet) {
  const hash = await eventHash(signed.event);
  if (hash !== signed.hash) {
    throw new FairdealError("sig.hash_mismatch", "the stated hash is not the event's hash");
  }
  const key = keySet.byId.get(signed.key_id);
  if (!key) throw new FairdealError("sig.unknown_key", `key id ${signed.key_id} is not pinned`);
  const signature = isHex(signed.signature, 128) ? hexToBytes(signed.signature) : new Uint8Array();
  const message = concatBytes(EVENT_SIGNATURE, hexToBytes(hash));
  if (!(await ed25519Verify(key.cryptoKey, signature, message))) {
    throw new FairdealError("sig.bad_signature", "the signature does not verify");
  }
}

/**
 * SPEC 5.6 (checks 2 and 3): ``signed`` follows ``previous`` (a signed event, or null for
 * the genesis head: seq 0, prev GENESIS). Throws FairdealError chain.gap or chain.fork.
 */
export function checkLink(previous, signed) {
  const seq = previous === null ? 0 : previous.event.seq + 1;
  const prev = previous === null ? GENESIS : previous.hash;
  const event = signed.event;
  if (event.seq !== seq) {
    throw new FairdealError("chain.gap", `seq ${event.seq} where ${seq} was expected`);
  }
  if (event.prev !== prev) {
    throw new FairdealError("chain.fork", `prev is not the hash of seq ${seq - 1}`);
  }
}
