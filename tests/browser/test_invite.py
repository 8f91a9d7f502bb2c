"""The invite link says what it invites to before anyone joins: the game and its rule set,
the stake or the bank, ante and bets, the times, who sits there; the form asks only what that
game needs (a buy-in for Kvitlach alone), and a link nobody can use says why."""

from pathlib import Path
from typing import Any

import pytest

from tests.api.conftest import Server
from tests.browser.conftest import assert_clean_console, screenshot, wait_for
from tests.browser.test_play import _create, _open

pytest.importorskip("selenium")
from selenium.webdriver.common.by import By


def _invited(driver: Any, server: Server, table_id: str) -> str:
    driver.get(f"{server.url}/?table={table_id}")
    about = wait_for(
        driver, lambda d: d.find_element(By.ID, "invite-about").is_displayed() and d
    ).find_element(By.ID, "invite-about")
    return str(about.text)


def _shown(driver: Any, element_id: str) -> bool:
    return bool(driver.find_element(By.ID, element_id).is_displayed())


def test_a_toto21_invite_says_the_match_and_asks_no_buy_in(
    live_server: Server, browsers: Any, tmp_path: Path
) -> None:
    a, b, c = browsers(), browsers(), browsers()
    _open(a, live_server)
    table_id = _create(a, "toto21", target="6", stake="25", move_seconds="45")
    about = _invited(b, live_server, table_id)
    screenshot(b, tmp_path, "invite-toto21")
    for said in ("Toto21", "first to 6 points", "a stake of 25 from each player", "45 s a move"):
        assert said in about, (said, about)
    assert "waiting for a second player" in about
    assert not _shown(b, "create-form") and _shown(b, "own-table")
    assert not b.find_element(By.CSS_SELECTOR, "#join-form .kv-only").is_displayed()
    assert b.find_element(By.ID, "invite-rules").get_attribute("href").endswith("/rules#toto21")
    b.find_element(By.ID, "join").click()
    wait_for(b, lambda d: d.find_element(By.ID, "table-id").text == table_id)
    # A third player's link to the full table says so, and offers to watch.
    about = _invited(c, live_server, table_id)
    assert "Both seats are taken" in about and "You can watch it" in about
    assert not c.find_element(By.ID, "join").is_enabled()
    assert_clean_console(b)


def test_a_kvitlach_invite_says_the_bank_ante_and_bets_and_asks_the_buy_in(
    live_server: Server, browsers: Any, tmp_path: Path
) -> None:
    a, b = browsers(), browsers()
    _open(a, live_server)
    table_id = _create(a, "kvitlach", rule_set="pressburg", bank_funding="40", buy_in="300")
    about = _invited(b, live_server, table_id)
    screenshot(b, tmp_path, "invite-kvitlach")
    for said in (
        "Kvitlach, Pressburg rules",
        "funds the bank with 40",
        "an ante of 20",
        "bets of 1 to 20",
        "1 of 4 seats taken: seat 0 (banker)",
    ):
        assert said in about, (said, about)
    assert (
        b.find_element(By.ID, "invite-rules")
        .get_attribute("href")
        .endswith("/rules#kvitlach-pressburg")
    )
    assert _shown(b, "buy-in-hint") and "At least 21" in b.find_element(By.ID, "buy-in-hint").text
    buy_in = b.find_element(By.CSS_SELECTOR, "#join-form input[name=buy_in]")
    buy_in.clear()
    buy_in.send_keys("120")
    b.find_element(By.ID, "join").click()
    wait_for(b, lambda d: d.find_element(By.ID, "table-id").text == table_id)
    scores = wait_for(b, lambda d: d.find_element(By.ID, "scores").text)
    assert "120" in scores
    terms = b.find_element(By.ID, "table-terms").text
    assert "funds the bank with 40" in terms


def test_an_invite_to_no_table_says_so(live_server: Server, browser: Any) -> None:
    browser.get(f"{live_server.url}/?table=t0123456789abcdef")
    problem = wait_for(browser, lambda d: d.find_element(By.ID, "join-problem").text)
    assert "There is no table t0123456789abcdef on this server" in problem
    assert "404" not in problem
