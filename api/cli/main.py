"""The ``fairdeal`` command: check a shuffle by hand, make a seat's key and sign its commands
(and, with the server extra, run the service or a witness).

Every usage error is one line on stderr and exit status 2; ``fairdeal`` alone prints the
command list and exits 2. Without the server extra, ``serve``, ``demo`` and ``witness`` are
still listed, and say how to get them. Output to a pipe closed early (``| head -1``) ends quietly.
"""

import argparse
import importlib.metadata
import json
import os
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from fairdeal import randomness
from fairdeal.errors import FairdealError
from fairdeal.games import registry
from fairdeal.games.base import deck_rules
from fairdeal.games.dealing import round_deck

from . import seat

USAGE_ERROR = 2
SERVER_EXTRA = "pip install -e '.[server]' in fairdeal's clone"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.exit(USAGE_ERROR, f"{self.prog}: error: {message}\n")


def version() -> str:
    """The installed distribution's version."""
    try:
        return importlib.metadata.version("fairdeal")
    except importlib.metadata.PackageNotFoundError:
        return "unknown (not installed)"


def _seed_hex(text: str) -> bytes:
    try:
        seed = bytes.fromhex(text)
    except ValueError:
        raise argparse.ArgumentTypeError("--server-seed must be hex") from None
    if len(seed) != randomness.SEED_BYTES:
        raise argparse.ArgumentTypeError("--server-seed must be 32 bytes (64 hex digits)")
    return seed


def _round_id(text: str) -> str:
    if not text:
        raise argparse.ArgumentTypeError("must not be empty")
    return text


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="fairdeal", description="fairdeal: provably fair Toto21 and Kvitlach.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {version()}")
    commands = parser.add_subparsers(
        dest="command", title="commands", metavar="COMMAND", parser_class=_Parser
    )
    deck = commands.add_parser(
        "deck",
        help="derive a round's commitment, shuffle key and deck order",
        description="Print, as JSON, what a round's seeds fix: the server seed's commitment, "
        "the shuffle key and the deck order as card codes (position 0 is dealt first).",
    )
    games = registry()
    deck.add_argument("--game", required=True, choices=games, help="the table's game; required")
    deck.add_argument(
        "--decks",
        type=int,
        choices=sorted({decks for game in games.values() for decks in game.decks}),
        default=1,
        help="the number of decks, for a game played with more than one (default: 1)",
    )
    deck.add_argument(
        "--round-id", required=True, type=_round_id, help="the round id as logged; required"
    )
    deck.add_argument(
        "--server-seed",
        required=True,
        type=_seed_hex,
        help="round_revealed's server seed, 64 hex digits; required",
    )
    deck.add_argument(
        "--client-seed",
        action="append",
        default=[],
        help="a seat's client seed, repeated in seat order ('' for a seat that timed out; "
        "default: none)",
    )
    deck.add_argument(
        "--salts", action="store_true", help="also print each card's salt (default: off)"
    )
    seat.add_commands(commands)
    _add_server_commands(commands)
    return parser


def _add_server_commands(commands: Any) -> None:
    try:
        from .server import add_commands  # needs the server extra
    except ImportError:
        _add_missing_server_commands(commands)
        return
    add_commands(commands)


def _add_missing_server_commands(commands: Any) -> None:
    """The server extra's commands without it: listed, and saying how to get them."""
    for name, what in (
        ("serve", "run the dealing service"),
        ("demo", "play a Toto21 match and Kvitlach tables with bots, then verify them"),
        ("witness", "run a C2SP tlog-witness that cosigns a log's checkpoints"),
    ):
        needs = f"needs the server extra: {SERVER_EXTRA}"
        command = commands.add_parser(
            name, help=f"{what} ({needs})", description=f"{what[0].upper()}{what[1:]}; {needs}."
        )
        command.set_defaults(run=_needs_server, needs_server=True)


def _needs_server(args: argparse.Namespace) -> int:
    print(
        f"fairdeal: error: {args.command} needs the server extra: {SERVER_EXTRA}", file=sys.stderr
    )
    return USAGE_ERROR


def deck_report(args: argparse.Namespace) -> dict[str, Any]:
    counts = sorted(registry()[args.game].decks)
    if args.decks not in counts:
        played = "one deck" if counts == [1] else f"{' or '.join(map(str, counts))} decks"
        raise FairdealError(f"{args.game} is played with {played}")
    rules = dict(sorted(deck_rules(args.game, args.decks).items()))
    for seed in args.client_seed:
        if seed:
            randomness.check_client_seed(seed)
    deck = round_deck(args.server_seed, args.round_id, args.client_seed, rules)
    report: dict[str, Any] = {
        "commitment": randomness.seed_commitment(args.server_seed).hex(),
        "shuffle_key": deck.key.hex(),
        "rules": rules,
        "deck": list(deck.cards),
    }
    if args.salts:
        report["salts"] = [deck.salt(i).hex() for i in range(len(deck.cards))]
    return report


def _parse(parser: argparse.ArgumentParser, argv: Sequence[str] | None) -> argparse.Namespace:
    """The arguments; a command missing from the install takes any (it only says so)."""
    args, unknown = parser.parse_known_args(argv)
    if unknown and not getattr(args, "needs_server", False):
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    if args.command is None:
        parser.print_help(sys.stderr)
        parser.exit(USAGE_ERROR, "\nfairdeal: error: name a command (fairdeal COMMAND --help)\n")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = _parse(parser, argv)
    if args.command != "deck":
        result: int = args.run(args)
        return result
    try:
        report = deck_report(args)
    except FairdealError as e:
        parser.exit(USAGE_ERROR, f"fairdeal: error: {e}\n")
    return print_quietly(json.dumps(report, indent=2), 0)


def print_quietly(text: str, status: int) -> int:
    """Print ``text`` and return ``status``; the same, silently, when the reader closed the
    pipe (``| head -1``): what it did not read was not asked for. As Python's documentation
    recommends, stdout then goes to devnull, so that the flush at exit raises nothing."""
    try:
        print(text)
        sys.stdout.flush()
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    return status
