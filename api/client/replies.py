"""The service's JSON, typed for a type checker: the moves a seat sends (``Action``), and
every reply as the parsed JSON itself, so the raw answer is always at hand (the OpenAPI
document at /openapi.json has them all)."""

from enum import StrEnum
from typing import Any, TypedDict


class Action(StrEnum):
    """The moves a seat sends, by name: ``SeatClient.act`` takes these in a round,
    ``SeatClient.table_act`` the last two between rounds. Each is its plain string too
    (``Action.HIT == "hit"``), and plain strings are taken as they are."""

    # Toto21 (SPEC 11)
    HIT = "hit"
    STAND = "stand"
    BLIND = "blind"
    # Kvitlach (SPEC 12): a player's, then the banker's
    BET = "bet"
    OPEN_CARD = "open_card"
    ELVAROON = "elvaroon"
    REJECT = "reject"
    BANKER_DRAW = "banker_draw"
    BANKER_STOP = "banker_stop"
    # Kvitlach, between rounds
    SEAT_LEFT = "seat_left"
    BANKER_EXIT = "banker_exit"


# Replies, as the service sends them


class LoggedEvent(TypedDict):
    """An event as logged (SPEC 5): ``round`` is None outside a round, ``time`` Unix
    milliseconds, ``data`` the event type's own members."""

    version: int
    table: str
    round: str | None
    seq: int
    prev: str
    time: int
    type: str
    actor: str
    data: dict[str, Any]


class Receipt(TypedDict):
    """A signed event, as every reply carries its receipts (already checked when a reply is
    returned): the event, its hash, the signing key's id and the signature, in hex."""

    event: LoggedEvent
    hash: str
    key_id: str
    signature: str


class EventsReply(TypedDict):
    """The answer to a command: the signed events it logged, the receipts (already checked)."""

    events: list[Receipt]


class SeatReply(EventsReply):
    """The answer to creating or joining a table: the seat and its bearer token (shown once)."""

    table_id: str
    seat: int
    token: str


class RoundOpenedReply(EventsReply):
    """The answer to opening a round: its id and the server seed's commitment."""

    round_id: str
    commitment: str


class RoundView(TypedDict, total=False):
    """The round in a game's view: the members both games show, then each game's own
    (present in that game's view only; SPEC 11.7 for Toto21, 12 for Kvitlach)."""

    id: str
    number: int
    commitment: str
    seats: list[int]
    revealed: bool
    server_seed: str  # once revealed
    turn: int | None
    cards: list[dict[str, Any]]  # Toto21
    dealer: int
    player: int
    move_deadline: int | None
    blind_taken: bool
    banker: int  # Kvitlach
    order: list[int]
    phase: str
    deadline: int | None
    bank: int
    covered: int
    hands: list[dict[str, Any]]


class GameView(TypedDict, total=False):
    """A game's view of the table as one seat sees it: the members both games show, then each
    game's own (SPEC 11.7 for Toto21, 12 for Kvitlach). ``round`` is None between rounds."""

    game: str
    options: dict[str, Any]
    seats: list[int]
    balances: dict[str, int]
    rounds: int
    round: RoundView | None
    viewer: int | None  # Toto21
    phase: str
    score: list[int]
    worth: int
    game_deadline: int | None
    you: int | None  # Kvitlach
    banker: int | None
    term: dict[str, Any] | None
    exit_offer: bool
    legal_actions: list[str]
    your_cards: list[dict[str, Any]]


class TableView(TypedDict):
    """A table as one seat sees it: ``view`` is the game's view, with this seat's own cards
    and their salts; ``legal_actions`` what it may send now (``Action`` names them);
    ``head`` the table's last logged event as ``{"seq", "hash"}``."""

    table_id: str
    game: str
    seat: int | None
    current_round: str | None
    head: dict[str, Any]
    legal_actions: list[str]
    view: GameView
