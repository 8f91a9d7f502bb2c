"""The OpenAPI document (/openapi.json): valid OpenAPI 3, who may call each operation, every
error it can answer in the one error body, and summaries that read as whole sentences.

Schemathesis checks the service's answers against this document (test_schemathesis.py,
tests/reliability/test_fuzz.py); these tests check the document itself: each game's part of it
is checked against the games in test_game_schemas.py.
"""

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest
import schemathesis
from openapi_spec_validator import validate

from fairdeal.api.http.app import MAX_IDEMPOTENCY_KEY, close_app, create_app
from fairdeal.api.service.config import Config
from fairdeal.api.service.errors import ApiError, from_unavailable
from fairdeal.api.storage import CommitOutcomeUnknownError, StorageUnavailableError
from tests.api.bots import raw
from tests.api.conftest import OPERATOR_TOKEN, Server

SEAT = [{"seatToken": []}]
OPTIONAL_SEAT = [{}, {"seatToken": []}]
OPERATOR = [{"operatorToken": []}]
PUBLIC: list[dict[str, list[str]]] = []

WHO_MAY_CALL = {
    "POST /v1/tables": PUBLIC,
    "GET /v1/tables/{table_id}": OPTIONAL_SEAT,
    "GET /v1/tables/{table_id}/events": PUBLIC,
    "GET /v1/tables/{table_id}/bundle": PUBLIC,
    "POST /v1/tables/{table_id}/seats": PUBLIC,
    "POST /v1/tables/{table_id}/seats/{seat}/decision": SEAT,
    "POST /v1/tables/{table_id}/actions": SEAT,
    "POST /v1/tables/{table_id}/rounds": SEAT,
    "POST /v1/rounds/{round_id}/seeds": SEAT,
    "POST /v1/rounds/{round_id}/actions": SEAT,
    "GET /v1/rounds/{round_id}": OPTIONAL_SEAT,
    "GET /v1/rounds/{round_id}/events": PUBLIC,
    "GET /v1/rounds/{round_id}/bundle": PUBLIC,
    "GET /v1/log/checkpoint": PUBLIC,
    "GET /v1/log/inclusion": PUBLIC,
    "GET /v1/log/consistency": PUBLIC,
    "GET /v1/keys": PUBLIC,
    "GET /v1/export": OPERATOR,
    "GET /checkpoint": PUBLIC,
    "GET /tile/{level}/{index}": PUBLIC,
    "GET /tile/entries/{index}": PUBLIC,
    "GET /healthz": PUBLIC,
    "GET /readyz": PUBLIC,
}
NO_DATABASE = {"GET /v1/keys", "GET /healthz"}
ERROR_BODY = {"$ref": "#/components/schemas/Error"}


@pytest.fixture(scope="module")
def document(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    folder: Path = tmp_path_factory.mktemp("openapi")
    config = Config(
        instance_path=folder / "instance", operator_token=OPERATOR_TOKEN, sweep_interval_s=0
    )
    app = create_app(config)
    try:
        response = app.test_client().get("/openapi.json")
        assert response.status_code == 200
        yield response.json
    finally:
        close_app(app)


def operations(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        f"{method.upper()} {path}": operation
        for path, item in document["paths"].items()
        for method, operation in item.items()
        if method != "parameters"
    }


def resolve(document: dict[str, Any], value: dict[str, Any]) -> dict[str, Any]:
    """A response or schema, its $ref followed."""
    while "$ref" in value:
        *_, kind, name = value["$ref"].split("/")
        value = document["components"][kind][name]
    return value


def test_the_document_is_valid_openapi_3(document: dict[str, Any]) -> None:
    validate(document)  # raises on the first error
    assert document["openapi"].startswith("3.")
    loaded = schemathesis.openapi.from_dict(document)
    assert len([result.ok() for result in loaded.get_all_operations()]) == len(WHO_MAY_CALL)


def test_the_document_names_every_operation_and_no_other(document: dict[str, Any]) -> None:
    assert set(operations(document)) == set(WHO_MAY_CALL)


@pytest.mark.parametrize("label", list(WHO_MAY_CALL))
def test_every_operation_says_who_may_call_it(document: dict[str, Any], label: str) -> None:
    operation = operations(document)[label]
    assert operation["security"] == WHO_MAY_CALL[label]
    schemes = document["components"]["securitySchemes"]
    for requirement in operation["security"]:
        for name in requirement:
            assert schemes[name] == {**schemes[name], "type": "http", "scheme": "bearer"}


@pytest.mark.parametrize("label", list(WHO_MAY_CALL))
def test_every_operation_lists_its_errors_in_the_one_error_body(
    document: dict[str, Any], label: str
) -> None:
    operation = operations(document)[label]
    responses = operation["responses"]
    assert "default" not in responses, "each error status is listed, none left to a catch-all"
    errors = {int(status) for status in responses if int(status) >= 400}
    expected = {429, 500} | (set() if label in NO_DATABASE else {503})
    security = operation["security"]
    if security:
        expected |= {403} if {} in security else {401, 403}
    if any(
        p["in"] == "path" and p["name"] in ("table_id", "round_id")
        for p in _params(document, label)
    ):
        expected.add(404)  # an id of a shape the service never makes, or naming nothing
    if any(p["in"] == "query" for p in _params(document, label)) or "requestBody" in operation:
        expected.add(422)
    if "requestBody" in operation or label.startswith("POST"):
        expected |= {400, 413}  # a body that is not JSON, or too large
    assert expected <= errors, f"missing {sorted(expected - errors)}"
    for status in errors:
        response = resolve(document, responses[str(status)])
        assert response["description"]
        assert response["content"] == {"application/json": {"schema": ERROR_BODY}}
        if status in (429, 503):
            assert "Retry-After" in response["headers"]


def _params(document: dict[str, Any], label: str) -> list[dict[str, Any]]:
    method, path = label.split(" ", 1)
    item = document["paths"][path]
    return [*item.get("parameters", []), *item[method.lower()].get("parameters", [])]


@pytest.mark.parametrize(
    "error",
    [
        ApiError("a message"),
        ApiError("with details", {"fields": {"seat": ["not an integer"]}}),
        from_unavailable(StorageUnavailableError("gone")),
        from_unavailable(CommitOutcomeUnknownError("lost in COMMIT")),
    ],
    ids=["a plain error", "an error with details", "a 503 rolled back", "a 503 unknown"],
)
def test_the_error_schema_is_the_body_the_service_sends(
    document: dict[str, Any], error: ApiError
) -> None:
    schemas = document["components"]["schemas"]
    validator = jsonschema_rs.validator_for(_inline(schemas["Error"], schemas))
    assert validator.is_valid(error.body())
    assert not validator.is_valid({"code": 404, "status": "Not Found", "message": "no"})
    assert not validator.is_valid({"error": {**error.body()["error"], "extra": 1}})


def _inline(schema: Any, schemas: dict[str, Any]) -> Any:
    """The schema with its $refs to components replaced by their targets."""
    if isinstance(schema, dict):
        if "$ref" in schema:
            return _inline(schemas[schema["$ref"].rsplit("/", 1)[1]], schemas)
        return {key: _inline(value, schemas) for key, value in schema.items()}
    if isinstance(schema, list):
        return [_inline(item, schemas) for item in schema]
    return schema


@pytest.mark.parametrize("label", list(WHO_MAY_CALL))
def test_every_summary_is_a_whole_sentence(document: dict[str, Any], label: str) -> None:
    summary = operations(document)[label]["summary"]
    assert "\n" not in summary and summary.endswith("."), summary


@pytest.mark.parametrize(
    "label", ["GET /v1/rounds/{round_id}/bundle", "GET /v1/tables/{table_id}/bundle"]
)
def test_bundles_are_documented_member_by_member(document: dict[str, Any], label: str) -> None:
    """SPEC 13.1's members, all required; the log's seven and no others."""
    ok = operations(document)[label]["responses"]["200"]["content"]["application/json"]
    bundle = resolve(document, ok["schema"])
    members = {"format", "table_id", "round_id", "events", "keys", "log"}
    assert set(bundle["properties"]) == members == set(bundle["required"])
    log = resolve(document, bundle["properties"]["log"])
    assert log["additionalProperties"] is False
    assert set(log["properties"]) == set(log["required"]) == {
        "origin", "verifier_key", "leaf_index", "head_hash", "tree_size", "inclusion_proof",
        "checkpoint",
    }  # fmt: skip


def test_the_export_is_documented_as_json_lines_of_bundles(document: dict[str, Any]) -> None:
    ok = operations(document)["GET /v1/export"]["responses"]["200"]
    assert list(ok["content"]) == ["application/jsonl"]
    lines = ok["content"]["application/jsonl"]["schema"]
    assert lines["x-itemSchema"] == {"$ref": "#/components/schemas/Bundle"}


def test_events_pages_and_health_have_their_schemas(document: dict[str, Any]) -> None:
    ops = operations(document)

    def body(label: str) -> dict[str, Any]:
        ok = ops[label]["responses"]["200"]["content"]["application/json"]
        return resolve(document, ok["schema"])

    for paged in ("GET /v1/tables/{table_id}/events", "GET /v1/rounds/{round_id}/events"):
        assert set(body(paged)["required"]) == {"events", "next_from_seq"}
    assert body("GET /healthz")["required"] == ["status"]
    assert set(body("GET /readyz")["required"]) == {"status", "checks", "key_id"}


def test_the_idempotency_key_is_documented_where_it_is_taken(document: dict[str, Any]) -> None:
    """On a seat's commands, as the service checks it; creating and joining refuse it."""
    for label, operation in operations(document).items():
        headers = [p for p in operation.get("parameters", []) if p["in"] == "header"]
        if operation["security"] == SEAT:
            [key] = headers
            assert key["name"] == "Idempotency-Key" and not key["required"]
            assert key["schema"]["maxLength"] == MAX_IDEMPOTENCY_KEY
        else:
            assert headers == [], label


@pytest.mark.parametrize(
    ("label", "member"),
    [("POST /v1/tables", "table_id"), ("POST /v1/tables/{table_id}/rounds", "round_id")],
    ids=["a new table's id", "a new round's id"],
)
def test_a_new_id_links_to_the_operations_it_names(
    document: dict[str, Any], label: str, member: str
) -> None:
    links = operations(document)[label]["responses"]["201"]["links"]
    assert links
    for link in links.values():
        _, _, path, method = link["operationRef"].split("/")
        target = document["paths"][path.replace("~1", "/")][method]
        assert "{" + member + "}" in path.replace("~1", "/") and target["responses"]
        assert link["parameters"] == {member: f"$response.body#/{member}"}


def test_the_docs_page_loads_its_vendored_script_not_a_cdn(server: Server) -> None:
    page = raw(server.url, "GET", "/docs")
    assert page.status == 200
    scripts = re.findall(r'<script src="([^"]+)"', page.text)
    assert scripts == ["/static/redoc/redoc.standalone.js"]
    script = raw(server.url, "GET", scripts[0])
    assert script.status == 200 and "javascript" in script.headers["Content-Type"]
    assert len(script.text) > 1_000_000  # the whole bundle, licence files beside it


def test_every_request_body_has_examples(document: dict[str, Any]) -> None:
    """Its own, or, for a table's creation, each game's (a body a oneOf variant)."""
    for label, operation in operations(document).items():
        if "requestBody" not in operation:
            continue
        body = operation["requestBody"]["content"]["application/json"]
        variants = resolve(document, body["schema"]).get("oneOf", [])
        examples = [resolve(document, variant).get("example") for variant in variants]
        assert body.get("examples") or (examples and all(examples)), label


def test_every_amount_a_request_carries_is_bounded_by_the_deployments_limit(
    tmp_path: Path,
) -> None:
    """Over FAIRDEAL_MAX_AMOUNT a number is refused 422 over_limit: the schemas say so."""
    config = Config(instance_path=tmp_path / "instance", sweep_interval_s=0, max_amount=1000)
    app = create_app(config)
    try:
        schemas = app.test_client().get("/openapi.json").get_json()["components"]["schemas"]
    finally:
        close_app(app)
    assert schemas["Toto21Options"]["properties"]["stake"]["maximum"] == 1000
    assert schemas["KvitlachOptions"]["properties"]["bank_funding"]["maximum"] == 1000
    assert schemas["KvitlachJoin"]["properties"]["buy_in"]["maximum"] == 1000
    [integer] = [v for v in schemas["CommandValue"]["anyOf"] if v.get("type") == "integer"]
    assert (integer["minimum"], integer["maximum"]) == (-1000, 1000)
    data = schemas["Action"]["properties"]["data"]
    assert data["additionalProperties"] == {"$ref": "#/components/schemas/CommandValue"}
    assert data["not"] == {"required": ["signed"]}  # the signature goes beside the data


@pytest.mark.parametrize(
    ("query", "allowed"),
    [
        ({"round": "t0123456789abcdef.1"}, True),
        ({"round": "t0123456789abcdef.1", "size": 3}, True),
        ({"table": "t0123456789abcdef", "seq": 4}, True),
        ({"table": "t0123456789abcdef"}, False),
        ({"seq": 4}, False),
        ({"round": "t0123456789abcdef.1", "seq": 4}, False),
        ({"round": "t0123456789abcdef.1", "table": "t0123456789abcdef", "seq": 4}, False),
        ({}, False),
    ],
    ids=[
        "a round", "a round in a tree size", "a table and a seq", "a table without a seq",
        "a seq alone", "a round and a seq", "a round and a table's head", "nothing",
    ],
)  # fmt: skip
def test_the_inclusion_query_states_a_round_or_a_table_and_a_seq(
    document: dict[str, Any], query: dict[str, Any], allowed: bool
) -> None:
    """OpenAPI 3.0 links query parameters as one object's members, sent as the query's own."""
    [head] = operations(document)["GET /v1/log/inclusion"]["parameters"]
    assert (head["in"], head["style"], head["explode"]) == ("query", "form", True)
    validator = jsonschema_rs.Draft4Validator(resolve(document, head["schema"]))
    assert validator.is_valid(query) == allowed


def test_the_consistency_query_says_from_is_at_most_to(document: dict[str, Any]) -> None:
    """A rule OpenAPI cannot state (tests/api/contract.py): in the parameters' descriptions."""
    parameters = operations(document)["GET /v1/log/consistency"]["parameters"]
    described = {p["name"]: p["description"] for p in parameters}
    assert "at most `to`" in described["from"]
    assert "at least `from`" in described["to"]
