"""``fairdeal serve`` and ``fairdeal demo``: the commands that need the server extra."""

import argparse
import logging
from pathlib import Path
from typing import Any

from werkzeug.serving import run_simple

from api.app import create_app
from api.config import Config, ConfigError
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
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.set_defaults(run=run_serve)
    demo = commands.add_parser(
        "demo",
        help="play a Toto21 match and a Kvitlach table with bots, then verify them",
        description="Start the service on a throwaway SQLite file, play a whole Toto21 match and "
        "a Kvitlach table over real HTTP with bot players, write the bundles and an export to "
        "DIR, and verify them offline.",
    )
    demo.add_argument("--out", default="fairdeal-demo", type=Path, help="output folder")
    demo.set_defaults(run=run_demo_command)


def run_serve(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    try:
        config = Config.from_env()
        app = create_app(config)
    except (ConfigError, FairdealError, OSError) as e:
        raise SystemExit(f"fairdeal: error: {e}") from None
    logging.getLogger("fairdeal").info(
        "fairdeal on http://%s:%d (storage: %s)",
        args.host,
        args.port,
        "PostgreSQL" if config.database_url.startswith("postgres") else config.store_url,
    )
    run_simple(args.host, args.port, app, threaded=True)
    return 0


def run_demo_command(args: argparse.Namespace) -> int:
    from api.demo import run_demo

    logging.basicConfig(level=logging.ERROR)
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    return run_demo(args.out)
