"""Rate limits on the writes anyone may send without a token: creating and joining a table.

One limit (``FAIRDEAL_RATE_LIMIT``, e.g. ``30/minute``) per client address, shared by both
endpoints, counted by flask-limiter in this process's memory: each worker process counts its
own, and a restart forgets. A request over the limit is answered 429 ``rate_limited`` in the
one error body, with ``Retry-After``.
"""

import math
import time
from collections.abc import Callable
from typing import Any

from flask import Flask
from flask_limiter import Limiter, RateLimitExceeded
from flask_limiter.util import get_remote_address
from limits import parse_many

from fairdeal.api.config import ConfigError
from fairdeal.api.errors import RateLimitedError

LIMITED_ENDPOINTS = ("tables.create_table", "tables.join_table")
SHARED_SCOPE = "unauthenticated-writes"
OFF = ("", "0")


def install(app: Flask, rate: str) -> Limiter | None:
    """Limit ``LIMITED_ENDPOINTS`` to ``rate`` per client address; ``"0"`` or ``""``: no limit."""
    if rate.strip() in OFF:
        return None
    _check(rate)
    limiter = Limiter(get_remote_address, app=app, storage_uri="memory://")
    shared = limiter.shared_limit(rate, scope=SHARED_SCOPE)
    for endpoint in LIMITED_ENDPOINTS:
        # This app's view only: the limiter checks decorated views in their wrapper.
        view: Callable[..., Any] = app.view_functions[endpoint]
        app.view_functions[endpoint] = shared(view)

    @app.errorhandler(RateLimitExceeded)
    def rate_limited(error: RateLimitExceeded) -> tuple[dict[str, Any], int, dict[str, str]]:
        answer = RateLimitedError(
            f"too many tables created or joined from this address: {error.description}",
            {"limit": error.description},
            retry_after_s=_seconds_to_reset(limiter),
        )
        return answer.body(), answer.status, answer.headers()

    return limiter


def _check(rate: str) -> None:
    try:
        parse_many(rate)
    except ValueError as e:
        raise ConfigError(f"FAIRDEAL_RATE_LIMIT {rate!r} is not a rate such as 30/minute") from e


def _seconds_to_reset(limiter: Limiter) -> int:
    current = limiter.current_limit
    if current is None:
        return 1
    return max(1, math.ceil(current.reset_at - time.time()))
