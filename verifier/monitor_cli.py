"""``fairdeal-monitor EXPORT... [--json] [--html FILE] [--alpha A] [--all]``: the monitor.

Reads each export (JSON Lines, one bundle a line, SPEC 13.2; ``-`` for standard input) as
strictly as fairdeal-verify does, replays every table through the rules with each round's
revealed seed, and reports each seat's (and each Kvitlach pair's) decisions against what it
could not see (``fairdeal.monitor``; docs/monitor.md says what a flag means and does not);
``--html`` also writes the report as one self-contained page with charts. Verify the export
first (fairdeal-verify): the monitor checks no operator signature.

Exit status: 0 nothing flagged, 1 a seat or pair flagged, 2 an export it could not read or
replay.
"""

import argparse
import json
import sys
from collections.abc import Sequence

from fairdeal.errors import FairdealError
from fairdeal.monitor import ALPHA, Replayer, judge, text
from fairdeal.monitor.observations import Observation
from fairdeal.monitor.page import page

from .inputs import InputError, loads, open_input, read_lines


def observe(paths: Sequence[str]) -> tuple[list[Observation], Replayer]:
    """Every observation of the exports, read in the order given (a table's bundles in
    export order, whichever file holds them)."""
    replayer, found = Replayer(), []
    for path in paths:
        with open_input(path) as stream:
            for line in read_lines(stream):
                if line.error is not None:
                    raise InputError(line.error.code, f"{path}, line {line.number}: {line.error}")
                found += replayer.add(loads(line.data))
    return found, replayer


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="fairdeal-monitor",
        description=__doc__.split("\n\n")[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("exports", nargs="+", metavar="EXPORT", help="a JSONL export, or -")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument(
        "--alpha",
        type=float,
        default=ALPHA,
        help=f"the family-wise level at which a seat is flagged (default: {ALPHA})",
    )
    parser.add_argument(
        "--all", action="store_true", help="list every test, not only the flags (default: off)"
    )
    parser.add_argument(
        "--html", metavar="FILE", help="also write the report as an offline HTML page with charts"
    )
    args = parser.parse_args(argv)
    if not 0 < args.alpha < 1:
        parser.error("--alpha is a level between 0 and 1")
    try:
        found, replayer = observe(args.exports)
    except (InputError, FairdealError, ValueError, KeyError, TypeError) as e:
        print(f"fairdeal-monitor: cannot read the export: {e}", file=sys.stderr)
        return 2
    report = judge(found, args.alpha)
    summary = {
        "tables": len(replayer.tables),
        "rounds": replayer.rounds,
        "decisions": replayer.decisions,
    }
    if args.html:
        with open(args.html, "w", encoding="utf-8") as out:
            out.write(page(report, summary))
    if args.json:
        print(json.dumps({**summary, **report.to_json()}, indent=1))
    else:
        print(f"{len(replayer.tables)} tables, {replayer.rounds} rounds, "
              f"{replayer.decisions} decisions with a choice")  # fmt: skip
        print(text(report, all_tests=args.all), end="")
    return 1 if report.flagged else 0


if __name__ == "__main__":
    raise SystemExit(main())
