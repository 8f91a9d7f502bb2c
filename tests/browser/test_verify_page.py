"""The verify page in headless Chromium: a clean bundle shows VALID and the round's story
(the hands with their totals, who won what, cards, money); a tampered one shows INVALID and
its finding's code. Against a live service on which real rounds were played: a round
fetched by its id with this server's key, a Kvitlach round, a whole export dropped on
the page, and a filtered one, valid only as filtered. Screenshots are kept under the test's
tmp dir (their paths are printed)."""

import json
import random
import time
from pathlib import Path
from typing import Any

from bench.transport import raw
from tests.api import bots
from tests.api.conftest import OPERATOR_TOKEN, Server
from tests.browser.conftest import assert_clean_console, screenshot, wait_for
from tests.verifier.witnessed import ALICE, BOB, witnessed

VECTORS = Path(__file__).resolve().parents[1] / "vectors"


def _vector_round() -> tuple[str, str]:
    """The v2 vector export's round tbl-v2.1 bundle, and the log's verifier key."""
    vec = json.loads((VECTORS / "fairdeal-v2.json").read_text())
    bundle = next(b for b in vec["export"] if b["round_id"] == "tbl-v2.1")
    return json.dumps(bundle, indent=1), vec["verifier_key"]


def _verify(
    browser: Any,
    server: Server,
    text: str,
    key: str,
    partial: bool = False,
    witnesses: str = "",
    quorum: str = "",
) -> str:
    browser.get(server.url + "/verify")
    browser.execute_script(
        """const [text, key, partial, witnesses, quorum] = arguments;
        const paste = document.getElementById('paste');
        paste.value = text; paste.dispatchEvent(new Event('input'));
        document.getElementById('key').value = key;
        document.getElementById('partial').checked = partial;
        document.getElementById('witnesses').value = witnesses;
        document.getElementById('quorum').value = quorum;""",
        text,
        key,
        partial,
        witnesses,
        quorum,
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


def _logged(server: Server, round_id: str) -> None:
    """Waits until the round's bundle is served (its head is in the log)."""
    deadline = time.monotonic() + 15
    while raw(server.url, "GET", f"/v1/rounds/{round_id}/bundle").status != 200:
        assert time.monotonic() < deadline, f"round {round_id} never reached the log"
        time.sleep(0.1)


def _fetch_with_server_key(browser: Any, server: Server, round_id: str) -> str:
    browser.get(server.url + "/verify")
    browser.find_element("id", "round-id").send_keys(round_id)
    browser.find_element("id", "fetch").click()
    wait_for(browser, lambda d: "HTTP 200" in d.find_element("id", "status").text)
    browser.find_element("id", "server-key").click()
    wait_for(browser, lambda d: d.find_element("id", "key").get_attribute("value"))
    assert browser.find_element("id", "key-warning").is_displayed()
    browser.find_element("id", "verify").click()
    return str(
        wait_for(browser, lambda d: d.find_element("id", "result").get_attribute("data-verdict"))
    )


def _hands(browser: Any) -> list[tuple[str, str, str]]:
    rows = browser.find_elements("css selector", "#hands .hand")
    return [
        tuple(r.find_element("css selector", c).text for c in (".who", ".total", ".result"))
        for r in rows
    ]


def test_a_toto21_round_fetched_by_id_verifies_with_this_servers_key(
    browser: Any, live_server: Server, tmp_path: Path
) -> None:
    game = bots.toto21_table(live_server.url, {"stake": 10})
    round_id, _ = bots.play_toto21_round(game, random.Random(3))
    _logged(live_server, round_id)
    assert _fetch_with_server_key(browser, live_server, round_id) == "valid"
    key = browser.find_element("id", "key").get_attribute("value")
    assert key == raw(live_server.url, "GET", "/v1/keys").json["log"]["verifier_key"]
    hands = _hands(browser)
    assert sorted(h[0].split()[-1] for h in hands) == ["dealer", "player"]
    assert all(h[1].isdigit() for h in hands)
    assert any(h[2].startswith("wins") for h in hands) or "nobody" in hands[0][2]
    assert browser.find_element("id", "who-won").text.startswith("Who won what:")
    assert len(browser.find_elements("css selector", "#accounts tbody tr")) == 3  # pot, seats
    assert float(browser.find_element("id", "result").get_attribute("data-ms")) > 0
    screenshot(browser, tmp_path, "verify-live-toto21")
    assert_clean_console(browser)


def test_a_kvitlach_round_fetched_by_id_tells_each_hand_and_the_bank(
    browser: Any, live_server: Server, tmp_path: Path
) -> None:
    game = bots.kvitlach_table(live_server.url, 3, {"bank_funding": 100}, buy_in=200)
    round_id, _ = bots.play_kvitlach_round(game)
    _logged(live_server, round_id)
    assert _fetch_with_server_key(browser, live_server, round_id) == "valid"
    hands = _hands(browser)
    assert [h[0].split()[-1] for h in hands] == ["banker", "player", "player"]
    accounts = [r.text for r in browser.find_elements("css selector", "#accounts tbody tr")]
    assert any(a.startswith("bank ") for a in accounts), accounts
    screenshot(browser, tmp_path, "verify-live-kvitlach")
    assert_clean_console(browser)


def _drop(browser: Any, name: str, text: str) -> None:
    browser.execute_script(
        """const [name, text] = arguments;
        const data = new DataTransfer();
        data.items.add(new File([text], name, {type: 'application/jsonl'}));
        const zone = document.getElementById('drop');
        zone.dispatchEvent(new DragEvent('dragover', {dataTransfer: data, bubbles: true}));
        zone.dispatchEvent(new DragEvent('drop', {dataTransfer: data, bubbles: true}));""",
        name,
        text,
    )


def test_an_export_dropped_on_the_page_is_valid_and_an_edited_one_is_not(
    browser: Any, live_server: Server, tmp_path: Path
) -> None:
    game = bots.toto21_table(live_server.url)
    rounds = [bots.play_toto21_round(game, random.Random(n))[0] for n in range(2)]
    _logged(live_server, rounds[-1])
    export = raw(live_server.url, "GET", "/v1/export", token=OPERATOR_TOKEN).text
    assert len(export.splitlines()) >= 2
    key = raw(live_server.url, "GET", "/v1/keys").json["log"]["verifier_key"]
    edited = export.replace('"type":"round_won"', '"type":"round_lost"', 1)
    assert edited != export
    for text, verdict, shot in (
        (export, "valid", "verify-export-valid"),
        (edited, "invalid", "verify-export-invalid"),
    ):
        browser.get(live_server.url + "/verify")
        _drop(browser, "export.jsonl", text)
        wait_for(browser, lambda d: "export.jsonl" in d.find_element("id", "status").text)
        browser.execute_script("document.getElementById('key').value = arguments[0]", key)
        browser.find_element("id", "verify").click()
        got = wait_for(
            browser, lambda d: d.find_element("id", "result").get_attribute("data-verdict")
        )
        assert got == verdict
        screenshot(browser, tmp_path, shot)
    codes = [e.text for e in browser.find_elements("css selector", "#findings code")]
    assert "sig.hash_mismatch" in codes


def test_a_filtered_export_is_valid_on_the_page_only_when_ticked_as_filtered(
    browser: Any, live_server: Server, tmp_path: Path
) -> None:
    game = bots.toto21_table(live_server.url)
    rounds = [bots.play_toto21_round(game, random.Random(n))[0] for n in range(2)]
    _logged(live_server, rounds[-1])
    filtered = raw(live_server.url, "GET", "/v1/export?from_leaf=1", token=OPERATOR_TOKEN).text
    assert len(filtered.splitlines()) >= 2
    key = raw(live_server.url, "GET", "/v1/keys").json["log"]["verifier_key"]
    assert _verify(browser, live_server, filtered, key, partial=True) == "valid"
    screenshot(browser, tmp_path, "verify-filtered-partial")
    assert _verify(browser, live_server, filtered, key) == "invalid"
    codes = {e.text for e in browser.find_elements("css selector", "#findings code")}
    assert "log.round_missing" in codes
    assert_clean_console(browser)


def test_witness_keys_bound_when_the_round_was_logged(
    browser: Any, live_server: Server, tmp_path: Path
) -> None:
    """SPEC 7 step 18 on the page: a checkpoint cosigned by both witnesses given tells the
    witness-bounded time; required of a witness that did not cosign, it is witness.quorum."""
    text, key = _vector_round()
    bundle = witnessed(json.loads(text), ALICE)
    both = f"{ALICE.verifier_key()}\n{BOB.verifier_key()}\n"
    assert (
        _verify(browser, live_server, json.dumps(bundle), key, witnesses=both, quorum="1")
        == "valid"
    )
    logged = browser.find_element("id", "story-logged").text
    assert "the witness-bounded time" in logged and ALICE.name in logged, logged
    assert ".999Z (the end of POSIX second" in logged, logged
    screenshot(browser, tmp_path, "verify-witnessed")
    assert _verify(browser, live_server, json.dumps(bundle), key, witnesses=both) == "invalid"
    codes = [e.text for e in browser.find_elements("css selector", "#findings code")]
    assert codes == ["witness.quorum"]
    assert_clean_console(browser)
