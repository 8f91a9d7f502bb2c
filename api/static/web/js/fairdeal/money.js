// SPEC 6.5, 7 (12)-(13): transfers, balances and conservation, from the events' data alone.

const MONEY_IN = ["deposit", "buy_in"];
const MONEY_OUT = ["withdrawal"];

const isInt = (v) => typeof v === "number" && Number.isSafeInteger(v);
const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

/** Accounts mapped to non-negative integers. */
export function isBalances(value) {
  return isObject(value) && Object.values(value).every((v) => isInt(v) && v >= 0);
}

function isTransfer(t) {
  return (
    isObject(t) &&
    Object.keys(t).sort().join() === "amount,from,to" &&
    typeof t.from === "string" &&
    typeof t.to === "string" &&
    t.from !== t.to &&
    isInt(t.amount) &&
    t.amount > 0
  );
}

/** The seat whose account a seating event concerns (6.5), or null for the server. */
export function concernedSeat(event) {
  const seat = event.data.seat;
  if (isInt(seat)) return seat;
  return event.actor === "server" ? null : Number(event.actor.slice(5));
}

const nonzero = (b) => Object.entries(b).filter(([, v]) => v !== 0);
// Accounts by name, any name: without a prototype, "__proto__" is an account like another.
const accounts = (b) => Object.assign(Object.create(null), b);
// Exact, as Python's integers: a sum of accounts can pass 2^53, where a number rounds.
const sum = (b) => Object.values(b).reduce((a, v) => a + BigInt(v), 0n);

/** Follows every account through a chain's events; ``findings`` as {code, event, reason}. */
export class MoneyChecker {
  constructor(balances = {}) {
    this.balances = accounts(balances);
    this.findings = [];
    this.history = []; // {event, transfers, balances} of each money event, for the story
  }

  find(code, event, reason) {
    this.findings.push({ code, event, reason });
  }

  check(event) {
    const data = event.data;
    const moveIn = MONEY_IN.map((n) => data[n]).filter(isInt);
    const moveOut = MONEY_OUT.map((n) => data[n]).filter(isInt);
    if (!("transfers" in data) && !("balances" in data) && !moveIn.length && !moveOut.length) return;
    const before = sum(this.balances);
    // (12) every settlement's transfers and balances
    const expected = this.transferred(event, "transfers" in data ? data.transfers : []);
    const seat = concernedSeat(event);
    const account = seat === null ? "server" : `seat:${seat}`;
    for (const amount of moveIn) expected[account] = (expected[account] ?? 0) + amount;
    for (const amount of moveOut) expected[account] = (expected[account] ?? 0) - amount;
    const stated = data.balances;
    this.history.push({ event, transfers: Array.isArray(data.transfers) ? data.transfers : [] });
    if (stated === undefined || stated === null) { // as Python's data.get: null states none
      this.balances = expected;
      return;
    }
    if (!isBalances(stated)) {
      this.find("schema.data", event, "balances map accounts to non-negative integers");
      this.balances = expected;
      return;
    }
    const difference = firstDifference(stated, expected);
    if (difference) this.find("money.balances", event, difference);
    // (13) money conserved
    const change = moveIn.reduce((a, v) => a + BigInt(v), 0n) - moveOut.reduce((a, v) => a + BigInt(v), 0n);
    if (sum(stated) !== before + change) {
      this.find("money.not_conserved", event, `accounts sum to ${sum(stated)}, not ${before + change}`);
    }
    this.balances = accounts(stated);
    this.history[this.history.length - 1].balances = this.balances;
  }

  transferred(event, transfers) {
    const after = accounts(this.balances);
    if (!Array.isArray(transfers)) {
      this.find("schema.data", event, "transfers is a list");
      return after;
    }
    for (const t of transfers) {
      if (!isTransfer(t)) {
        this.find("money.transfer", event, `not a transfer: ${JSON.stringify(t)}`.slice(0, 160));
        continue;
      }
      after[t.from] = (after[t.from] ?? 0) - t.amount;
      after[t.to] = (after[t.to] ?? 0) + t.amount;
      if (after[t.from] < 0) this.find("money.transfer", event, `${t.from} cannot pay ${t.amount}`);
    }
    return after;
  }
}

function firstDifference(stated, expected) {
  const a = new Map(nonzero(stated));
  const b = new Map(nonzero(expected));
  for (const account of [...new Set([...a.keys(), ...b.keys()])].sort()) {
    if ((a.get(account) ?? 0) !== (b.get(account) ?? 0)) {
      return `${account} is ${a.get(account) ?? 0}, transfers give ${b.get(account) ?? 0}`;
    }
  }
  return null;
}
