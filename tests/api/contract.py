"""What the OpenAPI document cannot state, for the schemathesis runs (test_schemathesis.py,
tests/reliability/test_fuzz.py): the rules a request the document allows may still break.

Each is refused 422 with its own code, so schemathesis's ``positive_data_acceptance`` takes 422
from these operations alone; every other valid request gets 2xx, 401, 403, 404, 409 or 429.
"""

from dataclasses import dataclass
from typing import Any

from schemathesis.config import SchemathesisConfig

from tests.api.bots import send


@dataclass(frozen=True)
class Unstated:
    """A rule, why OpenAPI 3.0 cannot state it, and the code a request breaking it gets."""

    rule: str
    why: str
    code: str


UNSTATED: dict[str, tuple[Unstated, ...]] = {
    "POST /v1/tables": (
        Unstated(
            "Kvitlach's max_bet is at most its bank_funding (100 when not given); a dealer-blind"
            " Toto21 table's seed_time_ms is at least 10000",
            "JSON Schema compares no two members",
            "invalid_options",
        ),
        Unstated(
            "the creator of a dealer-blind table sends its key",
            "whether key is required depends on the options' dealing: OpenAPI 3.0 has no if/then",
            "key_required",
        ),
    ),
    "POST /v1/tables/{table_id}/seats": (
        Unstated(
            "a joining seat sends the join data of the table's game (Kvitlach: a buy_in)",
            "the request does not name the game: the document gives each game's, as anyOf",
            "over_limit",
        ),
        Unstated(
            "a seat joining a dealer-blind table sends its key",
            "the table's options decide it, not the request",
            "key_required",
        ),
    ),
    "POST /v1/rounds/{round_id}/seeds": (
        Unstated(
            "a revealed seed opens the commitment its seat sent",
            "the commitment is the table's, not the request's",
            "commitment_mismatch",
        ),
    ),
    "POST /v1/rounds/{round_id}/actions": (
        Unstated(
            "a bet or a raise is within what the table allows now: its max_bet, the bank's "
            "uncovered funds, the seat's chips",
            "the table's state bounds it, not the request",
            "over_limit",
        ),
    ),
    "GET /v1/log/consistency": (
        Unstated("from is at most to", "JSON Schema compares no two parameters", "invalid_input"),
    ),
}

# The same settings for the Python API and `st run`.
SCHEMATHESIS_TOML = f"""
[[operations]]
include-name = [{", ".join(f'"{label}"' for label in UNSTATED)}]
[operations.checks.positive_data_acceptance]
expected-statuses = ["2xx", "401", "403", "404", "409", "422", "429"]
"""
CONFIG = SchemathesisConfig.from_str(SCHEMATHESIS_TOML)


def refused_only_for_an_unstated_rule(ctx: Any, response: Any, case: Any) -> bool | None:
    """A valid request refused 422 broke the unstated rule of its operation: its code."""
    if response.status_code != 422:
        return None
    codes = {unstated.code for unstated in UNSTATED.get(case.operation.label, ())}
    code = response.json()["error"]["code"]
    assert code in codes, (case.operation.label, code)
    return None


def document_of(url: str) -> dict[str, Any]:
    """The service's OpenAPI document, as a client reads it."""
    reply = send(url, {"method": "GET", "path": "/openapi.json"})
    assert reply.status == 200, reply.text
    document: dict[str, Any] = reply.json
    return document
