"""Step (18) witnesses: a checkpoint counts only with the cosignatures of a quorum of the
witnesses the command line gives (C2SP tlog-cosignature v1).

Each witness's lines are checked apart, so that one bad line names its witness and the
others still count. The time at which the quorum was reached bounds from above when
every leaf of the checkpoint was logged: the **witness-bounded time**.
"""

from dataclasses import dataclass

from fairdeal.cosignature import BadCosignatureError, Cosignature, cosignatures
from fairdeal.note import MalformedNoteError, read_note

from .findings import Finding
from .log import Place
from .trust import Trust

# How far a witness's clock may run behind the operator's before a checkpoint cosigned
# "before" a head it holds is the operator's doing (a head stamped later than it was logged),
# not the witness's clock: NTP keeps honest clocks within a second; a minute is generous.
WITNESS_CLOCK_SLACK_MS = 60_000


@dataclass(frozen=True)
class Witnessing:
    """What one checkpoint's cosignatures by the given witnesses show."""

    given: tuple[str, ...]  # the witnesses' names, as the command line gives them
    quorum: int
    valid: tuple[Cosignature, ...]  # each witness's earliest valid one, earliest first
    bad: tuple[str, ...]  # why each line naming a given witness's key failed

    @property
    def bound(self) -> int | None:
        """The witness-bounded time (POSIX seconds): the quorum-th earliest valid
        cosignature's; None without a quorum."""
        return self.valid[self.quorum - 1].timestamp if len(self.valid) >= self.quorum else None

    @property
    def quorum_names(self) -> tuple[str, ...]:
        """The witnesses whose cosignatures reached the quorum."""
        return tuple(c.name for c in self.valid[: self.quorum])

    def findings(self, place: Place, head_time: int | None = None) -> list[Finding]:
        """(18) Its findings where ``place`` names it; ``head_time`` (milliseconds), the
        time of the bundle's head its checkpoint covers, if it is a bundle's."""
        found = [place.finding("witness.signature", reason) for reason in self.bad]
        bound = self.bound
        if bound is None:
            found.append(place.finding("witness.quorum", self._not_witnessed()))
        elif head_time is not None and bound * 1000 + 999 + WITNESS_CLOCK_SLACK_MS < head_time:
            reason = (
                f"the quorum of {self.quorum} cosigned at {bound} s, more than "
                f"{WITNESS_CLOCK_SLACK_MS // 1000} s before the head's time {head_time} ms: "
                "the head is stamped later than it was logged (a witness's clock behind the "
                "operator's by less than that is not a finding)"
            )
            found.append(place.finding("witness.time", reason))
        return found

    def _not_witnessed(self) -> str:
        names = ", ".join(c.name for c in self.valid) or "none"
        return (
            f"{len(self.valid)} valid cosignature(s) of the {self.quorum} required, by {names} "
            f"(witnesses given: {', '.join(self.given)}): the checkpoint is not witnessed"
        )


def witnessing(note: str, trust: Trust) -> Witnessing | None:
    """(18) The cosignatures in a checkpoint's ``note`` by the given witnesses; None when
    none is given."""
    if not trust.witnesses:
        return None
    given = tuple(w.name for w in trust.witnesses)
    try:
        read_note(note)
    except MalformedNoteError:  # step 16 reports it: nobody cosigned it
        return Witnessing(given, trust.quorum, (), ())
    valid: list[Cosignature] = []
    bad: list[str] = []
    for witness in trust.witnesses:
        try:
            valid += cosignatures(note, [witness])
        except BadCosignatureError as e:
            bad.append(f"{e} (key {witness.name}+{witness.key_id.hex()})")
    valid.sort(key=lambda c: (c.timestamp, c.name))
    return Witnessing(given, trust.quorum, tuple(valid), tuple(bad))
