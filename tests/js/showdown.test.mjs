// The showdown's hand rules against the Python rules' own answers (hands.json, written by
// make_hands.py from fairdeal/games/*/hands.py), and the settlement check on real bundles.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as sd from "../../api/static/web/js/fairdeal/showdown.js";
import * as fd from "../../api/static/web/js/fairdeal/index.js";

const table = JSON.parse(readFileSync(new URL("./hands.json", import.meta.url), "utf8"));
const read = (name) => readFileSync(new URL(`../vectors/${name}`, import.meta.url), "utf8");

test("Toto21 totals are the Python rules' (aces 11, then 1 one at a time)", () => {
  assert.ok(table.toto21.totals.length >= 300);
  for (const { cards, total } of table.toto21.totals) assert.equal(sd.totoTotal(cards), total, cards.join(" "));
});

test("Toto21 outcomes are the Python rules': golden point, two aces, over 21, tie, higher", () => {
  const reasons = new Set();
  for (const r of table.toto21.rounds) {
    const got = sd.totoOutcome(r.player, 1 - r.player, r.player_cards, r.dealer_cards);
    assert.deepEqual(got, { winner: r.winner, reason: r.reason }, JSON.stringify(r));
    reasons.add(r.reason);
  }
  assert.equal(reasons.size, 7);
});

test("Kvitlach totals, best total, 21 (framed pairs too) and bust are the Python rules'", () => {
  for (const h of table.kvitlach) {
    const what = h.cards.join("+");
    assert.deepEqual(sd.kvTotals(h.cards), h.totals, what);
    assert.equal(sd.kvBest(h.cards), h.best, what);
    assert.equal(sd.kvIsBust(h.cards), h.bust, what);
    assert.equal(sd.kvIsTwentyOne(h.cards), h.twenty_one, what);
    const immediate = sd.kvImmediate(h.cards);
    assert.equal(immediate, h.twenty_one ? h.reason : h.bust ? "bust" : null, what);
  }
});

test("a vector export's rounds are told: every hand's total and what it won", async () => {
  const vec = JSON.parse(read("fairdeal-v2.json"));
  const keys = await fd.importOperatorKey(vec.verifier_key);
  const dealt = (b) => b.events.some((e) => e.event.type === "round_sealed" && e.event.round === b.round_id);
  let told = 0;
  for (const bundle of vec.export.filter((b) => b.round_id)) {
    const result = await fd.verifyBundle(bundle, { keys });
    assert.equal(result.verdict, "valid");
    const story = fd.explain(result.story);
    assert.equal(story.hands.length >= 2, dealt(bundle), bundle.round_id); // a voided round has none
    for (const hand of story.hands) assert.ok(Number.isInteger(hand.total) || hand.total === null);
    assert.match(fd.whoWon(story.accounts), /won|lost|no money moved/);
    told += story.hands.length ? 1 : 0;
  }
  assert.ok(told >= 2);
});

test("a settlement altered and re-signed is rules.mismatch naming the hand and amounts", async () => {
  const vec = JSON.parse(read("fairdeal-v2.json"));
  const keys = await fd.importOperatorKey(vec.verifier_key);
  const bundle = vec.export.find((b) => b.events.some((e) => e.event.type === "round_won"));
  const result = await fd.verifyBundle(bundle, { keys });
  const rounds = [...result.story.rounds.values()];
  const won = result.story.events.find((e) => e.type === "round_won");
  const first = result.story.first;
  const rest = result.story.events.slice(1).map((e) => (e === won ? { ...e, data: { ...e.data, seat: 1 - e.data.seat } } : e));
  const map = new Map(rounds.map((r) => [r.id, r]));
  const { findings } = await sd.checkShowdown(first, map, rest);
  assert.equal(findings.length, 1);
  assert.equal(findings[0].code, "rules.mismatch");
  assert.match(findings[0].reason, /player\) \d+, seat \d \(dealer\) \d+: the rules give round_won/);
});
