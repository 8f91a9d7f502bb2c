"""fairdeal's offline verifier: a round bundle, a JSONL export, checkpoints and proofs.

Needs only the core (``fairdeal``) and ``cryptography``: never Flask, marshmallow or a
database. ``verify_bundle`` checks one parsed bundle; the ``fairdeal-verify`` command
(``fairdeal.verifier.cli``) does the rest. SPEC.md section 7 numbers the steps; the code tags
each block with its step, ``# (n)``.
"""

from typing import Any

from fairdeal.verifier.findings import CODES, Finding, Report
from fairdeal.verifier.trust import Trust, load_trust

__all__ = ["CODES", "Finding", "Report", "Trust", "load_trust", "verify_bundle"]


def verify_bundle(obj: Any, trust: Trust) -> Report:
    """Every step for one parsed bundle (from ``json.loads``), as a Report."""
    from fairdeal.verifier import export
    from fairdeal.verifier.bundle import Context, check
    from fairdeal.verifier.inputs import has_duplicates

    result = check(obj, trust, Context(duplicates=has_duplicates(obj))).result
    across = export.Across(export.Pinned(partial=True))  # one leaf of the log
    across.add(result)
    across.finish()
    report = Report(rounds=1, events=result.events)
    report.add([*result.findings, *across.findings])
    return report
