"""Money at a table: integer balances by account, moved only by logged transfers.

Accounts are "seat:N" (a seat's chips at the table), "bank" (Kvitlach's bank) and
"pot" (Toto21's escrowed stakes). A settlement event carries the exact transfers
and every balance after them, so a reader can check each line and the sum.
"""

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from fairdeal.errors import LimitError

BANK = "bank"
POT = "pot"
# The most a table holds, all its accounts together: 1,000 of the largest buy-in or stake,
# far below 2^53 - 1, so that no balance (none exceeds the total) ever lacks an encoding.
MAX_TABLE_TOTAL = 10**15


@dataclass(frozen=True)
class Transfer:
    source: str
    target: str
    amount: int

    def to_json(self) -> dict[str, Any]:
        return {"from": self.source, "to": self.target, "amount": self.amount}


def moved(balances: Mapping[str, int], transfers: Iterable[Transfer]) -> dict[str, int]:
    """Balances after the transfers; every amount positive and no account below zero."""
    after = dict(balances)
    for transfer in transfers:
        if type(transfer.amount) is not int or transfer.amount <= 0:
            raise ValueError("a transfer moves a positive integer amount")
        after[transfer.source] = after.get(transfer.source, 0) - transfer.amount
        after[transfer.target] = after.get(transfer.target, 0) + transfer.amount
        if after[transfer.source] < 0:
            raise ValueError(f"{transfer.source} cannot pay {transfer.amount}")
    return after


def settlement(balances: Mapping[str, int], transfers: list[Transfer]) -> dict[str, Any]:
    """The data of an event that moves money: the transfers and all balances after."""
    after = moved(balances, transfers)
    return {
        "transfers": [t.to_json() for t in transfers],
        "balances": dict(sorted(after.items())),
    }


def total(balances: Mapping[str, int]) -> int:
    return sum(balances.values())


def after_deposit(balances: Mapping[str, int], account: str, amount: int) -> dict[str, int]:
    """All balances, sorted, once ``amount`` enters the table in the new ``account``.

    Money enters a table only this way, and only here is the table's total bounded: every
    other movement is a transfer between its accounts, which keeps the total.
    """
    room = MAX_TABLE_TOTAL - total(balances)
    if amount > room:
        raise LimitError(
            f"a table holds at most {MAX_TABLE_TOTAL} in all; this one holds "
            f"{MAX_TABLE_TOTAL - room}, so at most {room} more may come in"
        )
    return dict(sorted({**balances, account: amount}.items()))
