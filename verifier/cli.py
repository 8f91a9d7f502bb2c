"""fairdeal-verify: check a round bundle, an export, a checkpoint or a proof, offline.

Exit status: 0 valid, 1 invalid (findings), 2 unusable input (unreadable, wrong format,
wrong key, a needed proof missing). Every problem is one line; never a traceback.
Output to a pipe closed early (``| head -1``) ends quietly, with the verdict's status.
"""

import argparse
import importlib.metadata
import json
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, NoReturn

from . import sources
from .findings import Finding, Report
from .inputs import InputError

if TYPE_CHECKING:  # explain is imported only when --explain asks for it
    from .explain import Story

USAGE = 2
_SHOWN = 50  # findings printed as text; --json lists every one


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.exit(USAGE, f"{self.prog}: error: {message}\n")


def parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="fairdeal-verify",
        description="Verify fairdeal rounds offline: a bundle (.json), an export (.jsonl, "
        "or - for standard input), a checkpoint, or an inclusion proof. Exit 0 valid, "
        "1 invalid, 2 unusable input.",
    )
    p.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    p.add_argument(
        "input",
        nargs="?",
        help="bundle, export, checkpoint note or proof file, or - for standard input "
        "(default: none; then --checkpoint is checked alone)",
    )
    p.add_argument(
        "--key",
        action="append",
        default=[],
        metavar="KEY",
        help="a trusted operator key: a PEM public key file or a C2SP verifier key "
        "string (repeat for rotated keys); required",
    )
    p.add_argument(
        "--checkpoint",
        metavar="FILE",
        help="require every round's inclusion in it (default: each bundle's own checkpoint)",
    )
    p.add_argument(
        "--previous-checkpoint",
        metavar="FILE",
        help="require --checkpoint to extend it (default: none)",
    )
    p.add_argument(
        "--consistency-proof",
        action="append",
        default=[],
        metavar="FILE",
        help="a consistency proof ({from, to, proof}) between two checkpoints, repeatable "
        "(default: none)",
    )
    p.add_argument(
        "--witness",
        action="append",
        default=[],
        metavar="KEY",
        help="a witness whose cosignature every checkpoint needs: its C2SP verifier key "
        "string (name+keyid+base64 of 0x04 and its Ed25519 key) or a file holding one, "
        "repeatable (default: none; checkpoints then need no cosignature)",
    )
    p.add_argument(
        "--witness-quorum",
        type=_positive,
        metavar="N",
        help="how many of the --witness keys must cosign each checkpoint, 1 to their number "
        "(default: every one given)",
    )
    p.add_argument("--origin", help="the log's name, if it must be pinned too (default: any name)")
    p.add_argument(
        "--partial",
        action="store_true",
        help="the export is filtered: leaves missing between its rounds are expected "
        "(default: off)",
    )
    p.add_argument("--json", action="store_true", help="print the report as JSON (default: text)")
    p.add_argument(
        "--explain",
        action="store_true",
        help="tell a single bundle's round (or its table at rest) as a person would; an "
        "export is verified, not told (a line of it saved alone is a bundle) (default: off)",
    )
    p.add_argument(
        "--jobs",
        type=_jobs,
        default=os.cpu_count() or 1,
        help="processes, 1 to 256 (default: all cores)",
    )
    return p


def _version() -> str:
    try:
        return importlib.metadata.version("fairdeal")
    except importlib.metadata.PackageNotFoundError:
        return "unknown (not installed)"


def _jobs(text: str) -> int:
    value = _positive(text)
    if value > 256:
        raise argparse.ArgumentTypeError("--jobs takes 1 to 256")
    return value


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"a positive integer, not {text!r}")
    return value


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.input is None and args.checkpoint is None:
        if not args.key:  # nothing given at all: what can be given
            parser().print_help(sys.stderr)
            print(file=sys.stderr)
        parser().error("give an input file, or --checkpoint to check a checkpoint")
    if args.previous_checkpoint and not args.checkpoint:
        parser().error("--previous-checkpoint needs --checkpoint")
    if args.witness_quorum is not None and not args.witness:
        parser().error("--witness-quorum needs --witness")
    if args.witness_quorum is not None and args.witness_quorum > len(args.witness):
        parser().error(f"--witness-quorum takes 1 to {len(args.witness)}, the witnesses given")
    try:
        report, story = sources.run(args)
    except InputError as e:
        report, story = Report([Finding(e.code, None, None, None, e.reason)]), None
    except KeyboardInterrupt:
        print("fairdeal-verify: interrupted", file=sys.stderr)
        return USAGE
    try:
        _print(report, story, args.json)
        sys.stdout.flush()
    except BrokenPipeError:  # the reader closed the pipe: as Python's documentation says
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return report.exit_status


def _print(report: Report, story: "Story", as_json: bool) -> None:
    """The report, and after it the story (the findings say first what to trust of it)."""
    if as_json:
        out = report.to_json()
        if story is not None:
            out["explain"] = story
        print(json.dumps(out, indent=2, ensure_ascii=False))
        return
    verdict = report.verdict.upper()
    if report.checked or report.rounds:
        what = ", ".join(report.checked) or "nothing"
        print(f"{verdict}: {what}: {report.rounds} bundle(s), {report.events} event(s)")
    else:  # nothing was read to count: the finding below says why
        print(f"{verdict}: nothing was checked")
    for finding in report.findings[:_SHOWN]:
        print("  " + finding.line())
    hidden = len(report.findings) - _SHOWN + report.dropped
    if hidden > 0:
        print(f"  ... and {hidden} more finding(s) (--json lists them)")
    if report.verdict == "unusable":
        print("fairdeal-verify: the input cannot be verified as given (exit 2)", file=sys.stderr)
    if story is not None:
        print()
        print(story)
