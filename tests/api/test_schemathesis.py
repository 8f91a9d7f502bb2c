"""`st run --checks all` against the service on loopback, as a client author runs it (issue 28):
every phase (the document's examples, the bounds of each parameter, fuzzing, stateful runs
along the document's links), every check, and nothing found.

A valid request may be refused only for a rule the document cannot state (contract.py); each
such rule is shown here to be one that a request the document allows can break.
"""

import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tests.api.bots import error_of, kvitlach_table, send, start_kvitlach_round, toto21_table
from tests.api.conftest import Server, serving
from tests.api.contract import SCHEMATHESIS_TOML, UNSTATED, document_of

MAX_EXAMPLES = 30  # per operation and phase: about 2,500 requests, 20 s on two cores
PHASES = ("Examples", "Coverage", "Fuzzing", "Stateful")


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with serving(tmp_path_factory.mktemp("schemathesis")) as running:
        yield running


@pytest.fixture(scope="module")
def document(service: Server) -> dict[str, Any]:
    return document_of(service.url)


def test_st_run_with_every_check_finds_nothing(service: Server, tmp_path: Path) -> None:
    config = tmp_path / "schemathesis.toml"
    config.write_text(SCHEMATHESIS_TOML)
    command = [
        *(sys.executable, "-m", "schemathesis.cli", "--config-file", str(config)),
        *("run", service.url + "/openapi.json", "--checks", "all", "--no-color"),
        *("--max-examples", str(MAX_EXAMPLES), "--workers", "1", "--generation-deterministic"),
    ]
    started = time.monotonic()
    run = subprocess.run(  # in tmp_path: schemathesis writes in its working folder
        command, cwd=tmp_path, capture_output=True, text=True, timeout=600, check=False
    )
    assert run.returncode == 0, run.stdout[-8000:] + run.stderr[-2000:]
    summary = run.stdout[run.stdout.rfind("Test Phases:") :]
    for phase in PHASES:
        assert f"✅ {phase}" in summary, summary
    print(summary[summary.find("Test cases:") :].strip(), f"({time.monotonic() - started:.0f} s)")


# Each rule the document cannot state, broken by a request it allows: a request of that
# operation, made ready at a table where the rule applies.


def _max_bet_over_the_funding(url: str) -> dict[str, Any]:
    body = {"game": "kvitlach", "options": {"max_bet": 101}, "join": {"buy_in": 100}}
    return {"method": "POST", "path": "/v1/tables", "body": body}


def _a_join_of_another_game(url: str) -> dict[str, Any]:
    table_id = kvitlach_table(url, 1, {}, keyless=True).table_id
    return {"method": "POST", "path": f"/v1/tables/{table_id}/seats", "body": {"join": {}}}


def _a_seed_that_does_not_open_its_commitment(url: str) -> dict[str, Any]:
    game = toto21_table(url, keyless=True)
    round_id = game.seats[0].open_round()
    for seat, commitment in ((1, "ab" * 32), (0, "cd" * 32)):  # the last opens the reveals
        committed = send(url, _seed(round_id, game.seats[seat].token, {"commitment": commitment}))
        assert committed.status == 200, committed.text
    return _seed(round_id, game.seats[0].token, {"seed": "not the seed committed to"})


def _seed(round_id: str, token: str, body: dict[str, Any]) -> dict[str, Any]:
    return {"method": "POST", "path": f"/v1/rounds/{round_id}/seeds", "body": body, "token": token}


def _a_bet_over_the_tables_max_bet(url: str) -> dict[str, Any]:
    game = kvitlach_table(url, 2, {"bank_funding": 50, "max_bet": 20}, keyless=True)
    round_id = start_kvitlach_round(game)
    view = game.seats[0].view()
    turn = view["view"]["round"]["turn"]
    assert "bet" in game.seats[turn].view()["legal_actions"]
    body = {"type": "bet", "data": {"amount": 21}}
    path = f"/v1/rounds/{round_id}/actions"
    return {"method": "POST", "path": path, "body": body, "token": game.seats[turn].token}


def _from_above_to(url: str) -> dict[str, Any]:
    return {"method": "GET", "path": "/v1/log/consistency?from=2&to=1"}


BLIND = {"dealing": "blind", "seed_time_ms": 10_000}


def _a_keyless_blind_table(url: str) -> dict[str, Any]:
    return {"method": "POST", "path": "/v1/tables", "body": {"game": "toto21", "options": BLIND}}


def _a_keyless_join_of_a_blind_table(url: str) -> dict[str, Any]:
    key = Ed25519PrivateKey.generate().public_key().public_bytes_raw().hex()
    body = {"game": "toto21", "options": BLIND, "key": key}
    created = send(url, {"method": "POST", "path": "/v1/tables", "body": body})
    assert created.status == 201, created.text
    path = f"/v1/tables/{created.json['table_id']}/seats"
    return {"method": "POST", "path": path, "body": {"join": {}}}


# Each unstated rule (an operation, the code it is refused with) and a request that breaks it
BROKEN: dict[tuple[str, str], Callable[[str], dict[str, Any]]] = {
    ("POST /v1/tables", "invalid_options"): _max_bet_over_the_funding,
    ("POST /v1/tables", "key_required"): _a_keyless_blind_table,
    ("POST /v1/tables/{table_id}/seats", "over_limit"): _a_join_of_another_game,
    ("POST /v1/tables/{table_id}/seats", "key_required"): _a_keyless_join_of_a_blind_table,
    ("POST /v1/rounds/{round_id}/seeds", "commitment_mismatch"): (
        _a_seed_that_does_not_open_its_commitment
    ),
    ("POST /v1/rounds/{round_id}/actions", "over_limit"): _a_bet_over_the_tables_max_bet,
    ("GET /v1/log/consistency", "invalid_input"): _from_above_to,
}
RULES = {(label, u.code): u.rule for label, rules in UNSTATED.items() for u in rules}


def test_every_unstated_rule_has_a_case_here() -> None:
    assert set(BROKEN) == set(RULES)


@pytest.mark.parametrize("case", list(BROKEN), ids=[RULES[case] for case in BROKEN])
def test_each_unstated_rule_is_one_a_request_the_document_allows_breaks(
    service: Server, document: dict[str, Any], case: tuple[str, str]
) -> None:
    label, code = case
    request = BROKEN[case](service.url)
    _assert_allowed(document, label, request)
    reply = send(service.url, request)
    assert reply.status == 422, reply.text
    assert error_of(reply)["code"] == code


def _assert_allowed(document: dict[str, Any], label: str, request: dict[str, Any]) -> None:
    """The request's body, or each of its query's parameters, as the document allows."""
    method, path = label.split(" ")
    operation = document["paths"][path][method.lower()]
    if "body" in request:
        schema = operation["requestBody"]["content"]["application/json"]["schema"]
        _assert_valid(document, schema, request["body"])
    query = request["path"].partition("?")[2]
    parameters = {p["name"]: p["schema"] for p in operation.get("parameters", [])}
    for name, value in (pair.split("=") for pair in filter(None, query.split("&"))):
        _assert_valid(document, parameters[name], int(value) if value.isdigit() else value)


def _assert_valid(document: dict[str, Any], schema: dict[str, Any], value: Any) -> None:
    # The components travel beside the schema, where its $refs point.
    rooted = {**schema, "components": document["components"]}
    assert jsonschema_rs.Draft4Validator(rooted).is_valid(value), (schema, value)
