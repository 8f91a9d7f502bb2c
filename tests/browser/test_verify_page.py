"""The verify page in headless Chromium: a clean bundle shows VALID and the round's story
(cards, money); a tampered one shows INVALID and its finding's code. Screenshots are kept
under the test's tmp dir (their paths are printed)."""

import json
from pathlib import Path
from typing import Any

from tests.api.conftest import Server
from tests.browser.conftest import assert_clean_console, screenshot, wait_for

VECTORS = Path(__file__).resolve().parents[1] / "vectors"


def _vector_round() -> tuple[str, str]:
    """The v2 vector export's round tbl-v2.1 bundle, and the log's verifier key."""
    vec = json.loads((VECTORS / "fairdeal-v2.json").read_text())
    bundle = next(b for b in vec["export"] if b["round_id"] == "tbl-v2.1")
    return json.dumps(bundle, indent=1), vec["verifier_key"]


def _verify(browser: Any, server: Server, text: str, key: str) -> str:
    browser.get(server.url + "/verify")
    browser.execute_script(
        """const [text, key] = arguments;
        const paste = document.getElementById('paste');
        paste.value = text; paste.dispatchEvent(new Event('input'));
        document.getElementById('key').value = key;""",
        text,
        key,
    )
    browser.find_element("id", "verify").click()
    return str(
        wait_for(browser, lambda d: d.find_element("id", "result").get_attribute("data-verdict"))
    )


def test_a_clean_bundle_is_valid_and_told(
    browser: Any, live_server: Server, tmp_path: Path
) -> None:
    text, key = _vector_round()
    assert _verify(browser, live_server, text, key) == "valid"
    assert browser.find_element("id", "verdict").text == "VALID"
    assert browser.find_element("id", "story").is_displayed()
    assert len(browser.find_elements("css selector", "#cards figure")) >= 4
    assert len(browser.find_elements("css selector", "#money tbody tr")) >= 1
    screenshot(browser, tmp_path, "verify-valid")
    assert_clean_console(browser)


def test_a_tampered_bundle_is_invalid_with_its_code(
    browser: Any, live_server: Server, tmp_path: Path
) -> None:
    text, key = _vector_round()
    bundle = json.loads(text)
    bundle["events"][-1]["event"]["time"] += 1
    assert _verify(browser, live_server, json.dumps(bundle), key) == "invalid"
    assert browser.find_element("id", "verdict").text == "INVALID"
    codes = [e.text for e in browser.find_elements("css selector", "#findings code")]
    assert "sig.hash_mismatch" in codes
    screenshot(browser, tmp_path, "verify-invalid")
