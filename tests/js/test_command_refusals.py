"""command_refusals.json, the messages commands.test.mjs requires of the browser's games,
is what the Python games say: an unknown command named with the nearest one the game has,
and what the sender may send now."""

import json
from pathlib import Path
from typing import Any

import pytest

from fairdeal.errors import IllegalActionError
from fairdeal.games import registry
from fairdeal.games.base import Command

REFUSALS: dict[str, Any] = json.loads((Path(__file__).parent / "command_refusals.json").read_text())
SECRET = bytes.fromhex(REFUSALS["secret"])
CASES: list[dict[str, Any]] = REFUSALS["cases"]


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_the_browsers_expected_refusal_is_pythons(case: dict[str, Any]) -> None:
    game = registry()[case["game"]]
    state = game.new({})
    for command in REFUSALS["histories"][case["game"]][: case["after"]]:
        state = game.step(state, Command(**command), SECRET).state
    secret = SECRET if case["with_secret"] else None
    with pytest.raises(IllegalActionError) as refused:
        game.step(state, Command(**case["command"]), secret)
    assert str(refused.value) == case["message"]
