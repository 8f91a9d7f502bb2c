// SPEC 7 (15)-(17) across the lines of an export, in input order, as verifier/export.py's
// Across does them without a pinned checkpoint (this module takes none):
//
//   (15) every leaf in order, none missing: log.order, log.round_missing, and the root of
//        the leaves from leaf 0, recomputed as they stream by (RootBuilder), against each
//        checkpoint signed for that size: log.round_missing
//   (17) two checkpoints of one size with one root: checkpoint.fork; a table's bundle from
//        seq 0 holds the last head of its earlier one: export.fork; one from a table_state
//        starts where the earlier one ended: export.link, and in the state it ended in:
//        export.state, in part (stateProblem)
//
// checkpoint.rollback and checkpoint.inconsistent compare an export with the pinned
// --checkpoint and --previous-checkpoint only: between two lines' checkpoints Python compares
// no more than checkpoint.fork does, so without pins neither can be found.

import { equalBytes, hexToBytes } from "./bytes.js";
import { RootBuilder, leafHash } from "./merkle.js";

/** What a line gives the export when it is not a bundle that could be read. */
export const UNREAD = Object.freeze({
  table: null,
  round: null,
  across: { leafIndex: null, head: null, checkpoint: null, heads: [], start: null, end: null },
});

/**
 * The checks across bundles, fed each line's verifyBundle result (or UNREAD) in input
 * order. ``partial``: the input is not the whole log from leaf 0 (a filtered export, as
 * fairdeal-verify --partial, or one bundle alone), so leaves may be missing around it.
 */
export class Across {
  constructor({ partial = false } = {}) {
    this.partial = partial;
    this.findings = [];
    this.nextLeaf = partial ? null : 0; // the whole log starts at leaf 0
    this.tree = new RootBuilder(); // null once a leaf is missing or unknown
    this.roots = new Map(); // checkpoint size (BigInt) -> root, as signed
    this.lastHead = new Map(); // table -> "seq:hash" of its last head at rest so far
    this.ends = new Map(); // table -> where its last bundle ended, and in what state
  }

  find(code, result, reason) {
    this.findings.push({ code, table: result?.table ?? null, round: result?.round ?? null, seq: null, reason });
  }

  async add(result) {
    const { checkpoint, start, end, heads } = result.across;
    await this.leaf(result);
    if (checkpoint !== null) await this.signedRoot(checkpoint.size, checkpoint.rootHash, result);
    if (start === null) this.sameHistory(result);
    else this.joined(result, start);
    if (result.table !== null && heads.length) this.lastHead.set(result.table, heads.at(-1));
    if (result.table !== null && end !== null) this.ends.set(result.table, end);
  }

  async leaf(result) {
    // (15) every leaf, in order, none missing
    const { leafIndex: index, head } = result.across;
    if (index === null || head === null) {
      this.tree = null;
      return;
    }
    if (this.nextLeaf === null) {
      this.nextLeaf = index;
      if (index !== 0) this.tree = null;
    }
    if (index < this.nextLeaf) return this.find("log.order", result, `leaf ${index} after leaf ${this.nextLeaf - 1}`);
    if (index > this.nextLeaf) {
      if (!this.partial) {
        this.find("log.round_missing", result, `leaves ${this.nextLeaf}..${index - 1} are missing from the export`);
      }
      this.tree = null;
    }
    this.nextLeaf = index + 1;
    if (this.tree !== null) {
      await this.tree.append(await leafHash(hexToBytes(head)));
      await this.compareRoot(BigInt(this.tree.size), result);
    }
  }

  async signedRoot(size, root, result) {
    // (17) two signed checkpoints of one size must agree
    const known = this.roots.get(size);
    if (known !== undefined && !equalBytes(known, root)) {
      return this.find("checkpoint.fork", result, `two roots for size ${size}`);
    }
    this.roots.set(size, root);
    if (this.tree !== null && BigInt(this.tree.size) === size) await this.compareRoot(size, null);
  }

  async compareRoot(size, result) {
    // (15) an export from leaf 0 reproduces the root signed for its size
    const signed = this.roots.get(size);
    if (signed === undefined || this.tree === null) return;
    if (equalBytes(signed, await this.tree.root())) return;
    this.find("log.round_missing", result, `the export's leaves do not make the signed root of size ${size}`);
  }

  sameHistory(result) {
    // (17) a table's later bundle holds its earlier bundle's last head, at the same seq
    const heads = result.across.heads;
    if (result.table === null || !heads.length) return;
    const earlier = this.lastHead.get(result.table);
    if (earlier !== undefined && !heads.includes(earlier)) {
      const seq = earlier.split(":")[0];
      this.find("export.fork", result, `does not contain seq ${seq} of the table's earlier bundle`);
    }
  }

  joined(result, start) {
    // (17) a bundle that starts at a table_state starts where the table's previous bundle
    // ended, with the state that bundle ended in
    const end = this.ends.get(result.table ?? "");
    if (end === undefined) {
      if (!this.partial) {
        this.find("export.link", result, `the table's first bundle starts at seq ${start.seq}, not at seq 0`);
      }
      return; // a partial export: it proves its round from its state
    }
    if (start.seq !== end.seq + 1 || start.hash !== end.hash || start.time < end.time) {
      const reason =
        `starts at seq ${start.seq} after hash ${start.hash.slice(0, 16)}, time ${start.time}; the table's ` +
        `previous bundle ends at seq ${end.seq}, hash ${end.hash.slice(0, 16)}, time ${end.time}`;
      return this.find("export.link", result, reason);
    }
    const problem = end.state === null ? null : stateProblem(start.data, end.state);
    if (problem !== null) this.find("export.state", result, `its table_state at seq ${start.seq}: ${problem}`);
  }
}

/**
 * Why a table_state's ``data`` cannot be the snapshot (6.6) of the state its table's
 * previous bundle ended in, as far as that state is known without replaying the rules:
 * ``known`` holds the game the table plays and every account's balance at that bundle's
 * head (money.js). The game's own members (the score, the banker and his term, the round
 * counter), the options and, in version 2, the seat keys are the rules' replay's to know:
 * a table_state that lies only about those is export.state in fairdeal-verify alone.
 * Accounts at 0 are taken as absent, as the money check takes them.
 */
export function stateProblem(data, known) {
  if (data.game !== known.game) {
    return `game ${JSON.stringify(data.game)}, not the table's ${JSON.stringify(known.game)}`;
  }
  const stated = data.balances;
  if (stated === null || typeof stated !== "object" || Array.isArray(stated)) return "it states no balances";
  for (const account of new Set([...Object.keys(stated), ...Object.keys(known.balances)])) {
    const [a, b] = [stated[account] ?? 0, known.balances[account] ?? 0];
    if (a !== b) return `${account} is ${JSON.stringify(a)}, the previous bundle ends with ${b}`;
  }
  return null;
}

/** (seq, hash) of each event after which no round is open, as "seq:hash": every head a
 * leaf can hold (``events`` as the chain read them, ``hashes`` their hex hashes). */
export function restHeads(events, hashes) {
  const heads = [];
  let open = null;
  events.forEach((event, i) => {
    if (event.type === "round_opened") open = event.round;
    else if (event.type === "round_revealed" && event.round === open) open = null;
    if (open === null) heads.push(`${event.seq}:${hashes[i]}`);
  });
  return heads;
}
