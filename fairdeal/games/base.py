"""What a game's package builds its rules with: the ``Run`` of one decided command, the
``Plugin`` that makes a game of its module functions, ``record``, and the interface itself
(``Command``, ``Decision``, ``Game``, from ``fairdeal.game``, the core's side of it).

A game provides eleven pure functions (SPEC 6.1; ``fairdeal.game`` lists them, and the
package's README.md says how to add a game). ``Plugin`` makes the eleven of them from the
game's own: its options parser and state constructor, ``step``, ``apply``,
``legal_actions``, ``view_for``, ``due``, ``snapshot`` and ``restore``.
"""

import difflib
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any, Generic, Protocol, TypeVar

from fairdeal.errors import IllegalActionError, OptionsError
from fairdeal.events import Draft, Event
from fairdeal.frozen import make
from fairdeal.game import AnyGame, Command, Decision, Game, Logged

# The interface (fairdeal.game) is here too, as game packages import it.
__all__ = [
    "AnyGame", "Command", "Decision", "Game", "Logged", "Options", "Plugin", "Run",
    "deck_rules", "record", "unknown_command", "unknown_options",
]  # fmt: skip

S = TypeVar("S")
Opts = TypeVar("Opts", bound="Options")


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
    now = f"legal now: {', '.join(legal)}" if legal else "nothing is legal for this sender now"
    return IllegalActionError(f"{game} has no command {_nearest(kind, commands)}; {now}")


def unknown_options(game: str, unknown: Collection[str], known: Collection[str]) -> OptionsError:
    """The refusal of options ``game`` does not have, each with the nearest it does, and the
    options it has."""
    named = ", ".join(_nearest(key, known) for key in sorted(unknown))
    return OptionsError(f"{game} has no option {named}; its options: {', '.join(sorted(known))}")


def _nearest(word: str, words: Collection[str]) -> str:
    """``word`` quoted, with the nearest of ``words`` where one is near (a typo)."""
    near = difflib.get_close_matches(word, sorted(words), n=1)
    return f"{word!r} (did you mean {near[0]!r}?)" if near else repr(word)


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
