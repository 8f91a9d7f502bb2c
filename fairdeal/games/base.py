"""The interface every game implements, and the command that drives it.

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

A game's package writes its rules as module functions; ``Plugin`` makes the eleven of
them from the game's own: its options parser and state constructor, ``step``, ``apply``,
``legal_actions``, ``view_for``, ``due``, ``snapshot`` and ``restore``.
"""

import difflib
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from fairdeal.errors import IllegalActionError
from fairdeal.events import Draft, Event
from fairdeal.frozen import make

S = TypeVar("S")
Opts = TypeVar("Opts", bound="Options")


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

    def decision(self) -> Decision[S]:
        return make(Decision, {"drafts": self.drafts, "state": self.state})


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


class Options(Protocol):
    """A game's parsed options: ``to_json`` is their full form, which ``table_created`` logs."""

    def to_json(self) -> dict[str, Any]: ...


def deck_rules(game: str, decks: int = 1) -> dict[str, Any]:
    """The rules the seal binds (SPEC 3.3): the game's name and its number of decks, the
    options' ``decks`` (1 where a game has no such option), as the verifier reads them."""
    return {"game": game, "decks": decks}


class Plugin(Generic[S, Opts]):
    """A game made of its package's functions: ``parse`` (raw options to the game's
    ``Options``, raising OptionsError) and ``start`` (those options to a new table's state),
    and the rules' own ``step``, ``apply``, ``legal_actions``, ``view_for``, ``due``,
    ``snapshot`` and ``restore``.

    Those seven are kept as they are, not wrapped: the engine calls a game's ``step`` for
    every command. ``decks`` maps each number of decks the game is played with to its
    canonical order (SPEC 4); registering the game makes it known to ``cards``.
    """

    def __init__(
        self,
        *,
        name: str,
        decks: Mapping[int, tuple[str, ...]],
        parse: Callable[[Mapping[str, Any]], Opts],
        start: Callable[[Opts], S],
        step: Callable[[S, Command, bytes | None], Decision[S]],
        apply: Callable[[S, Event], S],
        legal_actions: Callable[[S, int, bytes | None], list[str]],
        view_for: Callable[[S, int | None, bytes | None], dict[str, Any]],
        due: Callable[[S, int], Command | None],
        snapshot: Callable[[S], dict[str, Any] | None],
        restore: Callable[[Mapping[str, Any]], S],
    ) -> None:
        self.name, self.decks, self.parse, self.start = name, dict(decks), parse, start
        self.step, self.apply, self.due = step, apply, due
        self.legal_actions, self.view_for = legal_actions, view_for
        self.snapshot, self.restore = snapshot, restore

    def options(self, raw: Mapping[str, Any]) -> dict[str, Any]:
        return self.parse(raw).to_json()

    def deck_rules(self, options: Mapping[str, Any]) -> dict[str, Any]:
        return deck_rules(self.name, self.options(options).get("decks", 1))

    def new(self, options: Mapping[str, Any]) -> S:
        return self.start(self.parse(options))

    def decide(self, state: S, command: Command, secret: bytes | None) -> list[Draft]:
        return self.step(state, command, secret).drafts


def unknown_command(
    game: str, kind: str, commands: Collection[str], legal: Sequence[str]
) -> IllegalActionError:
    """The refusal of a command type ``game`` does not have: the nearest of its
    ``commands`` (a typo is the likeliest cause), and what the sender may send now."""
    said = f"{game} has no command {kind!r}"
    near = difflib.get_close_matches(kind, sorted(commands), n=1)
    if near:
        said += f" (did you mean {near[0]!r}?)"
    now = f"legal now: {', '.join(legal)}" if legal else "nothing is legal for this sender now"
    return IllegalActionError(f"{said}; {now}")


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
