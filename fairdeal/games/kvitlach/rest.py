"""Kvitlach's table at rest as JSON members (a ``table_state`` snapshot), and back.

A snapshot holds what the rules read between rounds and nothing that grows with the
table's age: not the round ids used (a round id cannot come back), nor the last round's
cards. Of the last round the rules read two things at rest: the banker's 4-or-7 exit
offer, which the settlement already turned into ``exit_offer``; and its id, since a
move naming it is refused as out of turn (``play``), a move naming any other round as
naming no round in progress (``decide``). Every Kvitlach round is sealed before its
reveal, so the last round is always a sealed one.
"""

from collections.abc import Mapping
from typing import Any

from fairdeal.errors import EventSchemaError
from fairdeal.events import seat_actor
from fairdeal.games import resting
from fairdeal.games.dealing import RoundState
from fairdeal.games.kvitlach.options import Options, parse
from fairdeal.games.kvitlach.state import EXIT_FROM_TERM_ROUND, State, Term, frozen, in_round
from fairdeal.games.money import BANK

MEMBERS = frozenset(
    ("balances", "banker", "exit_offer", "last_round", "options", "rounds", "seats", "term")
)
TERM_MEMBERS = frozenset(("paid", "rounds"))


def snapshot(state: State) -> dict[str, Any] | None:
    """The table at rest as JSON data members, or None while a round is open."""
    if in_round(state):
        return None
    term = state.term
    return {
        "balances": dict(sorted(state.balances.items())),
        "banker": state.banker,
        "exit_offer": state.exit_offer,
        "last_round": None if state.round is None else state.round.round_id,
        "options": state.options.to_json(),
        "rounds": state.rounds,
        "seats": list(state.seats),
        "term": None if term is None else {"paid": sorted(term.paid), "rounds": term.rounds},
    }


def restore(members: Mapping[str, Any]) -> State:
    """The state ``snapshot`` described; EventSchemaError for anything else."""
    if not isinstance(members, Mapping) or set(members) != MEMBERS:
        raise EventSchemaError(f"a kvitlach snapshot has exactly the members {sorted(MEMBERS)}")
    options = resting.options(parse, members["options"])
    seats = _seats(members["seats"], "seats", range(options.max_seats))
    rounds = resting.integer(members["rounds"], "rounds", 0)
    banker = resting.integer(members["banker"], "banker", 0, options.max_seats - 1)
    balances = _balances(members["balances"], seats, rounds)
    term = _term(members["term"], banker, seats, rounds, balances.get(BANK, 0))
    state = State(
        options=options,
        balances=frozen(balances),
        seats=seats,
        banker=banker,
        term=term,
        rounds=rounds,
        round=_last_round(members["last_round"], rounds),
        exit_offer=_exit_offer(members["exit_offer"], options, term),
    )
    return state  # the engine refuses it unless its snapshot is exactly ``members``


def _last_round(value: Any, rounds: int) -> RoundState | None:
    """The last round as the rules read it at rest: its id, sealed and revealed. Its
    commitment, seats, seeds and deadline are not kept (no rule reads them at rest), nor
    its play: ``play`` is None, which the rules read only within a round."""
    if value is None:
        if rounds:
            raise EventSchemaError("last_round names the last round of a table that opened any")
        return None
    return resting.sealed_round(value, rounds, ())


def _seats(value: Any, name: str, allowed: range | tuple[int, ...]) -> tuple[int, ...]:
    """Seat numbers, ascending, each once, each one of ``allowed``."""
    if not isinstance(value, list) or any(type(s) is not int or s not in allowed for s in value):
        raise EventSchemaError(f"{name} is a list of seats among {list(allowed)}")
    if value != sorted(set(value)):
        raise EventSchemaError(f"{name} are ascending, each once")
    return tuple(value)


def _balances(value: Any, seats: tuple[int, ...], rounds: int) -> dict[str, int]:
    """Each seat's account, and the bank once a first round funded it."""
    accounts = {seat_actor(seat) for seat in seats} | ({BANK} if rounds else set())
    return resting.balances(value, accounts)


def _term(value: Any, banker: int, seats: tuple[int, ...], rounds: int, bank: int) -> Term | None:
    """The banker's term: it lasts while the bank holds funds (the round that empties the
    bank ends it); the banker is seated, and the ante payers are its other seats."""
    if value is None:
        if bank:
            raise EventSchemaError("the bank holds funds only during a term")
        return None
    if not isinstance(value, dict) or set(value) != TERM_MEMBERS:
        raise EventSchemaError(f"term is null or has exactly the members {sorted(TERM_MEMBERS)}")
    others = tuple(seat for seat in seats if seat != banker)
    if banker not in seats or not others or not bank:
        # The last player out ends the term, and so does the round that empties the bank.
        raise EventSchemaError("a term's banker is seated with a player, its bank funded")
    paid = _seats(value["paid"], "term's paid", others)
    term_rounds = resting.integer(value["rounds"], "term's rounds", 1, rounds)
    return Term(banker, term_rounds, frozenset(paid))


def _exit_offer(value: Any, options: Options, term: Term | None) -> bool:
    """The optional 4-or-7 exit, open only from a term's 4th round."""
    if type(value) is not bool:
        raise EventSchemaError("exit_offer is true or false")
    optional = options.banker_exit == "optional"
    if value and (term is None or not optional or term.rounds < EXIT_FROM_TERM_ROUND):
        raise EventSchemaError("no 4-or-7 exit is open without an optional exit's term")
    return value
