// SPEC 3: seed commitment, shuffle key, byte stream, uniform integers, the shuffle,
// Toto21's dealer choice, card salts and commitments, client-seed commitments.
//
// All synchronous (./crypto.js's SHA-256 and HMAC): the rules replay (engine/) derives
// decks, salts and commitments inside synchronous game steps. Keys are raw bytes.

import { bytesToHex, concatBytes, equalBytes, hexToBytes, u64be, utf8 } from "./bytes.js";
import { canonical } from "./canonical.js";
import { hmac, sha256 } from "./crypto.js";
import { canonicalDeck as deckOf } from "./engine/cards.js";
import { FairdealError } from "./errors.js";
import {
  CARD_COMMITMENT,
  CARD_SALT,
  CLIENT_SEED_COMMITMENT,
  SEED_COMMITMENT,
  SHUFFLE_KEY,
  STREAM,
} from "./tags.js";

/** 3.1: hex of SHA-256(SEED_COMMITMENT || the 32 raw bytes of the server seed). */
export function seedCommitment(serverSeedHex) {
  return bytesToHex(sha256(concatBytes(SEED_COMMITMENT, hexToBytes(serverSeedHex))));
}

/** 3.3: the seal input's canonical text. */
export function sealInput(roundId, commitmentHex, clientSeeds, rules) {
  return canonical({
    client_seeds: clientSeeds,
    commitment: commitmentHex,
    round: roundId,
    rules: { decks: rules.decks, game: rules.game },
  });
}

/** 3.3: HMAC(server seed, SHUFFLE_KEY || canonical(seal input)), 32 bytes. */
export function shuffleKey(serverSeedHex, roundId, clientSeeds, rules, commitmentHex) {
  const commitment = commitmentHex ?? seedCommitment(serverSeedHex);
  const message = concatBytes(SHUFFLE_KEY, utf8(sealInput(roundId, commitment, clientSeeds, rules)));
  return hmac(hexToBytes(serverSeedHex), message);
}

/** 3.4: the byte stream of ``purpose`` under ``key``, read a byte at a time. */
export class ByteStream {
  constructor(key, purpose) {
    this.key = key;
    this.purpose = utf8(purpose);
    this.block = new Uint8Array();
    this.index = 0;
    this.at = 0;
  }

  read(count) {
    const out = new Uint8Array(count);
    for (let i = 0; i < count; i++) {
      if (this.at === this.block.length) {
        const message = concatBytes(STREAM, this.purpose, Uint8Array.of(0), u64be(this.index++));
        this.block = hmac(this.key, message);
        this.at = 0;
      }
      out[i] = this.block[this.at++];
    }
    return out;
  }
}

/** 3.5: a uniform integer in [0, n), 1 <= n <= 2^32, by masked rejection sampling. */
export function uniform(stream, n) {
  if (!Number.isSafeInteger(n) || n < 1 || n > 2 ** 32) throw new RangeError("1 <= n <= 2^32");
  const bits = (n - 1).toString(2).replace(/^0$/, "").length;
  const width = Math.ceil(bits / 8);
  const mask = 2 ** bits - 1;
  if (n === 1) return 0;
  for (;;) {
    let v = 0;
    for (const b of stream.read(width)) v = v * 256 + b;
    v = v % (mask + 1); // v AND mask, exact for bits <= 32
    if (v < n) return v;
  }
}

/** SPEC 4: the canonical order of the deck ``rules`` ({game, decks}) names. */
export function canonicalDeck(rules) {
  try {
    return [...deckOf(rules.game, rules.decks)];
  } catch {
    throw new FairdealError("deck.rules", `no deck for ${JSON.stringify(rules)}`);
  }
}

/** 3.6: Fisher-Yates from the last index down, driven by the "deck" stream. */
export function shuffle(key, rules) {
  return shuffled(key, "deck", canonicalDeck(rules));
}

/** 3.6's algorithm on a copy of ``items``, driven by the stream of ``purpose`` (version 3's
 * service step shuffles the indices [0, n) with it, 15.12.3). */
export function shuffled(key, purpose, items) {
  const list = [...items];
  const stream = new ByteStream(key, purpose);
  for (let i = list.length - 1; i >= 1; i--) {
    const j = uniform(stream, i + 1);
    [list[i], list[j]] = [list[j], list[i]];
  }
  return list;
}

/** 3.7: one uniform choice in [0, n) from the stream of its own ``purpose``. */
export function choose(key, purpose, n) {
  return uniform(new ByteStream(key, purpose), n);
}

/** 3.7: Toto21's dealer choice, 0 or 1. */
export function dealerChoice(key) {
  return choose(key, "dealer", 2);
}

/** 3.8: salt(p) = HMAC(shuffle key, CARD_SALT || u64be(p)). */
export function cardSalt(key, position) {
  return hmac(key, concatBytes(CARD_SALT, u64be(position)));
}

/** 3.8: hex of SHA-256(CARD_COMMITMENT || salt || card code as ASCII). */
export function cardCommitment(salt, card) {
  return bytesToHex(sha256(concatBytes(CARD_COMMITMENT, salt, utf8(card))));
}

/**
 * 3.8: a hidden card's opening (its code and salt, as its owner receives them) is the
 * signed commitment. Resolves to nothing; rejects with FairdealError card.commitment.
 */
export async function checkCardOpening(commitmentHex, card, saltHex) {
  const salt = hexToBytes(saltHex);
  const expected = hexToBytes(cardCommitment(salt, card));
  if (salt.length !== 32 || !equalBytes(expected, hexToBytes(commitmentHex))) {
    throw new FairdealError("card.commitment", `${card} with this salt is not the committed card`);
  }
}

/** 3.9: hex of SHA-256(CLIENT_SEED_COMMITMENT || canonical({round, seat, seed})). */
export function clientSeedCommitment(round, seat, seed) {
  const opening = canonical({ round, seat, seed });
  return bytesToHex(sha256(concatBytes(CLIENT_SEED_COMMITMENT, utf8(opening))));
}

/** A round's deal: its shuffle key and its deck; the seal binds ``commitmentHex`` (the
 * logged commitment) when given, else the seed's own. */
export function dealOf(serverSeedHex, roundId, clientSeeds, rules, commitmentHex) {
  const key = shuffleKey(serverSeedHex, roundId, clientSeeds, rules, commitmentHex);
  return { key, deck: shuffle(key, rules) };
}
