"""The deployment's hard limit on numbers: refused before the rules see them, nothing written."""

from pathlib import Path

from tests.api.bots import error_of, raw
from tests.api.conftest import start_server, stop_server


def test_numbers_above_the_deployments_limit_are_refused_everywhere(tmp_path: Path) -> None:
    running, http = start_server(tmp_path, max_amount=1000)
    try:
        too_rich = raw(
            running.url,
            "POST",
            "/v1/tables",
            {"game": "kvitlach", "options": {"bank_funding": 2000}},
        )
        assert too_rich.status == 422 and error_of(too_rich)["code"] == "over_limit"

        table = raw(
            running.url,
            "POST",
            "/v1/tables",
            {"game": "kvitlach", "options": {"bank_funding": 100}, "join": {"buy_in": 500}},
        )
        assert table.status == 201
        table_id = table.json["table_id"]
        joiner = raw(
            running.url, "POST", f"/v1/tables/{table_id}/seats", {"join": {"buy_in": 1001}}
        )
        assert joiner.status == 422 and error_of(joiner)["code"] == "over_limit"
        events = raw(running.url, "GET", f"/v1/tables/{table_id}/events").json["events"]
        assert [e["event"]["type"] for e in events] == ["table_created", "seat_joined"]
    finally:
        stop_server(running, http)
