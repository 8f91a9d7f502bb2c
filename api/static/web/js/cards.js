// Cards as pictures: SVG made here, as DOM elements (never HTML text, so no markup injection).
// Toto21 codes are rank then suit ("6C", "10H", "QS", "AD"); Kvitlach codes are the numbers
// "1" to "12", the framed 2 and 11 drawn with a frame (SPEC 4).

const NS = "http://www.w3.org/2000/svg";
const SUITS = {
  C: { symbol: "\u2663", name: "clubs", red: false },
  D: { symbol: "\u2666", name: "diamonds", red: true },
  H: { symbol: "\u2665", name: "hearts", red: true },
  S: { symbol: "\u2660", name: "spades", red: false },
};
const RANKS = { J: "jack", Q: "queen", K: "king", A: "ace" };
const FRAMED = new Set(["2", "11"]);

function el(name, attributes = {}, text = null) {
  const node = document.createElementNS(NS, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  if (text !== null) node.textContent = text;
  return node;
}

function frame(label, classes) {
  const svg = el("svg", {
    viewBox: "0 0 100 140",
    width: 75,
    height: 105,
    role: "img",
    "aria-label": label,
    class: `card ${classes}`,
  });
  svg.append(el("title", {}, label));
  svg.append(el("rect", { x: 2, y: 2, width: 96, height: 136, rx: 9, class: "card-face" }));
  return svg;
}

/** Whether ``code`` is a card this page can draw (Toto21's 36 or Kvitlach's 1 to 12). */
export function isCardCode(code) {
  return /^(?:(?:[6-9]|10|[JQKA])[CDHS]|[1-9]|1[0-2])$/.test(String(code));
}

/** The face of a card: its rank and suit (Toto21) or its number (Kvitlach). */
export function cardSvg(code) {
  code = String(code);
  if (!isCardCode(code)) throw new TypeError(`not a card code: ${code}`);
  const suit = SUITS[code.slice(-1)];
  return suit ? toto21Card(code.slice(0, -1), suit, code) : kvitlachCard(code);
}

function toto21Card(rank, suit, code) {
  const label = `${RANKS[rank] ?? rank} of ${suit.name}`;
  const svg = frame(label, `card-up ${suit.red ? "card-red" : "card-black"}`);
  svg.dataset.card = code;
  for (const [x, y, rotate] of [
    [12, 26, ""],
    [88, 114, "rotate(180 88 114)"],
  ]) {
    const corner = el("g", rotate ? { transform: rotate } : {});
    corner.append(el("text", { x, y, class: "card-rank", "text-anchor": "middle" }, rank));
    corner.append(el("text", { x, y: y + 18, class: "card-pip", "text-anchor": "middle" }, suit.symbol));
    svg.append(corner);
  }
  svg.append(el("text", { x: 50, y: 86, class: "card-centre", "text-anchor": "middle" }, suit.symbol));
  return svg;
}

function kvitlachCard(number) {
  const framed = FRAMED.has(number);
  const label = framed ? `${number}, framed` : number;
  const svg = frame(label, `card-up card-kvitlach${framed ? " card-framed" : ""}`);
  svg.dataset.card = number;
  if (framed) svg.append(el("rect", { x: 12, y: 12, width: 76, height: 116, rx: 5, class: "card-frame" }));
  svg.append(el("text", { x: 50, y: 86, class: "card-number", "text-anchor": "middle" }, number));
  svg.append(el("text", { x: 18, y: 30, class: "card-rank", "text-anchor": "middle" }, number));
  return svg;
}

/** The back of a card: a hidden card, another seat's, or the blind card before the showdown. */
export function cardBackSvg(label = "a card face down") {
  const svg = frame(label, "card-back");
  svg.append(el("rect", { x: 10, y: 10, width: 80, height: 120, rx: 6, class: "card-back-inner" }));
  for (let i = 0; i < 5; i += 1) {
    svg.append(el("circle", { cx: 50, cy: 30 + i * 20, r: 6, class: "card-back-dot" }));
  }
  return svg;
}
