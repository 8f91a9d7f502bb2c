"""Schemathesis against /openapi.json, with all its default checks (no 5xx, responses as
documented: status, content type, headers and schema; valid requests accepted, invalid ones
refused; auth enforced where declared), and every error in the one error body. A valid request
may be refused 422 only for a rule the document cannot state, with that rule's code
(tests/api/contract.py).

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
from schemathesis.core.parameters import ParameterLocation

from tests.api.bots import (
    await_toto21_move,
    kvitlach_table,
    start_kvitlach_round,
    toto21_table,
    verify_table,
)
from tests.api.conftest import OPERATOR_TOKEN, serving
from tests.api.contract import CONFIG, refused_only_for_an_unstated_rule

MAX_EXAMPLES = 25  # per operation and mode in CI; the slow variant runs 400

DEFAULT_CHECKS = [
    "not_a_server_error",
    "status_code_conformance",
    "content_type_conformance",
    "response_headers_conformance",
    "response_schema_conformance",
    "negative_data_rejection",
    "positive_data_acceptance",
    "missing_required_header",
    "unsupported_method",
    "allow_header_conformance",
    "use_after_free",
    "ensure_resource_availability",
    "ignored_auth",
]


@dataclass
class Target:
    url: str
    tables: list[str]
    rounds: list[str]
    tokens: list[str]


@pytest.fixture(scope="module")
def target(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Target]:
    with serving(tmp_path_factory.mktemp("fuzz")) as running:
        url = running.url
        toto = toto21_table(url)
        toto_round = await_toto21_move(toto)
        kvitlach = kvitlach_table(url, 3, {"bank_funding": 50, "max_bet": 20})
        kvitlach_round = start_kvitlach_round(kvitlach)
        tokens = [s.token for s in (*toto.seats.values(), *kvitlach.seats.values())]
        yield Target(url, [toto.table_id, kvitlach.table_id], [toto_round, kvitlach_round],
                     [*tokens, OPERATOR_TOKEN])  # fmt: skip
        for table_id in (toto.table_id, kvitlach.table_id):
            verify_table(url, table_id)


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


def aim(case: Any, target: Target) -> dict[str, str]:
    """Point half the cases at real tables, rounds and tokens (chosen from the case itself,
    so a run is repeatable); the headers to send the case with: a real token, given to
    schemathesis as the caller's own, so it checks the operation refuses it taken away."""
    rng = random.Random(repr((case.path_parameters, case.query, case.body)))
    if rng.random() < 0.5:
        return {}
    # An id made invalid on purpose stays so: the request must be refused.
    params = {} if _negative_at(case, ParameterLocation.PATH) else case.path_parameters or {}
    if "table_id" in params:
        params["table_id"] = rng.choice(target.tables)
    if "round_id" in params:
        params["round_id"] = rng.choice(target.rounds)
    query = {} if _negative_at(case, ParameterLocation.QUERY) else case.query
    if isinstance(query, dict) and "round" in query:
        query["round"] = rng.choice(target.rounds)
    # A token goes where the case sends one, or may send one; not where a case leaves out the
    # token an operation requires (an invalid request: it must be refused).
    security = case.operation.definition.raw.get("security", [])
    if _negative_at(case, ParameterLocation.HEADER):
        return {}
    if "Authorization" not in (case.headers or {}) and security and {} not in security:
        return {}
    return {"Authorization": f"Bearer {rng.choice(target.tokens)}"}


def _negative_at(case: Any, location: ParameterLocation) -> bool:
    return case.meta is not None and bool(case.meta.is_negative_at(location))


def operations(target: Target) -> list[Any]:
    schema = schemathesis.openapi.from_url(target.url + "/openapi.json", config=CONFIG)
    return [result.ok() for result in schema.get_all_operations()]


def test_every_default_check_runs_on_every_operation(target: Target) -> None:
    """Only positive_data_acceptance's statuses are widened (tests/api/contract.py)."""
    for operation in operations(target):
        checks = operation.schema.config.checks_config_for(operation=operation, phase=None)
        off = [name for name in DEFAULT_CHECKS if not getattr(checks, name).enabled]
        assert off == [], (operation.label, off)


@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE],
                         ids=["valid requests", "invalid requests"])  # fmt: skip
def test_every_answer_is_as_documented_and_every_error_has_the_one_body(
    target: Target, mode: GenerationMode
) -> None:
    sent = [_fuzz(operation, mode, target, MAX_EXAMPLES) for operation in operations(target)]
    print(f"{mode.value}: {sum(sent)} requests over {len(sent)} operations, all as documented")
    assert sum(map(bool, sent)) >= 10, "most operations have requests of this kind to make"


@pytest.mark.slow
@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE],
                         ids=["valid requests", "invalid requests"])  # fmt: skip
def test_a_long_fuzz_finds_nothing_either(target: Target, mode: GenerationMode) -> None:
    sent = [_fuzz(operation, mode, target, 400) for operation in operations(target)]
    print(f"{mode.value}: {sum(sent)} requests over {len(sent)} operations, all as documented")
    assert sum(map(bool, sent)) >= 10


def _fuzz(operation: Any, mode: GenerationMode, target: Target, examples: int) -> int:
    """Fuzz one operation; how many requests were sent (none if it has no request of this
    kind: no invalid input to make for an operation without parameters)."""
    sent = 0
    checks = [one_error_body]
    if mode == GenerationMode.POSITIVE:
        checks.append(refused_only_for_an_unstated_rule)

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
        headers = aim(case, target)
        sent += 1
        case.call_and_validate(headers=headers, additional_checks=checks)

    try:
        run()
    except Unsatisfiable:
        return 0
    return sent
