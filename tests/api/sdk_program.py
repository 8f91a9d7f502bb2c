"""A client program as its author writes one, against the installed package only:
tests/api/test_sdk_typing.py type-checks it under ``mypy --strict`` (the package's py.typed
makes its hints count), and runs nothing of it."""

from fairdeal.api.client import (
    Action,
    FairdealClient,
    Finding,
    Receipt,
    Report,
    RoundView,
    SeatClient,
    TableView,
)


def whose_turn(table: TableView) -> int | None:
    current: RoundView | None = table["view"].get("round")
    return None if current is None else current.get("turn")


def last_event_type(receipts: list[Receipt]) -> str:
    return receipts[-1]["event"]["type"] if receipts else ""


def play_one_round(seat: SeatClient) -> str:
    round_id = seat.open_round()
    seat.seed(round_id)
    table = seat.view()
    while whose_turn(table) == seat.seat:
        move = Action.STAND if Action.STAND in table["legal_actions"] else Action.HIT
        print(last_event_type(seat.act(round_id, move)["events"]))
        table = seat.view()
    if "stand" in table["legal_actions"]:  # a plain string is a move too
        seat.act(round_id, "stand")
    return round_id


def problems(report: Report) -> list[str]:
    found: list[Finding] = list(report.findings)
    return [f.line() for f in found]


def main(url: str) -> int:
    with FairdealClient(url, timeout=30.0) as client:
        seat = client.create_table("toto21")
        report = client.verify_round(play_one_round(seat))
        print(report.verdict, problems(report))
    return 0
