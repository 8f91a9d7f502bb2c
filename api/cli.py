"""The ``fairdeal`` command: check a shuffle by hand (and, with the server extra, run the service).

Every usage error is one line on stderr and exit status 2.
"""

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from fairdeal import randomness
from fairdeal.errors import FairdealError
from fairdeal.games.dealing import round_deck

USAGE_ERROR = 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.exit(USAGE_ERROR, f"{self.prog}: error: {message}\n")


def _seed_hex(text: str) -> bytes:
    try:
        seed = bytes.fromhex(text)
    except ValueError:
        raise argparse.ArgumentTypeError("--server-seed must be hex") from None
    if len(seed) != randomness.SEED_BYTES:
        raise argparse.ArgumentTypeError("--server-seed must be 32 bytes (64 hex digits)")
    return seed


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="fairdeal", description="fairdeal: provably fair Toto21 and Kvitlach.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    deck = commands.add_parser(
        "deck",
        help="derive a round's commitment, shuffle key and deck order",
        description="Print, as JSON, what a round's seeds fix: the server seed's commitment, "
        "the shuffle key and the deck order as card codes (position 0 is dealt first).",
    )
    deck.add_argument("--game", required=True, choices=("toto21", "kvitlach"))
    deck.add_argument("--decks", type=int, choices=(1, 2), default=1, help="Kvitlach only")
    deck.add_argument("--round-id", required=True, help="the round id as logged")
    deck.add_argument("--server-seed", required=True, type=_seed_hex, help="64 hex digits")
    deck.add_argument(
        "--client-seed",
        action="append",
        default=[],
        help="a seat's client seed, repeated in seat order ('' for a seat that timed out)",
    )
    deck.add_argument("--salts", action="store_true", help="also print each card's salt")
    _add_server_commands(commands)
    return parser


def _add_server_commands(commands: Any) -> None:
    try:
        from api.service_cli import add_commands  # needs the server extra
    except ImportError:
        return
    add_commands(commands)


def deck_report(args: argparse.Namespace) -> dict[str, Any]:
    if args.game == "toto21" and args.decks != 1:
        raise FairdealError("Toto21 is played with one deck")
    rules = {"decks": args.decks, "game": args.game}
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


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command != "deck":
        result: int = args.run(args)
        return result
    try:
        report = deck_report(args)
    except FairdealError as e:
        parser.exit(USAGE_ERROR, f"fairdeal: error: {e}\n")
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
