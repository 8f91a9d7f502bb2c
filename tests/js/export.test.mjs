// An export's checks across its lines (export.js): the root as the leaves stream by, leaf
// order, checkpoint forks, links between a table's bundles, and the state they link in.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as fd from "../../api/static/web/js/fairdeal/index.js";
import { Across, restHeads, stateProblem } from "../../api/static/web/js/fairdeal/export.js";
import { RootBuilder, rootOf } from "../../api/static/web/js/fairdeal/merkle.js";

const read = (name) => readFileSync(new URL(`../vectors/${name}`, import.meta.url), "utf8");
const codes = (result) => [...new Set(result.findings.map((f) => f.code))].sort();
const leaf = (n) => fd.sha256(Uint8Array.of(n));

test("RootBuilder's root is the plain recursion's at every size from 0 to 70", async () => {
  const leaves = [];
  const builder = new RootBuilder();
  for (let n = 0; n <= 70; n++) {
    assert.deepEqual(await builder.root(), await rootOf(leaves), `size ${n}`);
    const next = await leaf(n);
    leaves.push(next);
    await builder.append(next);
  }
  assert.equal(builder.size, 71);
});

// -- Across on results made by hand: the leaves, their order and the roots ---------------

const head = (n) => n.toString(16).padStart(2, "0").repeat(32);
const line = (index, extra = {}) => ({
  table: "t",
  round: `t.${index}`,
  across: { leafIndex: index, head: head(index), checkpoint: null, heads: [], start: null, end: null, ...extra },
});

async function across(results, options) {
  const checker = new Across(options);
  for (const result of results) await checker.add(result);
  return checker.findings.map((f) => f.code);
}

async function signedRoot(count) {
  const builder = new RootBuilder();
  for (let i = 0; i < count; i++) await builder.append(await fd.leafHash(fd.hexToBytes(head(i))));
  return { size: BigInt(count), rootHash: await builder.root() };
}

test("leaves from 0 in order pass; one missing, one back or twice are findings", async () => {
  assert.deepEqual(await across([0, 1, 2].map((i) => line(i))), []);
  assert.deepEqual(await across([0, 2].map((i) => line(i))), ["log.round_missing"]);
  assert.deepEqual(await across([1, 2].map((i) => line(i))), ["log.round_missing"]);
  assert.deepEqual(await across([0, 2, 1].map((i) => line(i))), ["log.round_missing", "log.order"]);
  assert.deepEqual(await across([0, 1, 1].map((i) => line(i))), ["log.order"]);
});

test("a partial export may miss leaves around its lines, never go back", async () => {
  assert.deepEqual(await across([3, 7, 9].map((i) => line(i)), { partial: true }), []);
  assert.deepEqual(await across([3, 7, 5].map((i) => line(i)), { partial: true }), ["log.order"]);
});

test("the leaves from 0 are held to the root signed for their size", async () => {
  const good = await signedRoot(3);
  const lines = [0, 1, 2].map((i) => line(i, { checkpoint: good }));
  assert.deepEqual(await across(lines), []);
  const other = { size: 3n, rootHash: (await signedRoot(4)).rootHash };
  const forged = [0, 1, 2].map((i) => line(i, { checkpoint: other }));
  assert.deepEqual(await across(forged), ["log.round_missing", "log.round_missing"]);
  // past a missing leaf the root is not recomputed, and the gap is the finding
  assert.deepEqual(await across([0, 2].map((i) => line(i, { checkpoint: other }))), ["log.round_missing"]);
});

test("two checkpoints of one size with two roots are checkpoint.fork", async () => {
  const [a, b] = [await signedRoot(5), { size: 5n, rootHash: await leaf(9) }];
  const lines = [line(0, { checkpoint: a }), line(1, { checkpoint: b })];
  assert.deepEqual(await across(lines, { partial: true }), ["checkpoint.fork"]);
});

test("a line that cannot be read stops the root, not the order", async () => {
  const unread = { table: null, round: null, across: { ...line(0).across, leafIndex: null, head: null } };
  const good = await signedRoot(3);
  const lines = [line(0), unread, line(1), line(2, { checkpoint: good })];
  assert.deepEqual(await across(lines), []);
});

// -- links between a table's bundles -------------------------------------------------------

const end = (seq, state = { game: "kvitlach", balances: { "seat:0": 5 } }) => ({
  seq,
  hash: "ab".repeat(32),
  time: 100,
  state,
});
const start = (seq, data = { game: "kvitlach", balances: { "seat:0": 5 } }, hash = "ab".repeat(32), time = 100) => ({
  seq,
  hash,
  time,
  data,
});

test("a bundle from a table_state starts right after its table's previous bundle", async () => {
  const first = line(0, { end: end(9) });
  assert.deepEqual(await across([first, line(1, { start: start(10) })]), []);
  assert.deepEqual(await across([first, line(1, { start: start(11) })]), ["export.link"]);
  assert.deepEqual(await across([first, line(1, { start: start(10, undefined, "cd".repeat(32)) })]), ["export.link"]);
  assert.deepEqual(await across([first, line(1, { start: start(10, undefined, undefined, 99) })]), ["export.link"]);
});

test("a table's first bundle from a table_state is export.link in a whole export only", async () => {
  assert.deepEqual(await across([line(0, { start: start(10) })]), ["export.link"]);
  assert.deepEqual(await across([line(0, { start: start(10) })], { partial: true }), []);
});

test("a bundle from a table_state in a state its previous bundle did not end in", async () => {
  const moved = start(10, { game: "kvitlach", balances: { "seat:0": 4, "seat:1": 1 } });
  assert.deepEqual(await across([line(0, { end: end(9) }), line(1, { start: moved })]), ["export.state"]);
  // where the previous bundle's end state is not known (a finding in it), no export.state
  assert.deepEqual(await across([line(0, { end: end(9, null) }), line(1, { start: moved })]), []);
});

test("stateProblem: the table_state is exactly the state the rules end in, member by member", () => {
  const known = { game: "toto21", balances: { "seat:0": 10, "seat:1": 0 }, dealer: 1 };
  assert.equal(stateProblem({ dealer: 1, balances: { "seat:1": 0, "seat:0": 10 }, game: "toto21" }, known), null);
  assert.match(stateProblem({ ...known, balances: { "seat:0": 10 } }, known), /^balances is/);
  assert.match(stateProblem({ ...known, game: "kvitlach" }, known), /^game is "kvitlach"/);
  assert.match(stateProblem({ ...known, dealer: 0 }, known), /^dealer is 0, the previous bundle ends with 1/);
  assert.match(stateProblem({ game: "toto21", balances: known.balances }, known), /^dealer is null/);
});

test("restHeads: every event after which no round is open", () => {
  const events = [
    { seq: 0, type: "table_created", round: null },
    { seq: 1, type: "round_opened", round: "r.1" },
    { seq: 2, type: "client_seed", round: "r.1" },
    { seq: 3, type: "round_revealed", round: "r.1" },
    { seq: 4, type: "table_state", round: null },
  ];
  assert.deepEqual(restHeads(events, ["a", "b", "c", "d", "e"]), ["0:a", "3:d", "4:e"]);
});

test("a table's bundle from seq 0 holds the last head of its earlier one", async () => {
  const earlier = line(0, { heads: ["0:a", "3:d"] });
  assert.deepEqual(await across([earlier, line(1, { heads: ["0:a", "3:d", "7:g"] })]), []);
  assert.deepEqual(await across([earlier, line(1, { heads: ["0:a", "3:x", "7:g"] })]), ["export.fork"]);
  assert.deepEqual(await across([earlier, line(1, { heads: ["0:a", "4:d", "7:g"] })]), ["export.fork"]);
});

// -- the committed vector exports: one table, each later bundle from its table_state --------

for (const name of ["fairdeal-bundle-2.json", "fairdeal-v2.json"]) {
  const lines = JSON.parse(read(name)).export.map((b) => JSON.stringify(b));
  const text = (which) => which.join("\n") + "\n";
  const verify = async (which, options = {}) => {
    const keys = await fd.importOperatorKey(JSON.parse(read(name)).verifier_key);
    return fd.verifyExport(text(which), { keys, ...options });
  };

  test(`${name}: a dropped, a repeated or a moved line is found across the lines`, async () => {
    assert.deepEqual(codes(await verify(lines)), []);
    const dropped = lines.filter((_, i) => i !== 2);
    assert.deepEqual(codes(await verify(dropped)), ["export.link", "log.round_missing"]);
    const twice = [...lines.slice(0, 3), lines[2], ...lines.slice(3)];
    assert.deepEqual(codes(await verify(twice)), ["export.link", "log.order"]);
    const swapped = [lines[0], lines[2], lines[1], ...lines.slice(3)];
    assert.deepEqual(codes(await verify(swapped)), ["export.link", "log.order", "log.round_missing"]);
  });

  test(`${name}: its last lines are valid as a partial export, not as a whole one`, async () => {
    const tail = lines.slice(-2);
    assert.deepEqual(codes(await verify(tail, { partial: true })), []);
    assert.deepEqual(codes(await verify(tail)), ["export.link", "log.round_missing"]);
    const gap = [lines.at(-3), lines.at(-1)];
    assert.deepEqual(codes(await verify(gap, { partial: true })), ["export.link"]);
  });

  test(`${name}: a later bundle alone is one leaf of the log: valid`, async () => {
    const keys = await fd.importOperatorKey(JSON.parse(read(name)).verifier_key);
    const alone = await fd.verifyText(lines.at(-1), { keys });
    assert.equal(alone.verdict, "valid", JSON.stringify(alone.findings));
  });
}
