"""An operator that rewrites its own log (issue 23): the service's answers for one table as
its operator shows them after changing the event at seq ``at`` (``change``, given the
event's JSON) and signing it, and every later event, again with the service's own key, each
linked to the one before. No chain or operator-signature check can tell that log from a true
one; only the seats' own signatures can."""

import copy
from collections.abc import Callable
from typing import Any

from fairdeal.events import Event, sign
from tests.api.conftest import Server

Change = Callable[[dict[str, Any]], None]


class Relog:
    """The table's log from ``at`` on, relogged as the service logs more of it."""

    def __init__(self, server: Server, table_id: str, at: int, change: Change) -> None:
        self.server, self.table_id, self.at, self.change = server, table_id, at, change
        self.relogged: list[dict[str, Any]] = []  # the log from ``at`` on, as shown

    def shown(self, item: dict[str, Any]) -> dict[str, Any]:
        """A signed event of an answer as the operator shows it."""
        event = item["event"]
        if event["table"] != self.table_id or event["seq"] < self.at:
            return item
        while event["seq"] - self.at >= len(self.relogged):
            self._relog()
        return copy.deepcopy(self.relogged[event["seq"] - self.at])

    def head(self, head: dict[str, Any]) -> dict[str, Any]:
        """A view's head {seq, hash} as the operator shows it."""
        if head["seq"] < self.at:
            return head
        return {"seq": head["seq"], "hash": self.shown_at(head["seq"])["hash"]}

    def shown_at(self, seq: int) -> dict[str, Any]:
        return self.shown({"event": {"table": self.table_id, "seq": seq}})

    def _relog(self) -> None:
        """Relog the events the service logged after those relogged so far, read from its
        store (not over HTTP: the operator rewriting an answer may hold the server's last
        free worker)."""
        signer = self.server.service.keys.signer
        published = self.server.service.published
        since: int | None = self.at + len(self.relogged)
        logged: list[dict[str, Any]] = []
        while since is not None:
            page = published.table_events(self.table_id, since, 100)
            logged += page["events"]
            since = page["next_from_seq"]
        for item in logged:
            event = copy.deepcopy(item["event"])
            if self.relogged:
                event["prev"] = self.relogged[-1]["hash"]
            else:
                self.change(event)
            self.relogged.append(sign(Event.from_json(event), signer).to_json())


# The three forgeries of a keyed seat's move (issue 23), each a change of its event's JSON:
# the names of what each does, to the refusal code the engine gives it.


def relabelled_hit(event: dict[str, Any]) -> None:
    event["type"] = "hit"


def statement_dropped(event: dict[str, Any]) -> None:
    del event["data"]["signed"]


def numbered_back(event: dict[str, Any]) -> None:
    event["data"]["signed"]["n"] = 1


FORGERIES: dict[str, tuple[Change, str]] = {
    "its stand relabelled hit": (relabelled_hit, "signature_invalid"),
    "its signed dropped": (statement_dropped, "signature_missing"),
    "its n set back to 1": (numbered_back, "signature_replayed"),
}
