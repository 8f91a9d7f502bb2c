"""The dealing service: every write is decide -> events -> sign -> store, in one transaction.

The service holds no game state of its own: a table is the fold of its logged events
(cached per process, topped up from the database). Deadlines that have passed are applied
first, as logged server commands, by every write to the table and by the sweeper. Reads
take no lock: a view shows the table as logged, with the deadlines that have passed
applied to it in memory (the next write or the sweeper logs them).
"""

import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any, TypeVar, cast

from fairdeal import randomness
from fairdeal.blind import elgamal
from fairdeal.blind.group import ristretto255
from fairdeal.errors import (
    FairdealError,
    GameError,
    OutOfTurnError,
    SignatureReplayedError,
    SignatureStaleError,
)
from fairdeal.events import ChainHead, Event, SignedEvent, concerned_seat, seat_actor
from fairdeal.games import registry
from fairdeal.games.base import AnyGame, Command
from fairdeal.protocol import (
    ROUND_OPENED,
    ROUND_REVEALED,
    SEAT_JOINED,
    SEAT_LEFT,
    SEED_COMMITMENT,
    SERVER,
)
from fairdeal.statements import BLIND, KEY, SIGNATURE, SIGNED
from fairdeal.table import create, created_version, execute

from ..storage import IdempotencyRow, Reader, Store, Transaction
from . import ids
from .arrivals import Arrivals
from .config import Config
from .errors import (
    BlindUnavailableError,
    ForbiddenError,
    IdempotencyKeyReusedError,
    NotFoundError,
    OverLimitError,
    RoundNotCurrentError,
    StatementReplayedError,
    StatementStaleError,
    TableFullError,
    UnauthorizedError,
    from_core,
)
from .keystore import Keys
from .live import Live, LiveTables
from .publishing import Publisher, known_round
from .tokens import new_token, token_hash
from .transparency import TransparencyLog

Clock = Callable[[], int]
T = TypeVar("T")
FAR_FUTURE = 2**53 - 1
MAX_TIMEOUTS_PER_REQUEST = 64


def wall_clock() -> int:
    return time.time_ns() // 1_000_000


def sodium_loads() -> bool:
    """Whether this process can hold a dealer-blind table's secrets: the group is libsodium's,
    whose arithmetic on secret scalars is constant time (SPEC 15.13.15), not the pure-Python
    fallback, which only checks proofs."""
    return ristretto255().secret_safe


@dataclass(frozen=True)
class Idempotency:
    """An Idempotency-Key, the caller's own (``caller``: its seat token's hash)."""

    key: str
    caller: bytes
    request_hash: bytes


class WriteFailedError(RuntimeError):
    """A command the rules accepted could not be stored: the whole request rolls back."""


class Service:
    def __init__(
        self,
        store: Store,
        keys: Keys,
        config: Config,
        clock: Clock = wall_clock,
        games: Mapping[str, AnyGame] | None = None,
    ) -> None:
        self.store, self.keys, self.config, self.clock = store, keys, config, clock
        self.games = games if games is not None else registry()  # live: a later register() counts
        self.log = TransparencyLog(config.log_origin, keys.signer)
        self.live = LiveTables(self.games)
        self.arrivals = Arrivals()
        self.published = Publisher(store, keys, config, self.log, clock)
        # Told the type of every event stored (metrics count rounds with it). Called within
        # the transaction: a transaction then lost to the database is counted all the same.
        self.on_event_stored: Callable[[str], None] = _ignore
        # Called after each write is committed (the witnesses' collector wakes on it).
        self.on_committed: Callable[[], None] = _nothing_to_do

    # Tables and seats

    def create_table(
        self,
        game_name: str,
        options: Mapping[str, Any],
        join: Mapping[str, Any],
        key: str | None = None,
    ) -> dict[str, Any]:
        """A new table, its creator in seat 0 (bound to ``key``: None, keyless): version 2, or
        version 3 for a dealer-blind one (SPEC 6.2)."""
        game = self.games.get(game_name)
        if game is None:
            raise NotFoundError(f"no game {game_name!r}", {"games": sorted(self.games)})
        self._check_amounts(options, join)
        version: int = self._guard(lambda: created_version(game, options))
        self._require_blind_support(version)
        table_id = ids.new_table_id()
        now = self.clock()
        with self._failing_safely(), self.store.transaction() as txn:
            table, created = self._guard(
                lambda: create(game, table_id, options, now, self.keys.signer, version=version)
            )
            txn.create_table(table_id, game.name, now)
            txn.append_events(table_id, [created.to_json()])
            live, receipts = self._guard(
                lambda: self._run(
                    txn, Live(table), Command(SEAT_JOINED, seat_actor(0), now, _keyed(join, key))
                )
            )
            self._log_rest(txn, live, 0)
            token = self._issue_token(txn, table_id, 0)
        self.live.remember(live)
        self.on_committed()
        return {
            "table_id": table_id,
            "seat": 0,
            "token": token,
            "events": [created.to_json(), *receipts],
        }

    def join(
        self, table_id: str, join: Mapping[str, Any], key: str | None = None
    ) -> dict[str, Any]:
        """The lowest free seat, bound to ``key`` (None: keyless)."""
        self._check_amounts(join)

        def take_free_seat(txn: Transaction, live: Live, now: int) -> tuple[Live, dict[str, Any]]:
            seat = self._free_seat(live, join, now)
            command = Command(SEAT_JOINED, seat_actor(seat), now, _keyed(join, key))
            live, receipts = self._run(txn, live, command)
            token = self._issue_token(txn, table_id, seat)
            return live, {"table_id": table_id, "seat": seat, "token": token, "events": receipts}

        return self._write_table(table_id, take_free_seat)

    def command(
        self,
        table_id: str,
        token: str | None,
        kind: str,
        data: Mapping[str, Any],
        *,
        round_id: str | None = None,
        idempotency: Idempotency | None = None,
    ) -> dict[str, Any]:
        """A seat's command (an action, a seed, a decision) on its table; ``data`` carry
        its ``signed`` {n, after, signature} if the seat has a key."""
        self._check_amounts({name: value for name, value in data.items() if name != SIGNATURE})

        def run_seat_command(txn: Transaction, live: Live, now: int) -> tuple[Live, dict[str, Any]]:
            seat = self._seat(txn, table_id, token)
            if round_id is not None and round_id != live.current_round:
                raise RoundNotCurrentError(f"round {round_id} is not the table's current round")
            command = Command(
                kind, seat_actor(seat), now, data, live.current_round if round_id else None
            )
            try:
                live, receipts = self._run(txn, live, command)
            except SignatureReplayedError:
                raise StatementReplayedError(seat, live.table.seats[seat].n) from None
            except SignatureStaleError as e:
                raise StatementStaleError(str(e), _named(live.table.head)) from None
            return live, {"events": receipts}

        return self._write_table(table_id, run_seat_command, idempotency)

    def open_round(
        self, table_id: str, token: str | None, idempotency: Idempotency | None = None
    ) -> dict[str, Any]:
        """Draw a fresh server seed, keep it, and log only its commitment."""

        def commit_to_new_seed(
            txn: Transaction, live: Live, now: int
        ) -> tuple[Live, dict[str, Any]]:
            self._seat(txn, table_id, token)
            self._require_blind_support(live.table.head.version)
            seed = _server_seed(live.table.head.version)
            number = live.rounds_opened + 1
            round_id = ids.new_round_id(table_id, number)
            commitment = randomness.seed_commitment(seed).hex()
            command = Command(ROUND_OPENED, SERVER, now, {"commitment": commitment}, round_id)
            live, receipts = self._run(txn, live, command, seed)
            txn.put_round(round_id, table_id, number, seed, now)
            return live, {"round_id": round_id, "commitment": commitment, "events": receipts}

        return self._write_table(table_id, commit_to_new_seed, idempotency)

    def sweep(self) -> int:
        """Apply every passed deadline; return how many tables moved."""
        with self.store.reader() as txn:
            due = txn.due_tables(self.clock(), 100)
        for table_id in due:
            self._write_table(table_id, _nothing_more)
        return len(due)

    # Reading

    def table_view(self, table_id: str, token: str | None) -> dict[str, Any]:
        now = self.clock()
        live, seat, secret = self._snapshot(table_id, token)
        head = live.table.head  # the logged head; the view has the passed deadlines applied
        due = self._apply_due(live, now, self._deciding(secret))
        return {
            "table_id": table_id,
            "game": live.table.game.name,
            "seat": seat,
            "current_round": live.current_round,
            "head": _named(head),
            "legal_actions": self._legal(due, seat, secret),
            "view": due.table.game.view_for(due.table.state, seat, secret),
        }

    def round_view(self, round_id: str, token: str | None) -> dict[str, Any]:
        with self.store.reader() as txn:
            row = known_round(txn, round_id)
        view = self.table_view(row.table_id, token)
        view.update(round_id=round_id, commitment=randomness.seed_commitment(row.server_seed).hex())
        if view["current_round"] != round_id:
            view.update(view=None, legal_actions=[], note="a past round: see its events or bundle")
        return view

    # Inside a transaction

    def _write_table(
        self,
        table_id: str,
        change: Callable[[Transaction, Live, int], tuple[Live, T]],
        idempotency: Idempotency | None = None,
    ) -> T:
        """Run ``change`` on the table under its lock, after applying passed deadlines.

        A refusal by the rules (a GameError) still commits the deadlines applied
        before it, then is raised; any other failure rolls everything back.
        """
        refusal: FairdealError | None = None
        with (
            self.arrivals.waiting(table_id, self.clock()),
            self._failing_safely(),
            self.store.transaction() as txn,
        ):
            row = txn.lock_table(table_id)
            if row is None:
                raise NotFoundError(f"no table {table_id!r}")
            now = self.arrivals.table_time(table_id, self.clock())
            loaded = self.live.load(txn, table_id)
            live = self._apply_due(loaded, now, self._storing(txn))
            # A retried request is answered as the first time, after the timeouts due now.
            replayed = self._replayed(txn, table_id, idempotency)
            if replayed is None:
                try:
                    live, result = change(txn, live, now)
                except FairdealError as e:
                    refusal = e
                else:
                    self._keep_idempotent(txn, table_id, idempotency, result)
            self._log_rest(txn, live, loaded.table.head.next_seq)
            deadline = self._next_deadline(live)
            if deadline != row.next_deadline:
                txn.set_deadline(table_id, deadline)
        self.live.remember(live)
        self.on_committed()
        if refusal is not None:
            raise from_core(refusal) from refusal
        return cast(T, replayed) if replayed is not None else result

    def _run(
        self, txn: Transaction, live: Live, command: Command, secret: bytes | None = None
    ) -> tuple[Live, list[dict[str, Any]]]:
        """Execute one command: sign its events, store them, finish any round it ends.

        Only ``execute`` may refuse (a FairdealError, before anything is written); a core
        error once the events are being stored is a failure that rolls the request back.
        """
        if secret is None:
            secret = self._secret(txn, live.current_round)
        table, signed = execute(live.table, command, secret, self.keys.signer)
        try:
            txn.append_events(live.table_id, [s.to_json() for s in signed])
            live = replace(live, table=table)
            for receipt in signed:
                live = self._follow(txn, live, receipt)
        except FairdealError as e:
            raise WriteFailedError(f"{command.type} was decided but not stored: {e}") from e
        return live, [s.to_json() for s in signed]

    def _follow(self, txn: Transaction, live: Live, receipt: SignedEvent) -> Live:
        event = receipt.event
        self.on_event_stored(event.type)
        if event.type == ROUND_REVEALED and event.round is not None:
            index = self.log.append_head(txn, receipt.hash, event.time, event.round)
            txn.finish_round(event.round, receipt.hash, index, event.time)
        if event.type == SEAT_LEFT:
            txn.drop_token(live.table_id, _vacated_seat(event))
        return live.followed(receipt)

    def _log_rest(self, txn: Transaction, live: Live, start_seq: int) -> None:
        """A write that leaves its table at rest adds the table's head to the log, unless
        it wrote nothing or a round's head already covers it (SPEC 13.3)."""
        head = live.table.head
        if head.next_seq == start_seq or not live.unlogged_rest:
            return
        head_hash = bytes.fromhex(head.prev)
        index = self.log.append_head(txn, head_hash, head.time)
        txn.put_table_head(live.table_id, head.next_seq - 1, head_hash, index, head.time)

    def _apply_due(self, live: Live, now: int, run: Callable[[Live, Command], Live]) -> Live:
        """The table after ``run`` of each server command a deadline passed by ``now`` makes due."""
        for _ in range(MAX_TIMEOUTS_PER_REQUEST):
            command = live.table.game.due(live.table.state, now)
            if command is None:
                break
            live = run(live, command)
        return live

    def _storing(self, txn: Transaction) -> Callable[[Live, Command], Live]:
        return lambda live, command: self._run(txn, live, command)[0]

    def _deciding(self, secret: bytes | None) -> Callable[[Live, Command], Live]:
        """Run a command in memory only: what a view shows before the command is logged."""

        def run(live: Live, command: Command) -> Live:
            table, _ = execute(live.table, command, secret, self.keys.signer)
            return replace(live, table=table)

        return run

    def _snapshot(self, table_id: str, token: str | None) -> tuple[Live, int | None, bytes | None]:
        """The table, the caller's seat and the current round's seed, from one snapshot.

        This process's cache may hold a write committed after the snapshot was taken (its
        round's seed, its seat's token unseen): then read again, from a newer snapshot."""
        while True:
            with self.store.reader() as txn:
                last = txn.last_seq(table_id)
                if last is None:
                    raise NotFoundError(f"no table {table_id!r}")
                live = self.live.load(txn, table_id)
                if live.table.head.next_seq == last + 1:
                    seat = self._seat(txn, table_id, token) if token else None
                    return live, seat, self._secret(txn, live.current_round)

    def _next_deadline(self, live: Live) -> int | None:
        command = live.table.game.due(live.table.state, FAR_FUTURE)
        deadline = command.data.get("deadline") if command is not None else None
        return deadline if isinstance(deadline, int) else None

    def _secret(self, txn: Reader, round_id: str | None) -> bytes | None:
        row = txn.get_round(round_id) if round_id else None
        return row.server_seed if row else None

    def _require_blind_support(self, version: int) -> None:
        """A dealer-blind table (version 3) is created, and its rounds opened, only where
        libsodium loads: the service's round key, shares and shuffle step are secrets."""
        if version >= BLIND and not sodium_loads():
            raise BlindUnavailableError(
                "this service cannot deal dealer-blind tables: libsodium is not installed "
                "where it runs (its secrets need constant-time arithmetic); ask its operator"
            )

    def _check_amounts(self, *values: Any) -> None:
        """The deployment's hard limit on any number a request carries (options, buy-ins, bets)."""
        for value in values:
            numbers = _integers(value)
            if any(abs(n) > self.config.max_amount for n in numbers):
                raise OverLimitError(f"numbers above {self.config.max_amount} are refused here")

    def _seat(self, txn: Reader, table_id: str, token: str | None) -> int:
        if not token:
            raise UnauthorizedError("this needs the seat's bearer token (Authorization: Bearer …)")
        seat = txn.seat_for_token(table_id, token_hash(token))
        if seat is None:
            raise ForbiddenError("the token is not a seat token of this table")
        return seat

    def _issue_token(self, txn: Transaction, table_id: str, seat: int) -> str:
        token = new_token()
        txn.put_token(table_id, seat, token_hash(token))
        return token

    def _free_seat(self, live: Live, join: Mapping[str, Any], now: int) -> int:
        """The lowest seat number the rules let a newcomer take.

        Seats the rules refuse only as "not the next free seat" say nothing; any other
        refusal (a bad buy-in, a round in progress) is the answer. None at all: the table is full.
        """
        refusal: GameError | None = None
        for seat in range(self.config.max_seats):
            try:
                live.table.game.decide(
                    live.table.state, Command(SEAT_JOINED, seat_actor(seat), now, join), None
                )
            except OutOfTurnError:
                continue
            except GameError as e:
                refusal = refusal or e
                continue
            return seat
        raise refusal or TableFullError("no seat is free at this table")

    def _legal(self, live: Live, seat: int | None, secret: bytes | None) -> list[str]:
        """The rules' legal actions, less a seed commitment where the table's protocol
        (version 1) has none."""
        if seat is None:
            return []
        legal = live.table.game.legal_actions(live.table.state, seat, secret)
        if live.table.head.version < SIGNED:
            return [kind for kind in legal if kind != SEED_COMMITMENT]
        return legal

    def _replayed(self, txn: Transaction, table_id: str, idempotency: Idempotency | None) -> Any:
        if idempotency is None:
            return None
        row = txn.get_idempotent(table_id, idempotency.caller, idempotency.key)
        if row is None:
            return None
        if not secrets.compare_digest(row.request_hash, idempotency.request_hash):
            raise IdempotencyKeyReusedError("this Idempotency-Key was used for a different request")
        return row.response

    def _keep_idempotent(
        self, txn: Transaction, table_id: str, idempotency: Idempotency | None, result: Any
    ) -> None:
        if idempotency is not None:
            row = IdempotencyRow(idempotency.request_hash, 200, result)
            txn.put_idempotent(table_id, idempotency.caller, idempotency.key, row)

    def _guard(self, make: Callable[[], Any]) -> Any:
        try:
            return make()
        except FairdealError as e:
            raise from_core(e) from e

    def _failing_safely(self) -> "_ForgetOnFailure":
        return _ForgetOnFailure(self.log)


class _ForgetOnFailure:
    """On any failure the cached Merkle tree may hold rolled-back leaves: drop it."""

    def __init__(self, log: TransparencyLog) -> None:
        self.log = log

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: object, value: object, traceback: object) -> None:
        if kind is not None:
            self.log.forget()


def _server_seed(version: int) -> bytes:
    """A fresh server seed; at a dealer-blind table never one whose round key ``x_0`` is 0
    (SPEC 15.13.3.1: then another is drawn)."""
    seed = secrets.token_bytes(randomness.SEED_BYTES)
    while version >= BLIND and elgamal.server_round_key(seed) == 0:
        seed = secrets.token_bytes(randomness.SEED_BYTES)
    return seed


def _nothing_to_do() -> None:
    pass


def _ignore(event_type: str) -> None:
    pass


def _nothing_more(txn: Transaction, live: Live, now: int) -> tuple[Live, None]:
    """The sweeper's change: none beyond the passed deadlines every write applies first."""
    return live, None


def _named(head: ChainHead) -> dict[str, Any]:
    """A chain's last event as a seat's statement names it (``after``): {seq, hash}."""
    return {"seq": head.next_seq - 1, "hash": head.prev}


def _keyed(join: Mapping[str, Any], key: str | None) -> Mapping[str, Any]:
    """A seat_joined's data with the seat's key; none for a keyless seat, as a table of the
    first protocol (still served) takes them."""
    return join if key is None else {**join, KEY: key}


def _vacated_seat(left: Event) -> int:
    """The seat a ``seat_left`` frees (SPEC 6.5)."""
    vacated = concerned_seat(left)
    assert vacated is not None, "the server leaves no seat of its own"
    return vacated


def _integers(value: Any) -> list[int]:
    if isinstance(value, bool):
        return []
    if isinstance(value, int):
        return [value]
    if isinstance(value, Mapping):
        return [n for item in value.values() for n in _integers(item)]
    if isinstance(value, list):
        return [n for item in value for n in _integers(item)]
    return []
