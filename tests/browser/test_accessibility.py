"""Accessibility of the pages, checked by axe-core (vendored in tests/browser/axe/) in headless
Chromium: no serious or critical violation on the landing page, the invite page, a Toto21 and
a Kvitlach table in a round as a seated player (a refusal shown), the failure banner, and the
verify page, empty, with a result and with a round it has not. axe is put into the page by the
test through WebDriver, whose scripts the page's Content-Security-Policy does not govern (the
pages never load it, and their policy stays as it is); every violation is printed with its
nodes, and a serious or critical one fails the test. The moves are played from the keyboard
too: Tab to a move's button, then Enter or Space, with a visible focus outline on it."""

from collections.abc import Callable
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
    _AlterOneSignature,
    _buttons,
    _checked,
    _click,
    _create,
    _join,
    _kvitlach_table,
    _open,
)

pytest.importorskip("selenium")
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

AXE = Path(__file__).parent / "axe" / "axe.min.js"
FAILING = ("serious", "critical")  # the impacts that fail a test; the others are printed
PHONE = (390, 844)

# axe.run over the whole document, answering its violations (or why it could not run).
RUN_AXE = """
const done = arguments[arguments.length - 1];
axe.run(document, { resultTypes: ["violations"] })
  .then((result) => done(result.violations.map((v) => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map((n) => ({
      target: n.target.join(" "), html: n.html, summary: n.failureSummary,
    })),
  }))))
  .catch((error) => done({ error: String(error) }));
"""


def _violations(driver: Any, where: str) -> list[dict[str, Any]]:
    """axe's violations on the page as it is now, every one of them printed."""
    if not driver.execute_script("return typeof window.axe === 'object'"):
        driver.execute_script(AXE.read_text(encoding="utf-8"))
    driver.set_script_timeout(120)
    found = driver.execute_async_script(RUN_AXE)
    assert not isinstance(found, dict), f"axe could not run on {where}: {found}"
    for violation in found:
        print(f"{where}: {violation['impact']} {violation['id']} ({violation['help']})")
        for node in violation["nodes"]:
            print(f"    {node['target']}: {node['html'][:160]}")
            print("      " + node["summary"].replace("\n", "\n      "))
    return list(found)


def assert_accessible(driver: Any, where: str) -> None:
    found = _violations(driver, where)
    bad = [f"{v['impact']} {v['id']} x{len(v['nodes'])}" for v in found if v["impact"] in FAILING]
    assert not bad, f"{where}: serious or critical accessibility violations: {bad} (details above)"


def _open_details(driver: Any) -> None:
    """Every <details> open, so that axe checks what they fold too."""
    driver.execute_script("for (const d of document.querySelectorAll('details')) d.open = true;")


def _both_sizes(driver: Any, tmp_path: Path, name: str) -> None:
    """Screenshots at the desktop size and at a phone's width, axe run at both."""
    assert_accessible(driver, name)
    screenshot(driver, tmp_path, name)
    size = driver.get_window_size()
    driver.set_window_size(*PHONE)
    try:
        assert_accessible(driver, f"{name} (phone)")
        screenshot(driver, tmp_path, f"{name}-phone")
    finally:
        driver.set_window_size(size["width"], size["height"])


def _checked_past(count: int) -> Callable[[Any], bool]:
    """Whether the page has checked more than ``count`` events."""
    return lambda driver: _checked(driver) > count


def _revealed_round(driver: Any) -> str:
    """The round the page links to the verify page (a round over and revealed), or ''."""
    links = driver.find_elements(By.CSS_SELECTOR, "#table a[href^='/verify?round=']")
    href = links[0].get_attribute("href") if links else ""
    return str(href.split("round=", 1)[1]) if href else ""


def test_the_landing_invite_table_and_verify_pages_have_no_serious_violations(
    live_server: Server, browsers: Callable[[], Any], tmp_path: Path
) -> None:
    a, b = browsers(), browsers()
    _open(a, live_server)
    # The operator's key is one line at the foot of the page, its explanation folded.
    operator = a.find_element(By.CSS_SELECTOR, "footer #operator")
    assert operator.rect["height"] < 60 and operator.get_attribute("open") is None
    assert "Operator key:" in operator.text
    _both_sizes(a, tmp_path, "a11y-landing")
    _open_details(a)
    assert_accessible(a, "a11y-landing, every details open")

    table_id = _create(a, "toto21", target="2", move_seconds="120", seed_seconds="120")
    b.get(f"{live_server.url}/?table={table_id}")
    wait_for(b, lambda d: d.find_element(By.ID, "operator-key-id").text not in ("", "…"))
    _both_sizes(b, tmp_path, "a11y-invite")

    _join(b, live_server, table_id)
    wait_for(a, lambda d: _click(d, "joiner_accepted"))
    wait_for(a, lambda d: _click(d, "open_round"))
    # A round in play: one of the two has its moves (Hit, Stand, Blind card) on the page.
    mover = wait_for(a, lambda _: next((d for d in (a, b) if "stand" in _buttons(d)), None), 30)
    for driver in (a, b):
        _open_details(driver)
    # The event log numbers each event once, by its own #seq.
    first = mover.find_element(By.CSS_SELECTOR, "#event-log li")
    assert first.text.startswith("#"), first.text
    style = mover.execute_script(
        "return getComputedStyle(document.querySelector('#event-log li')).listStyleType"
    )
    assert style == "none"
    _both_sizes(mover, tmp_path, "a11y-toto21-moving")
    _both_sizes(a if mover is b else b, tmp_path, "a11y-toto21-waiting")
    # On a phone the moves stay in reach at the screen's foot, the page scrolled to its top.
    size = mover.get_window_size()
    mover.set_window_size(*PHONE)
    try:
        mover.execute_script("window.scrollTo(0, 0)")
        bar = mover.execute_script(
            "const r = document.getElementById('actions').getBoundingClientRect();"
            "return [r.top, r.bottom, innerHeight];"
        )
        assert bar[0] < bar[2] and bar[1] <= bar[2] + 1, bar
        screenshot(mover, tmp_path, "a11y-toto21-moving-phone-top")
    finally:
        mover.set_window_size(size["width"], size["height"])

    # The mover stands; the dealer then stands too: the round ends and is revealed.
    for _ in range(4):
        if _revealed_round(a):
            break
        driver = wait_for(
            a,
            lambda _: (
                next((d for d in (a, b) if "stand" in _buttons(d)), None) or _revealed_round(a)
            ),
            30,
        )
        if isinstance(driver, str):
            break
        before = _checked(driver)
        wait_for(driver, lambda d: _click(d, "stand"))
        wait_for(driver, _checked_past(before))
    round_id = wait_for(a, _revealed_round, 30)
    _both_sizes(a, tmp_path, "a11y-toto21-revealed")
    for driver in (a, b):
        assert_clean_console(driver)

    b.get(f"{live_server.url}/verify")
    wait_for(b, lambda d: d.find_element(By.ID, "round-id").is_displayed())
    _open_details(b)
    _both_sizes(b, tmp_path, "a11y-verify-empty")
    b.get(f"{live_server.url}/verify?round={round_id}")
    wait_for(b, lambda d: d.find_element(By.ID, "verdict").text == "VALID")
    _both_sizes(b, tmp_path, "a11y-verify-valid")
    assert_clean_console(b)
    b.get(f"{live_server.url}/verify?round={table_id}.99")
    wait_for(b, lambda d: d.find_element(By.ID, "fetch-status").text)
    assert b.find_element(By.ID, "fetch-status").get_attribute("data-code") == "not_found"
    _both_sizes(b, tmp_path, "a11y-verify-no-such-round")
    # The one console error: the browser's own line for the 404 the page asked for.
    assert all("404" in line for line in console_errors(b)), console_errors(b)


def test_a_kvitlach_table_in_a_round_has_no_serious_violations(
    live_server: Server, browsers: Callable[[], Any], tmp_path: Path
) -> None:
    a, b, _table_id = _kvitlach_table(live_server, browsers, "classic")
    wait_for(a, lambda d: _click(d, "open_round"), 30)
    # A bet to make: its amount box and its button.
    mover = wait_for(a, lambda _: next((d for d in (a, b) if "bet" in _buttons(d)), None), 30)
    _open_details(mover)
    _both_sizes(mover, tmp_path, "a11y-kvitlach-betting")
    # A bet over the limit: the server's refusal in plain words, its code in small print.
    amount = mover.find_element(By.CSS_SELECTOR, "[data-amount-for=bet]")
    amount.clear()
    amount.send_keys("99999")
    wait_for(mover, lambda d: _click(d, "bet"))
    notice = wait_for(
        mover,
        lambda d: (
            d.find_element(By.ID, "notice").get_attribute("data-code")
            and d.find_element(By.ID, "notice")
        ),
    )
    assert notice.get_attribute("data-code") == "over_limit"
    assert notice.text.startswith("That amount is more than allowed here"), notice.text
    assert "422" not in notice.text
    assert not mover.find_element(By.ID, "failure").is_displayed()
    _both_sizes(mover, tmp_path, "a11y-kvitlach-refused")
    # The one console error: the browser's own line for the refusal (422).
    assert all("422" in line for line in console_errors(mover)), console_errors(mover)


def test_the_failure_banner_has_no_serious_violations(
    browsers: Callable[[], Any], tmp_path: Path
) -> None:
    with serve_live(tmp_path, wrap=_AlterOneSignature) as server:
        a, _b, _table_id = _kvitlach_table(server, browsers, "pressburg")
        wait_for(a, lambda d: _click(d, "open_round"), 30)
        wait_for(a, lambda d: d.find_element(By.ID, "failure").is_displayed())
        _both_sizes(a, tmp_path, "a11y-check-failed")


def _tab_to(driver: Any, selector: str, most: int = 60) -> Any:
    """Press Tab until the element matching ``selector`` has the focus; that element."""
    driver.execute_script("document.activeElement?.blur(); window.scrollTo(0, 0);")
    keys = ActionChains(driver)
    for _ in range(most):
        keys.send_keys(Keys.TAB).perform()
        if driver.execute_script("return document.activeElement.matches(arguments[0])", selector):
            return driver.switch_to.active_element
    raise AssertionError(f"{selector} is not reached by {most} presses of Tab")


def _focus_ring(driver: Any) -> tuple[str, float]:
    """The focused element's outline: its style and width in px."""
    style, width = driver.execute_script(
        "const s = getComputedStyle(document.activeElement);"
        "return [s.outlineStyle, parseFloat(s.outlineWidth) || 0];"
    )
    return str(style), float(width)


def test_a_round_is_dealt_and_played_from_the_keyboard(
    live_server: Server, browsers: Callable[[], Any], tmp_path: Path
) -> None:
    a, b = browsers(), browsers()
    _open(a, live_server)
    table_id = _create(a, "toto21", target="2", move_seconds="120", seed_seconds="120")
    _join(b, live_server, table_id)
    _tab_to(a, "#actions button[data-action=joiner_accepted]")
    ActionChains(a).send_keys(Keys.ENTER).perform()
    wait_for(a, lambda d: "open_round" in _buttons(d))

    # Deal the next round: Tab to it, Enter; the button shows where the focus is.
    before = _checked(a)
    deal = _tab_to(a, "#actions button[data-action=open_round]")
    style, width = _focus_ring(a)
    assert style != "none" and width >= 2, (style, width)
    screenshot(a, tmp_path, "a11y-keyboard-deal-focused")
    assert deal.text.startswith("Deal"), deal.text
    ActionChains(a).send_keys(Keys.ENTER).perform()
    wait_for(a, lambda d: _checked(d) > before)

    # A move: Tab to Stand, Space.
    mover = wait_for(a, lambda _: next((d for d in (a, b) if "stand" in _buttons(d)), None), 30)
    before = _checked(mover)
    _tab_to(mover, "#actions button[data-action=stand]")
    style, width = _focus_ring(mover)
    assert style != "none" and width >= 2, (style, width)
    screenshot(mover, tmp_path, "a11y-keyboard-stand-focused")
    ActionChains(mover).send_keys(Keys.SPACE).perform()
    wait_for(mover, _checked_past(before))
    wait_for(mover, lambda d: "stand" not in _buttons(d) or _checked(d) > before + 1)
    for driver in (a, b):
        assert not driver.find_element(By.ID, "failure").is_displayed()
        assert_clean_console(driver)


def test_the_rules_page_has_no_serious_violations(
    live_server: Server, browser: Any, tmp_path: Path
) -> None:
    browser.get(f"{live_server.url}/rules#kvitlach-pressburg")
    wait_for(browser, lambda d: d.find_element(By.ID, "kvitlach-pressburg").is_displayed())
    _both_sizes(browser, tmp_path, "a11y-rules")
    assert_clean_console(browser)
