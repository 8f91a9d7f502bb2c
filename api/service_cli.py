"""``fairdeal serve``, ``fairdeal demo`` and ``fairdeal witness``: the commands that need the
server extra."""

import argparse
import logging
import sys
from pathlib import Path
from typing import Any

from werkzeug.serving import run_simple

from fairdeal.api import logs
from fairdeal.api.app import create_app
from fairdeal.api.config import Config, ConfigError, unknown_variables
from fairdeal.api.storage import StorageError
from fairdeal.api.witness.command import add_command as add_witness_command
from fairdeal.errors import FairdealError

USAGE_ERROR = 2


def add_commands(commands: Any) -> None:
    serve = commands.add_parser(
        "serve",
        help="run the dealing service",
        description="Run the service. Without FAIRDEAL_DATABASE_URL it keeps a SQLite file and a "
        "development signing key in the instance folder (FAIRDEAL_INSTANCE_PATH, default "
        "./instance).",
    )
    serve.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1)"
    )
    serve.add_argument(
        "--port", type=_port, default=8000, help="TCP port, 1 to 65535 (default: 8000)"
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


def run_serve(args: argparse.Namespace) -> int:
    logs.configure("text")  # until the configuration says which
    try:
        config = Config.from_env()
        logs.configure(config.log_format)
        for line in unknown_variables():
            logging.getLogger("fairdeal").warning("%s", line)
        app = create_app(config)
    except (ConfigError, FairdealError, OSError, StorageError) as e:
        raise SystemExit(f"fairdeal: error: {e}") from None
    logging.getLogger("fairdeal").info(
        "fairdeal on http://%s:%d (storage: %s)",
        args.host,
        args.port,
        "PostgreSQL" if config.database_url.startswith("postgres") else config.store_url,
    )
    run_simple(args.host, args.port, app, threaded=True, request_handler=logs.RequestLogHandler)
    return 0


def run_demo_command(args: argparse.Namespace) -> int:
    from fairdeal.api.demo import OutFolderError, run_demo

    logging.basicConfig(level=logging.ERROR)
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    try:
        return run_demo(args.out)
    except OutFolderError as e:
        print(f"fairdeal: error: --out {e}", file=sys.stderr)
        return USAGE_ERROR
