"""What the play page says around a round's end, as a player (or a watcher) reads it: a round
ended by a timeout is told before the next deal is offered; notes true of a moment (a seat
resumed, a timeout) are taken down once the table has moved past it; a watcher's totals are
named for what it sees; a seat over 21 is told it is bust, on its own page only; and on a
phone the move bar is a strip, its moves side by side."""

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.api.conftest import Server
from tests.browser.conftest import assert_clean_console, screenshot, serve_live, wait_for
from tests.browser.test_play import (
    _buttons,
    _checked,
    _click,
    _create,
    _events,
    _join,
    _no_failure,
    _open,
    _status,
)

pytest.importorskip("selenium")
from selenium.webdriver.common.by import By

PHONE = (390, 844)
# Every status the page shows, with the result shown beside it at that moment (one draw).
RECORD = """
window.said = [];
const note = () => {
  const result = document.getElementById('result');
  const headline = result.hidden ? '' : document.getElementById('result-headline').textContent;
  window.said.push([document.getElementById('status').textContent, headline]);
};
new MutationObserver(note).observe(document.getElementById('status'),
  {childList: true, characterData: true, subtree: true});
note();
"""


def _said(driver: Any) -> list[tuple[str, str]]:
    return [tuple(pair) for pair in driver.execute_script("return window.said;")]


def _dealt_without_result(driver: Any) -> list[tuple[str, str]]:
    """Each moment the page offered the next deal while the round just over was not told."""
    found = []
    for status, headline in _said(driver):
        if "Deal the next one" in status:
            number = status.split(" ", 2)[1]  # "Round N is over. Deal the next one."
            if f"Round {number}" not in headline:
                found.append((status, headline))
    return found


def _notice(driver: Any) -> str:
    notice = driver.find_element(By.ID, "notice")
    return str(notice.text) if notice.is_displayed() else ""


def _totals(driver: Any) -> list[str]:
    return [str(t.text) for t in driver.find_elements(By.CSS_SELECTOR, "#felt .total")]


def _timeout_shown(driver: Any) -> bool:
    return bool(driver.find_element(By.ID, "timeout-note").is_displayed())


def _stand_until_over(pages: list[Any]) -> None:
    """Each seat stands in its turn until the round is over on the first page."""

    def over(_: Any) -> bool:
        for page in pages:
            _click(page, "stand")
        return "is over" in _status(pages[0]) and "Deal the next one" in _status(pages[0])

    wait_for(pages[0], over, 30)


def _round_told(status: str) -> bool:
    return "Deal the next one" in status or "match is over" in status


def _mover(pages: list[Any]) -> Any:
    return wait_for(pages[0], lambda _: next((p for p in pages if "stand" in _buttons(p)), None))


def test_a_round_ended_by_timeouts_is_told_before_the_next_deal_is_offered(
    browsers: Callable[[], Any], tmp_path: Path
) -> None:
    """A read applies the passed deadlines in memory; the sweeper logs them later (here, when
    the test sweeps). Until the page has checked the round's end it says so and offers no
    Deal; the result comes with the offer, never after it."""
    with serve_live(tmp_path) as server:  # no sweeper: the test logs the timeouts itself
        a, b = browsers(), browsers()
        _open(a, server)
        table_id = _create(a, "toto21", target="2", move_seconds="5", seed_seconds="5")
        _join(b, server, table_id)
        wait_for(a, lambda d: _click(d, "joiner_accepted"))
        wait_for(a, lambda d: _click(d, "open_round"))
        player = _mover([a, b])  # the player stands; the dealer does not move
        for page in (a, b):
            page.execute_script(RECORD)
        wait_for(player, lambda d: _click(d, "stand"))
        # The dealer's deadline passes: the views show the round over, the log does not have
        # it yet (a view applies one passed deadline; the next one it makes is not passed).
        for page in (a, b):
            wait_for(page, lambda d: "Round 1 is over" in _status(d), 30)
        assert not [e for e in _events(server, table_id) if e["type"] == "move_timeout"]
        for page in (a, b):
            assert "logging how it ended" in _status(page), _status(page)
            assert "open_round" not in _buttons(page)
            assert not page.find_element(By.ID, "result").is_displayed()
        screenshot(a, tmp_path, "ending-logged-soon")
        assert server.service.sweep() == 1
        for page in (a, b):
            wait_for(page, lambda d: "Deal the next one" in _status(d))
            headline = wait_for(page, lambda d: d.find_element(By.ID, "result-headline").text)
            assert headline.startswith("Round 1:"), headline
            note = page.find_element(By.ID, "timeout-note")
            assert note.is_displayed() and note.get_attribute("data-type") == "move_timeout"
            assert not _dealt_without_result(page), _dealt_without_result(page)
            _no_failure(page)
            assert_clean_console(page)
        assert "open_round" in _buttons(a)
        screenshot(a, tmp_path, "ending-told")


def test_a_watcher_s_totals_are_of_the_face_up_cards(
    live_server: Server, browsers: Callable[[], Any], tmp_path: Path
) -> None:
    """A watcher sees the face-up cards only: its totals say so, not "Cards you see"."""
    a, b, c = browsers(), browsers(), browsers()
    _open(a, live_server)
    table_id = _create(a, "toto21", target="4", move_seconds="120", seed_seconds="60")
    _join(b, live_server, table_id)
    wait_for(a, lambda d: _click(d, "joiner_accepted"))
    wait_for(a, lambda d: _click(d, "open_round"))
    _mover([a, b])
    c.get(f"{live_server.url}/?table={table_id}")
    wait_for(c, lambda d: d.find_element(By.ID, "watch").is_displayed())
    c.find_element(By.ID, "watch").click()
    wait_for(c, lambda d: "watching" in d.find_element(By.ID, "seat-name").text)
    totals = wait_for(c, _totals)
    assert totals and all(t.startswith("Face-up cards total: ") for t in totals), totals
    screenshot(c, tmp_path, "watcher-face-up")
    for page in (a, b):  # a seat's own page names what it sees
        assert any(t.startswith("Cards you see: ") for t in wait_for(page, _totals))
    for page in (a, b, c):
        _no_failure(page)
        assert_clean_console(page)


def test_a_resume_note_goes_once_the_next_round_opens(
    live_server: Server, browsers: Callable[[], Any], tmp_path: Path
) -> None:
    """A seat resumed after a reload is told so, and the note stays while it is the news;
    once the next round opens it is gone (it was kept until the seat's next click)."""
    a, b = browsers(), browsers()
    _open(a, live_server)
    table_id = _create(a, "toto21", target="4", move_seconds="120", seed_seconds="60")
    _join(b, live_server, table_id)
    wait_for(a, lambda d: _click(d, "joiner_accepted"))
    wait_for(a, lambda d: _click(d, "open_round"))
    _stand_until_over([a, b])
    b.refresh()
    resumed = wait_for(b, lambda d: "resumed" in _notice(d) and _notice(d))
    assert "Seat 1 resumed" in resumed, resumed
    wait_for(b, lambda d: "Deal the next one" in _status(d))
    assert "resumed" in _notice(b)  # still true: nothing has happened since
    screenshot(b, tmp_path, "resumed")
    wait_for(a, lambda d: _click(d, "open_round"))
    wait_for(b, lambda d: "move" in _status(d) and "Round 1" not in _status(d), 30)
    assert not _notice(b), _notice(b)
    screenshot(b, tmp_path, "resumed-next-round")
    for page in (a, b):
        _no_failure(page)
        assert_clean_console(page)


@pytest.mark.ci  # a match played to its end: a long run, which CI adds
def test_a_timeout_note_is_of_its_table_and_each_result_comes_with_the_deal_offer(
    browsers: Callable[[], Any], tmp_path: Path
) -> None:
    """With the sweeper logging the timeouts, a match nobody moves in is played to its end:
    every round's result is on the page whenever the next deal is offered; the last round's
    timeout note is of that table, and goes with a rematch (a new table)."""
    with serve_live(tmp_path, sweep_interval_s=1) as server:
        a, b = browsers(), browsers()
        _open(a, server)
        table_id = _create(a, "toto21", target="2", move_seconds="5", seed_seconds="5")
        _join(b, server, table_id)
        wait_for(a, lambda d: _click(d, "joiner_accepted"))
        for page in (a, b):
            wait_for(page, lambda d: "open_round" in _buttons(d))
            page.execute_script(RECORD)
        for _ in range(6):
            if "match is over" in _status(a):
                break
            wait_for(a, lambda d: _click(d, "open_round") or "match is over" in _status(d))
            wait_for(a, lambda d: "Move due" in d.find_element(By.ID, "timers").text)
            wait_for(a, lambda d: _round_told(_status(d)), 30)
        wait_for(a, lambda d: "match is over" in _status(d))
        for page in (a, b):
            assert not _dealt_without_result(page), _dealt_without_result(page)
            wait_for(page, lambda d: "The match is over" in d.find_element(By.ID, "result").text)
            assert _timeout_shown(page)
        wait_for(a, lambda d: d.find_element(By.ID, "rematch").is_displayed())
        a.find_element(By.ID, "rematch").click()
        wait_for(a, lambda d: d.find_element(By.ID, "table-id").text not in ("", table_id))
        wait_for(a, lambda d: "Waiting for a second player" in _status(d))
        assert not _timeout_shown(a), a.find_element(By.ID, "timeout-note").text
        _no_failure(a)
        assert_clean_console(a)


def _own_total(driver: Any) -> int | None:
    """The total of the cards this page's seat sees, on its own hand (on its turn)."""
    lines = driver.find_elements(By.CSS_SELECTOR, ".seat-area.on-turn .total")
    totals = [line.text for line in lines if line.text.startswith("Cards you see: ")]
    return int(totals[0].rsplit(" ", 1)[-1]) if totals else None


def test_a_dealer_over_21_is_told_it_is_bust_and_the_player_is_not(
    live_server: Server, browsers: Callable[[], Any], tmp_path: Path
) -> None:
    """The player stands; the dealer draws until the cards it sees reach 21. Over 21, its own
    page says it is bust; the player's page says nothing of the dealer's hidden cards."""
    a, b = browsers(), browsers()
    _open(a, live_server)
    table_id = _create(a, "toto21", target="10", move_seconds="120", seed_seconds="60")
    _join(b, live_server, table_id)
    wait_for(a, lambda d: _click(d, "joiner_accepted"))
    pages = [a, b]
    for _ in range(8):
        wait_for(a, lambda d: _click(d, "open_round"))
        player = _mover(pages)
        dealer = b if player is a else a
        wait_for(player, lambda d: _click(d, "stand"))
        wait_for(dealer, lambda d: "hit" in _buttons(d) or "stand" in _buttons(d))
        while (total := wait_for(dealer, _own_total)) < 21:
            assert not dealer.find_elements(By.CSS_SELECTOR, "#felt .bust")
            before = _checked(dealer)
            wait_for(dealer, lambda d: _click(d, "hit"))
            wait_for(dealer, lambda d, n=before: _checked(d) > n and _own_total(d) is not None)
        if total > 21:
            break
        wait_for(dealer, lambda d: _click(d, "stand"))
        wait_for(a, lambda d: "Deal the next one" in _status(d), 30)
    else:
        pytest.fail("the dealer never went over 21 in 8 rounds")
    bust = wait_for(
        dealer, lambda d: d.find_element(By.CSS_SELECTOR, ".seat-area.on-turn .bust").text
    )
    assert f"Bust: your cards total {total}, over 21" in bust, bust
    wait_for(player, lambda d: _checked(d) >= _checked(dealer))
    assert not player.find_elements(By.CSS_SELECTOR, "#felt .bust")
    # On the player's page the dealer's hand counts its up-card only.
    seen = wait_for(  # read in a wait: the page draws its felt again on every poll
        player,
        lambda d: [t.text for t in d.find_elements(By.CSS_SELECTOR, ".seat-area.on-turn .total")],
    )
    assert len(seen) == 1 and int(seen[0].rsplit(" ", 1)[-1]) <= 11, seen
    screenshot(dealer, tmp_path, "dealer-bust")
    dealer.set_window_size(*PHONE)
    screenshot(dealer, tmp_path, "dealer-bust-phone")
    for page in pages:
        _no_failure(page)
        assert_clean_console(page)


def test_on_a_phone_the_move_bar_is_one_row_in_view(
    live_server: Server, browsers: Callable[[], Any], tmp_path: Path
) -> None:
    """The player's first moves (hit, blind card, stand) side by side in a strip at the
    screen's foot, in view with the page at its top."""
    a, b = browsers(), browsers()
    _open(a, live_server)
    table_id = _create(a, "toto21", target="4", move_seconds="120", seed_seconds="60")
    _join(b, live_server, table_id)
    wait_for(a, lambda d: _click(d, "joiner_accepted"))
    wait_for(a, lambda d: _click(d, "open_round"))
    player = _mover([a, b])
    assert {"hit", "blind", "stand"} <= set(_buttons(player))
    player.set_window_size(*PHONE)
    player.execute_script("window.scrollTo(0, 0)")
    top, bottom, height, tops = player.execute_script(
        "const r = document.getElementById('actions').getBoundingClientRect();"
        "const tops = [...document.querySelectorAll('#actions button')]"
        ".map((b) => b.getBoundingClientRect().top);"
        "return [r.top, r.bottom, innerHeight, tops];"
    )
    assert top < height and bottom <= height + 1, (top, bottom, height)
    print(f"move bar: {bottom - top:.0f} of {height} px")
    assert bottom - top <= 0.2 * height, (bottom - top, height)
    assert max(tops) - min(tops) < 2, tops  # one row
    screenshot(player, tmp_path, "move-bar-phone")
    player.execute_script("window.scrollTo(0, document.body.scrollHeight)")
    screenshot(player, tmp_path, "move-bar-phone-foot")
    _no_failure(player)


@pytest.mark.ci  # a match played to its end: a long run, which CI adds
def test_a_blind_dealer_over_21_is_told_it_is_bust_on_its_page_alone(
    live_server: Server, browsers: Callable[[], Any], tmp_path: Path
) -> None:
    """At a dealer-blind table the service sees no card: the dealer's page opens its own cards
    (SPEC 11.4 step 7: the dealer sees all its own) and says it is bust over 21; the player's
    page, which sees the dealer's up-card only until the showdown, says nothing of it."""
    from tests.browser.test_play_blind import CRYPTO_WAIT_S, _create_blind, _private_cards

    a, b = browsers(), browsers()
    _open(a, live_server)
    _create_blind(a, target="10")
    table_id = a.find_element(By.ID, "table-id").text
    _join(b, live_server, table_id)
    wait_for(a, lambda d: _click(d, "joiner_accepted"))
    pages = [a, b]
    for _ in range(6):
        wait_for(a, lambda d: _click(d, "open_round"), CRYPTO_WAIT_S)
        player = wait_for(
            a, lambda _: next((p for p in pages if "stand" in _buttons(p)), None), CRYPTO_WAIT_S
        )
        dealer = b if player is a else a
        wait_for(player, lambda d: _click(d, "stand"))
        wait_for(dealer, lambda d: "stand" in _buttons(d), CRYPTO_WAIT_S)
        while (total := wait_for(dealer, _own_total)) < 21:
            assert not dealer.find_elements(By.CSS_SELECTOR, "#felt .bust")
            held = len(_private_cards(dealer))
            wait_for(dealer, lambda d: _click(d, "hit"))
            wait_for(
                dealer,
                lambda d, n=held: len(_private_cards(d)) > n and "stand" in _buttons(d),
                CRYPTO_WAIT_S,
            )
        if total > 21:
            break
        wait_for(dealer, lambda d: _click(d, "stand"))
        wait_for(a, lambda d: "Deal the next one" in _status(d), CRYPTO_WAIT_S)
    else:
        pytest.fail("the dealer never went over 21 in 6 rounds")
    bust = wait_for(
        dealer, lambda d: d.find_element(By.CSS_SELECTOR, ".seat-area.on-turn .bust").text
    )
    assert f"Bust: your cards total {total}, over 21" in bust, bust
    assert "hit" not in _buttons(dealer)
    wait_for(player, lambda d: _checked(d) >= _checked(dealer), CRYPTO_WAIT_S)
    assert not player.find_elements(By.CSS_SELECTOR, "#felt .bust")
    seen = wait_for(  # read in a wait: the page draws its felt again on every poll
        player,
        lambda d: [t.text for t in d.find_elements(By.CSS_SELECTOR, ".seat-area.on-turn .total")],
    )
    assert len(seen) == 1 and int(seen[0].rsplit(" ", 1)[-1]) <= 11, seen  # the up-card only
    dealer.execute_script("document.getElementById('felt').scrollIntoView()")
    screenshot(dealer, tmp_path, "blind-dealer-bust")
    player.execute_script("document.getElementById('felt').scrollIntoView()")
    screenshot(player, tmp_path, "blind-player-while-dealer-bust")
    dealer.set_window_size(*PHONE)
    dealer.execute_script("document.getElementById('felt').scrollIntoView()")
    screenshot(dealer, tmp_path, "blind-dealer-bust-phone")
    for page in pages:
        _no_failure(page)
        assert_clean_console(page)
