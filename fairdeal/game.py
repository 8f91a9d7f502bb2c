"""The interface every game implements, and the command that drives it: the core's side of
the game plug-ins (the table engine and statements use them, knowing no game).

A game provides eleven pure functions, which the service and the verifier call alike
(SPEC 6.1; the contract in full, and how to add a game, is the package's README.md):

- ``options(raw)``: the table's options with defaults filled in; raises OptionsError.
  The result is what ``table_created`` logs, and a fixed point: options(options(x)).
- ``deck_rules(options)``: the rules the seal binds: {"game", "decks"}.
- ``new(options)``: the state of a freshly created table with no seat taken.
- ``step(state, command, secret)``: a Decision: the drafts of the events the command
  causes, and the state they lead to.
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
- ``snapshot(state)``: the table at rest as JSON members (with ``options`` and
  ``balances``; bounded by the table's size, never by its age), or None while a round
  is open. The engine logs them in ``table_state`` (SPEC 6.6).
- ``restore(members)``: the state a snapshot describes, which decides every later
  command as the state it was taken of did; raises EventSchemaError (or OptionsError)
  for anything ``snapshot`` would not give.

``secret`` is the current round's 32-byte server seed, or None where it is not
known: the service always has it; the verifier learns it from the reveal.

A game's package writes its rules as module functions; ``fairdeal.games.base.Plugin``
makes the eleven of them from the game's own.
"""

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

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
    # The table's id, which the engine sets before the rules decide: a dealer-blind table's
    # proofs are bound to it (SPEC 15.12.1). No other rule reads it.
    table: str = ""

    @classmethod
    def of(cls, event: Event) -> "Command":
        """The command an event records (the first event of each decided run)."""
        values = {
            "type": event.type,
            "actor": event.actor,
            "time": event.time,
            "data": event.data,
            "round": event.round,
            "table": event.table,
        }
        return make(cls, values)


@dataclass(frozen=True)
class Decision(Generic[S]):
    """What a command causes: the drafts, and the state after applying them in order."""

    drafts: list[Draft]
    state: S


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


class Game(Protocol[S]):
    """What a game plug-in provides, ``S`` being its state; see the module docstring."""

    @property
    def name(self) -> str: ...

    @property
    def decks(self) -> Mapping[int, tuple[str, ...]]:
        """Each number of decks the game is played with, and that deck's canonical order."""

    def __hash__(self) -> int:
        """A game is a key of the verifier's cache of table starts (by identity, as Plugin's)."""
        ...

    def options(self, raw: Mapping[str, Any]) -> dict[str, Any]: ...

    def deck_rules(self, options: Mapping[str, Any]) -> dict[str, Any]: ...

    def new(self, options: Mapping[str, Any]) -> S: ...

    def step(self, state: S, command: Command, secret: bytes | None) -> Decision[S]: ...

    def decide(self, state: S, command: Command, secret: bytes | None) -> list[Draft]: ...

    def apply(self, state: S, event: Event) -> S: ...

    def legal_actions(self, state: S, seat: int, secret: bytes | None) -> list[str]: ...

    def view_for(self, state: S, seat: int | None, secret: bytes | None) -> dict[str, Any]: ...

    def due(self, state: S, now: int) -> Command | None: ...

    def snapshot(self, state: S) -> dict[str, Any] | None: ...

    def restore(self, members: Mapping[str, Any]) -> S: ...


AnyGame = Game[Any]  # a game whatever its state: what the engine, service and verifier hold
