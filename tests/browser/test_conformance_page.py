"""The conformance suite (conformance/) in headless Chromium: the operator's three re-logged
forgeries of a keyed seat's moves through the /verify page as a player uses it (pasted,
the key pasted, the button clicked), each INVALID with its code and its story marked
unverified; a key that signed nothing as CAN'T CHECK in plain words, with no story; a
mistyped round id said in words beside its box, with no verdict; and every case of the
suite through the page's own module, in the page, with the manifest's verdict and codes."""

import json
import re
from pathlib import Path
from typing import Any

import pytest

from bench.transport import raw
from tests.api.conftest import Server
from tests.browser.conftest import assert_clean_console, screenshot, wait_for
from tests.browser.test_verify_page import _verify

SUITE = Path(__file__).resolve().parents[2] / "conformance"
MANIFEST = json.loads((SUITE / "manifest.json").read_text())
CASES = {case["id"]: case for case in MANIFEST["cases"]}
OPERATOR = (SUITE / "keys" / "operator.pem").read_text()
FORGERIES = {
    "v2-toto21-keyed-stand-relabel": "sig.seat_bad",
    "v2-toto21-keyed-stand-unsigned": "sig.seat_missing",
    "v2-toto21-keyed-stand-n-1": "sig.seat_replayed",
}


def _codes(browser: Any) -> list[str]:
    return [e.text for e in browser.find_elements("css selector", "#findings code")]


@pytest.mark.parametrize(("case", "code"), FORGERIES.items())
def test_an_operators_forgery_of_a_keyed_seats_move_is_invalid_on_the_page(
    browser: Any, live_server: Server, tmp_path: Path, case: str, code: str
) -> None:
    text = (SUITE / CASES[case]["input"]).read_text()
    assert _verify(browser, live_server, text, OPERATOR) == "invalid"
    assert browser.find_element("id", "verdict").text == "INVALID"
    assert set(_codes(browser)) == set(CASES[case]["codes"]) == {code}
    assert browser.find_element("id", "story-unverified").is_displayed()  # never told as proven
    screenshot(browser, tmp_path, f"forgery-{code}")
    assert_clean_console(browser)


def test_a_key_that_signed_nothing_is_cant_check_in_plain_words(
    browser: Any, live_server: Server, tmp_path: Path
) -> None:
    text = (SUITE / "bundles" / "v2-toto21-seq0.json").read_text()
    other = (SUITE / "keys" / "other.pem").read_text()
    assert _verify(browser, live_server, text, other) == "unusable"
    assert browser.find_element("id", "verdict").text == "CAN'T CHECK"
    assert "is it the operator's key?" in browser.find_element("id", "summary").text
    assert not browser.find_element("id", "story").is_displayed()
    screenshot(browser, tmp_path, "cant-check-key")


def test_a_mistyped_round_id_is_said_beside_its_box_never_as_fraud(
    browser: Any, live_server: Server, tmp_path: Path
) -> None:
    browser.get(live_server.url + "/verify")
    browser.find_element("id", "round-id").send_keys("tnosuchtable.1")
    browser.find_element("id", "fetch").click()
    said = wait_for(browser, lambda d: d.find_element("id", "fetch-status").text)
    assert said == "This server has no round tnosuchtable.1: check the round id."
    box = browser.find_element("id", "round-id").rect
    status = browser.find_element("id", "fetch-status").rect
    assert 0 <= status["y"] - (box["y"] + box["height"]) < 40  # right under the box
    assert status["y"] + status["height"] <= browser.execute_script("return innerHeight")
    assert not browser.find_element("id", "result").is_displayed()  # no verdict at all
    screenshot(browser, tmp_path, "mistyped-round-id")
    # The server's answer itself, saved and given to the page, is CAN'T CHECK in words.
    answer = raw(live_server.url, "GET", "/v1/rounds/tnosuchtable.1/bundle").text
    assert _verify(browser, live_server, answer, OPERATOR) == "unusable"
    assert browser.find_element("id", "verdict").text == "CAN'T CHECK"
    assert "no such round" in browser.find_element("id", "summary").text
    assert not browser.find_element("id", "story").is_displayed()


# The manifest's options as the module takes them, as tests/conformance/run_node.mjs maps
# them (conformance/README.md): key and witness files as text (UTF-8, no byte order mark;
# textOf); the input, the checkpoints
# and the proofs as bytes, as fairdeal-verify reads its files; a file the manifest names
# that does not exist (``files`` lacks it) cannot be read.
RUN_SUITE = """
const [cases, files, done] = arguments;
const fd = await import("/static/web/js/fairdeal/index.js");
const read = (path) => {
  if (Object.hasOwn(files, path)) return new Uint8Array(files[path]);
  throw new fd.FairdealError("input.unreadable", `cannot read ${path}`);
};
const bytes = (path) => (path === null ? null : read(path));
const text = (path) => fd.textOf(read(path), path);
const out = {};
for (const c of cases) {
  const o = c.options;
  let result;
  try {
    const imported = await Promise.all(o.keys.map((path) => fd.importOperatorKey(text(path))));
    const keys = fd.keySetOf(imported);
    result = await fd.verifyText(bytes(c.input), {
      keys, origin: o.origin, witnesses: o.witnesses.map(text), quorum: o.witness_quorum,
      partial: o.partial, checkpoint: bytes(o.checkpoint),
      previousCheckpoint: bytes(o.previous_checkpoint),
      consistencyProofs: o.consistency_proofs.map(bytes),
    });
  } catch (e) {
    if (!(e instanceof fd.FairdealError)) throw e;
    result = { verdict: "unusable", findings: [{ code: e.code }] };  // (0) a file, a --key
  }
  out[c.id] = [result.verdict, [...new Set(result.findings.map((f) => f.code))].sort()];
}
done(out);
"""


def test_every_case_of_the_suite_gives_the_manifests_verdict_and_codes_in_chromium(
    browser: Any, live_server: Server
) -> None:
    paths = {case["input"] for case in CASES.values() if case["input"]}
    for case in CASES.values():
        o = case["options"]
        paths |= {*o["keys"], *o["witnesses"], *o["consistency_proofs"]}
        paths |= {p for p in (o["checkpoint"], o["previous_checkpoint"]) if p}
    files = {p: list((SUITE / p).read_bytes()) for p in paths if (SUITE / p).is_file()}
    browser.get(live_server.url + "/verify")
    browser.set_script_timeout(300)
    script = "(async () => {" + RUN_SUITE + "})();"  # ``arguments``: the wrapper's
    got = browser.execute_async_script(script, list(CASES.values()), files)
    expected = {i: [c["verdict"], sorted(c["codes"])] for i, c in CASES.items()}
    assert got == expected


def test_a_dealer_blind_round_is_told_with_how_its_cards_were_opened(
    browser: Any, live_server: Server, tmp_path: Path
) -> None:
    """A version-3 round has no deck to derive from seeds: the page says its cards were opened
    from the logged shares and revealed keys, and tells each event's cryptographic members
    in words, as fairdeal-verify --explain does."""
    text = (SUITE / CASES["v3-toto21-valid"]["input"]).read_text()
    assert _verify(browser, live_server, text, OPERATOR) == "valid"
    opened = browser.find_element("id", "cards-opened")
    assert opened.is_displayed()
    assert "this page opened each card below from the logged decryption shares" in opened.text
    assert browser.find_elements("css selector", "#cards figure.dealt svg")  # the cards shown
    happened = [e.text for e in browser.find_elements("css selector", "#happened li")]
    shuffled = [line for line in happened if " deck_shuffled by " in line]
    assert shuffled, happened
    assert all(line.endswith("; a deck of ciphertexts with its shuffle proof") for line in shuffled)
    assert any("; the seat's round key revealed" in line for line in happened), happened
    assert "dealer-blind" in browser.find_element("id", "story-head").text
    browser.execute_script("document.getElementById('who-won').scrollIntoView()")
    screenshot(browser, tmp_path, "blind-round-story")
    assert_clean_console(browser)
    # the same round as the service serves it (compact, SPEC 13.1.1) is told the same way
    told = [e.text for e in browser.find_elements("css selector", "#happened li")]
    text = (SUITE / CASES["v3-toto21-compact"]["input"]).read_text()
    assert _verify(browser, live_server, text, OPERATOR) == "valid"
    assert [e.text for e in browser.find_elements("css selector", "#happened li")] == told
    screenshot(browser, tmp_path, "blind-round-compact")
    assert_clean_console(browser)
    # a forged one is not told as opened and checked
    text = (SUITE / CASES["v3-toto21-stacked-card"]["input"]).read_text()
    assert _verify(browser, live_server, text, OPERATOR) == "invalid"
    said = browser.find_element("id", "cards-opened").text
    assert "the findings above say what failed" in said, said
    # a version-2 round says nothing of the kind
    text = (SUITE / CASES["v2-toto21-seq0"]["input"]).read_text()
    assert _verify(browser, live_server, text, OPERATOR) == "valid"
    assert not browser.find_element("id", "cards-opened").is_displayed()


def test_a_blind_round_won_by_a_withheld_share_says_who_won_and_why(
    browser: Any, live_server: Server, tmp_path: Path
) -> None:
    """No hand can be told where a seat withheld its share: the page says who won the round
    and why, from its round_won, and what a card shown as ? is."""
    text = (SUITE / CASES["v3-toto21-withheld-share"]["input"]).read_text()
    assert _verify(browser, live_server, text, OPERATOR) == "valid"
    who_won = browser.find_element("id", "who-won").text
    assert re.match(
        r"Round \d+: seat \d wins 1 point \(seat \d did not send its decryption shares in time\)",
        who_won,
    ), who_won
    assert "no hand was played" not in who_won
    assert "was never opened" in browser.find_element("id", "cards-opened").text
    browser.execute_script("document.getElementById('who-won').scrollIntoView()")
    screenshot(browser, tmp_path, "blind-withheld-share")
    assert_clean_console(browser)
