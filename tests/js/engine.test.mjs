// The rules engine of the browser module (api/static/web/js/fairdeal/engine/): Python's
// semantics, Run and record, the round protocol of dealing.js on the vectors' rounds, the
// seats' statements (SPEC 9.3's chain), money. Run: node --test tests/js/

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { bytesToHex, hexToBytes } from "../../api/static/web/js/fairdeal/bytes.js";
import { Run, command, commandOf, draft, plugin, record } from "../../api/static/web/js/fairdeal/engine/base.js";
import { canonicalDeck } from "../../api/static/web/js/fairdeal/engine/cards.js";
import * as dealing from "../../api/static/web/js/fairdeal/engine/dealing.js";
import * as errors from "../../api/static/web/js/fairdeal/engine/errors.js";
import * as money from "../../api/static/web/js/fairdeal/engine/money.js";
import { register, registry, unregister } from "../../api/static/web/js/fairdeal/engine/registry.js";
import * as py from "../../api/static/web/js/fairdeal/engine/pytypes.js";
import * as resting from "../../api/static/web/js/fairdeal/engine/resting.js";
import * as statements from "../../api/static/web/js/fairdeal/engine/statements.js";
import { Standing, records } from "../../api/static/web/js/fairdeal/engine/table.js";
import { canonical } from "../../api/static/web/js/fairdeal/canonical.js";

const load = (name) => JSON.parse(readFileSync(new URL(`../vectors/${name}`, import.meta.url)));
const V1 = load("fairdeal-v1.json");
const V2 = load("fairdeal-v2.json");

// SPEC 9.3's version-2 chain, every event once, with its hash.
const CHAIN = [...new Map(V2.export.flatMap((b) => b.events).map((s) => [s.event.seq, s])).values()].sort(
  (a, b) => a.event.seq - b.event.seq,
);

test("pytypes: Python's isinstance, ==, truthiness and lookups", () => {
  assert.ok(py.isInt(true) && py.isInt(3) && !py.isInt(1.5) && !py.isInt("1"));
  assert.ok(!py.isExactInt(true) && py.isExactInt(-2));
  assert.ok(py.isDict({}) && py.isDict(new Map()) && !py.isDict([]) && !py.isDict(null) && !py.isDict(new Set()));
  assert.ok(py.pyEqual(true, 1) && py.pyEqual([1, { a: [true] }], [true, { a: [1] }]));
  assert.ok(!py.pyEqual({ a: 1 }, { a: 1, b: null }) && !py.pyEqual(null, 0) && !py.pyEqual("1", 1));
  assert.ok(py.pyEqual(new Map([[1, "x"]]), new Map([[1, "x"]])) && !py.pyEqual(new Map([[1, "x"]]), { 1: "x" }));
  assert.ok(py.pyEqual(new Set([1, 2]), new Set([2, 1])) && py.pyEqual(hexToBytes("00ff"), Uint8Array.of(0, 255)));
  assert.deepEqual([[], {}, "", 0, null, false, new Map()].map(py.truthy), Array(7).fill(false));
  assert.deepEqual([[0], { a: 0 }, " ", -1, true].map(py.truthy), Array(5).fill(true));
  assert.equal(py.get({ a: 0 }, "a"), 0);
  assert.equal(py.get({ a: 0 }, "b"), null);
  assert.equal(py.get({}, "toString"), null, "no inherited member is a key");
  assert.throws(() => py.must({}, "b"), TypeError);
  assert.throws(() => py.get([], "b"), TypeError);
  assert.equal(py.item([1, 2, 3], -1), 3);
  assert.throws(() => py.item([1, 2, 3], 3), RangeError);
  assert.ok(py.sameKeys({ b: 1, a: 2 }, ["a", "b"]) && !py.sameKeys({ a: 1 }, ["a", "b"]));
  assert.equal(py.sum([1, true, 2]), 4);
});

test("pytypes: floor division, modulo and sorting as Python's", () => {
  for (const [a, b, q, r] of [
    [7, 2, 3, 1],
    [-7, 2, -4, 1],
    [7, -2, -4, -1],
    [-7, -2, 3, -1],
    [0, 5, 0, 0],
    [2 ** 53 - 1, 3, 3002399751580330, 1],
    [-(2 ** 53 - 1), 2, -4503599627370496, 1],
  ]) {
    assert.equal(py.floorDiv(a, b), q, `${a} // ${b}`);
    assert.equal(py.mod(a, b), r, `${a} % ${b}`);
  }
  assert.throws(() => py.floorDiv(1, 0), RangeError);
  assert.deepEqual(py.sorted([10, 9, 1, true]), [1, true, 9, 10], "numbers, stable, not as text");
  assert.deepEqual(py.sorted(["b", "B", "a", "\u{1F600}", "\uFFFD"]), ["B", "a", "b", "\uFFFD", "\u{1F600}"], "by code point");
  assert.deepEqual(py.sorted([[1, "b"], [1, "a"], [0, "z"]]), [[0, "z"], [1, "a"], [1, "b"]]);
  assert.deepEqual(py.sorted([3, 1, 2], { key: (x) => -x }), [3, 2, 1]);
  assert.deepEqual(py.sorted(new Map([[2, 0], [1, 0]])), [1, 2]);
  assert.throws(() => py.sorted([1, "a"]), TypeError);
});

test("errors: each refusal's class and code, as errors.py has them", () => {
  const codes = {
    GameError: "illegal_action",
    OptionsError: "invalid_options",
    IllegalActionError: "illegal_action",
    OutOfTurnError: "out_of_turn",
    SealedError: "round_sealed",
    SeedError: "invalid_seed",
    CommitmentError: "commitment_mismatch",
    SeatKeyError: "illegal_action",
    SeatSignatureError: "signature_invalid",
    SignatureMissingError: "signature_missing",
    SignatureReplayedError: "signature_replayed",
    SignatureStaleError: "signature_stale",
    SignatureUnexpectedError: "signature_unexpected",
    LimitError: "over_limit",
    NotDueError: "not_due",
    KeyRequiredError: "key_required",
    KeyInvalidError: "key_invalid",
    ShuffleInvalidError: "shuffle_invalid",
    ShareInvalidError: "share_invalid",
    KeyMismatchError: "key_mismatch",
  };
  for (const [name, code] of Object.entries(codes)) {
    const e = new errors[name]("why");
    assert.equal(e.code, code, name);
    assert.ok(e instanceof errors.GameError && e instanceof errors.FairdealError);
    assert.equal(e.name, name);
  }
  assert.ok(new errors.OutOfTurnError() instanceof errors.IllegalActionError);
  assert.ok(!(new errors.OptionsError() instanceof errors.IllegalActionError));
  const state = new errors.StateMismatchError(7, "lies");
  assert.ok(state instanceof errors.ReplayMismatchError && !(state instanceof errors.GameError));
  assert.deepEqual([state.seq, state.reason, state.message], [7, "lies", "seq 7: lies"]);
});

test("base: Run applies each draft as made; record refuses data it contradicts", () => {
  const run = new Run(0, 5, (n, made, time) => n + made.data.add * time);
  run.emit(draft("a", "server", { add: 1 }));
  run.emit(draft("b", "server", { add: 2 }, "r.1"));
  const decision = run.decision();
  assert.equal(decision.state, 15);
  assert.deepEqual(decision.drafts.map((d) => [d.type, d.round]), [["a", null], ["b", "r.1"]]);

  const bet = command({ type: "bet", actor: "seat:1", time: 9, data: { amount: 5 }, round: "r.1" });
  assert.deepEqual(record(bet, { amount: 5, balances: { pot: 5 } }), {
    type: "bet",
    actor: "seat:1",
    data: { amount: 5, balances: { pot: 5 } },
    round: "r.1",
  });
  assert.equal(record(command({ type: "x", actor: "server", time: 0 }), {}, "r.2").round, "r.2");
  assert.throws(() => record(bet, { amount: 6 }), errors.IllegalActionError, "a contradicted field");
  assert.throws(() => record(bet, {}), errors.IllegalActionError, "a field the rules do not give");
  const flag = command({ type: "bet", actor: "seat:1", time: 9, data: { amount: true } });
  assert.throws(() => record(flag, { amount: 1 }), errors.IllegalActionError, "True == 1, but not of its type");
  const event = { ...CHAIN[5].event };
  const { type, actor, time, data, table } = event; // Python's Command.of names the table (version 3)
  assert.deepEqual(commandOf(event), { type, actor, time, data, round: null, table });
});

test("base and registry: a plugin's options, deck rules and decks", () => {
  const parse = (raw) => {
    if (raw.decks !== undefined && raw.decks !== 2) throw new errors.OptionsError("decks");
    return { decks: 2, toJson: () => ({ decks: 2 }) };
  };
  const toy = plugin({ name: "toy", decks: new Map([[2, ["b", "a"]]]), parse, start: (o) => ({ o }) });
  assert.deepEqual(toy.options({}), { decks: 2 });
  assert.deepEqual(toy.deckRules({}), { game: "toy", decks: 2 });
  assert.deepEqual(toy.new({}).o.decks, 2);
  assert.throws(() => toy.options({ decks: 3 }), errors.OptionsError);
  register(toy);
  try {
    assert.equal(registry().get("toy"), toy);
    assert.deepEqual(canonicalDeck("toy", 2), ["b", "a"]);
    assert.throws(() => register(toy), RangeError);
  } finally {
    unregister("toy");
  }
  assert.throws(() => canonicalDeck("toy", 2), RangeError);
  assert.throws(() => register({ ...toy, name: "toto21", decks: new Map([[1, ["AS"]]]) }), RangeError, "a built-in deck in another order");
  assert.equal(canonicalDeck("toto21", 1).length, 36);
});

// Each seat command of a round as its seat sent it (the engine's own members taken off).
const bare = (event) => {
  const data = { ...event.data };
  delete data.signed;
  return { ...commandOf(event), data };
};

test("dealing: SPEC 9.3's rounds, commit then reveal, seal, deal and a withheld seed", () => {
  const events = CHAIN.map((s) => s.event);
  const bySeq = (seq) => events[seq];
  const rules = { game: "toto21", decks: 1 };
  for (const [open, last] of [[8, 30], [32, 39], [41, 62]]) {
    const opening = bySeq(open);
    const secret = hexToBytes(events.find((e) => e.type === "round_revealed" && e.round === opening.round).data.server_seed);
    const opened = dealing.opened(commandOf({ ...opening, data: { commitment: opening.data.commitment } }), secret, opening.data.number, opening.data.seats, opening.data.seed_deadline - opening.time);
    assert.deepEqual(opened, { type: "round_opened", actor: "server", data: opening.data, round: opening.round });
    let current = dealing.applyOpened(opened);
    let seq = open + 1;
    let next = dealing.WAIT;
    while (next === dealing.WAIT) {
      const event = bySeq(seq);
      const followed = bySeq(seq + 1);
      const revealTime = followed.type === "seeds_committed" ? followed.data.deadline - event.time : 0;
      let drafts;
      [drafts, next] = dealing.seeding(current, bare(event), revealTime);
      for (const made of drafts) {
        const logged = bySeq(seq++);
        const data = { ...logged.data };
        delete data.signed;
        assert.deepEqual(made, { type: logged.type, actor: logged.actor, data, round: logged.round }, `seq ${logged.seq}`);
        if (made.type !== "round_voided") current = dealing.applySeeding(current, made); // the game's to apply
      }
    }
    if (next === dealing.VOID) {
      assert.equal(bySeq(seq - 1).data.reason, "seed_withheld");
      assert.deepEqual(dealing.revealedDraft(current, secret).data, bySeq(last).data);
      continue;
    }
    assert.deepEqual(dealing.sealedDraft(current).data, bySeq(seq).data);
    current = dealing.applySealed(current);
    const deck = dealing.deck(current, secret, rules);
    assert.equal(dealing.deck({ ...current, number: 9 }, secret, rules), deck, "a copy of the sealed round keeps its deck");
    for (const dealt of events.slice(seq, last).filter((e) => e.type === "card_dealt")) {
      const { position, seat, face } = dealt.data;
      assert.deepEqual(dealing.dealDraft(current, deck, position, seat, face).data, dealt.data, `seq ${dealt.seq}`);
    }
    for (const shown of events.slice(seq, last).filter((e) => e.type === "cards_shown")) {
      for (const card of shown.data.cards) {
        assert.equal(deck.card(card.position), card.card);
        assert.equal(bytesToHex(deck.salt(card.position)), card.salt);
      }
    }
    assert.throws(() => dealing.dealDraft(current, deck, 36, 0, dealing.UP), errors.IllegalActionError);
    assert.throws(() => dealing.deck(current, hexToBytes("00".repeat(32)), rules), errors.IllegalActionError);
    assert.throws(() => dealing.seeding(current, bare(bySeq(open + 4)), 0), errors.SealedError);
    assert.deepEqual(dealing.revealedDraft(current, secret).data, bySeq(last).data);
  }
});

test("dealing: SPEC 3's decks, a timed-out seed, and each refusal of a seed step", () => {
  for (const d of V1.decks) {
    const seats = d.client_seeds.map((_, i) => i);
    const secret = hexToBytes(d.server_seed);
    const open = command({ type: "round_opened", actor: "server", time: 100, data: { commitment: d.commitment }, round: d.round_id });
    let current = dealing.applyOpened(dealing.opened(open, secret, 1, seats, 1000));
    for (const seat of seats.filter((s) => d.client_seeds[s] !== "")) {
      const sent = command({ type: "client_seed", actor: `seat:${seat}`, time: 200, data: { seed: d.client_seeds[seat] }, round: d.round_id });
      const [drafts] = dealing.seeding(current, sent, 0);
      current = dealing.applySeeding(current, drafts[0]);
    }
    const missing = seats.filter((s) => d.client_seeds[s] === "");
    if (missing.length) {
      const late = command({ type: "seed_timeout", actor: "server", time: 1099, data: { deadline: 1100, seats: missing } });
      assert.throws(() => dealing.seeding(current, late, 0), errors.NotDueError);
      const wrong = command({ type: "seed_timeout", actor: "server", time: 1100, data: { deadline: 1100, seats: [0] } });
      assert.throws(() => dealing.seeding(current, wrong, 0), errors.IllegalActionError);
      const [drafts, next] = dealing.seeding(current, { ...late, time: 1100 }, 0);
      assert.equal(next, dealing.SEAL);
      current = dealing.applySeeding(current, drafts[0]);
    }
    assert.deepEqual(dealing.clientSeeds(current), d.client_seeds);
    current = dealing.applySealed(current);
    const deck = dealing.deck(current, secret, d.rules);
    assert.deepEqual(deck.cards, d.deck);
    assert.equal(deck.commitment(0), d.card_commitment_0);
  }
  const current = dealing.makeRoundState({ round_id: "t.1", number: 1, commitment: "c", seats: [0, 1], seed_deadline: 1000 });
  const seed = (actor, data, time = 10) => dealing.seeding(current, command({ type: "client_seed", actor, time, data }), 0);
  assert.throws(() => seed("seat:2", { seed: "x" }), errors.OutOfTurnError);
  assert.throws(() => seed("server", { seed: "x" }), errors.OutOfTurnError);
  assert.throws(() => seed("seat:0", { seed: "x" }, 1000), errors.IllegalActionError);
  assert.throws(() => seed("seat:0", { seed: "é" }), errors.SeedError);
  assert.throws(() => seed("seat:0", { seed: "" }), errors.SeedError);
  assert.throws(() => seed("seat:0", { seed: "x", more: 1 }), errors.IllegalActionError);
  assert.throws(() => seed("seat:0", { seed: 1 }), errors.IllegalActionError);
  const c = V2.client_seed_commitment;
  const committed = dealing.makeRoundState({ round_id: c.round, number: 1, commitment: "c", seats: [0], seed_deadline: 50, commitments: new Map([[0, c.commitment]]), revealing: true });
  const reveal = (text) => dealing.seeding(committed, command({ type: "client_seed", actor: "seat:0", time: 10, data: { seed: text } }), 0);
  assert.throws(() => reveal("bob round 1"), errors.CommitmentError);
  assert.equal(reveal(c.seed)[1], dealing.SEAL);
  assert.deepEqual(dealing.seedsView(committed), { seed_deadline: 50, seeded: [], committed: [0], revealing: true, sealed: false });
});

test("statements: SPEC 9.3's chain, each seat's statement admitted as logged", async () => {
  let keys = statements.NO_KEYS;
  let seen = statements.NOTHING_SEEN;
  let admitted = 0;
  for (const { event, hash } of CHAIN) {
    if (event.actor !== "server") {
      const sent = statements.asSent(commandOf(event));
      const [cmd, members] = await statements.admit(2, keys, seen, event.table, sent);
      const expected = event.type === "seat_joined" ? { key: event.data.key } : { signed: event.data.signed };
      assert.deepEqual(members, expected, `seq ${event.seq}`);
      assert.equal(canonical(statements.logged(record(cmd, { ...cmd.data }), members).data), canonical({ ...cmd.data, ...members }));
      admitted++;
    }
    keys = statements.after(keys, [event]);
    seen = seen.then(event, hash);
  }
  assert.equal(admitted, 19);
  assert.deepEqual(statements.toJson(keys), [
    { seat: 0, key: V2.seat_keys[0].public_key, n: 9 },
    { seat: 1, key: V2.seat_keys[1].public_key, n: 8 },
  ]);
  assert.deepEqual(statements.fromJson(statements.toJson(keys)), keys);
});

test("statements: a flipped byte, a number used twice, a stale view, a missing or unexpected signature", async () => {
  const upTo = (seq) => {
    let keys = statements.NO_KEYS;
    let seen = statements.NOTHING_SEEN;
    for (const { event, hash } of CHAIN.slice(0, seq)) {
      keys = statements.after(keys, [event]);
      seen = seen.then(event, hash);
    }
    return { keys, seen };
  };
  const accept = CHAIN[5].event; // SPEC 9.3's statement
  const sent = statements.asSent(commandOf(accept));
  const { keys, seen } = upTo(5);
  const admit = (cmd, k = keys, s = seen, version = 2) => statements.admit(version, k, s, accept.table, cmd);
  const signature = sent.data.signed.signature;
  const flipped = signature.slice(0, 10) + (signature[10] === "0" ? "1" : "0") + signature.slice(11);
  const withSigned = (changes) => ({ ...sent, data: { ...sent.data, signed: { ...sent.data.signed, ...changes } } });
  await assert.rejects(admit(withSigned({ signature: flipped })), { code: "signature_invalid" });
  await assert.rejects(admit(withSigned({ signature: signature.toUpperCase() })), { code: "signature_invalid" });
  await assert.rejects(admit({ ...sent, data: { seat: 1, signed: sent.data.signed } }), { code: "signature_invalid" }, "signed over other data");
  await assert.rejects(admit(sent, upTo(6).keys), { code: "signature_replayed" });
  await assert.rejects(admit(withSigned({ n: true })), { code: "signature_invalid" });
  await assert.rejects(admit(sent, keys, upTo(8).seen), { code: "signature_stale" }, "after a later table_state");
  await assert.rejects(admit(withSigned({ after: { seq: 4, hash: accept.prev.replace(/^./, "0") } })), { code: "signature_invalid" });
  await assert.rejects(admit(withSigned({ after: { seq: 3 } })), { code: "signature_invalid" });
  await assert.rejects(admit({ ...sent, data: {} }), { code: "signature_missing" });
  const keyless = new Map([[0, statements.makeSeatKey({ key: null })]]);
  await assert.rejects(admit(sent, keyless), { code: "signature_unexpected" });
  await assert.rejects(admit({ ...sent, type: "seed_commitment" }, keys, seen, 1), { code: "illegal_action" });
  assert.deepEqual(await admit(sent, keys, seen, 1), [sent, null], "a version-1 table has no statements");
  // a reveal must name seeds_committed (seq 11) or an event after it
  const { keys: k12, seen: s12 } = upTo(12);
  const reveal = statements.asSent(commandOf(CHAIN[12].event));
  await assert.rejects(statements.admit(2, k12, s12, "tbl-v2", withAfter(reveal, 10)), { code: "signature_stale" });
});

function withAfter(cmd, seq) {
  const hash = CHAIN[seq].hash;
  return { ...cmd, data: { ...cmd.data, signed: { ...cmd.data.signed, after: { seq, hash } } } };
}

test("statements: the keys a seat may bind, and seat_keys as a table_state logs them", async () => {
  const small = [
    "01" + "00".repeat(31),
    "ec" + "ff".repeat(30) + "7f",
    "00".repeat(32),
    "00".repeat(31) + "80",
    "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
    "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",
    "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
    "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85",
    "01" + "00".repeat(30) + "80",
    "ec" + "ff".repeat(31),
  ];
  for (const key of small) assert.equal(statements.isStrongKey(key), false, key);
  assert.equal(statements.isStrongKey("ed" + "ff".repeat(30) + "7f"), false, "y = p: not canonical");
  for (const { public_key } of V2.seat_keys) assert.equal(statements.isStrongKey(public_key), true);
  const join = (key) => command({ type: "seat_joined", actor: "seat:0", time: 1, data: { seat: 0, key } });
  for (const key of [...small, "AB".repeat(32), 7]) {
    await assert.rejects(statements.admit(2, statements.NO_KEYS, statements.NOTHING_SEEN, "t", join(key)), errors.SeatKeyError);
  }
  const [cmd, members] = await statements.admit(2, statements.NO_KEYS, statements.NOTHING_SEEN, "t", join(null));
  assert.deepEqual([cmd.data, members], [{ seat: 0 }, { key: null }]);
  const logged = [{ seat: 0, key: null, n: 0 }, { seat: 3, key: V2.seat_keys[0].public_key, n: 2 }];
  assert.deepEqual(statements.toJson(statements.fromJson(logged)), logged);
  for (const bad of [
    null,
    [{ seat: 0, key: null }],
    [{ seat: true, key: null, n: 0 }],
    [{ seat: 0, key: null, n: -1 }],
    [{ seat: 0, key: "AB".repeat(32), n: 0 }],
    [logged[1], logged[0]],
    [logged[0], logged[0]],
  ]) {
    assert.throws(() => statements.fromJson(bad), errors.EventSchemaError, JSON.stringify(bad));
  }
});

test("money: every settlement of SPEC 9.3's chain, and the table's bound", () => {
  let balances = {};
  let settled = 0;
  for (const { event } of CHAIN) {
    if (event.data.transfers) {
      const transfers = event.data.transfers.map((t) => money.makeTransfer({ source: t.from, target: t.to, amount: t.amount }));
      const data = money.settlement(balances, transfers);
      assert.deepEqual(data, { transfers: event.data.transfers, balances: event.data.balances });
      assert.deepEqual(Object.keys(data.balances), Object.keys(event.data.balances).sort());
      settled++;
    }
    if (event.data.balances && event.type !== "table_state") balances = event.data.balances;
  }
  assert.equal(settled, 1);
  assert.deepEqual(money.afterDeposit({ pot: 0, "seat:1": 5 }, "seat:0", 10), { pot: 0, "seat:0": 10, "seat:1": 5 });
  assert.throws(() => money.afterDeposit({ "seat:1": money.MAX_TABLE_TOTAL - 5 }, "seat:0", 6), errors.LimitError);
  assert.deepEqual(money.afterDeposit({ "seat:1": money.MAX_TABLE_TOTAL - 5 }, "seat:0", 5)["seat:0"], 5);
  const pay = (amount) => [money.makeTransfer({ source: "seat:0", target: money.POT, amount })];
  assert.throws(() => money.settlement({ "seat:0": 5 }, pay(6)), RangeError);
  assert.throws(() => money.settlement({ "seat:0": 5 }, pay(0)), RangeError);
  assert.throws(() => money.settlement({ "seat:0": 5 }, pay(true)), RangeError);
  assert.equal(money.total({ a: 1, b: 2 }), 3);
});

test("resting: what a snapshot's members may hold", () => {
  assert.equal(resting.integer(3, "x", 0), 3);
  assert.throws(() => resting.integer(true, "x", 0), errors.EventSchemaError);
  assert.throws(() => resting.integer(-1, "x", 0), errors.EventSchemaError);
  assert.deepEqual(resting.balances({ pot: 0, "seat:0": 1 }, new Set(["seat:0", "pot"])), { pot: 0, "seat:0": 1 });
  assert.throws(() => resting.balances({ pot: 0 }, new Set(["seat:0", "pot"])), errors.EventSchemaError);
  const half = money.MAX_TABLE_TOTAL / 2 + 1;
  assert.throws(() => resting.balances({ a: half, b: half }, new Set(["a", "b"])), errors.EventSchemaError);
  const parse = (raw) => {
    if (raw.bad) throw new errors.OptionsError("bad");
    return raw;
  };
  assert.throws(() => resting.options(parse, { bad: 1 }), errors.EventSchemaError);
  assert.throws(() => resting.options(parse, []), errors.EventSchemaError);
  const round = resting.sealedRound("t.4", 4, [0, 1]);
  assert.deepEqual([round.round_id, round.number, round.sealed, round.revealed, round.seats], ["t.4", 4, true, true, [0, 1]]);
  assert.throws(() => resting.sealedRound("t.4", 0, [0]), errors.EventSchemaError);
  assert.throws(() => resting.sealedRound(null, 1, [0]), errors.EventSchemaError);
});

test("table: where a table stands, and a draft recorded as JSON text", () => {
  const created = new Standing();
  assert.equal(created.after(["seat_joined"]).phase, "resting");
  assert.equal(created.after([]), created);
  const state = created.after(["seat_joined", "table_state"]);
  assert.deepEqual([state.phase, state.bounded], ["fresh", true]);
  assert.equal(state.after(["round_opened", "x", "round_revealed"]).phase, "resting");
  const event = { type: "bet", actor: "seat:0", round: "r.1", data: { amount: 1 } };
  assert.ok(records(event, draft("bet", "seat:0", { amount: 1 }, "r.1"), '{"amount":1}'));
  assert.ok(!records(event, draft("bet", "seat:0", { amount: true }, "r.1"), '{"amount":1}'), "true is not 1");
  assert.ok(!records(event, draft("bet", "seat:0", { amount: 1 }), '{"amount":1}'));
  assert.ok(!records(event, draft("bet", "seat:0", { amount: 1.5 }, "r.1"), '{"amount":1}'));
});

// A counter game, to drive rules.js through each way a replay fails: a seat adds (over
// the limit: LimitError); at ten the server logs "reached"; the server ticks once due.
const COUNTER = (() => {
  const parse = (raw) => {
    const limit = raw.limit ?? 5;
    if (!py.sameKeys(raw, Object.keys(raw).filter((k) => k === "limit")) || !py.isExactInt(limit)) {
      throw new errors.OptionsError("counter takes an integer limit");
    }
    return { limit, toJson: () => ({ limit }) };
  };
  const apply = (state, event) => {
    if (event.type === "add") return { ...state, count: event.data.total };
    if (event.type === "reached") return { ...state, reached: true };
    return state;
  };
  const step = (state, cmd) => {
    const run = new Run(state, cmd.time, apply);
    if (cmd.type === "seat_joined") run.emit(record(cmd, {}));
    else if (cmd.type === "add" && cmd.actor !== "server") {
      const amount = py.must(cmd.data, "amount");
      if (amount > state.options.limit) throw new errors.LimitError("over the limit");
      run.emit(record(cmd, { amount, total: state.count + amount }));
      if (run.state.count >= 10 && !run.state.reached) run.emit(draft("reached", "server"));
    } else if (cmd.type === "tick" && cmd.actor === "server") {
      if (cmd.time < cmd.data.deadline) throw new errors.NotDueError("not yet");
      run.emit(record(cmd, { deadline: cmd.data.deadline }));
    } else if (cmd.type === "boom") {
      null.boom;
    } else throw new errors.IllegalActionError(`no ${cmd.type} here`);
    return run.decision();
  };
  const snapshot = (state) => ({ options: state.options.toJson(), balances: {}, count: state.count, reached: state.reached });
  const restore = (members) => {
    const options = resting.options(parse, members.options);
    return { options, count: resting.integer(members.count, "count", 0), reached: members.reached === true };
  };
  const start = (options) => ({ options, count: 0, reached: false });
  return plugin({ name: "counter", decks: new Map(), parse, start, step, apply, snapshot, restore });
})();

// A chain of the counter's events, version `version`, from [type, actor, data, time?]
// rows, at time 100 + seq unless a row gives it; each event's hash is its seq, repeated.
function counterChain(rows, version = 1) {
  const hashes = rows.map((_, seq) => bytesToHex(Uint8Array.of(seq)).repeat(32));
  const events = rows.map(([type, actor, data, time], seq) => {
    const prev = seq ? hashes[seq - 1] : "0".repeat(64);
    return { version, table: "c", round: null, seq, prev, time: time ?? 100 + seq, type, actor, data };
  });
  return { events, texts: events.map((e) => canonical(e.data)), hashes };
}

test("rules: start, replay and restart, and the finding for each way a run fails", async () => {
  const rules = await import("../../api/static/web/js/fairdeal/engine/rules.js");
  register(COUNTER);
  try {
    const replay = async (rows, version = 1) => {
      const { events, texts, hashes } = counterChain([["table_created", "server", { game: "counter", options: { limit: 5 } }], ...rows], version);
      const { replayed, finding } = rules.start(events[0], texts[0], hashes[0]);
      assert.equal(finding, null);
      return rules.replay(replayed, events.slice(1), texts.slice(1), hashes.slice(1), new Map());
    };
    const codeAt = async (rows, version) => {
      const { finding } = await replay(rows, version);
      return finding && [finding.code, finding.seq];
    };
    const clean = await replay([["add", "seat:0", { amount: 5, total: 5 }], ["add", "seat:1", { amount: 5, total: 10 }, 102], ["reached", "server", {}, 102]]);
    assert.deepEqual([clean.finding, clean.replayed.state.count, clean.replayed.standing.phase], [null, 10, "resting"]);
    assert.deepEqual(await codeAt([["add", "seat:0", { amount: 5 }]]), ["rules.mismatch", 1], "a derived member missing");
    assert.deepEqual(await codeAt([["add", "seat:0", { amount: 5, total: 6 }]]), ["rules.illegal_action", 1], "record refuses it");
    assert.deepEqual(await codeAt([["add", "seat:0", { amount: 1, total: true }]]), ["rules.illegal_action", 1], "true is not 1");
    assert.deepEqual(await codeAt([["add", "seat:0", { amount: 5, total: 5 }], ["add", "seat:0", { amount: 5, total: 10 }]]), ["rules.mismatch", 2], "the log ends before reached");
    assert.deepEqual(await codeAt([["add", "seat:0", { amount: 5, total: 5 }], ["add", "seat:0", { amount: 5, total: 10 }], ["reached", "server", {}]]), ["rules.mismatch", 3], "another time");
    assert.deepEqual(await codeAt([["add", "seat:0", { amount: 6, total: 6 }]]), ["rules.over_limit", 1]);
    assert.deepEqual(await codeAt([["add", "seat:0", { amount: 1, total: 1, x: 1 }]]), ["rules.illegal_action", 1]);
    assert.deepEqual(await codeAt([["add", "server", { amount: 1, total: 1 }]]), ["rules.server_refused", 1]);
    assert.deepEqual(await codeAt([["tick", "server", { deadline: 500 }]]), ["rules.not_due", 1]);
    assert.deepEqual(await codeAt([["tick", "server", { deadline: 50 }]]), null);
    assert.deepEqual(await codeAt([["boom", "seat:0", {}]]), ["rules.crashed", 1]);
    assert.deepEqual(await codeAt([["add", "seat:0", {}]]), ["rules.crashed", 1], "a KeyError");
    const state = { game: "counter", options: { limit: 5 }, balances: {}, count: 5, reached: false };
    const added = ["add", "seat:0", { amount: 5, total: 5 }];
    assert.deepEqual(await codeAt([added, ["table_state", "server", state], ["tick", "server", { deadline: 0 }]]), null);
    assert.deepEqual(await codeAt([added, ["table_state", "server", { ...state, count: 4 }]]), ["rules.state", 2]);
    assert.deepEqual(await codeAt([["table_state", "server", { ...state, count: 0 }], added, added]), ["rules.mismatch", 3], "no table_state before the run");
    // version 2: the seats' statements
    const joined = ["seat_joined", "seat:0", { key: V2.seat_keys[0].public_key }];
    assert.deepEqual(await codeAt([joined, added], 2), ["sig.seat_missing", 2]);
    assert.deepEqual(await codeAt([["seat_joined", "seat:0", { key: "00".repeat(32) }]], 2), ["sig.seat_key", 1]);
    const keyless = ["seat_joined", "seat:0", { key: null }];
    assert.deepEqual(await codeAt([keyless, ["add", "seat:0", { ...added[2], signed: {} }]], 2), ["sig.seat_bad", 2]);
    const signed = { data: { amount: 5 }, n: 1, after: { seq: 1, hash: "01".repeat(32) }, signature: "00" };
    assert.deepEqual(await codeAt([keyless, ["add", "seat:0", { ...added[2], signed }]], 2), ["sig.seat_unexpected", 2]);
    assert.deepEqual(await codeAt([keyless, added], 2), null);

    const start = (data) => {
      const { events, texts, hashes } = counterChain([["table_created", "server", data]]);
      return rules.start(events[0], texts[0], hashes[0]).finding?.code ?? null;
    };
    assert.equal(start({ game: "counter", options: { limit: 5 } }), null);
    assert.equal(start({ game: "counter", options: {} }), "rules.invalid_options", "options in full");
    assert.equal(start({ game: "counter", options: { limit: "5" } }), "rules.invalid_options");
    assert.equal(start({ game: "nothing", options: {} }), "rules.unknown_game");
    assert.equal(start({ game: ["counter"], options: {} }), "rules.crashed", "Python: unhashable type");

    const restart = (data, version = 1) => {
      const { events, texts, hashes } = counterChain([["table_state", "server", data]], version);
      return rules.restart(events[0], texts[0], hashes[0]);
    };
    assert.equal(restart(state).replayed.state.count, 5);
    assert.equal(restart({ ...state, count: -1 }).finding.code, "rules.crashed");
    assert.equal(restart({ ...state, options: {} }).finding.code, "rules.invalid_options");
    assert.equal(restart({ ...state, extra: 1 }).finding.code, "rules.crashed");
    assert.equal(restart(state, 2).finding.code, "sig.seat_key", "version 2 states its seat_keys");
    assert.equal(restart({ ...state, seat_keys: [] }, 2).replayed.seen.start, -1);
  } finally {
    unregister("counter");
  }
});
