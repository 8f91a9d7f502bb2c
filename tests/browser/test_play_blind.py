"""A dealer-blind Toto21 match (SPEC 15.13) played to its end by two browsers: each page is its
seat's party, making a round key for every round and answering on its own every request the
log addresses to it (its shuffle step, its decryption shares, its round key at the showdown),
with no player action; the players only click their moves. Each page opens its own face-down
cards with its party and shows what the round waits for. Every finished round's bundle then
verifies with the Python verifier."""

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.api.conftest import Server
from tests.browser.conftest import assert_clean_console, screenshot, wait_for
from tests.browser.test_play import (
    _buttons,
    _checked,
    _click,
    _events,
    _get,
    _join,
    _no_failure,
    _open,
    _refused,
    _revealed_rounds,
    _status,
    _verify,
)

pytest.importorskip("selenium")
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

# A round's cryptography runs in the pages (a shuffle step and its proof take seconds): a
# condition may take this long to come true between two moves.
CRYPTO_WAIT_S = 90
WORKER_LOADED = (
    "return performance.getEntriesByType('resource')"
    ".some((e) => e.name.endsWith('/play-step-worker.js'));"
)
WAITING = ("Shuffling", "Waiting for seat", "Opening the cards", "Showdown")


def _create_blind(driver: Any, seed_seconds: str = "60", target: str = "2") -> str:
    form = driver.find_element(By.ID, "create-form")
    form.find_element(By.CSS_SELECTOR, "input[name=game][value=toto21]").click()
    Select(form.find_element(By.NAME, "target")).select_by_value(target)
    for name, value in (("move_seconds", "120"), ("seed_seconds", seed_seconds)):
        field = form.find_element(By.NAME, name)
        field.clear()
        field.send_keys(value)
    hint = form.find_element(By.ID, "dealing-blind-hint").text
    assert "nobody, the operator included, sees a card before its owner" in hint
    form.find_element(By.CSS_SELECTOR, "input[name=dealing][value=blind]").click()
    driver.find_element(By.ID, "create").click()
    return str(wait_for(driver, lambda d: d.find_element(By.ID, "table-id").text))


def _private_cards(driver: Any) -> list[str]:
    """The face-down cards this page opened with its party (only it sees them)."""
    return list(
        driver.execute_script(
            "return [...document.querySelectorAll('#felt svg.card-private[data-card]')]"
            ".map((c) => c.dataset.card);"
        )
    )


def _seen_total(driver: Any) -> int | None:
    lines = driver.find_elements(By.CSS_SELECTOR, ".seat-area.on-turn .total")
    totals = [line.text for line in lines if line.text.startswith("Cards you see: ")]
    return int(totals[0].rsplit(" ", 1)[-1]) if totals else None


def _choice(driver: Any, buttons: dict[str, Any], dealer: bool) -> str | None:
    """The creator accepts the joiner and deals each round (the two pages never race to
    deal: the loser's 409 would be a console error); the player claims the golden point
    with two aces, takes its blind card when offered, hits while the cards it sees total
    under 15, then stands."""
    for kind in ("joiner_accepted", "open_round"):
        if kind in buttons and (kind != "open_round" or dealer):
            return kind
    if "golden_point" in buttons:  # offered with two aces only: a false claim loses
        assert sum(c.startswith("A") for c in _private_cards(driver)) >= 2, _private_cards(driver)
        return "golden_point"
    if "blind" in buttons:
        return "blind"
    total = _seen_total(driver)
    if "hit" in buttons and total is not None and total < 15:
        return "hit"
    return "stand" if "stand" in buttons else None


def test_a_blind_match_played_to_its_end_by_two_browsers(
    live_server: Server, browsers: Callable[[], Any], tmp_path: Path
) -> None:
    a, b = browsers(), browsers()
    _open(a, live_server)
    table_id = _create_blind(a)
    _join(b, live_server, table_id)
    players = [a, b]
    assert "dealer-blind" in a.find_element(By.ID, "table-terms").text
    over = lambda: all("match is over" in _status(d) for d in players)  # noqa: E731
    seen: dict[int, set[str]] = {0: set(), 1: set()}  # cards each page opened itself
    statuses: set[str] = set()
    shots: list[str] = []
    clicks = 0
    while not over():
        for driver in players:
            _no_failure(driver)

        def a_move(_: Any) -> tuple[Any, Any] | None:
            for seat, driver in enumerate(players):
                status = _status(driver)
                if status.startswith(WAITING):
                    statuses.add(status)
                    if "waiting" not in shots:
                        shots.append("waiting")
                        screenshot(driver, tmp_path, "blind-waiting")
                seen[seat] |= set(_private_cards(driver))
                kind = _choice(driver, _buttons(driver), dealer=seat == 0)
                if kind is not None:
                    return driver, kind
            return (None, None) if over() else None

        driver, kind = wait_for(a, a_move, CRYPTO_WAIT_S)
        if driver is None:
            break
        if kind in ("hit", "stand", "blind") and "mid-round" not in shots:
            shots.append("mid-round")
            for name, page in (("a", a), ("b", b)):
                page.execute_script("document.getElementById('status').scrollIntoView()")
                screenshot(page, tmp_path, f"blind-mid-round-{name}")
        before = _checked(driver)
        driver.execute_script("delete document.getElementById('notice').dataset.code")
        if not _click(driver, kind):
            continue
        wait_for(driver, lambda d, n=before: _checked(d) > n or _refused(d), CRYPTO_WAIT_S)
        clicks += 1
        assert clicks < 60, "the match does not end"

    events = _events(live_server, table_id)
    types = [e["type"] for e in events]
    assert "match_won" in types, types
    # each browser answered on its own: both seats shuffled, shared and revealed their keys
    for kind in ("deck_shuffled", "decryption_shares", "round_key"):
        actors = {e["actor"] for e in events if e["type"] == kind}
        assert {"seat:0", "seat:1"} <= actors, (kind, actors)
    assert statuses, "no page said what the round waited for"
    # every card a page opened itself is the one its seat showed at the showdown
    shown: dict[int, set[str]] = {0: set(), 1: set()}
    dealt = {
        (e["round"], e["data"]["position"]): e["data"]["seat"]
        for e in events
        if e["type"] == "card_dealt"
    }
    for e in events:
        if e["type"] == "cards_shown":
            for entry in e["data"]["cards"]:
                seat = dealt.get((e["round"], entry["position"]))
                if seat is not None:
                    shown[seat].add(entry["card"])
    for seat in (0, 1):
        assert seen[seat], f"seat {seat}'s page opened none of its cards"
        assert seen[seat] <= shown[seat], (seat, seen[seat], shown[seat])

    match = next(e for e in events if e["type"] == "match_won")
    winner, score = match["data"]["seat"], match["data"]["score"]
    for seat, driver in enumerate(players):
        wait_for(driver, lambda d: _checked(d) >= len(events), CRYPTO_WAIT_S)
        status = _status(driver)
        assert "match is over" in status
        assert ("you win" if seat == winner else f"seat {winner} wins") in status, status
        assert f"{max(score)}–{min(score)}" in status, (status, score)  # the winner's first
        result = driver.find_element(By.ID, "result").text
        assert ("you win it" if seat == winner else f"seat {winner} wins it") in result, result
        points = driver.find_element(By.ID, "scores").text
        assert f"{score[winner]} / 2" in points, points
        _no_failure(driver)
        assert_clean_console(driver)
        note = driver.find_element(By.ID, "blind-note").text  # no longer "this browser shuffles"
        assert note.endswith("nobody, the operator included, sees a card before its owner."), note
        # each page made its steps in a worker (its thread checked the chain meanwhile)
        assert driver.execute_script(WORKER_LOADED), "a step was made on the page's thread"
        screenshot(driver, tmp_path, f"blind-end-{'ab'[seat]}")
    _verify(live_server, _revealed_rounds(live_server, table_id))
    assert _get(live_server, f"/v1/tables/{table_id}")["view"]["options"]["dealing"] == "blind"


def test_a_reload_mid_round_says_the_round_is_lost_and_the_next_round_is_played(
    live_server: Server, browsers: Callable[[], Any], tmp_path: Path
) -> None:
    """A blind seat's round key lives in its tab's memory only: reloaded mid-round, the page
    resumes the seat but says plainly it cannot take part in that round, which ends at its
    next deadline; the next round is played with a fresh key, its cards opened again."""
    a, b = browsers(), browsers()
    _open(a, live_server)
    table_id = _create_blind(a, seed_seconds="20")
    _join(b, live_server, table_id)
    wait_for(a, lambda d: _click(d, "joiner_accepted"))
    wait_for(a, lambda d: _click(d, "open_round"))
    moves = {"hit", "stand", "blind", "golden_point"}
    wait_for(a, lambda d: any(moves & set(_buttons(p)) for p in (a, b)), CRYPTO_WAIT_S)
    wait_for(b, _private_cards)  # b opened its own cards with its party
    b.refresh()
    note = wait_for(
        b,
        lambda d: (
            d.find_element(By.ID, "blind-note").get_attribute("data-lost") == "1"
            and d.find_element(By.ID, "blind-note")
        ),
        CRYPTO_WAIT_S,
    )
    assert "reloaded during round 1" in note.text and "memory only" in note.text, note.text
    assert not _private_cards(b)  # its key gone, it opens none of its cards
    screenshot(b, tmp_path, "blind-reloaded")

    def round_over(_: Any) -> bool:
        for page in (a, b):  # the seats stand; b's missing answer ends the round in time
            _click(page, "stand")
        return "Round 1 is over" in _status(a)

    wait_for(a, round_over, CRYPTO_WAIT_S)
    wait_for(a, lambda d: _click(d, "open_round"), CRYPTO_WAIT_S)  # logs round 1's end first
    opened = lambda _: [e for e in _events(live_server, table_id) if e["type"] == "round_opened"]  # noqa: E731
    first = wait_for(a, lambda d: len(opened(d)) == 2 and opened(d)[0]["round"])
    ends = [e["type"] for e in _events(live_server, table_id) if e["round"] == first]
    assert any(kind.endswith("_timeout") for kind in ends), ends
    assert "round_revealed" in ends, ends
    wait_for(
        b,
        lambda d: d.find_element(By.ID, "blind-note").get_attribute("data-lost") == "",
        CRYPTO_WAIT_S,
    )
    wait_for(b, _private_cards, CRYPTO_WAIT_S)  # a fresh key, its cards opened
    assert b.find_element(By.ID, "blind-note").get_attribute("data-lost") == ""
    for page in (a, b):
        _no_failure(page)
