"""The player's page checks every seat's signed statements, not only its own (issue 23): a
page watching a Toto21 table of two keyed seats, served by an operator that relogs the table
from one of a seat's moves on (its stand relabelled hit, its signature dropped, its number
set back: tests/api/relog.py, the service's own key signing and linking every event), stops
at that move with the red banner naming the seat's check, the seq and the seat; the same
table served honestly plays on with no banner."""

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fairdeal.verifier.rules import _SEAT_SIGNATURES as SEAT_FINDINGS
from tests.api.bots import await_toto21_move, head_seq, toto21_round_state, toto21_table
from tests.api.relog import FORGERIES as SEAT_FORGERIES
from tests.api.relog import Change, Relog
from tests.browser.conftest import screenshot, serve_live, wait_for

pytest.importorskip("selenium")
from selenium.webdriver.common.by import By


class _Operator:
    """WSGI middleware: once ``relog`` is set, every answer to the browser (the watching
    page) shows its table's relogged events and view head; the seats' own SDK clients are
    answered truly, so that the lie is the page's alone to find."""

    def __init__(self, app: Any) -> None:
        self.app, self.relog = app, None

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Iterator[bytes]:
        browser = "Chrome" in environ.get("HTTP_USER_AGENT", "")
        if self.relog is None or not browser or not environ.get("PATH_INFO", "").startswith("/v1/"):
            return self.app(environ, start_response)
        captured: dict[str, Any] = {}

        def keep(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            captured.update(status=status, headers=headers)
            return lambda _: None

        answer = json.loads(b"".join(self.app(environ, keep)) or b"null")
        if isinstance(answer, dict) and isinstance(answer.get("events"), list):
            answer["events"] = [self.relog.shown(item) for item in answer["events"]]
        if isinstance(answer, dict) and isinstance(answer.get("head"), dict):
            answer["head"] = self.relog.head(answer["head"])
        data = json.dumps(answer).encode()
        headers = [(k, v) for k, v in captured["headers"] if k.lower() != "content-length"]
        start_response(captured["status"], [*headers, ("Content-Length", str(len(data)))])
        return iter([data])


# Each forgery, and the finding code the page names it by, the verifier's for its refusal
# (None: the log is honest).
FORGERIES: dict[str, tuple[Change | None, str | None]] = {
    "honest": (None, None),
    **{name: (change, SEAT_FINDINGS[code]) for name, (change, code) in SEAT_FORGERIES.items()},
}


def _checked(driver: Any) -> int:
    return int(driver.find_element(By.ID, "receipt-count").text)


@pytest.mark.parametrize("name", list(FORGERIES))
def test_a_watching_page_stops_at_a_move_its_seat_never_signed(
    browser: Any, tmp_path: Path, name: str
) -> None:
    change, code = FORGERIES[name]
    operator: dict[str, _Operator] = {}

    def wrap(app: Any) -> _Operator:
        operator["middle"] = _Operator(app)
        return operator["middle"]

    with serve_live(tmp_path, wrap=wrap) as server:
        game = toto21_table(server.url)
        round_id = await_toto21_move(game)
        turn = toto21_round_state(game.seats[0])["turn"]
        browser.get(f"{server.url}/?table={game.table_id}")
        wait_for(browser, lambda d: d.find_element(By.ID, "watch").is_displayed())
        browser.find_element(By.ID, "watch").click()
        head = head_seq(server.url, game.table_id)
        wait_for(browser, lambda d: _checked(d) == head + 1)  # seq 0 to the head: all true
        at = head + 1  # where the seat to move logs its stand
        if change is not None:
            operator["middle"].relog = Relog(server, game.table_id, at, change)
        game.seats[turn].act(round_id, "stand")
        if code is None:
            wait_for(browser, lambda d: _checked(d) >= at + 1)
            assert not browser.find_element(By.ID, "failure").is_displayed()
            return
        failure = wait_for(browser, lambda d: d.find_element(By.ID, "failure").text)
        assert code in failure and f"seq {at}" in failure and f"seat:{turn}" in failure, failure
        assert _checked(browser) == at  # nothing from the forged move on is counted
        screenshot(browser, tmp_path, f"watch-{code}")
