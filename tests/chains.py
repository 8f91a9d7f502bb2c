"""A run of a table's chain checked link by link, for tests: the verifier's own check of
each signed event (verifier/chain.py, SPEC 7 steps 1 to 5), its first finding raised as
the core's error for it, so that a test names what broke as the core names it."""

from collections.abc import Iterable

from fairdeal import errors
from fairdeal.events import ChainHead, SignedEvent
from fairdeal.keys import KeySet
from fairdeal.verifier.chain import ChainChecker, Head

ERRORS: dict[str, type[errors.FairdealError]] = {
    "schema.event": errors.EventSchemaError,
    "canonical.encoding": errors.EventSchemaError,
    "chain.table": errors.WrongTableError,
    "chain.gap": errors.ChainGapError,
    "chain.fork": errors.ChainForkError,
    "sig.hash_mismatch": errors.HashMismatchError,
    "sig.unknown_key": errors.UnknownKeyError,
    "sig.wrong_key": errors.UnknownKeyError,
    "sig.bad_signature": errors.BadSignatureError,
    "time.went_back": errors.TimeWentBackError,
}


def check_chain(
    events: Iterable[SignedEvent], keys: KeySet, head: ChainHead | None = None
) -> ChainHead:
    """Check a run of a table's chain from ``head`` (the genesis if None); return its end.
    The links only: which type of event opens a chain (``chain.genesis``) is not asked."""
    signed = list(events)
    if head is None and not signed:
        raise ValueError("an empty chain has no head")
    head = head or ChainHead(signed[0].event.table)
    checker = ChainChecker(head.table, keys, Head(head.next_seq, head.prev, head.time))
    checker.check([s.to_json() for s in signed], duplicates_possible=False)
    for finding in checker.findings:
        if finding.code != "chain.genesis":
            raise ERRORS[finding.code](f"seq {finding.seq}: {finding.reason}")
    end = checker.head
    return ChainHead(head.table, end.next_seq, end.prev, end.time)
