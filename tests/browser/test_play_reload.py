"""A seat survives a reload: the play page keeps a seat's key (a non-extractable CryptoKey),
token, statement number and unrevealed seeds in the browser's IndexedDB, and a reloaded tab
takes the same seat back on a fresh chain, every event checked again. Two players in two
browsers: a Toto21 tab reloaded between its seed commitment and its reveal, then again on
its turn; a Kvitlach tab that goes to the landing page, returns to its seat by the link
there, and is reloaded on its turn. Where the browser keeps nothing (its IndexedDB deleted,
or missing altogether), the page says the seat is lost after a reload, and asks first."""

import io
import json
import threading
from collections.abc import Callable, Iterable
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from tests.api.conftest import Server
from tests.browser.conftest import (
    assert_clean_console,
    console_errors,
    screenshot,
    serve_live,
    wait_for,
)
from tests.browser.test_play import (
    _buttons,
    _checked,
    _click,
    _create,
    _events,
    _head,
    _join,
    _kv_choice,
    _kvitlach_table,
    _no_failure,
    _open,
    _play,
    _revealed_rounds,
    _toto_choice,
    _verify,
)

pytest.importorskip("selenium")
from selenium.webdriver.common.by import By

TOTO_TURN = {"blind", "hit", "stand"}
KV_TURN = {"bet", "hit", "stand", "elvaroon"}


class _HoldReveals:
    """WSGI middleware: while ``holding`` is set, every seed reveal (a POST of a ``seed`` to
    a round's seeds) is answered 503 before the service sees it, and the seats' tokens that
    tried are noted: a test can then reload a tab between its commitment and its reveal."""

    def __init__(self, app: Callable[..., Iterable[bytes]]) -> None:
        self.app = app
        self.holding = threading.Event()
        self.holding.set()
        self.tried: set[str] = set()

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
        path, method = environ.get("PATH_INFO", ""), environ.get("REQUEST_METHOD")
        if not self.holding.is_set() or method != "POST" or not path.endswith("/seeds"):
            return self.app(environ, start_response)
        body = environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
        environ["wsgi.input"] = io.BytesIO(body)
        if "seed" not in json.loads(body):
            return self.app(environ, start_response)
        self.tried.add(environ.get("HTTP_AUTHORIZATION", ""))
        error = {"error": {"code": "unavailable", "message": "reveals are held by the test"}}
        data = json.dumps(error).encode()
        headers = [("Content-Type", "application/json"), ("Content-Length", str(len(data)))]
        start_response("503 Service Unavailable", headers)
        return iter([data])


def _seat_key(driver: Any) -> str:
    return str(driver.find_element(By.ID, "seat-key").text)


def _reload_resumes(driver: Any, server: Server, table_id: str, seat: int) -> None:
    """Reload ``driver``'s tab: the same seat comes back, its key the same, nothing lost, its
    chain checked again to the head."""
    key = _seat_key(driver)
    driver.refresh()
    _resumed(driver, server, table_id, seat, key)


def _resumed(driver: Any, server: Server, table_id: str, seat: int, key: str) -> None:
    wait_for(driver, lambda d: d.find_element(By.ID, "seat-name").text == f"you are seat {seat}")
    wait_for(driver, lambda d: _checked(d) >= _head(server, table_id) + 1)
    assert driver.find_element(By.ID, "table-id").text == table_id
    assert _seat_key(driver) == key
    assert not driver.find_element(By.ID, "lost").is_displayed()
    line = driver.find_element(By.ID, "seat-key-line")
    assert line.get_attribute("data-kept") == "true"
    assert "kept in this browser (IndexedDB)" in line.text and "a reload resumes" in line.text
    _no_failure(driver)


def _signed(server: Server, table_id: str, seat: int) -> list[dict[str, Any]]:
    """The seat's signed commands as logged, in order."""
    events = _events(server, table_id)
    return [e for e in events if e["actor"] == f"seat:{seat}" and "signed" in e["data"]]


def _increasing(ns: list[int]) -> bool:
    return all(before < after for before, after in pairwise(ns))


def _until_turn(
    server: Server, table_id: str, players: list[Any], mover: Any, turn: set[str], choose: Any
) -> None:
    """Play the other seats' moves until ``mover`` has one of ``turn`` (it makes none before:
    a button it shows may be one drawn before the chain it has checked moved on)."""

    def others(driver: Any, buttons: dict[str, Any]) -> str | None:
        return None if driver is mover else choose(driver, buttons)

    _play(server, table_id, players, others, lambda: bool(turn & set(_buttons(mover))))


def test_toto21_a_tab_reloaded_before_its_reveal_and_on_its_turn_keeps_its_seat(
    browsers: Callable[[], Any], tmp_path: Path
) -> None:
    holds: list[_HoldReveals] = []

    def wrap(app: Any) -> _HoldReveals:
        holds.append(_HoldReveals(app))
        return holds[0]

    with serve_live(tmp_path, wrap=wrap) as server:
        hold = holds[0]
        a, b = browsers(), browsers()
        _open(a, server)
        table_id = _create(a, "toto21", target="4", move_seconds="120", seed_seconds="120")
        _join(b, server, table_id)
        wait_for(a, lambda d: _click(d, "joiner_accepted"))
        wait_for(a, lambda d: _click(d, "open_round"))
        # Both seats commit; each tries to reveal and is held: b's seed is committed, not shown.
        wait_for(a, lambda d: len(hold.tried) == 2)
        types = [e["type"] for e in _events(server, table_id)]
        assert "seeds_committed" in types and "client_seed" not in types
        _reload_resumes(b, server, table_id, 1)
        screenshot(b, tmp_path, "reload-toto21-before-reveal")
        hold.holding.clear()
        wait_for(b, lambda d: "client_seed" in {e["type"] for e in _signed(server, table_id, 1)})
        signed = _signed(server, table_id, 1)
        commit, reveal = (
            next(e for e in signed if e["type"] == t) for t in ("seed_commitment", "client_seed")
        )
        # The reveal tried before the reload used commit n + 1 (saved before it left): the
        # reloaded page never signs that n again.
        assert reveal["data"]["signed"]["n"] > commit["data"]["signed"]["n"] + 1
        for driver in (a, b):  # the console shows the held reveals, and nothing else
            assert all("/seeds" in e and "503" in e for e in console_errors(driver))

        _until_turn(server, table_id, [a, b], b, TOTO_TURN, _toto_choice)
        before = max(e["data"]["signed"]["n"] for e in _signed(server, table_id, 1))
        _reload_resumes(b, server, table_id, 1)
        screenshot(b, tmp_path, "reload-toto21-on-turn")
        kind = _toto_choice(b, wait_for(b, lambda d: TOTO_TURN & set(_buttons(d)) and _buttons(d)))
        assert kind in TOTO_TURN
        wait_for(b, lambda d: _click(d, kind))
        wait_for(b, lambda d: _signed(server, table_id, 1)[-1]["type"] == kind)
        assert _signed(server, table_id, 1)[-1]["data"]["signed"]["n"] > before

        rounds = _revealed_rounds(server, table_id)
        _play(
            server,
            table_id,
            [a, b],
            _toto_choice,
            lambda: len(_revealed_rounds(server, table_id)) > len(rounds),
        )
        assert _increasing([e["data"]["signed"]["n"] for e in _signed(server, table_id, 1)])
        for name, driver in (("reload-toto21-a", a), ("reload-toto21-b", b)):
            wait_for(driver, lambda d: _checked(d) == _head(server, table_id) + 1)
            screenshot(driver, tmp_path, name)
            _no_failure(driver)
            assert_clean_console(driver)
        _verify(server, _revealed_rounds(server, table_id))


def test_kvitlach_a_seat_is_taken_back_from_the_landing_page_and_after_a_reload(
    live_server: Server, browsers: Callable[[], Any], tmp_path: Path
) -> None:
    a, b, table_id = _kvitlach_table(live_server, browsers, "classic")
    key = _seat_key(b)
    # Away to the landing page (no warning: the seat is kept), and back by its link.
    _open(b, live_server)
    link = wait_for(b, lambda d: d.find_element(By.CSS_SELECTOR, "#kept-seats a"))
    assert link.text == f"Return to your seat at table {table_id} (seat 1)"
    screenshot(b, tmp_path, "reload-kvitlach-landing")
    link.click()
    _resumed(b, live_server, table_id, 1, key)
    assert not _asks_before_unload(b)  # kept: a reload loses nothing

    _until_turn(live_server, table_id, [a, b], b, KV_TURN, _kv_choice)
    _reload_resumes(b, live_server, table_id, 1)
    screenshot(b, tmp_path, "reload-kvitlach-on-turn")
    rounds: list[str] = []

    def revealed() -> bool:
        rounds[:] = _revealed_rounds(live_server, table_id)
        return bool(rounds)

    _play(live_server, table_id, [a, b], _kv_choice, revealed)
    signed = _signed(live_server, table_id, 1)
    assert {"bet", "client_seed"} <= {e["type"] for e in signed}
    assert _increasing([e["data"]["signed"]["n"] for e in signed])
    for driver in (a, b):
        wait_for(driver, lambda d: _checked(d) == _head(live_server, table_id) + 1)
        _no_failure(driver)
        assert_clean_console(driver)
    _verify(live_server, rounds)


def _lost(driver: Any) -> Any:
    lost = driver.find_element(By.ID, "lost")
    return lost if lost.is_displayed() else None


def test_a_seat_the_browser_no_longer_keeps_is_lost_on_a_reload_and_the_page_offers_to_watch(
    live_server: Server, browsers: Callable[[], Any], tmp_path: Path
) -> None:
    a, _b, table_id = _kvitlach_table(live_server, browsers, "classic")
    deleted = a.execute_async_script(
        """const done = arguments[arguments.length - 1];
        const request = indexedDB.deleteDatabase("fairdeal");
        request.onsuccess = () => done("deleted");
        request.onerror = request.onblocked = (e) => done(e.type);"""
    )
    assert deleted == "deleted"
    a.refresh()
    lost = wait_for(a, _lost)
    screenshot(a, tmp_path, "reload-lost")
    assert "seat 0" in lost.text and table_id in lost.text and "did not keep" in lost.text
    assert "non-extractable" in lost.text and "memory" in lost.text
    a.find_element(By.ID, "watch-lost").click()
    wait_for(a, lambda d: d.find_element(By.ID, "table-id").text == table_id)
    assert "watching" in a.find_element(By.ID, "seat-name").text
    assert not a.find_element(By.ID, "seat-key-line").is_displayed()
    wait_for(a, lambda d: _checked(d) == _head(live_server, table_id) + 1)
    assert not _buttons(a)
    _no_failure(a)
    assert_clean_console(a)


def _without_indexeddb(driver: Any) -> None:
    """Every page of ``driver`` from now on sees no IndexedDB (as in a browser that has none)."""
    source = "Object.defineProperty(window, 'indexedDB', { value: undefined });"
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": source})


def _asks_before_unload(driver: Any) -> bool:
    """Whether the page's beforeunload handler would have the browser ask before leaving
    (WebDriver answers the browser's own prompt itself, so the event is dispatched here)."""
    script = """const event = new Event("beforeunload", { cancelable: true });
        dispatchEvent(event);
        return event.defaultPrevented;"""
    return bool(driver.execute_script(script))


def test_without_indexeddb_the_seat_is_held_in_memory_and_the_page_asks_before_a_reload(
    live_server: Server, browsers: Callable[[], Any], tmp_path: Path
) -> None:
    a = browsers()
    _without_indexeddb(a)
    _open(a, live_server)
    table_id = _create(a, "kvitlach", rule_set="classic", buy_in="300")
    line = wait_for(a, lambda d: d.find_element(By.ID, "seat-key-line"))
    assert line.get_attribute("data-kept") == "false"
    assert "memory only" in line.text and "loses the seat" in line.text
    screenshot(a, tmp_path, "reload-memory-only")
    assert _asks_before_unload(a)
    a.refresh()
    lost = wait_for(a, _lost)
    assert "seat 0" in lost.text and table_id in lost.text
    _no_failure(a)
