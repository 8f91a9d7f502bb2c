"""A run of a table's chain checked link by link with the core's ``ChainHead.follow``: the
check the SDK makes of every receipt. (The verifier's own check, verifier/chain.py, has its
tests in tests/verifier.)"""

from collections.abc import Iterable

from fairdeal.events import ChainHead, SignedEvent
from fairdeal.keys import KeySet


def check_chain(
    events: Iterable[SignedEvent], keys: KeySet, head: ChainHead | None = None
) -> ChainHead:
    """Check a run of a table's chain from ``head`` (the genesis if None); return its end."""
    for signed in events:
        head = (head or ChainHead(signed.event.table)).follow(signed, keys)
    if head is None:
        raise ValueError("an empty chain has no head")
    return head
