// The browser's refusal of options a game does not have says what Python's says
// (fairdeal/games/base.py's unknown_options): each unknown option quoted as Python's repr
// quotes it, with the nearest option the game has ("did you mean"), then the game's options.
// option_refusals.json holds Python's messages; test_option_refusals.py checks them there.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { OptionsError } from "../../api/static/web/js/fairdeal/engine/errors.js";
import { registry } from "../../api/static/web/js/fairdeal/engine/registry.js";
import "../../api/static/web/js/fairdeal/games/index.js";

const CASES = JSON.parse(readFileSync(new URL("./option_refusals.json", import.meta.url), "utf8"));

for (const c of CASES) {
  test(`an unknown option, ${c.name}: Python's message`, () => {
    const refusal = (e) => {
      assert.ok(e instanceof OptionsError, String(e));
      assert.equal(e.message, c.message);
      return true;
    };
    assert.throws(() => registry().get(c.game).options(c.raw), refusal);
  });
}
