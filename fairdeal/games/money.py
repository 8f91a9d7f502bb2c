"""Money at a table: integer balances by account, moved only by logged transfers.

Accounts are "seat:N" (a seat's chips at the table), "bank" (Kvitlach's bank) and
"pot" (Toto21's escrowed stakes). A settlement event carries the exact transfers
and every balance after them, so a reader can check each line and the sum.
"""

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

BANK = "bank"
POT = "pot"


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
