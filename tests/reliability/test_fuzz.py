"""Schemathesis against /openapi.json: no 5xx, and every error in the one error body.

Requests are generated from the service's own OpenAPI document, valid and invalid
(negative mode), for every operation. Half of them are pointed at real tables and rounds
with real seat tokens (a Toto21 round under way, a Kvitlach round being bet), so they reach
the rules and the log rather than stopping at "no such table". Afterwards every table's
chain still checks link by link and replays by the rules.
"""

import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error

from tests.api.bots import (
    await_toto21_move,
    kvitlach_table,
    start_kvitlach_round,
    toto21_table,
    verify_table,
)
from tests.api.conftest import OPERATOR_TOKEN, start_server, stop_server

MAX_EXAMPLES = 25  # per operation and mode in CI; the slow variant runs 400


@dataclass
class Target:
    url: str
    tables: list[str]
    rounds: list[str]
    tokens: list[str]


@pytest.fixture(scope="module")
def target(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Target]:
    running, http = start_server(tmp_path_factory.mktemp("fuzz"))
    url = running.url
    try:
        toto = toto21_table(url)
        toto_round = await_toto21_move(toto)
        kvitlach = kvitlach_table(url, 3, {"bank_funding": 50, "max_bet": 20})
        kvitlach_round = start_kvitlach_round(kvitlach)
        tokens = [s.token for s in (*toto.seats.values(), *kvitlach.seats.values())]
        yield Target(url, [toto.table_id, kvitlach.table_id], [toto_round, kvitlach_round],
                     [*tokens, OPERATOR_TOKEN])  # fmt: skip
        for table_id in (toto.table_id, kvitlach.table_id):
            verify_table(url, table_id)
    finally:
        stop_server(running, http)


def one_error_body(ctx: Any, response: Any, case: Any) -> bool | None:
    """Every 4xx and 5xx: exactly {"error": {"code", "message", "details"}}, as JSON."""
    if response.status_code < 400:
        return None
    headers = {name.lower(): value for name, value in response.headers.items()}
    assert "application/json" in str(headers.get("content-type")), headers
    body = response.json()
    assert set(body) == {"error"}, body
    error = body["error"]
    assert set(error) == {"code", "message", "details"}, error
    assert isinstance(error["code"], str) and error["code"], error
    assert isinstance(error["message"], str) and error["message"], error
    assert isinstance(error["details"], dict), error
    return None


def aim(case: Any, target: Target) -> None:
    """Point half the cases at real tables, rounds and tokens (chosen from the case itself,
    so a run is repeatable)."""
    rng = random.Random(repr((case.path_parameters, case.query, case.body)))
    if rng.random() < 0.5:
        return
    params = case.path_parameters or {}
    if "table_id" in params:
        params["table_id"] = rng.choice(target.tables)
    if "round_id" in params:
        params["round_id"] = rng.choice(target.rounds)
    if isinstance(case.query, dict) and "round" in case.query:
        case.query["round"] = rng.choice(target.rounds)
    case.headers = {**(case.headers or {}), "Authorization": f"Bearer {rng.choice(target.tokens)}"}


def operations(target: Target) -> list[Any]:
    schema = schemathesis.openapi.from_url(target.url + "/openapi.json")
    return [result.ok() for result in schema.get_all_operations()]


@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE],
                         ids=["valid requests", "invalid requests"])  # fmt: skip
def test_no_request_gets_a_5xx_and_every_error_has_the_one_body(
    target: Target, mode: GenerationMode
) -> None:
    sent = [_fuzz(operation, mode, target, MAX_EXAMPLES) for operation in operations(target)]
    print(f"{mode.value}: {sum(sent)} requests over {len(sent)} operations, no 5xx")
    assert sum(map(bool, sent)) >= 10, "most operations have requests of this kind to make"


@pytest.mark.slow
@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE],
                         ids=["valid requests", "invalid requests"])  # fmt: skip
def test_a_long_fuzz_finds_no_5xx_either(target: Target, mode: GenerationMode) -> None:
    sent = [_fuzz(operation, mode, target, 400) for operation in operations(target)]
    print(f"{mode.value}: {sum(sent)} requests over {len(sent)} operations, no 5xx")
    assert sum(map(bool, sent)) >= 10


def _fuzz(operation: Any, mode: GenerationMode, target: Target, examples: int) -> int:
    """Fuzz one operation; how many requests were sent (none if it has no request of this
    kind: no invalid input to make for an operation without parameters)."""
    sent = 0

    @given(operation.as_strategy(generation_mode=mode))
    @settings(
        max_examples=examples,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
        phases=[Phase.explicit, Phase.generate],
    )
    def run(case: Any) -> None:
        nonlocal sent
        aim(case, target)
        sent += 1
        case.call_and_validate(checks=[not_a_server_error, one_error_body])

    try:
        run()
    except Unsatisfiable:
        return 0
    return sent
