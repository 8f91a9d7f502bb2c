// SPEC 10.1-10.2: RFC 9162 hashing, inclusion and consistency proofs, verified.

import { concatBytes, equalBytes } from "./bytes.js";
import { sha256 } from "./crypto.js";
import { FairdealError } from "./errors.js";

export const EMPTY_ROOT = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

export const leafHash = (data) => sha256(concatBytes(Uint8Array.of(0), data));
export const nodeHash = (left, right) => sha256(concatBytes(Uint8Array.of(1), left, right));

const fail = (message) => new FairdealError("log.inclusion", message);

function checkHashes(proof) {
  if (!proof.every((h) => h instanceof Uint8Array && h.length === 32)) {
    throw fail("a proof hash is not 32 bytes");
  }
}

/** RFC 9162 2.1.3.2: the root an inclusion proof leads to from leaf ``index`` of ``size``. */
export async function rootFromInclusion(leaf, index, size, proof) {
  let [fn, sn] = [BigInt(index), BigInt(size) - 1n];
  if (!(0n <= fn && fn <= sn)) throw fail(`index ${index} is outside a tree of ${size} leaves`);
  checkHashes(proof);
  let r = leaf;
  for (const p of proof) {
    if (sn === 0n) throw fail("the proof is too long");
    if (fn & 1n || fn === sn) {
      r = await nodeHash(p, r);
      while (!(fn & 1n) && fn !== 0n) [fn, sn] = [fn >> 1n, sn >> 1n];
    } else {
      r = await nodeHash(r, p);
    }
    [fn, sn] = [fn >> 1n, sn >> 1n];
  }
  if (sn !== 0n) throw fail("the proof is too short");
  return r;
}

/** Resolves when the proof leads from ``leaf`` (a leaf hash) to ``root``; else rejects. */
export async function verifyInclusion(leaf, index, size, proof, root) {
  checkHashes([leaf, root]);
  if (!equalBytes(await rootFromInclusion(leaf, index, size, proof), root)) {
    throw fail("the proof leads to another root");
  }
}

/** RFC 9162 2.1.4.2 with SPEC 10.2's sizes (0 < m <= n); rejects when the proof fails. */
export async function verifyConsistency(m, n, proof, oldRoot, newRoot) {
  const bad = (message) => new FairdealError("checkpoint.inconsistent", message);
  [m, n] = [BigInt(m), BigInt(n)];
  if (!(0n < m && m <= n)) throw bad(`no consistency proof from ${m} to ${n}`);
  if (proof.some((h) => !(h instanceof Uint8Array) || h.length !== 32)) {
    throw bad("a proof hash is not 32 bytes");
  }
  if (m === n) {
    if (proof.length || !equalBytes(oldRoot, newRoot)) throw bad("equal sizes, other roots");
    return;
  }
  const path = (m & (m - 1n)) === 0n ? [oldRoot, ...proof] : [...proof];
  if (!path.length) throw bad("the proof is empty");
  let [fn, sn] = [m - 1n, n - 1n];
  while (fn & 1n) [fn, sn] = [fn >> 1n, sn >> 1n];
  let [fr, sr] = [path[0], path[0]];
  for (const c of path.slice(1)) {
    if (sn === 0n) throw bad("the proof is too long");
    if (fn & 1n || fn === sn) {
      fr = await nodeHash(c, fr);
      sr = await nodeHash(c, sr);
      while (!(fn & 1n) && fn !== 0n) [fn, sn] = [fn >> 1n, sn >> 1n];
    } else {
      sr = await nodeHash(sr, c);
    }
    [fn, sn] = [fn >> 1n, sn >> 1n];
  }
  if (sn !== 0n || !equalBytes(fr, oldRoot) || !equalBytes(sr, newRoot)) {
    throw bad("the proof does not lead to both roots");
  }
}

/**
 * The RFC 9162 root of the leaf hashes appended so far, from O(log n) full subtrees, as
 * verifier/log.py's RootBuilder keeps it: an export's root, recomputed as its lines stream by.
 */
export class RootBuilder {
  constructor() {
    this.stack = []; // [leaf count, hash] of each full subtree, largest first
    this.size = 0;
  }

  async append(leaf) {
    let [width, node] = [1, leaf];
    while (this.stack.length && this.stack.at(-1)[0] === width) {
      node = await nodeHash(this.stack.pop()[1], node);
      width *= 2;
    }
    this.stack.push([width, node]);
    this.size += 1;
  }

  async root() {
    if (!this.stack.length) return sha256(new Uint8Array());
    let node = this.stack.at(-1)[1];
    for (let i = this.stack.length - 2; i >= 0; i--) node = await nodeHash(this.stack[i][1], node);
    return node;
  }
}

/** MTH of leaf hashes (10.1), the plain recursion: for tests. */
export async function rootOf(leafHashes) {
  if (leafHashes.length === 0) return sha256(new Uint8Array());
  if (leafHashes.length === 1) return leafHashes[0];
  let k = 1;
  while (k * 2 < leafHashes.length) k *= 2;
  return nodeHash(await rootOf(leafHashes.slice(0, k)), await rootOf(leafHashes.slice(k)));
}
