// The browser party's dealer-blind cryptography (api/static/web/js/fairdeal/blind/) under
// Node: the shuffle step, its Terelius–Wikström proof and its check for n = 36 and 48, and the
// proof of knowledge and share proof. Prints the minimum and the median of each row over the
// repeats (the machine is shared: minimums are the figures to compare).
// Run: node bench/blind.mjs [--repeats N]

import * as e from "../api/static/web/js/fairdeal/blind/elgamal.js";
import * as g from "../api/static/web/js/fairdeal/blind/group.js";
import * as k from "../api/static/web/js/fairdeal/blind/keys.js";
import * as p from "../api/static/web/js/fairdeal/blind/proofs.js";
import * as s from "../api/static/web/js/fairdeal/blind/shuffle.js";

const arg = process.argv.indexOf("--repeats");
const REPEATS = arg > 0 ? Number(process.argv[arg + 1]) : 5;
const CONTEXT = new TextEncoder().encode("bench");

function row(name, run) {
  run(); // warm-up: JIT and noble's precomputed tables
  const times = [];
  for (let i = 0; i < REPEATS; i++) {
    const start = performance.now();
    run();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  const ms = (t) => (t >= 100 ? t.toFixed(0) : t.toFixed(2)).padStart(8);
  console.log(`${name.padEnd(34)} min ${ms(times[0])} ms   median ${ms(times[times.length >> 1])} ms`);
}

const x = k.newRoundKey();
const X = k.jointKey([k.publicKey(x), k.publicKey(k.newRoundKey())]);

for (const [game, decks] of [["toto21", 1], ["kvitlach", 2]]) {
  const deck = e.publicDeck(game, decks);
  const n = deck.length;
  const first = s.shuffle(deck, X).output; // a deck whose b are not O, as after the first step
  let step;
  row(`shuffle step n=${n}`, () => (step = s.shuffle(first, X)));
  let proof;
  row(`TW prove n=${n}`, () => (proof = s.prove(CONTEXT, X, first, step.output, step.psi, step.rPrime)));
  row(`TW verify n=${n}`, () => s.verifyShuffle(CONTEXT, X, first, step.output, proof));
}

const key = k.publicKey(x);
const keyProof = p.proveKey(x, CONTEXT);
row("PoK prove", () => p.proveKey(x, CONTEXT));
row("PoK verify", () => p.verifyKey(key, CONTEXT, keyProof));
const A = g.base(k.newRoundKey());
const share = p.proveShare(x, A, CONTEXT);
row("share + DLEQ prove", () => p.proveShare(x, A, CONTEXT));
row("DLEQ verify", () => p.verifyShare(key, A, share.share, CONTEXT, share.proof));
