// The browser's refusal of a command a game does not have says what Python's says
// (fairdeal/games/base.py's unknown_command): the command type quoted as Python's repr
// quotes it, with the nearest command the game has ("did you mean"), then what the sender
// may send now. Each case steps its game's history up to `after` commands, with the server
// seed, and then sends the unknown command, with the seed or (with_secret false) without.
// command_refusals.json holds Python's messages; test_command_refusals.py checks them there.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { hexToBytes } from "../../api/static/web/js/fairdeal/bytes.js";
import { command } from "../../api/static/web/js/fairdeal/engine/base.js";
import { IllegalActionError } from "../../api/static/web/js/fairdeal/engine/errors.js";
import { registry } from "../../api/static/web/js/fairdeal/engine/registry.js";
import "../../api/static/web/js/fairdeal/games/index.js";

const REFUSALS = JSON.parse(readFileSync(new URL("./command_refusals.json", import.meta.url), "utf8"));
const SECRET = hexToBytes(REFUSALS.secret);

for (const c of REFUSALS.cases) {
  test(`an unknown command, ${c.name}: Python's message`, () => {
    const game = registry().get(c.game);
    let state = game.new({});
    for (const cmd of REFUSALS.histories[c.game].slice(0, c.after)) state = game.step(state, command(cmd), SECRET).state;
    const secret = c.with_secret ? SECRET : null;
    const refusal = (e) => {
      assert.ok(e instanceof IllegalActionError, String(e));
      assert.equal(e.message, c.message);
      return true;
    };
    assert.throws(() => game.step(state, command(c.command), secret), refusal);
  });
}
