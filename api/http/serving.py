"""The HTTP server of ``fairdeal serve`` and ``fairdeal witness``: gunicorn, run from Python.

gunicorn's master process binds the port and keeps ``workers`` worker processes, replacing any
that dies; each worker answers on ``threads`` threads, with HTTP/1.1 keep-alive. A request body
the client stops sending is given up after ``timeout_s`` of silence (408), so a request whose
headers promise a body that never comes holds one thread for that long, not for ever; the other
threads and workers answer meanwhile.

Its logs go through the service's (``logs.configure``): gunicorn's own lines, and the app's,
each request's line among them (``logs.AccessLog``, around the app). Metrics across workers
need prometheus-client's multiprocess mode (``metrics.py``); a worker that exits is marked dead
there. gunicorn runs on POSIX systems only (it needs ``fcntl``).
"""

import os
import socket
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from werkzeug.exceptions import RequestTimeout

from ..service.config import MULTIPROCESS_METRICS

try:
    from gunicorn.app.base import BaseApplication
    from gunicorn.glogging import Logger
except ModuleNotFoundError as e:  # gunicorn imports fcntl, which only POSIX systems have
    raise ModuleNotFoundError(
        f"the server is gunicorn, which runs on POSIX systems only ({e}); on Windows, use WSL"
    ) from e

WsgiApp = Callable[[Any, Any], Iterable[bytes]]
App = TypeVar("App", bound=WsgiApp)
KEEPALIVE_S = 5  # how long an idle connection is kept open for its next request
GRACEFUL_S = 10  # how long a stopping worker may take to finish the requests it has


@dataclass(frozen=True)
class ServerOptions:
    host: str
    port: int
    workers: int = 2
    threads: int = 8
    timeout_s: int = 30

    @property
    def bind(self) -> str:
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"


def run(
    load: Callable[[], App],
    options: ServerOptions,
    *,
    ready: Callable[[], None] = lambda: None,
    unload: Callable[[App], None] = lambda app: None,
) -> None:
    """Serve the app that ``load`` makes in each worker until the master is stopped
    (SIGTERM: gracefully; SIGINT: at once). ``ready`` runs in the master once the port is
    bound; ``unload`` in a worker as it exits, with its app."""
    _Server(load, options, ready, unload).run()


class _Server(BaseApplication, Generic[App]):  # type: ignore[misc]
    def __init__(
        self,
        load: Callable[[], App],
        options: ServerOptions,
        ready: Callable[[], None],
        unload: Callable[[App], None],
    ) -> None:
        self._load, self._options = load, options
        self._ready, self._unload = ready, unload
        super().__init__()

    def load_config(self) -> None:
        options = self._options
        settings: dict[str, Any] = {
            "bind": [options.bind],
            "workers": options.workers,
            "worker_class": "gthread",
            "threads": options.threads,
            "timeout": options.timeout_s,
            "graceful_timeout": GRACEFUL_S,
            "keepalive": KEEPALIVE_S,
            "proc_name": "fairdeal",
            "logger_class": RootLogger,
            "when_ready": lambda server: self._ready(),
            "worker_exit": lambda server, worker: self._worker_exit(worker),
            "child_exit": _forget_dead_worker,
        }
        if "control_socket_disable" in self.cfg.settings:  # gunicorn 25.1 on
            # Its default path is one per user, which a second server on the host would take.
            settings["control_socket_disable"] = True
        for name, value in settings.items():
            self.cfg.set(name, value)

    def load(self) -> "BodyTimeout[App]":
        return BodyTimeout(self._load(), self._options.timeout_s)

    def _worker_exit(self, worker: Any) -> None:
        loaded = getattr(worker, "wsgi", None)  # none if the app failed to load
        if isinstance(loaded, BodyTimeout):
            self._unload(loaded.app)


def _forget_dead_worker(server: Any, worker: Any) -> None:
    """In multiprocess mode, drop what only a live process may report (its live gauges);
    its counters stay counted."""
    if os.environ.get(MULTIPROCESS_METRICS):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)  # type: ignore[no-untyped-call]


class BodyTimeout(Generic[App]):
    """Gives up on a request body the client stops sending: after ``seconds`` without a byte,
    reading it raises werkzeug's RequestTimeout (408) rather than waiting for ever."""

    def __init__(self, app: App, seconds: float) -> None:
        self.app, self._seconds = app, seconds

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        connection: socket.socket | None = environ.get("gunicorn.socket")
        if connection is not None:
            connection.settimeout(self._seconds)  # gunicorn makes it blocking again after
        environ["wsgi.input"] = _TimedInput(environ["wsgi.input"], self._seconds)
        return self.app(environ, start_response)


class _TimedInput:
    def __init__(self, stream: Any, seconds: float) -> None:
        self._stream, self._seconds = stream, seconds

    def read(self, size: int | None = -1) -> bytes:
        return self._timed(self._stream.read, size)

    def readline(self, size: int | None = -1) -> bytes:
        return self._timed(self._stream.readline, size)

    def __iter__(self) -> Iterator[bytes]:
        return iter(self.readline, b"")

    def _timed(self, reading: Callable[[int | None], bytes], size: int | None) -> bytes:
        try:
            return reading(size)
        except TimeoutError:
            reason = f"the request body stopped coming for {self._seconds:g} s"
            raise RequestTimeout(reason) from None


class RootLogger(Logger):  # type: ignore[misc]
    """gunicorn's logger, its lines sent to the root logger's handler (``logs.configure``), and
    no access lines of its own: the app writes each request's (``logs.AccessLog``)."""

    def setup(self, cfg: Any) -> None:
        super().setup(cfg)
        for log in (self.error_log, self.access_log):
            for handler in list(log.handlers):
                log.removeHandler(handler)
        self.error_log.propagate = True
