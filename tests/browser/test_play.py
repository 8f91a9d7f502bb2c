"""Two players in two browsers (two WebDriver sessions: nothing shared) play against a live
service by clicking, as people would: a Toto21 match and a Kvitlach round. Every receipt is
checked in the page; cards are pictures; each finished round's bundle then verifies with the
Python verifier under the server's key. A service whose answer carries a receipt with one
signature byte altered makes the page fail loudly, naming the check."""

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from fairdeal.verifier import Trust, verify_bundle
from tests.api.conftest import Server
from tests.browser.conftest import assert_clean_console, screenshot, serve_live, wait_for

pytest.importorskip("selenium")
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select


def _get(server: Server, path: str) -> Any:
    return server.client().request("GET", path)


def _trust(server: Server) -> Trust:
    keys = server.service.keys.key_set()
    public = tuple(keys.public_key(kid) for kid in keys.ids())
    return Trust(public, (None,) * len(public))


def _open(driver: Any, server: Server) -> None:
    driver.get(server.url + "/")
    wait_for(driver, lambda d: d.find_element(By.ID, "operator-key-id").text not in ("", "…"))


def _create(driver: Any, game: str, **fields: str) -> str:
    form = driver.find_element(By.ID, "create-form")
    form.find_element(By.CSS_SELECTOR, f"input[name=game][value={game}]").click()
    for name, value in fields.items():
        element = form.find_element(By.NAME, name)
        if element.tag_name == "select":
            Select(element).select_by_value(value)
        else:
            element.clear()
            element.send_keys(value)
    driver.find_element(By.ID, "create").click()
    return str(wait_for(driver, lambda d: d.find_element(By.ID, "table-id").text))


def _join(driver: Any, server: Server, table_id: str) -> None:
    driver.get(f"{server.url}/?table={table_id}")
    wait_for(driver, lambda d: d.find_element(By.ID, "operator-key-id").text not in ("", "…"))
    assert driver.find_element(By.ID, "join-table").get_attribute("value") == table_id
    driver.find_element(By.ID, "join").click()
    wait_for(driver, lambda d: d.find_element(By.ID, "table-id").text == table_id)


def _buttons(driver: Any) -> dict[str, Any]:
    found = driver.find_elements(By.CSS_SELECTOR, "#actions button[data-action]:enabled")
    return {b.get_attribute("data-action"): b for b in found}


def _checked(driver: Any) -> int:
    return int(driver.find_element(By.ID, "receipt-count").text)


def _no_failure(driver: Any) -> None:
    failure = driver.find_element(By.ID, "failure")
    assert not failure.is_displayed(), failure.text


def _head(server: Server, table_id: str) -> int:
    return int(_get(server, f"/v1/tables/{table_id}")["head"]["seq"])


def _play(
    server: Server,
    table_id: str,
    players: list[Any],
    choose: Callable[[Any, dict[str, Any]], str | None],
    done: Callable[[], bool],
) -> int:
    """Click, in whichever browser has a move, the move ``choose`` picks, until ``done``;
    before each choice every browser has checked the table's whole chain (no stale buttons)."""
    clicks = 0
    while not done():
        for driver in players:
            _no_failure(driver)
        head = _head(server, table_id)
        for driver in players:
            wait_for(driver, lambda d, n=head + 1: _checked(d) >= n)

        def a_move(_: Any) -> tuple[Any, Any] | None:
            for driver in players:
                kind = choose(driver, _buttons(driver))
                if kind is not None:
                    return driver, kind
            return None if not done() else (None, None)

        driver, kind = wait_for(players[0], a_move)
        if driver is None:
            break
        before = _checked(driver)
        _buttons(driver)[kind].click()
        wait_for(driver, lambda d, b=before: _checked(d) > b)
        clicks += 1
        assert clicks < 60, "the game does not end"
    return clicks


@pytest.fixture
def two(browsers: Callable[[], Any]) -> list[Any]:
    return [browsers(), browsers()]


def _revealed_rounds(server: Server, table_id: str) -> list[str]:
    events = _get(server, f"/v1/tables/{table_id}/events?from_seq=0&limit=1000")["events"]
    return [e["event"]["round"] for e in events if e["event"]["type"] == "round_revealed"]


def _verify(server: Server, rounds: list[str]) -> None:
    assert rounds
    for round_id in rounds:
        report = verify_bundle(_get(server, f"/v1/rounds/{round_id}/bundle"), _trust(server))
        assert report.verdict == "valid", [f.line() for f in report.findings]


def _toto_choice(driver: Any, buttons: dict[str, Any]) -> str | None:
    """The player hits once while the cards it sees total under 15, then stands."""
    if "joiner_accepted" in buttons:
        return "joiner_accepted"
    if "open_round" in buttons:
        return "open_round"
    totals = driver.find_elements(By.CSS_SELECTOR, ".seat-area.on-turn .total")
    low = totals and int(totals[0].text.rsplit(" ", 1)[-1]) < 15
    if "hit" in buttons and low:
        return "hit"
    return "stand" if "stand" in buttons else None


def test_two_browsers_play_a_toto21_match(
    live_server: Server, two: list[Any], tmp_path: Path
) -> None:
    a, b = two
    _open(a, live_server)
    table_id = _create(a, "toto21", target="2", move_seconds="120", seed_seconds="120")
    screenshot(a, tmp_path, "toto21-created")
    _join(b, live_server, table_id)

    def over() -> bool:
        return "match is over" in a.find_element(By.ID, "status").text

    _play(live_server, table_id, [a, b], _toto_choice, over)
    wait_for(b, lambda d: "match is over" in d.find_element(By.ID, "status").text)
    for name, driver in (("toto21-a", a), ("toto21-b", b)):
        screenshot(driver, tmp_path, name)
        _no_failure(driver)
        assert driver.find_elements(By.CSS_SELECTOR, "#felt svg.card-up[data-card]")
        assert (
            _checked(driver)
            >= len(_get(live_server, f"/v1/tables/{table_id}/events")["events"]) - 2
        )
        assert_clean_console(driver)
    _verify(live_server, _revealed_rounds(live_server, table_id))


def _kv_choice(driver: Any, buttons: dict[str, Any]) -> str | None:
    for kind in ("open_round", "bet", "stand", "banker_stop", "banker_draw"):
        if kind in buttons:
            return kind
    return None


def test_two_browsers_play_a_kvitlach_round(
    live_server: Server, two: list[Any], tmp_path: Path
) -> None:
    a, b = two
    _open(a, live_server)
    table_id = _create(a, "kvitlach", rule_set="classic", buy_in="300")
    _join(b, live_server, table_id)
    rounds: list[str] = []

    def revealed() -> bool:
        rounds[:] = _revealed_rounds(live_server, table_id)
        return bool(rounds)

    _play(live_server, table_id, [a, b], _kv_choice, revealed)
    for name, driver in (("kvitlach-a", a), ("kvitlach-b", b)):
        wait_for(driver, lambda d: "revealed" in d.find_element(By.ID, "status").text)
        screenshot(driver, tmp_path, name)
        _no_failure(driver)
        assert driver.find_elements(By.CSS_SELECTOR, "#felt svg.card-up[data-card]")
        assert _checked(driver) > 10
        assert_clean_console(driver)
    _verify(live_server, rounds)


class _AlterOneSignature:
    """WSGI middleware: in the answer to the first round opening, one signature byte of the
    first receipt is changed (the service signed the event; this is what a tampering
    server, or anyone between, would send)."""

    def __init__(self, app: Any) -> None:
        self.app, self.done = app, False

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Iterator[bytes]:
        path, method = environ.get("PATH_INFO", ""), environ.get("REQUEST_METHOD")
        if self.done or method != "POST" or not path.endswith("/rounds"):
            return self.app(environ, start_response)
        captured: dict[str, Any] = {}

        def keep(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            captured.update(status=status, headers=headers)
            return lambda _: None

        body = b"".join(self.app(environ, keep))
        answer = json.loads(body)
        signature = answer["events"][0]["signature"]
        flipped = format(int(signature[:2], 16) ^ 0x01, "02x")
        answer["events"][0]["signature"] = flipped + signature[2:]
        self.done = True
        data = json.dumps(answer).encode()
        headers = [(k, v) for k, v in captured["headers"] if k.lower() != "content-length"]
        start_response(captured["status"], [*headers, ("Content-Length", str(len(data)))])
        return iter([data])


def test_a_receipt_with_one_signature_byte_altered_fails_loudly(
    browsers: Callable[[], Any], tmp_path: Path
) -> None:
    with serve_live(tmp_path, wrap=_AlterOneSignature) as server:
        a, b = browsers(), browsers()
        _open(a, server)
        table_id = _create(a, "kvitlach", rule_set="pressburg", buy_in="300")
        _join(b, server, table_id)
        wait_for(a, lambda d: "open_round" in _buttons(d))
        _buttons(a)["open_round"].click()
        banner = wait_for(
            a,
            lambda d: (
                d.find_element(By.ID, "failure").is_displayed() and d.find_element(By.ID, "failure")
            ),
        )
        screenshot(a, tmp_path, "tampered")
        assert banner.get_attribute("data-code") == "sig.bad_signature"
        assert "sig.bad_signature" in banner.text and "event seq" in banner.text
        assert "receipts-bad" in a.find_element(By.ID, "receipts").get_attribute("class")
