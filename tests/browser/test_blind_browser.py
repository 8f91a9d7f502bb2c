"""The dealer-blind primitives (SPEC 15) in headless Chromium, as a browser party loads them:
the modules the service serves, imported by a page of its own (relative imports, the vendored
@noble/curves), check Python's shuffle steps and proofs of the vector files: every valid step
verifies, every named invalid one (a stacked card, a swapped pair, other randomness, a proof
under another context, ...) is refused at the check the file names, and Python's key and share
proofs verify while a proof under another context does not."""

import json
from pathlib import Path
from typing import Any

from tests.api.conftest import Server
from tests.browser.conftest import assert_clean_console

VECTORS = Path(__file__).resolve().parents[1] / "vectors" / "blind"
MODULE = "/static/web/js/fairdeal/blind/index.js"

# Runs in the page: every step of the file through verifyStep, each outcome as a string.
CHECK_STEPS = """
const [module, vectors, done] = arguments;
import(module).then((blind) => {
  const bytes = (hex) => Uint8Array.from(hex.match(/../g) ?? [], (h) => parseInt(h, 16));
  const outcome = (v) => {
    try {
      blind.verifyStep(bytes(v.context), v.key, v.inputs, v.outputs, v.proof);
      return "valid";
    } catch (error) {
      if (error instanceof blind.MalformedShuffleProofError) return "malformed";
      if (error instanceof blind.InvalidShuffleProofError) return "invalid " + error.step;
      return "crashed " + error;
    }
  };
  done({valid: vectors.valid.map(outcome), invalid: vectors.invalid.map(outcome)});
}, (error) => done({error: String(error)}));
"""

CHECK_PROOFS = """
const [module, vectors, done] = arguments;
import(module).then((blind) => {
  const bytes = (hex) => Uint8Array.from(hex.match(/../g) ?? [], (h) => parseInt(h, 16));
  const outcome = (run) => {
    try { run(); return "valid"; } catch (error) { return error.constructor.name; }
  };
  const {key, share} = vectors;
  const keyProof = blind.json.readProof(key.proof);
  const shareProof = blind.json.readProof(share.proof);
  done({
    key: outcome(() => blind.verifyKey(bytes(key.key), bytes(key.context_hex), keyProof)),
    key_elsewhere: outcome(() => blind.verifyKey(
      bytes(key.key), bytes(share.context_hex), keyProof)),
    share: outcome(() => blind.verifyShare(
      bytes(share.key), bytes(share.a), bytes(share.d), bytes(share.context_hex), shareProof)),
  });
}, (error) => done({error: String(error)}));
"""


def _run(browser: Any, live_server: Server, script: str, vectors: object) -> Any:
    browser.get(live_server.url + "/verify")  # any page of the service: its origin serves MODULE
    browser.set_script_timeout(60)
    return browser.execute_async_script(script, MODULE, vectors)


def test_pythons_shuffle_steps_are_checked_alike_in_the_browser(
    browser: Any, live_server: Server
) -> None:
    vectors = json.loads((VECTORS / "shuffle.json").read_text())
    got = _run(browser, live_server, CHECK_STEPS, vectors)
    assert "error" not in got, got
    assert got["valid"] == ["valid"] * len(vectors["valid"])
    for case, outcome in zip(vectors["invalid"], got["invalid"], strict=True):
        if case["refused_at"].startswith("shape or encoding"):
            assert outcome == "malformed", case["name"]
        else:
            assert outcome == f"invalid {case['first_failing_equation']}", case["name"]
    assert {"stacked card", "swapped pair"} <= {
        word
        for case in vectors["invalid"]
        for word in ("stacked card", "swapped pair")
        if word in case["name"]
    }
    assert_clean_console(browser)


def test_pythons_key_and_share_proofs_verify_in_the_browser_and_nowhere_else(
    browser: Any, live_server: Server
) -> None:
    vectors = json.loads((VECTORS / "primitives.json").read_text())
    got = _run(
        browser,
        live_server,
        CHECK_PROOFS,
        {"key": vectors["key_proof"], "share": vectors["share_proof"]},
    )
    assert got == {"key": "valid", "key_elsewhere": "BadProofError", "share": "valid"}
    assert_clean_console(browser)
