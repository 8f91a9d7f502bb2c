"""Issue 12, point 5: liveness and readiness, Prometheus metrics, rate limits on the writes
anyone may send without a token. A real service on loopback; its clock is the test's."""

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from bench.transport import send_bytes
from fairdeal.api.http.app import _sweep_once, create_app
from fairdeal.api.service.config import Config, ConfigError
from tests.api.bots import error_of, play_toto21_round, raw, toto21_table
from tests.api.conftest import Server, serving, start_server, stop_server

METRICS_TOKEN = "metrics-secret-for-tests"
KVITLACH = {"rule_set": "classic", "bank_funding": 20, "ante": 0, "max_bet": 15}


@pytest.fixture
def limited(tmp_path: Path) -> Iterator[Server]:
    """A service that lets a client create or join three tables a minute."""
    with serving(tmp_path, rate_limit="3/minute") as running:
        yield running


def samples(url: str, token: str | None = None) -> dict[tuple[str, tuple[Any, ...]], float]:
    """Every sample of /metrics by name and labels, as Prometheus's own parser reads it."""
    reply = raw(url, "GET", "/metrics", token=token)
    assert reply.status == 200, reply.text
    assert reply.headers["Content-Type"].startswith("text/plain; version=0.0.4")
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(reply.text)
        for s in family.samples
    }


def sample(found: dict[tuple[str, tuple[Any, ...]], float], name: str, **labels: str) -> float:
    return found.get((name, tuple(sorted(labels.items()))), 0.0)


def create_from(server: Server, source: str) -> int:
    """Create a table from the loopback address ``source`` (another client to the service);
    the answer's status."""
    port = int(server.url.rsplit(":", 1)[1])
    body = json.dumps({"game": "toto21"}).encode()
    head = "POST /v1/tables HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
    head += f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    status_line = send_bytes("127.0.0.1", port, head.encode() + body, source)
    return int(status_line.split()[1])


# Liveness and readiness


def test_healthz_and_readyz_are_ok_with_the_database_and_the_key(server: Server) -> None:
    assert raw(server.url, "GET", "/healthz").json == {"status": "ok"}
    ready = raw(server.url, "GET", "/readyz")
    assert ready.status == 200
    assert ready.json["status"] == "ok"
    assert ready.json["checks"] == {"database": "ok", "signing_key": "ok"}
    assert ready.json["key_id"] == server.service.keys.signer.key_id


def test_readyz_is_503_not_ready_while_healthz_stays_ok_when_the_database_is_unavailable(
    server: Server,
) -> None:
    server.service.store.close()  # every later read fails: no database to be had
    assert raw(server.url, "GET", "/healthz").status == 200
    reply = raw(server.url, "GET", "/readyz")
    assert reply.status == 503
    assert reply.headers["Retry-After"] == "1"
    error = error_of(reply)
    assert error["code"] == "not_ready"
    assert error["details"]["checks"]["database"].startswith("unavailable: ")
    assert error["details"]["checks"]["signing_key"] == "ok"


# Metrics


def test_metrics_parse_and_count_requests_by_route_template_and_status(server: Server) -> None:
    game = toto21_table(server.url)
    raw(server.url, "GET", f"/v1/tables/{game.table_id}")
    raw(server.url, "GET", "/v1/tables/t0000000000000000")  # a table that is not there
    raw(server.url, "GET", "/no/such/route")
    raw(server.url, "BREW", "/healthz")  # a made-up method is labelled "other"
    found = samples(server.url)
    route = "/v1/tables/<table_id>"
    assert sample(found, "fairdeal_http_requests_total", route=route, method="GET", status="200")
    assert sample(
        found, "fairdeal_http_requests_total", route=route, method="GET", status="404"
    ) == (1)
    assert sample(
        found, "fairdeal_http_requests_total", route="/v1/tables", method="POST", status="201"
    ) == (1)
    unmatched = {"route": "<unmatched>", "method": "GET", "status": "404"}
    assert sample(found, "fairdeal_http_requests_total", **unmatched) == 1
    brewed = {"route": "<unmatched>", "method": "other", "status": "405"}
    assert sample(found, "fairdeal_http_requests_total", **brewed) == 1
    latency = sample(found, "fairdeal_http_request_duration_seconds_count", route=route)
    assert latency >= 2


def test_metrics_count_rounds_opened_and_finished_and_the_log_size(server: Server) -> None:
    before = samples(server.url)
    assert sample(before, "fairdeal_rounds_total", stage="opened") == 0
    game = toto21_table(server.url)
    play_toto21_round(game, random.Random(5))
    after = samples(server.url)
    assert sample(after, "fairdeal_rounds_total", stage="opened") == 1
    assert sample(after, "fairdeal_rounds_total", stage="finished") == 1
    checkpoint = raw(server.url, "GET", "/v1/log/checkpoint").json
    assert sample(after, "fairdeal_log_size") == checkpoint["size"] > 0


def test_sweeper_lag_is_how_long_the_earliest_passed_deadline_has_waited(server: Server) -> None:
    toto21_table(server.url)  # a match clock runs: the table has a deadline
    assert sample(samples(server.url), "fairdeal_sweeper_lag_seconds") == 0
    deadline = min(
        row.next_deadline
        for row in _table_rows(server)
        if row is not None and row.next_deadline is not None
    )
    server.clock.advance(deadline - server.clock() + 2_500)
    assert sample(samples(server.url), "fairdeal_sweeper_lag_seconds") == 2.5
    server.service.sweep()
    assert sample(samples(server.url), "fairdeal_sweeper_lag_seconds") == 0


def _table_rows(server: Server) -> list[Any]:
    with server.service.store.reader() as txn:
        due = txn.due_tables(2**53 - 1, 10)
        return [txn.table_row(table_id) for table_id in due]


def test_a_failed_sweep_is_counted(server: Server) -> None:
    metrics = server.app.extensions["fairdeal.metrics"]
    server.service.store.close()
    _sweep_once(server.service, metrics.sweep_failures.inc)
    found = samples(server.url)
    assert sample(found, "fairdeal_sweep_failures_total") == 1
    assert ("fairdeal_log_size", ()) not in found  # the database could not be read


def test_each_app_counts_in_a_registry_of_its_own(server: Server, tmp_path: Path) -> None:
    other, http_server = start_server(tmp_path / "other")
    try:
        raw(other.url, "GET", "/healthz")
        healthz = {"route": "/healthz", "method": "GET", "status": "200"}
        assert sample(samples(other.url), "fairdeal_http_requests_total", **healthz) == 1
        assert sample(samples(server.url), "fairdeal_http_requests_total", **healthz) == 0
    finally:
        stop_server(other, http_server)


def test_metrics_need_the_metrics_token_when_one_is_configured(tmp_path: Path) -> None:
    guarded, http_server = start_server(tmp_path, metrics_token=METRICS_TOKEN)
    try:
        assert error_of(raw(guarded.url, "GET", "/metrics"))["code"] == "token_missing"
        wrong = raw(guarded.url, "GET", "/metrics", token="nope")
        assert wrong.status == 403
        assert error_of(wrong)["code"] == "operator_only"
        assert samples(guarded.url, METRICS_TOKEN)
    finally:
        stop_server(guarded, http_server)


# Rate limits


def test_the_fourth_table_a_client_creates_in_a_minute_is_answered_429(limited: Server) -> None:
    for _ in range(3):
        assert raw(limited.url, "POST", "/v1/tables", {"game": "toto21"}).status == 201
    reply = raw(limited.url, "POST", "/v1/tables", {"game": "toto21"})
    assert reply.status == 429
    assert error_of(reply)["code"] == "rate_limited"
    assert 1 <= int(reply.headers["Retry-After"]) <= 61
    found = samples(limited.url)
    status = {"route": "/v1/tables", "method": "POST", "status": "429"}
    assert sample(found, "fairdeal_http_requests_total", **status) == 1
    assert sample(found, "fairdeal_rate_limited_total") == 1  # and its line at DEBUG: test_logs


def test_every_refusal_of_the_limit_is_counted_creating_and_joining_alike(
    limited: Server,
) -> None:
    table_id = raw(limited.url, "POST", "/v1/tables", {"game": "toto21"}).json["table_id"]
    creating, joining = ("/v1/tables", {"game": "toto21"}), (f"/v1/tables/{table_id}/seats", {})
    requests = [creating] * 3 + [joining] * 2  # the first table counts too: 4 before the join
    statuses = [raw(limited.url, "POST", path, body).status for path, body in requests]
    assert statuses == [201, 201, 429, 429, 429]
    assert sample(samples(limited.url), "fairdeal_rate_limited_total") == 3


def test_joining_counts_against_the_same_limit(limited: Server) -> None:
    create = {"game": "kvitlach", "options": KVITLACH, "join": {"buy_in": 100}}
    table_id = raw(limited.url, "POST", "/v1/tables", create).json["table_id"]
    join = {"join": {"buy_in": 100}}
    for _ in range(2):
        assert raw(limited.url, "POST", f"/v1/tables/{table_id}/seats", join).status == 201
    reply = raw(limited.url, "POST", f"/v1/tables/{table_id}/seats", join)
    assert error_of(reply)["code"] == "rate_limited"
    assert raw(limited.url, "GET", f"/v1/tables/{table_id}").status == 200  # reads: no limit


def test_another_client_address_has_its_own_count(limited: Server) -> None:
    for _ in range(3):
        assert create_from(limited, "127.0.0.1") == 201
    assert create_from(limited, "127.0.0.1") == 429
    assert create_from(limited, "127.0.0.2") == 201


def test_no_limit_when_the_rate_limit_is_off(server: Server) -> None:
    assert server.config.rate_limit == ""
    for _ in range(5):
        assert raw(server.url, "POST", "/v1/tables", {"game": "toto21"}).status == 201


def test_production_configuration_limits_and_a_bad_rate_is_refused(tmp_path: Path) -> None:
    assert Config().rate_limit == "30/minute"
    assert Config.from_env({"FAIRDEAL_RATE_LIMIT": "0"}).rate_limit == "0"
    config = Config(instance_path=tmp_path, sweep_interval_s=0, rate_limit="thirty a minute")
    with pytest.raises(ConfigError, match="FAIRDEAL_RATE_LIMIT"):
        create_app(config)
