"""The pages load in Chromium under their Content-Security-Policy with a clean console (a CSP
violation is a SEVERE entry) and fetch nothing from another host."""

from typing import Any

import pytest

from tests.api.conftest import Server
from tests.browser.conftest import assert_clean_console, wait_for

pytest.importorskip("selenium")
from selenium.webdriver.common.by import By


def _resources(driver: Any) -> list[str]:
    names = driver.execute_script(
        "return performance.getEntriesByType('resource').map((e) => e.name)"
    )
    return [str(n) for n in names]


def test_the_play_page_loads_clean_and_pins_the_operator_key(
    browser: Any, live_server: Server
) -> None:
    browser.get(live_server.url + "/")
    key_id = wait_for(browser, lambda d: d.find_element(By.ID, "operator-key-id").text != "…")
    assert key_id
    kid = browser.find_element(By.ID, "operator-key-id").text
    assert kid in _get_key_ids(live_server)
    assert all(url.startswith(live_server.url) for url in _resources(browser))
    assert_clean_console(browser)


def test_the_docs_render_under_their_policy_from_this_host_alone(
    browser: Any, live_server: Server
) -> None:
    browser.get(live_server.url + "/docs")
    wait_for(browser, lambda d: "Create a table" in d.find_element(By.TAG_NAME, "body").text)
    assert all(url.startswith(live_server.url) for url in _resources(browser))
    assert_clean_console(browser)


def _get_key_ids(server: Server) -> list[str]:
    return [k["key_id"] for k in server.client().request("GET", "/v1/keys")["keys"]]
