"""Steps (12) settlements and (13) conservation, from the events' data alone.

Any event whose data carry ``transfers`` or ``balances`` moves money (SPEC 6.5). The
verifier applies the transfers itself and compares every stated balance; money enters
the table only as a seat's deposit (``deposit``, ``buy_in``) and leaves only as a
``withdrawal``, so the sum of all accounts changes by nothing else. None of this uses
the game modules: a settlement bug in the rules shows here too.
"""

from typing import Any, TypeGuard

from fairdeal.events import Event, concerned_seat
from fairdeal.protocol import SERVER

from .findings import Finding

MONEY_IN = ("deposit", "buy_in")
MONEY_OUT = ("withdrawal",)


class MoneyChecker:
    """Balances of every account, followed through the chain."""

    def __init__(self, table: str, balances: dict[str, int] | None = None) -> None:
        self.table = table
        self.balances: dict[str, int] = dict(balances or {})
        self.findings: list[Finding] = []

    def _find(self, code: str, event: Event, reason: str) -> None:
        self.findings.append(Finding(code, self.table, event.round, event.seq, reason))

    def check(self, event: Event) -> None:
        data = event.data
        moves_in = _amounts(data, MONEY_IN)
        moves_out = _amounts(data, MONEY_OUT)
        if "transfers" not in data and "balances" not in data and not moves_in + moves_out:
            return
        before = sum(self.balances.values())
        # (12) every settlement's transfers and balances
        expected = self._transferred(event, data.get("transfers", []))
        account = _account(event)
        for amount in moves_in:
            expected[account] = expected.get(account, 0) + amount
        for amount in moves_out:
            expected[account] = expected.get(account, 0) - amount
        stated = data.get("balances")
        if stated is None:
            self.balances = expected
            return
        if not is_balances(stated):
            self._find("schema.data", event, "balances map accounts to non-negative integers")
            self.balances = expected
            return
        if _nonzero(stated) != _nonzero(expected):
            self._find("money.balances", event, _difference(stated, expected))
        # (13) money conserved
        change = sum(moves_in) - sum(moves_out)
        if sum(stated.values()) != before + change:
            reason = f"accounts sum to {sum(stated.values())}, not {before + change}"
            self._find("money.not_conserved", event, reason)
        self.balances = dict(stated)

    def _transferred(self, event: Event, transfers: Any) -> dict[str, int]:
        after = dict(self.balances)
        if not isinstance(transfers, list):
            self._find("schema.data", event, "transfers is a list")
            return after
        for transfer in transfers:
            if not _is_transfer(transfer):
                self._find("money.transfer", event, f"not a transfer: {transfer!r}"[:160])
                continue
            source, target, amount = transfer["from"], transfer["to"], transfer["amount"]
            after[source] = after.get(source, 0) - amount
            after[target] = after.get(target, 0) + amount
            if after[source] < 0:
                self._find("money.transfer", event, f"{source} cannot pay {amount}")
        return after


def _amounts(data: Any, names: tuple[str, ...]) -> list[int]:
    return [data[n] for n in names if type(data.get(n)) is int]


def _account(event: Event) -> str:
    number = concerned_seat(event)
    return SERVER if number is None else f"seat:{number}"


def _is_transfer(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and set(value) == {"from", "to", "amount"}
        and isinstance(value["from"], str)
        and isinstance(value["to"], str)
        and value["from"] != value["to"]
        and type(value["amount"]) is int
        and value["amount"] > 0
    )


def is_balances(value: Any) -> TypeGuard[dict[str, int]]:
    """Whether ``value`` is balances: accounts mapped to non-negative integers."""
    return isinstance(value, dict) and all(
        isinstance(k, str) and type(v) is int and v >= 0 for k, v in value.items()
    )


def _nonzero(balances: dict[str, int]) -> dict[str, int]:
    return {k: v for k, v in balances.items() if v != 0}


def _difference(stated: dict[str, int], expected: dict[str, int]) -> str:
    for account in sorted(set(stated) | set(expected)):
        if stated.get(account, 0) != expected.get(account, 0):
            return (
                f"{account} is {stated.get(account, 0)}, transfers give {expected.get(account, 0)}"
            )
    return "balances differ"
