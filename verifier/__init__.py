"""fairdeal's offline verifier: a round bundle, a JSONL export, checkpoints and proofs.

Needs only the core (``fairdeal``) and ``cryptography``: never Flask, marshmallow or a
database. ``verify_bundle`` checks one parsed bundle; the ``fairdeal-verify`` command
(``fairdeal.verifier.cli``) does the rest. SPEC.md section 7 numbers the steps; the code tags
each block with its step, ``# (n)``.

Installed as ``fairdeal.verifier`` (pyproject.toml maps this folder to that name), and
importable by that name only: a checkout's ``verifier`` folder on ``sys.path`` is not a second
copy of it.
"""

from typing import Any

if __name__ != "fairdeal.verifier":
    raise ImportError(f"verifier/ is fairdeal.verifier: import it by that name, not {__name__}")

from .findings import CODES, Finding, Report
from .trust import Trust, load_trust

__all__ = ["CODES", "Finding", "Report", "Trust", "load_trust", "verify_bundle"]


def verify_bundle(obj: Any, trust: Trust) -> Report:
    """Every step for one parsed bundle (from ``json.loads``), as a Report."""
    from .export import Pinned, verify_alone
    from .inputs import has_duplicates

    report = Report()
    verify_alone(obj, has_duplicates(obj), trust, Pinned(), report)
    return report
