// fairdeal/games/money.py: integer balances by account, moved only by logged transfers
// (SPEC 6.5). Balances are plain objects keyed by account ("seat:N", "bank", "pot").
// Exports: BANK, POT, MAX_TABLE_TOTAL, makeTransfer, transferJson, moved, settlement,
// total, afterDeposit.

import { LimitError } from "./errors.js";
import { get, isExactInt, sortedObject, sum } from "./pytypes.js";

export const BANK = "bank";
export const POT = "pot";
// The most a table holds, all its accounts together: far below 2^53 - 1, so that no
// balance (none exceeds the total) ever lacks an encoding.
export const MAX_TABLE_TOTAL = 10 ** 15;

/** A Transfer: {source, target, amount}. */
export function makeTransfer({ source, target, amount }) {
  return { source, target, amount };
}

/** A transfer as an event's data writes it. */
export function transferJson(transfer) {
  return { from: transfer.source, to: transfer.target, amount: transfer.amount };
}

/** Balances after the transfers; every amount positive and no account below zero
 * (RangeError, Python's ValueError, otherwise: the rules never ask for either). */
export function moved(balances, transfers) {
  const after = { ...balances };
  for (const { source, target, amount } of transfers) {
    if (!isExactInt(amount) || amount <= 0) throw new RangeError("a transfer moves a positive integer amount");
    after[source] = get(after, source, 0) - amount;
    after[target] = get(after, target, 0) + amount;
    if (after[source] < 0) throw new RangeError(`${source} cannot pay ${amount}`);
  }
  return after;
}

/** The data of an event that moves money: the transfers and all balances after. */
export function settlement(balances, transfers) {
  const after = moved(balances, transfers);
  return { transfers: transfers.map(transferJson), balances: sortedObject(after) };
}

export function total(balances) {
  return sum(Object.values(balances));
}

/** All balances, sorted, once `amount` enters the table in the new `account`: money
 * enters only this way, and only here is the table's total bounded. */
export function afterDeposit(balances, account, amount) {
  const room = MAX_TABLE_TOTAL - total(balances);
  if (amount > room) {
    throw new LimitError(
      `a table holds at most ${MAX_TABLE_TOTAL} in all; this one holds ` +
        `${MAX_TABLE_TOTAL - room}, so at most ${room} more may come in`,
    );
  }
  return sortedObject({ ...balances, [account]: amount });
}
