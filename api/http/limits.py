"""Rate limits on the writes anyone may send without a token: creating and joining a table.

One limit (``FAIRDEAL_RATE_LIMIT``, e.g. ``30/minute``) per client address, shared by both
endpoints, counted by flask-limiter where ``FAIRDEAL_RATE_LIMIT_STORAGE`` says: this process's
memory (``memory://``, the default: each worker process counts its own, and a restart forgets),
or a Redis that every process of the deployment shares (``redis://host:port/db``), its keys
prefixed with the log's origin so that deployments sharing one Redis keep apart. While that
Redis does not answer, each process counts in its own memory and asks it again now and then.
A request over the limit is answered 429 ``rate_limited`` in the one error body, with
``Retry-After``; it is counted (``fairdeal_rate_limited_total``) and its access line is at DEBUG
(logs.py), so that a flood of them writes nothing at the usual levels.

And the size of a request's body: ``FAIRDEAL_MAX_REQUEST_BYTES`` (Flask's MAX_CONTENT_LENGTH)
for every request but one kind: a dealer-blind seat's shuffle step (``deck_shuffled``, SPEC
15.13.5.3: 36 ciphertexts and a proof, about 20 KB) may reach ``BLIND_STEP_BYTES``. Its route
(a round's actions) reads up to that many bytes; any other command there over the usual
limit is still 413 ``request_too_large``.
"""

import importlib.util
import json
import logging
import math
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from flask import Flask, request
from flask_limiter import Limiter, RateLimitExceeded
from flask_limiter.util import get_remote_address
from limits import parse_many
from limits.errors import ConfigurationError

from ..service.config import Config, ConfigError
from ..service.errors import RateLimitedError, TooLargeError

LIMITED_ENDPOINTS = ("tables.create_table", "tables.join_table")
SHARED_SCOPE = "unauthenticated-writes"
OFF = ("", "0")
REDIS_EXTRA = "pip install 'fairdeal[redis]'"
# A Redis that does not answer costs a request at most this long, once: its process then
# counts in memory, and asks the Redis again after 1, 2, 4 ... 32 s (flask-limiter's backoff).
REDIS_TIMEOUT_S = 1.0
log = logging.getLogger("fairdeal")
# A dealer-blind seat's shuffle step: its body, about 20 KB, may be this large (bounded: the
# step's size is fixed by the deck, 36 cards); the endpoint that takes it, and its type.
BLIND_STEP_BYTES = 64 * 1024
BLIND_STEP_ENDPOINT, BLIND_STEP = "tables.round_action", "deck_shuffled"


def install(app: Flask, config: Config, on_refused: Callable[[], None]) -> Limiter | None:
    """Limit ``LIMITED_ENDPOINTS`` to ``config.rate_limit`` per client address; ``"0"`` or
    ``""``: no limit. ``on_refused`` is told of each request refused (the metrics count them).
    The bodies' size limit (``limit_bodies``) is installed first, whatever the rate."""
    limit_bodies(app, config.max_request_bytes)
    rate = config.rate_limit
    if rate.strip() in OFF:
        return None
    _check(rate)
    limiter = _limiter(app, config.rate_limit_storage, config.log_origin)
    shared = limiter.shared_limit(rate, scope=SHARED_SCOPE)
    for endpoint in LIMITED_ENDPOINTS:
        # This app's view only: the limiter checks decorated views in their wrapper.
        view: Callable[..., Any] = app.view_functions[endpoint]
        app.view_functions[endpoint] = shared(view)

    @app.errorhandler(RateLimitExceeded)
    def rate_limited(error: RateLimitExceeded) -> tuple[dict[str, Any], int, dict[str, str]]:
        on_refused()
        answer = RateLimitedError(
            f"too many tables created or joined from this address: {error.description}",
            {"limit": error.description},
            retry_after_s=_seconds_to_reset(limiter),
        )
        return answer.body(), answer.status, answer.headers()

    return limiter


def limit_bodies(app: Flask, limit: int) -> None:
    """Every body at most ``limit`` bytes (MAX_CONTENT_LENGTH), but a shuffle step's at most
    ``BLIND_STEP_BYTES``: its route reads up to that many, then refuses any other body over
    ``limit`` (413), as the usual limit would have. Runs before the body is read as JSON."""
    larger = max(limit, BLIND_STEP_BYTES)

    @app.before_request
    def allow_a_shuffle_step() -> None:
        if request.endpoint != BLIND_STEP_ENDPOINT or request.method != "POST":
            return
        request.max_content_length = larger
        raw = request.get_data(cache=True)
        # a body sent without a length (chunked) at the limit may have been cut there
        over = len(raw) > limit or (request.content_length is None and len(raw) >= limit)
        if over and not _is_shuffle_step(raw):
            raise TooLargeError("the request body is too large")


def _is_shuffle_step(raw: bytes) -> bool:
    """Whether a body is a ``deck_shuffled`` command (whether it is well formed is for the
    JSON check and the schema that come next)."""
    try:
        body = json.loads(raw)
    except (ValueError, RecursionError):
        return False
    return isinstance(body, dict) and body.get("type") == BLIND_STEP


def _check(rate: str) -> None:
    try:
        parse_many(rate)
    except ValueError as e:
        raise ConfigError(f"FAIRDEAL_RATE_LIMIT {rate!r} is not a rate such as 30/minute") from e


def _limiter(app: Flask, storage: str, origin: str) -> Limiter:
    """flask-limiter on ``storage`` (Config has checked its scheme); ConfigError if it is not
    a URL that storage takes. Said at start if the storage does not answer."""
    is_redis = urlsplit(storage).scheme != "memory"
    if is_redis and not _redis_installed():
        raise ConfigError(f"FAIRDEAL_RATE_LIMIT_STORAGE is a Redis URL: {REDIS_EXTRA}")
    try:
        limiter = Limiter(
            get_remote_address,
            app=app,
            storage_uri=storage,
            storage_options=_redis_options() if is_redis else {},
            key_prefix=origin,
            in_memory_fallback_enabled=True,
        )
    except (ConfigurationError, ValueError) as e:  # never the URL itself: it may hold a password
        raise ConfigError(f"FAIRDEAL_RATE_LIMIT_STORAGE is not a usable URL: {e}") from None
    if not limiter.storage.check():
        log.warning(
            "FAIRDEAL_RATE_LIMIT_STORAGE does not answer: each process counts in its own memory "
            "until it does"
        )
    return limiter


def _redis_installed() -> bool:
    return importlib.util.find_spec("redis") is not None


def _redis_options() -> dict[str, Any]:
    """Fail fast rather than retry: a request waits on the Redis at most REDIS_TIMEOUT_S."""
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    return {
        "socket_connect_timeout": REDIS_TIMEOUT_S,
        "socket_timeout": REDIS_TIMEOUT_S,
        "retry": Retry(NoBackoff(), 0),
    }


def _seconds_to_reset(limiter: Limiter) -> int:
    current = limiter.current_limit
    if current is None:
        return 1
    return max(1, math.ceil(current.reset_at - time.time()))
