"""option_refusals.json, the messages options.test.mjs requires of the browser's games, is
what the Python games say: an unknown option named with the nearest one, and the game's."""

import json
from pathlib import Path
from typing import Any

import pytest

from fairdeal.errors import OptionsError
from fairdeal.games import registry

CASES: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "option_refusals.json").read_text()
)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_the_browsers_expected_refusal_is_pythons(case: dict[str, Any]) -> None:
    with pytest.raises(OptionsError) as refused:
        registry()[case["game"]].options(case["raw"])
    assert str(refused.value) == case["message"]
