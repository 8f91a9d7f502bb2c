"""Prometheus metrics at ``/metrics``, in a registry of each app's own (tests run several).

Counted by the service's processes: requests by route template and status, their latency,
requests refused for the rate limit, rounds opened and finished, failed sweeps. Read from the
database at each scrape: the log's size (its latest checkpoint) and how far the sweeper is behind
the earliest deadline that has passed.

One process counts in its memory. Several (gunicorn's workers) count in prometheus-client's
multiprocess mode: with ``PROMETHEUS_MULTIPROC_DIR`` set before prometheus-client is first
imported (``fairdeal serve`` sets it), each process writes its counts to files in that folder,
and a scrape, whichever worker answers it, adds up every process's files, those of workers
that have since exited included.
"""

import os
import time
from collections.abc import Iterator
from typing import Any

from flask import Flask, Response, g, request
from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector

from fairdeal.protocol import ROUND_OPENED, ROUND_REVEALED

from ..service.config import MULTIPROCESS_METRICS, ConfigError
from ..service.errors import OperatorOnlyError, UnauthorizedError
from ..service.service import Service
from ..service.tokens import same_secret
from ..storage import StorageError

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
UNMATCHED_ROUTE = "<unmatched>"
ROUND_EVENTS = {ROUND_OPENED: "opened", ROUND_REVEALED: "finished"}
# Labels take only these methods, so made-up methods cannot grow the series without bound.
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
OTHER_METHOD = "other"


def multiprocess_dir() -> str | None:
    """The folder of multiprocess mode, if it is on; ConfigError if it is not a folder."""
    folder = os.environ.get(MULTIPROCESS_METRICS)
    if folder is None:
        return None
    if not os.path.isdir(folder):
        raise ConfigError(f"{MULTIPROCESS_METRICS} {folder!r} is not a folder")
    return folder


class Metrics:
    """The metrics this process counts, in a registry of the app's own; and what a scrape
    reads (``scraped``): that registry, or, in multiprocess mode, every process's counts."""

    def __init__(self, service: Service) -> None:
        folder = multiprocess_dir()  # first: in multiprocess mode, counting writes there
        self.registry = CollectorRegistry(auto_describe=True)
        self.requests = Counter(
            "fairdeal_http_requests",
            "HTTP requests answered, by route template, method and status.",
            ["route", "method", "status"],
            registry=self.registry,
        )
        self.latency = Histogram(
            "fairdeal_http_request_duration_seconds",
            "Time to answer an HTTP request, by route template.",
            ["route"],
            registry=self.registry,
        )
        self.rounds = Counter(
            "fairdeal_rounds",
            "Rounds opened and finished (revealed) by this process.",
            ["stage"],
            registry=self.registry,
        )
        self.rate_limited = Counter(
            "fairdeal_rate_limited",
            "Requests refused 429 rate_limited: tables created or joined from one address over "
            "FAIRDEAL_RATE_LIMIT.",
            registry=self.registry,
        )
        self.sweep_failures = Counter(
            "fairdeal_sweep_failures",
            "Sweeper passes that failed (the database away, or a bug).",
            registry=self.registry,
        )
        self.cosignatures = Counter(
            "fairdeal_witness_cosignatures",
            "Witness cosignatures of checkpoints kept, by witness.",
            ["witness"],
            registry=self.registry,
        )
        self.witness_failures = Counter(
            "fairdeal_witness_failures",
            "Checkpoints a witness did not cosign, by witness and reason (unreachable, an "
            "HTTP status of refusal, ahead: it cosigned a larger tree than this log's).",
            ["witness", "reason"],
            registry=self.registry,
        )
        self.scraped = self.registry
        if folder is not None:
            self.scraped = CollectorRegistry()
            MultiProcessCollector(self.scraped, folder)  # type: ignore[no-untyped-call]
        self.scraped.register(_DatabaseGauges(service))
        for stage in ROUND_EVENTS.values():
            self.rounds.labels(stage)
        service.on_event_stored = self.count_round

    def count_round(self, event_type: str) -> None:
        stage = ROUND_EVENTS.get(event_type)
        if stage is not None:
            self.rounds.labels(stage).inc()

    def exposition(self) -> bytes:
        return generate_latest(self.scraped)


class _DatabaseGauges(Collector):
    """What the database says at scrape time; nothing when it cannot be read."""

    def __init__(self, service: Service) -> None:
        self._service = service

    def describe(self) -> list[Metric]:
        return []  # read at scrape time only: no database read when registering

    def collect(self) -> Iterator[Metric]:
        try:
            size, lag_ms = self._read()
        except StorageError:
            return
        yield GaugeMetricFamily(
            "fairdeal_log_size", "Leaves in the log's latest signed checkpoint.", value=size
        )
        yield GaugeMetricFamily(
            "fairdeal_sweeper_lag_seconds",
            "How long the earliest deadline that has passed has waited for the sweeper "
            "(0 when none is due).",
            value=lag_ms / 1000,
        )

    def _read(self) -> tuple[int, int]:
        now = self._service.clock()
        with self._service.store.reader() as txn:
            checkpoint = txn.latest_checkpoint()
            due = txn.due_tables(now, 1)
            row = txn.table_row(due[0]) if due else None
        deadline = row.next_deadline if row is not None else None
        lag_ms = max(0, now - deadline) if deadline is not None else 0
        return (checkpoint.size if checkpoint else 0), lag_ms


def install(app: Flask, service: Service, token: str) -> Metrics:
    """Count the app's requests and answer ``/metrics`` (public, or behind ``token``)."""
    metrics = Metrics(service)
    app.before_request(_start_timer)
    app.after_request(lambda response: _count(metrics, response))

    def scrape() -> Response:
        if token:
            _require_metrics_token(token)
        return Response(metrics.exposition(), content_type=CONTENT_TYPE)

    app.add_url_rule("/metrics", "metrics", scrape, methods=["GET"])
    return metrics


def _start_timer() -> None:
    g.fairdeal_started = time.perf_counter()


def _count(metrics: Metrics, response: Any) -> Any:
    rule = request.url_rule
    route = rule.rule if rule is not None else UNMATCHED_ROUTE
    method = request.method if request.method in METHODS else OTHER_METHOD
    metrics.requests.labels(route, method, str(response.status_code)).inc()
    started = g.get("fairdeal_started")
    if started is not None:
        metrics.latency.labels(route).observe(time.perf_counter() - started)
    return response


def _require_metrics_token(token: str) -> None:
    scheme, _, given = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not given.strip():
        raise UnauthorizedError("/metrics needs FAIRDEAL_METRICS_TOKEN: Authorization: Bearer …")
    if not same_secret(given.strip(), token):
        raise OperatorOnlyError("this needs the metrics token")
