// Each game's hand rules (games/*/hands.js) against the Python rules' own answers
// (hands.json, written by make_hands.py from fairdeal/games/*/hands.py), and the story of
// real rounds as each game's tell.js tells it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as toto from "../../api/static/web/js/fairdeal/games/toto21/hands.js";
import * as kv from "../../api/static/web/js/fairdeal/games/kvitlach/hands.js";
import * as fd from "../../api/static/web/js/fairdeal/index.js";

const table = JSON.parse(readFileSync(new URL("./hands.json", import.meta.url), "utf8"));
const read = (name) => readFileSync(new URL(`../vectors/${name}`, import.meta.url), "utf8");

test("Toto21 totals are the Python rules' (aces 11, then 1 one at a time)", () => {
  assert.ok(table.toto21.totals.length >= 300);
  for (const { cards, total } of table.toto21.totals) assert.equal(toto.total(cards), total, cards.join(" "));
});

test("Toto21 outcomes are the Python rules': golden point, two aces, over 21, tie, higher", () => {
  const reasons = new Set();
  for (const r of table.toto21.rounds) {
    const [player, dealer] = [r.player, 1 - r.player];
    const got =
      toto.goldenPoint(player, dealer, r.player_cards.slice(0, 2), r.dealer_cards.slice(0, 2)) ??
      toto.showdown(player, dealer, r.player_cards, r.dealer_cards);
    assert.deepEqual(got, { winner: r.winner, reason: r.reason }, JSON.stringify(r));
    reasons.add(r.reason);
  }
  assert.equal(reasons.size, 7);
});

test("Kvitlach totals, best total, 21 (framed pairs too) and bust are the Python rules'", () => {
  for (const h of table.kvitlach) {
    const what = h.cards.join("+");
    assert.deepEqual(kv.totals(h.cards), h.totals, what);
    assert.equal(kv.best(h.cards), h.best, what);
    assert.equal(kv.isBust(h.cards), h.bust, what);
    assert.equal(kv.isTwentyOne(h.cards), h.twenty_one, what);
    if (h.twenty_one) assert.equal(kv.winReason(h.cards), h.reason, what);
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
