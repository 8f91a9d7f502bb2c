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
from tests.browser.conftest import (
    assert_clean_console,
    console_errors,
    screenshot,
    serve_live,
    wait_for,
)

pytest.importorskip("selenium")
from selenium.common.exceptions import StaleElementReferenceException
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


def _kvitlach_table(
    server: Server, browsers: Callable[[], Any], rule_set: str
) -> tuple[Any, Any, str]:
    """Two players at a new Kvitlach table: its creator (seat 0, the first banker) and a
    joiner (seat 1), each in a browser of its own; and the table's id."""
    a, b = browsers(), browsers()
    _open(a, server)
    table_id = _create(a, "kvitlach", rule_set=rule_set, buy_in="300")
    _join(b, server, table_id)
    return a, b, table_id


def _buttons(driver: Any) -> dict[str, Any]:
    """The enabled move buttons by action, read in one script: the page draws its buttons
    again every second, so names read one by one may belong to buttons already gone."""
    found = driver.execute_script(
        "return [...document.querySelectorAll('#actions button[data-action]:enabled')]"
        ".map((b) => [b.dataset.action, b]);"
    )
    return dict(found)


def _click(driver: Any, kind: str) -> bool:
    """Click the button of ``kind`` once it is there: the page draws its buttons again every
    second, so the one just chosen may be gone for a moment (or stale) when it is clicked."""
    button = _buttons(driver).get(kind)
    if button is None:
        return False
    try:
        button.click()
    except StaleElementReferenceException:  # drawn again between finding and clicking
        return False
    return True


def _refused(driver: Any) -> bool:
    """The server refused the page's last command (its code beside the notice)."""
    return bool(driver.find_element(By.ID, "notice").get_attribute("data-code"))


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
    clicked: Callable[[Any, str], None] = lambda driver, kind: None,
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
        # A page may show a move a moment after another page's click made it stale (both
        # seats may deal): gone before the click, or refused by the server, it is chosen
        # again from pages that have caught up.
        driver.execute_script("delete document.getElementById('notice').dataset.code")
        if not _click(driver, kind):
            continue
        wait_for(driver, lambda d, b=before: _checked(d) > b or _refused(d))
        if _checked(driver) == before:
            # The server's refusal of the stale move (409) is in the console, as Chromium logs
            # every failed request; anything else there is still an error.
            unexpected = [e for e in console_errors(driver) if "409 (CONFLICT)" not in e]
            assert not unexpected, "the browser console has errors:\n" + "\n".join(unexpected)
            continue
        clicked(driver, kind)
        clicks += 1
        assert clicks < 60, "the game does not end"
    return clicks


@pytest.fixture
def two(browsers: Callable[[], Any]) -> list[Any]:
    return [browsers(), browsers()]


def _events(server: Server, table_id: str) -> list[dict[str, Any]]:
    """Every event of the table, page by page."""
    found: list[dict[str, Any]] = []
    start: int | None = 0
    while start is not None:
        page = _get(server, f"/v1/tables/{table_id}/events?from_seq={start}")
        found += [e["event"] for e in page["events"]]
        start = page["next_from_seq"]
    return found


def _revealed_rounds(server: Server, table_id: str) -> list[str]:
    events = _events(server, table_id)
    return [e["round"] for e in events if e["type"] == "round_revealed"]


def _verify(server: Server, rounds: list[str]) -> None:
    assert rounds
    for round_id in rounds:
        report = verify_bundle(_get(server, f"/v1/rounds/{round_id}/bundle"), _trust(server))
        assert report.verdict == "valid", [f.line() for f in report.findings]


def _toto_choice(driver: Any, buttons: dict[str, Any]) -> str | None:
    """The creator accepts the joiner; the player takes its blind card whenever offered,
    then hits once while the cards it sees total under 15, then stands."""
    for kind in ("joiner_accepted", "open_round", "blind"):
        if kind in buttons:
            return kind
    lines = driver.find_elements(By.CSS_SELECTOR, ".seat-area.on-turn .total")
    totals = [line.text for line in lines if line.text.startswith("Cards you see: ")]
    low = totals and int(totals[0].rsplit(" ", 1)[-1]) < 15
    if "hit" in buttons and low:
        return "hit"
    return "stand" if "stand" in buttons else None


def _status(driver: Any) -> str:
    return str(driver.find_element(By.ID, "status").text)


def test_toto21_a_joiner_turned_away_then_a_match_with_blind_cards_to_its_end(
    live_server: Server, browsers: Callable[[], Any], tmp_path: Path
) -> None:
    a, turned_away, b = browsers(), browsers(), browsers()
    _open(a, live_server)
    table_id = _create(a, "toto21", target="2", move_seconds="120", seed_seconds="120")
    screenshot(a, tmp_path, "toto21-created")
    _join(turned_away, live_server, table_id)
    wait_for(a, lambda d: {"joiner_accepted", "joiner_rejected"} <= set(_buttons(d)))
    screenshot(a, tmp_path, "toto21-deciding")
    wait_for(a, lambda d: _click(d, "joiner_rejected"))
    notice = wait_for(
        turned_away,
        lambda d: (
            d.find_element(By.ID, "notice").get_attribute("data-gone") == "rejected"
            and d.find_element(By.ID, "notice")
        ),
    )
    screenshot(turned_away, tmp_path, "toto21-turned-away")
    assert "turned you away" in notice.text and "no seat" in notice.text
    assert "watching" in turned_away.find_element(By.ID, "seat-name").text
    assert not _buttons(turned_away)

    _join(b, live_server, table_id)
    blind: list[str] = []

    def after(driver: Any, kind: str) -> None:
        if kind == "blind" and not blind:
            blind.append(kind)
            wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#felt svg.card-blind"))
            screenshot(driver, tmp_path, "toto21-blind-card")

    _play(live_server, table_id, [a, b], _toto_choice, lambda: "match is over" in _status(a), after)
    events = [e["event"] for e in _get(live_server, f"/v1/tables/{table_id}/events")["events"]]
    assert "blind" in {e["type"] for e in events}
    for name, driver in (("toto21-a", a), ("toto21-b", b), ("toto21-watching", turned_away)):
        wait_for(driver, lambda d: "match is over" in _status(d))
        wait_for(driver, lambda d: _checked(d) == len(events))
        screenshot(driver, tmp_path, name)
        _no_failure(driver)
        assert driver.find_elements(By.CSS_SELECTOR, "#felt svg.card-up[data-card]")
        if driver is turned_away:  # a read with its token in flight as it was turned away
            refused = f"/v1/tables/{table_id} - Failed to load resource: the server responded"
            refused += " with a status of 403"
            errors = [e for e in console_errors(driver) if refused not in e]
            assert not errors, errors
        else:
            assert_clean_console(driver)
    assert "you win" in _status(a) or "you win" in _status(b)
    _results_match_the_events(events, {0: a, 1: b, None: turned_away})
    _verify(live_server, _revealed_rounds(live_server, table_id))


def _results_match_the_events(events: list[dict[str, Any]], pages: dict[Any, Any]) -> None:
    """Every round won and the match's end are announced on each page as the events say:
    the winner ("you" on its own page), the points, both totals in the reason's order; the
    latest on top, with its link to the verify page."""
    numbers = {e["round"]: e["data"]["number"] for e in events if e["type"] == "round_opened"}
    revealed = [e["round"] for e in events if e["type"] == "round_revealed"]
    for you, driver in pages.items():
        items = driver.find_elements(By.CSS_SELECTOR, "#result-list li")
        told = {
            str(i.get_attribute("textContent")).split(":")[0]: i.get_attribute("textContent")
            for i in items
        }
        for e in (e for e in events if e["type"] == "round_won"):
            line = told[f"Round {numbers[e['round']]}"]
            seat, reason, totals = e["data"]["seat"], e["data"]["reason"], e["data"]["totals"]
            winner = "you win" if seat == you else f"seat {seat} wins"
            assert f"{winner} {e['data']['points']} point" in line, (winner, line)
            won, lost = totals[seat], totals[1 - seat]
            expected = {
                "higher_total": f"{won} against {lost}",
                "player_over_21": f"{lost} against {won}",
                "dealer_over_21": f"{lost} against {won}",
                "tie": f"{won} each",
            }.get(reason, "golden point" if reason == "golden_point" else "two aces")
            assert expected in line, (expected, line)
        match = next(e for e in events if e["type"] == "match_won")
        seat = match["data"]["seat"]
        winner = "you win it" if seat == you else f"seat {seat} wins it"
        assert winner in driver.find_element(By.ID, "result").text
        link = driver.find_element(By.CSS_SELECTOR, "#result-actions a.check-round")
        assert link.get_attribute("href").endswith(f"/verify?round={revealed[-1]}")


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
    said = _kv_result_for_seat_1(_events(live_server, table_id))
    for name, driver in (("kvitlach-a", a), ("kvitlach-b", b)):
        wait_for(driver, lambda d: "settled" in d.find_element(By.ID, "status").text)
        result = wait_for(driver, lambda d: d.find_element(By.ID, "result-headline").text)
        screenshot(driver, tmp_path, name)
        # The banker's page tells seat 1's hand among the details, seat 1's as its headline.
        told = result if driver is b else driver.find_element(By.ID, "result").text
        assert said[driver is b].lower() in told.lower(), (said, told)
        _no_failure(driver)
        assert driver.find_elements(By.CSS_SELECTOR, "#felt svg.card-up[data-card]")
        assert _checked(driver) > 10
        assert_clean_console(driver)
    _verify(live_server, rounds)


def _kv_result_for_seat_1(events: list[dict[str, Any]]) -> tuple[str, str]:
    """What the settlement events say of seat 1's bet, as the banker's page and seat 1's own
    page word it."""
    for e in events:
        if e["type"] in ("hand_won", "hand_lost") and e["data"]["seat"] == 1:
            won, bet = e["type"] == "hand_won", e["data"]["bet"]
            break
        if e["type"] == "round_settled":
            (result,) = [r for r in e["data"]["results"] if r["seat"] == 1]
            won, bet = result["outcome"] == "win", result["bet"]
            break
    verb = ("wins", "win") if won else ("loses", "lose")
    return f"seat 1 {verb[0]} its bet of {bet}", f"you {verb[1]} your bet of {bet}"


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
        a, _b, _table_id = _kvitlach_table(server, browsers, "pressburg")
        wait_for(a, lambda d: "open_round" in _buttons(d))
        wait_for(a, lambda d: _click(d, "open_round"))
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


def _expired_timer(driver: Any) -> str:
    found = driver.find_elements(By.CSS_SELECTOR, "#timers .timer.expired time")
    return str(found[0].text) if found else ""


def _timeout_note(driver: Any) -> Any:
    note = driver.find_element(By.ID, "timeout-note")
    return note if note.is_displayed() else None


def test_a_seat_that_does_not_move_is_timed_out_by_the_server_and_both_pages_show_it(
    browsers: Callable[[], Any], tmp_path: Path
) -> None:
    with serve_live(tmp_path, sweep_interval_s=1) as server:
        a, b = browsers(), browsers()
        _open(a, server)
        table_id = _create(a, "toto21", target="2", move_seconds="5", seed_seconds="5")
        _join(b, server, table_id)
        wait_for(a, lambda d: "joiner_accepted" in _buttons(d))
        wait_for(a, lambda d: _click(d, "joiner_accepted"))
        wait_for(a, lambda d: "open_round" in _buttons(d))
        wait_for(a, lambda d: _click(d, "open_round"))
        for driver in (a, b):  # the round is dealt; nobody moves
            wait_for(driver, lambda d: "Move due" in d.find_element(By.ID, "timers").text)
        before = {id(d): _checked(d) for d in (a, b)}
        for name, driver in (("timeout-zero-a", a), ("timeout-zero-b", b)):
            wait_for(driver, lambda d: _expired_timer(d) == "0s", 10)
            screenshot(driver, tmp_path, name)
        for name, driver in (("timeout-a", a), ("timeout-b", b)):
            note = wait_for(driver, _timeout_note, 10)
            assert note.get_attribute("data-type") == "move_timeout"
            assert "did not move in time" in note.text and "checked ✓" in note.text
            screenshot(driver, tmp_path, name)
        # The dealer does not move either: its move times out too, and the round ends.
        for driver in (a, b):
            wait_for(driver, lambda d: "is over" in _status(d), 20)
            _no_failure(driver)
            assert _checked(driver) > before[id(driver)]
            assert_clean_console(driver)
        events = _get(server, f"/v1/tables/{table_id}/events")["events"]
        timeouts = [e["event"] for e in events if e["event"]["type"] == "move_timeout"]
        assert len(timeouts) == 2
        for driver in (a, b):
            wait_for(driver, lambda d: _checked(d) == len(events))
        _verify(server, _revealed_rounds(server, table_id))
