"""The interface every game implements, and the command that drives it.

A game is a module-level object with five pure functions. The service and the
verifier call the same ones:

- ``options(raw)``: the table's options with defaults filled in; raises OptionsError.
  The result is what ``table_created`` logs, and a fixed point: options(options(x)).
- ``new(options)``: the state of a freshly created table with no seat taken.
- ``step(state, command, secret)``: a Decision: the drafts of the events the command
  causes, and the state they lead to. ``decide`` is its drafts alone.
- ``decide(state, command, secret)``: the drafts of the events the command causes.
  The first draft always records the command itself (same type, actor and data), so
  any logged run of events can be replayed: rebuild the command from the first
  event, decide again, and compare. Raises a GameError for anything illegal.
- ``apply(state, event)``: the state after one logged event; never raises for an
  event ``decide`` produced. It reads only the event's type, actor, round, time and
  data, so the state ``step`` reaches (by applying each draft as it is made, see Run)
  is exactly the fold of ``apply`` over the logged events.
- ``legal_actions(state, seat, secret)``: the command types that seat may send now.
- ``view_for(state, seat, secret)``: what that seat may see (None: the public).
- ``due(state, now)``: the server command a passed deadline calls for, if any.
- ``deck_rules(options)``: the rules the seal binds: {"game", "decks"}.

``secret`` is the current round's 32-byte server seed, or None where it is not
known: the service always has it; the verifier learns it from the reveal.
"""

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from fairdeal.errors import IllegalActionError
from fairdeal.events import Draft, Event
from fairdeal.frozen import make

S = TypeVar("S")


@dataclass(frozen=True)
class Command:
    """A request to change a table: by a seat ("seat:N") or by the server ("server")."""

    type: str
    actor: str
    time: int
    data: Mapping[str, Any] = field(default_factory=dict)
    round: str | None = None

    @classmethod
    def of(cls, event: Event) -> "Command":
        """The command an event records (the first event of each decided run)."""
        values = {
            "type": event.type,
            "actor": event.actor,
            "time": event.time,
            "data": event.data,
            "round": event.round,
        }
        return make(cls, values)


@dataclass(frozen=True)
class Decision:
    """What a command causes: the drafts, and the state after applying them in order."""

    drafts: list[Draft]
    state: Any


class Logged(Protocol):
    """What ``apply`` reads of an event besides its time. A Draft has the same members,
    so a Run applies each draft as it is, at the time its events will carry."""

    @property
    def type(self) -> str: ...

    @property
    def actor(self) -> str: ...

    @property
    def round(self) -> str | None: ...

    @property
    def data(self) -> Mapping[str, Any]: ...


class Run(Generic[S]):
    """The drafts of one command being decided, each applied as it is made.

    Later steps of the same decision see the state the earlier drafts lead to, and the
    final state is the one ``apply`` builds from the logged events, so the table engine
    need not apply every event a second time. ``apply_at(state, event, time)`` is the
    game's ``apply`` with the event's time given apart.
    """

    def __init__(self, state: S, time: int, apply_at: Callable[[S, Logged, int], S]) -> None:
        self.state = state
        self.time = time
        self.drafts: list[Draft] = []
        self._apply_at = apply_at

    def emit(self, draft: Draft) -> None:
        self.state = self._apply_at(self.state, draft, self.time)
        self.drafts.append(draft)

    def decision(self) -> Decision:
        return make(Decision, {"drafts": self.drafts, "state": self.state})


class Game(Protocol):
    """What a game plug-in provides; see the module docstring."""

    name: str

    def options(self, raw: Mapping[str, Any]) -> dict[str, Any]: ...

    def deck_rules(self, options: Mapping[str, Any]) -> dict[str, Any]: ...

    def new(self, options: Mapping[str, Any]) -> Any: ...

    def step(self, state: Any, command: Command, secret: bytes | None) -> Decision: ...

    def decide(self, state: Any, command: Command, secret: bytes | None) -> list[Draft]: ...

    def apply(self, state: Any, event: Event) -> Any: ...

    def legal_actions(self, state: Any, seat: int, secret: bytes | None) -> list[str]: ...

    def view_for(self, state: Any, seat: int | None, secret: bytes | None) -> dict[str, Any]: ...

    def due(self, state: Any, now: int) -> Command | None: ...


def record(command: Command, data: Mapping[str, Any], round_id: str | None = None) -> Draft:
    """The draft that records ``command`` with its full ``data``.

    The command may omit derived fields but may not contradict them or add others.
    """
    for key, value in command.data.items():
        if key not in data:
            raise IllegalActionError(f"{command.type} has no field {key!r}")
        if data[key] != value or type(data[key]) is not type(value):
            raise IllegalActionError(f"{command.type}: {key} must be {data[key]!r}")
    return Draft(command.type, command.actor, dict(data), round_id or command.round)
