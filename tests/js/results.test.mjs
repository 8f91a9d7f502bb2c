// The play page's results in words (play-results.js), read against the events they tell.
// RESULTS_CHAINS (written by test_results.py) names a file of tables played through the
// Python rules: {name: [event, ...]}. For every table, each round's result, each match's and
// each term's end is told once, and what it says is what the events decided: the winner
// ("you" for the winner's own page), the points, both totals and the reason; each Kvitlach
// hand's bet and whether it was won; who banks next.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { Results } from "../../api/static/web/js/play-results.js";

const FILE = process.env.RESULTS_CHAINS;
const SKIP = FILE ? false : "RESULTS_CHAINS is not set: python -m pytest tests/js/test_results.py";
const chains = FILE ? JSON.parse(readFileSync(FILE, "utf8")) : {};

const WHY = {
  golden_point: "golden point",
  dealer_two_aces: "the dealer's own two aces",
  player_over_21: "went over 21",
  dealer_over_21: "went over 21",
  tie: "a tie goes to the dealer",
  higher_total: "the higher total",
};
const TERM = { bank_empty: "the bank is empty", four_or_seven: "4 or a 7", banker_exit: "stepped down", no_players: "no player at the table can play" };

function followed(events) {
  const results = new Results();
  for (const e of events) results.follow(e);
  return results;
}

/** Every result told for ``you``, oldest first, each as one text. */
function texts(results, you) {
  return results.told(you).reverse().map((r) => ({ round: r.round, text: [r.headline, ...r.details].join(" ") }));
}

const roundOf = (told, id) => {
  const found = told.filter((r) => r.round === id);
  assert.equal(found.length, 1, `round ${id} is told once`);
  return found[0].text;
};

function checkToto(events, results) {
  for (const you of [null, 0, 1]) {
    const told = texts(results, you);
    for (const e of events) {
      if (e.type === "round_won") {
        const text = roundOf(told, e.round);
        const { seat, points, reason, totals } = e.data;
        const winner = seat === you ? "you win" : `seat ${seat} wins`;
        assert.ok(text.includes(`${winner} ${points} point`), `${text} names ${winner}`);
        assert.ok(text.includes(WHY[reason]), `${text} says why (${reason})`);
        if (!reason.includes("two_aces") && reason !== "golden_point") {
          for (const t of totals) assert.ok(text.includes(String(t)), `${text} gives the total ${t}`);
        }
        assert.ok(text.includes(`Score: ${[0, 1].map((s) => `${s === you ? "you" : `seat ${s}`} ${e.data.score[s]}`).join(", ")}`), text);
      }
      if (e.type === "round_double_bust") {
        const text = roundOf(told, e.round);
        assert.ok(text.includes(`both went over 21 (${e.data.totals[0]} and ${e.data.totals[1]})`), text);
        assert.ok(text.includes(`worth ${e.data.next_worth} points`), text);
      }
      if (e.type === "round_voided") {
        const text = roundOf(told, e.round);
        assert.match(text, /voided|called off/);
        // the other player's page gone quiet: what dealing again does while it stays away
        const away = you !== null && e.data.reason !== "game_time_up" && !e.data.seats.includes(you);
        assert.equal(text.includes("has left, each round dealt is voided the same way"), away, text);
      }
      if (e.type === "match_won") {
        const text = told.map((r) => r.text).find((t) => t.includes("The match is over"));
        const winner = e.data.seat === you ? "you win it" : `seat ${e.data.seat} wins it`;
        assert.ok(text?.includes(winner), `${text} names the match's winner`);
        const pot = e.data.transfers.reduce((sum, t) => sum + t.amount, 0);
        if (pot) assert.ok(text.includes(`the pot of ${pot}`), text);
        if (e.data.reason === "game_time_up") assert.ok(text.includes("time ran out"), text);
      }
      if (e.type === "match_drawn") assert.ok(told.some((r) => r.text.includes("The match is a draw")));
    }
  }
}

function checkKvitlach(events, results) {
  const rounds = new Map(events.filter((e) => e.type === "round_opened").map((e) => [e.round, e.data]));
  for (const you of [null, 0, 1, 2]) {
    const told = texts(results, you);
    const said = (id, seat, bet, won) => {
      const text = roundOf(told, id);
      const who = seat === you ? `you ${won ? "win" : "lose"} your bet of ${bet}` : `seat ${seat} ${won ? "wins" : "loses"} its bet of ${bet}`;
      assert.ok(text.toLowerCase().includes(who), `round ${id}: "${text}" should say "${who}"`);
    };
    for (const e of events) {
      if (e.type === "hand_won" || e.type === "hand_lost") said(e.round, e.data.seat, e.data.bet, e.type === "hand_won");
      if (e.type === "round_settled") {
        for (const r of e.data.results) said(e.round, r.seat, r.bet, r.outcome === "win");
        const text = roundOf(told, e.round);
        const banker = rounds.get(e.round).banker;
        assert.ok(text.toLowerCase().includes(`${banker === you ? "you" : `seat ${banker}`} (the banker)`), text);
        if (e.data.banker_result === "below") assert.ok(text.includes(`stopped at ${e.data.banker_total}`), text);
      }
      if (e.type === "term_ended") {
        const text = told.map((r) => r.text).find((t) => t.includes(TERM[e.data.reason]));
        assert.ok(text, `the term's end (${e.data.reason}) is told`);
        const next = e.data.next_banker;
        assert.ok(text.includes(next === you ? "You" : `Seat ${next}`), text);
      }
      if (e.type === "round_voided") assert.match(roundOf(told, e.round), /voided/);
    }
  }
}

for (const [name, events] of Object.entries(chains)) {
  test(`the results of ${name}`, { skip: SKIP }, () => {
    const results = followed(events);
    const game = events[0].data.game;
    const revealed = events.filter((e) => e.type === "round_revealed").length;
    const between = events.filter((e) => e.round === null && ["match_won", "match_drawn", "term_ended"].includes(e.type));
    assert.ok(results.entries.length >= Math.min(revealed, 50), "every round over is told");
    assert.ok(results.entries.length <= revealed + between.length);
    for (const entry of results.told(null)) assert.ok(entry.headline.length > 10, entry.headline);
    (game === "toto21" ? checkToto : checkKvitlach)(events, results);
  });
}

test("an empty table tells nothing", { skip: SKIP }, () => {
  assert.deepEqual(new Results().told(0), []);
});
