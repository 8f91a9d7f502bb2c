"""``fairdeal serve``, ``fairdeal demo`` and ``fairdeal witness``: the commands that need the
server extra.

``serve`` runs the service under gunicorn (``http/serving.py``), in worker processes that share the
database, the rate limit's store (if it is Redis) and, in prometheus-client's multiprocess mode,
the metrics. That mode must be chosen before prometheus-client is first imported, so the app's
modules are imported only once it is.
"""

import argparse
import logging
import os
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from flask import Flask

from fairdeal.errors import FairdealError

from ..http import logs
from ..service.config import MULTIPROCESS_METRICS, Config, ConfigError, unknown_variables
from ..storage import StorageError, private_files
from ..witness.command import add_command as add_witness_command

USAGE_ERROR = 2
METRICS_FOLDER = "metrics"  # in the instance folder, unless PROMETHEUS_MULTIPROC_DIR says
log = logging.getLogger("fairdeal")


def add_commands(commands: Any) -> None:
    serve = commands.add_parser(
        "serve",
        help="run the dealing service",
        description="Run the service under gunicorn, in worker processes that answer on "
        "threads of their own. Without FAIRDEAL_DATABASE_URL it keeps a SQLite file and a "
        "development signing key in the instance folder (FAIRDEAL_INSTANCE_PATH, default "
        "./instance), and its metrics' files in the instance folder's metrics/ (unless "
        "PROMETHEUS_MULTIPROC_DIR names another folder). SIGTERM stops it gracefully.",
    )
    serve.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1)"
    )
    serve.add_argument(
        "--port", type=_port, default=8000, help="TCP port, 1 to 65535 (default: 8000)"
    )
    serve.add_argument(
        "--workers",
        type=_count(1, 64),
        default=2,
        help="worker processes, 1 to 64 (default: 2)",
    )
    serve.add_argument(
        "--threads",
        type=_count(1, 256),
        default=8,
        help="threads answering requests in each worker, 1 to 256 (default: 8)",
    )
    serve.add_argument(
        "--timeout",
        type=_count(1, 3600),
        default=30,
        metavar="SECONDS",
        help="a request body that stops coming for this long is answered 408, and a worker "
        "silent for this long is restarted; 1 to 3600 (default: 30)",
    )
    serve.set_defaults(run=run_serve)
    add_witness_command(commands, _port)
    demo = commands.add_parser(
        "demo",
        help="play a Toto21 match and Kvitlach tables with bots, then verify them",
        description="Start the service on a throwaway SQLite file, play a whole Toto21 match and "
        "Kvitlach tables of both rule sets over real HTTP with bot players (each seat with "
        "its own key, signing its moves and committing to its seeds), write the bundles and "
        "an export to DIR (a new or empty folder), and verify them offline.",
    )
    demo.add_argument(
        "--out",
        default="fairdeal-demo",
        type=Path,
        help="output folder, new or empty (default: fairdeal-demo)",
    )
    demo.set_defaults(run=run_demo_command)


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("not an integer") from None
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError("must be 1 to 65535")
    return port


def _count(low: int, high: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError("not an integer") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be {low} to {high}")
        return value

    return parse


def run_serve(args: argparse.Namespace) -> int:
    logs.configure("text")  # until the configuration says which
    try:
        config = Config.from_env()
        logs.configure(config.log_format, level=config.log_level)
        for line in unknown_variables():
            log.warning("%s", line)
        _multiprocess_metrics(config)
        from ..http.app import close_app, create_app  # now: it imports prometheus-client

        # Everything checked, the key and the schema made, once, before any worker starts.
        close_app(create_app(replace(config, sweep_interval_s=0, witnesses="")))
    except (ConfigError, FairdealError, OSError, StorageError) as e:
        raise SystemExit(f"fairdeal: error: {e}") from None
    try:
        from ..http import serving
    except ModuleNotFoundError as e:  # on Windows
        raise SystemExit(f"fairdeal: error: {e}") from None
    options = serving.ServerOptions(args.host, args.port, args.workers, args.threads, args.timeout)
    storage = "PostgreSQL" if config.database_url.startswith("postgres") else config.store_url

    def ready() -> None:  # said once the port is bound
        log.info("fairdeal on http://%s (storage: %s)", options.bind, storage)

    def worker_app() -> Flask:
        # The schema was made above. A worker, booting or started again by gunicorn in the
        # running server, touches no database as it boots: one that failed to boot because
        # the database was briefly away would make gunicorn stop the whole service. Until the
        # database is back, its requests are answered 503 as any other worker's.
        return create_app(config, check_schema=False)

    serving.run(worker_app, options, ready=ready, unload=close_app)
    return 0


def _multiprocess_metrics(config: Config) -> None:
    """Turn on prometheus-client's multiprocess mode, so that a scrape sees every worker: in
    PROMETHEUS_MULTIPROC_DIR if set, else the instance folder's metrics/; the files of an
    earlier run there are removed (counters start again at 0, as at any restart)."""
    folder = Path(os.environ.get(MULTIPROCESS_METRICS) or config.instance_path / METRICS_FOLDER)
    private_files.make_folder(folder)
    for old in folder.glob("*.db"):
        old.unlink()
    os.environ[MULTIPROCESS_METRICS] = str(folder.absolute())


def run_demo_command(args: argparse.Namespace) -> int:
    from .demo import OutFolderError, run_demo

    logging.basicConfig(level=logging.ERROR)
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    try:
        return run_demo(args.out)
    except OutFolderError as e:
        print(f"fairdeal: error: --out {e}", file=sys.stderr)
        return USAGE_ERROR
