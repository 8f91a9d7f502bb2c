"""The verify page in headless Chromium: a clean bundle shows VALID and the round's story
(the hands with their totals, who won what, cards, money); a tampered one shows INVALID and
its finding's code. Against a live service on which real rounds were played: a round
checked by its id with no key given (Advanced folded: this server's key is used, with the
warning that it proves less), the play page's link to a finished round (/verify?round=<id>),
a Kvitlach round's funding and antes told apart from its bets, a whole export dropped on
the page, and a filtered one, valid only as filtered. Screenshots are kept under the test's
tmp dir (their paths are printed)."""

import json
import random
import re
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


def _check_by_id(browser: Any, server: Server, round_id: str) -> str:
    """The round checked by its id as a newcomer does: typed, "Check this round", no key
    given (this server's own is used and the page says it proves less)."""
    browser.get(server.url + "/verify")
    assert browser.find_element("id", "advanced").get_attribute("open") is None
    assert not browser.find_element("id", "key").is_displayed()  # folded under Advanced
    browser.find_element("id", "round-id").send_keys(round_id)
    browser.find_element("id", "fetch").click()
    verdict = wait_for(
        browser, lambda d: d.find_element("id", "result").get_attribute("data-verdict")
    )
    assert browser.find_element("id", "key").get_attribute("value") == ""
    assert browser.find_element("id", "key-warning").is_displayed()
    return str(verdict)


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
    assert _check_by_id(browser, live_server, round_id) == "valid"
    development = raw(live_server.url, "GET", "/v1/keys").json["development_key"]
    warning = browser.find_element("id", "key-warning")
    assert warning.get_attribute("data-development") == str(development).lower()
    hands = _hands(browser)
    assert sorted(h[0].split()[-1] for h in hands) == ["dealer", "player"]
    assert all(h[1].isdigit() for h in hands)
    assert any(h[2].startswith("wins") for h in hands) or "nobody" in hands[0][2]
    assert browser.find_element("id", "who-won").text.startswith("Who won what:")
    assert len(browser.find_elements("css selector", "#accounts tbody tr")) == 3  # pot, seats
    assert float(browser.find_element("id", "result").get_attribute("data-ms")) > 0
    assert "--" not in browser.find_element("id", "story-logged").text
    screenshot(browser, tmp_path, "verify-live-toto21")
    browser.execute_script("scrollTo(0, 0)")
    screenshot(browser, tmp_path, "verify-live-toto21-top")
    assert_clean_console(browser)


def test_the_play_pages_link_checks_a_finished_round_at_once(
    browser: Any, live_server: Server, tmp_path: Path
) -> None:
    """A round over on the play page links to /verify?round=<id> (in a tab of its own), which
    fetches that round and verifies it at once with this server's key."""
    game = bots.toto21_table(live_server.url)
    round_id, _ = bots.play_toto21_round(game, random.Random(5))
    _logged(live_server, round_id)
    browser.get(f"{live_server.url}/?table={game.table_id}")
    wait_for(browser, lambda d: d.find_element("id", "watch").is_displayed())
    browser.find_element("id", "watch").click()
    link = wait_for(browser, lambda d: d.find_elements("link text", "Check this round"))[0]
    assert link.get_attribute("href") == f"{live_server.url}/verify?round={round_id}"
    screenshot(browser, tmp_path, "play-check-link")
    link.click()
    wait_for(browser, lambda d: len(d.window_handles) == 2)
    browser.switch_to.window(browser.window_handles[-1])
    verdict = wait_for(
        browser, lambda d: d.find_element("id", "result").get_attribute("data-verdict")
    )
    assert verdict == "valid"
    assert browser.find_element("id", "round-id").get_attribute("value") == round_id
    assert browser.find_element("id", "key-warning").is_displayed()
    assert len(_hands(browser)) == 2
    screenshot(browser, tmp_path, "verify-by-link")
    assert_clean_console(browser)


def test_a_kvitlach_round_tells_the_funding_and_the_antes_apart_from_each_bet(
    browser: Any, live_server: Server, tmp_path: Path
) -> None:
    """1-chip bets against a bank funded with 100, antes of 50: each hand's result is its bet,
    the bank's is what the bets came to, and the funding and the antes are said apart."""
    options = {"bank_funding": 100, "ante": 50, "max_bet": 1}
    game = bots.kvitlach_table(live_server.url, 3, options, buy_in=200)
    round_id, _ = bots.play_kvitlach_round(game)
    _logged(live_server, round_id)
    assert _check_by_id(browser, live_server, round_id) == "valid"
    hands = _hands(browser)
    assert [h[0].split()[-1] for h in hands] == ["banker", "player", "player"]
    banker, *players = (int(h[0].split()[1]) for h in hands)
    results = [h[2] for h in hands[1:]]
    assert all(re.search(r"(wins|loses) its bet of 1$", r) for r in results), results
    net = sum(-1 if "wins" in r else 1 for r in results)  # the bank's side of the bets
    bank = {2: "the bank takes 2", 0: "the bank comes out even", -2: "the bank pays 2"}[net]
    assert hands[0][2].endswith(bank), hands[0]
    who_won = browser.find_element("id", "who-won").text
    # Classic rules end the term when the banker's first card is a 4 or a 7: the bank (its
    # funding, the antes and what the bets came to) goes back to the banker.
    ended = "as the term ended" in who_won
    paid = [f"seat {banker} funded the bank with 100"]
    paid += [f"seat {banker} took back the bank's {200 + net} as the term ended"] if ended else []
    paid += [f"seat {p} paid an ante of 50" for p in players]
    assert f"Apart from the hands: {'; '.join(paid)}." in who_won, who_won
    assert not re.search(r"\b(won|lost)\b", who_won.split(":", 1)[1]), who_won  # no net sums
    accounts = [r.text for r in browser.find_elements("css selector", "#accounts tbody tr")]
    change = 100 + net if ended else -100  # the accounts' changes count it all
    assert f"seat:{banker} 200 {200 + change} {change:+}" in accounts, accounts
    browser.execute_script("document.getElementById('who-won').scrollIntoView()")
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
    edited = export.replace('"type":"round_won"', '"type":"round_lost"', 1)
    assert edited != export
    for text, verdict, shot in (
        (export, "valid", "verify-export-valid"),
        (edited, "invalid", "verify-export-invalid"),
    ):
        browser.get(live_server.url + "/verify")
        _drop(browser, "export.jsonl", text)  # checked at once, with this server's key
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
