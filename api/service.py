"""The dealing service: every request is decide -> events -> sign -> store, in one transaction.

The service holds no game state of its own: a table is the fold of its logged events
(cached per process, topped up from the database under the table's lock). Deadlines
that have passed are applied first, as logged server commands, on every request that
touches the table and by the sweeper.
"""

import secrets
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any, TypeVar, cast

from api.config import Config
from api.errors import (
    ConflictError,
    ForbiddenError,
    IdempotencyKeyReusedError,
    NotFoundError,
    OverLimitError,
    RoundNotCurrentError,
    RoundNotFinishedError,
    TableFullError,
    UnauthorizedError,
    from_core,
)
from api.keystore import Keys
from api.storage import IdempotencyRow, Store, Transaction
from api.tokens import new_token, token_hash
from api.transparency import TransparencyLog
from fairdeal import randomness
from fairdeal.bundle import LogEntry, make_bundle
from fairdeal.errors import FairdealError, GameError, OutOfTurnError
from fairdeal.events import SERVER, ChainHead, SignedEvent, seat_actor
from fairdeal.games import registry
from fairdeal.games.base import Command, Game
from fairdeal.keys import public_key_pem
from fairdeal.table import Table, create, execute

Clock = Callable[[], int]
T = TypeVar("T")
FAR_FUTURE = 2**53 - 1
MAX_TIMEOUTS_PER_REQUEST = 64
JOIN = "seat_joined"


def wall_clock() -> int:
    return time.time_ns() // 1_000_000


@dataclass(frozen=True)
class Live:
    """A table as this process last saw it, with the round that is current."""

    table: Table
    current_round: str | None = None
    rounds_opened: int = 0

    @property
    def table_id(self) -> str:
        return self.table.head.table


@dataclass(frozen=True)
class Idempotency:
    key: str
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
        games: Mapping[str, Game] | None = None,
    ) -> None:
        self.store, self.keys, self.config, self.clock = store, keys, config, clock
        self.games = dict(games or registry())
        self.log = TransparencyLog(config.log_origin, keys.signer)
        self._live: dict[str, Live] = {}
        self._live_lock = threading.Lock()

    # Tables and seats

    def create_table(
        self, game_name: str, options: Mapping[str, Any], join: Mapping[str, Any]
    ) -> dict[str, Any]:
        game = self.games.get(game_name)
        if game is None:
            raise NotFoundError(f"no game {game_name!r}", {"games": sorted(self.games)})
        self._check_amounts(options, join)
        table_id = "t" + secrets.token_hex(8)
        now = self.clock()
        with self._failing_safely(), self.store.transaction() as txn:
            table, created = self._guard(
                lambda: create(game, table_id, options, now, self.keys.signer)
            )
            txn.create_table(table_id, game.name, now)
            txn.append_events(table_id, [created.to_json()])
            live, receipts = self._guard(
                lambda: self._run(txn, Live(table), Command(JOIN, seat_actor(0), now, join))
            )
            token = self._issue_token(txn, table_id, 0)
        self._remember(live)
        return {
            "table_id": table_id,
            "seat": 0,
            "token": token,
            "events": [created.to_json(), *receipts],
        }

    def join(self, table_id: str, join: Mapping[str, Any]) -> dict[str, Any]:
        self._check_amounts(join)

        def step(txn: Transaction, live: Live, now: int) -> tuple[Live, dict[str, Any]]:
            seat = self._free_seat(live, join, now)
            live, receipts = self._run(txn, live, Command(JOIN, seat_actor(seat), now, join))
            token = self._issue_token(txn, table_id, seat)
            return live, {"table_id": table_id, "seat": seat, "token": token, "events": receipts}

        return self._write(table_id, step)

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
        """A seat's command (an action, a seed, a decision) on its table."""
        self._check_amounts(data)

        def step(txn: Transaction, live: Live, now: int) -> tuple[Live, dict[str, Any]]:
            seat = self._seat(txn, table_id, token)
            if round_id is not None and round_id != live.current_round:
                raise RoundNotCurrentError(f"round {round_id} is not the table's current round")
            command = Command(
                kind, seat_actor(seat), now, data, live.current_round if round_id else None
            )
            live, receipts = self._run(txn, live, command)
            return live, {"events": receipts}

        return self._write(table_id, step, idempotency)

    def open_round(
        self, table_id: str, token: str | None, idempotency: Idempotency | None = None
    ) -> dict[str, Any]:
        """Draw a fresh server seed, keep it, and log only its commitment."""

        def step(txn: Transaction, live: Live, now: int) -> tuple[Live, dict[str, Any]]:
            self._seat(txn, table_id, token)
            seed = secrets.token_bytes(randomness.SEED_BYTES)
            number = live.rounds_opened + 1
            round_id = f"{table_id}.{number}"
            commitment = randomness.seed_commitment(seed).hex()
            command = Command("round_opened", SERVER, now, {"commitment": commitment}, round_id)
            live, receipts = self._run(txn, live, command, seed)
            txn.put_round(round_id, table_id, number, seed, now)
            return live, {"round_id": round_id, "commitment": commitment, "events": receipts}

        return self._write(table_id, step, idempotency)

    def sweep(self) -> int:
        """Apply every passed deadline; return how many tables moved."""
        with self.store.transaction() as txn:
            due = txn.due_tables(self.clock(), 100)
        for table_id in due:
            self._write(table_id, lambda txn, live, now: (live, None))
        return len(due)

    # Reading

    def table_view(self, table_id: str, token: str | None) -> dict[str, Any]:
        def step(txn: Transaction, live: Live, now: int) -> tuple[Live, dict[str, Any]]:
            seat = self._seat(txn, table_id, token) if token else None
            secret = self._secret(txn, live.current_round)
            view = live.table.game.view_for(live.table.state, seat, secret)
            head = live.table.head
            return live, {
                "table_id": table_id,
                "game": live.table.game.name,
                "seat": seat,
                "current_round": live.current_round,
                "head": {"seq": head.next_seq - 1, "hash": head.prev},
                "legal_actions": self._legal(live, seat, secret),
                "view": view,
            }

        return self._write(table_id, step)

    def round_view(self, round_id: str, token: str | None) -> dict[str, Any]:
        row = self._round_row(round_id)
        view = self.table_view(row.table_id, token)
        view.update(round_id=round_id, commitment=randomness.seed_commitment(row.server_seed).hex())
        if view["current_round"] != round_id:
            view.update(view=None, legal_actions=[], note="a past round: see its events or bundle")
        return view

    def table_events(self, table_id: str, from_seq: int) -> list[dict[str, Any]]:
        with self.store.transaction() as txn:
            if txn.lock_table(table_id) is None:
                raise NotFoundError(f"no table {table_id!r}")
            return txn.events(table_id, from_seq)

    def round_events(self, round_id: str) -> list[dict[str, Any]]:
        row = self._round_row(round_id)
        with self.store.transaction() as txn:
            return txn.round_events(row.table_id, round_id)

    def bundle(self, round_id: str) -> dict[str, Any]:
        with self.store.transaction() as txn:
            return self._bundle(txn, round_id)

    def export(
        self, since: int | None, until: int | None, table_id: str | None
    ) -> Iterator[dict[str, Any]]:
        """Finished rounds' bundles in log order, a page per short transaction."""
        after = -1
        while True:
            with self.store.transaction() as txn:
                rows = txn.finished_rounds(since, until, table_id, after, self.config.export_page)
                bundles = [self._bundle(txn, row.round_id) for row in rows]
            yield from bundles
            if len(rows) < self.config.export_page:
                return
            after = rows[-1].leaf_index or 0

    # The transparency log

    def checkpoint(self) -> dict[str, Any]:
        with self._failing_safely(), self.store.transaction() as txn:
            row = self.log.latest(txn, self.clock())
        return {"size": row.size, "root_hash": row.root_hash.hex(), "note": row.note}

    def inclusion(self, round_id: str, size: int | None) -> dict[str, Any]:
        with self.store.transaction() as txn:
            row = txn.get_round(round_id)
            if row is None:
                raise NotFoundError(f"no round {round_id!r}")
            if row.leaf_index is None:
                raise RoundNotFinishedError(f"round {round_id!r} is not in the log")
            tree = self.log.tree(txn)
            size = tree.size if size is None else size
            if not row.leaf_index < size <= tree.size:
                raise ConflictError(f"size must be in {row.leaf_index + 1}..{tree.size}")
            proof = tree.inclusion_proof(row.leaf_index, size)
            return {
                "round_id": round_id,
                "leaf_index": row.leaf_index,
                "tree_size": size,
                "head_hash": (row.head_hash or b"").hex(),
                "root_hash": tree.root(size).hex(),
                "proof": [h.hex() for h in proof],
            }

    def consistency(self, first: int, second: int) -> dict[str, Any]:
        with self.store.transaction() as txn:
            tree = self.log.tree(txn)
            if not 0 < first <= second <= tree.size:
                raise ConflictError(f"sizes must satisfy 0 < from <= to <= {tree.size}")
            proof = tree.consistency_proof(first, second)
            return {
                "from": first,
                "to": second,
                "from_root": tree.root(first).hex(),
                "to_root": tree.root(second).hex(),
                "proof": [h.hex() for h in proof],
            }

    def key_list(self) -> dict[str, Any]:
        current = self.keys.signer.key_id
        keys = [
            {
                "key_id": kid,
                "public_key_pem": public_key_pem(self.keys.key_set().public_key(kid)).decode(),
                "current": kid == current,
            }
            for kid in self.keys.key_set().ids()
        ]
        return {
            "keys": keys,
            "log": {"origin": self.log.origin, "verifier_key": self.log.verifier_key()},
            "development_key": self.keys.development,
        }

    # Inside a transaction

    def _write(
        self,
        table_id: str,
        step: Callable[[Transaction, Live, int], tuple[Live, T]],
        idempotency: Idempotency | None = None,
    ) -> T:
        """Run ``step`` on the table under its lock, after applying passed deadlines.

        A refusal by the rules (a GameError) still commits the deadlines applied
        before it, then is raised; any other failure rolls everything back.
        """
        refusal: FairdealError | None = None
        with self._failing_safely(), self.store.transaction() as txn:
            row = txn.lock_table(table_id)
            if row is None:
                raise NotFoundError(f"no table {table_id!r}")
            now = self.clock()
            live, _ = self._apply_due(txn, self._load(txn, table_id), now)
            replayed = self._replayed(txn, table_id, idempotency)
            if replayed is not None:
                return cast(T, replayed)
            try:
                live, result = step(txn, live, now)
            except FairdealError as e:
                refusal = e
            else:
                self._keep_idempotent(txn, table_id, idempotency, result)
            deadline = self._next_deadline(live)
            if deadline != row.next_deadline:
                txn.set_deadline(table_id, deadline)
        self._remember(live)
        if refusal is not None:
            raise from_core(refusal) from refusal
        return result

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
        if event.type == "round_opened":
            return replace(live, current_round=event.round, rounds_opened=live.rounds_opened + 1)
        if event.type == "round_revealed" and event.round is not None:
            index = self.log.append_round(txn, event.round, receipt.hash, event.time)
            txn.finish_round(event.round, receipt.hash, index, event.time)
        return live

    def _apply_due(self, txn: Transaction, live: Live, now: int) -> tuple[Live, list[Any]]:
        receipts: list[Any] = []
        for _ in range(MAX_TIMEOUTS_PER_REQUEST):
            command = live.table.game.due(live.table.state, now)
            if command is None:
                break
            live, signed = self._run(txn, live, command)
            receipts += signed
        return live, receipts

    def _next_deadline(self, live: Live) -> int | None:
        command = live.table.game.due(live.table.state, FAR_FUTURE)
        deadline = command.data.get("deadline") if command is not None else None
        return deadline if isinstance(deadline, int) else None

    def _load(self, txn: Transaction, table_id: str) -> Live:
        """The table from this process's cache, topped up with events it has not seen."""
        with self._live_lock:
            live = self._live.get(table_id)
        start = 0 if live is None else live.table.head.next_seq
        for raw in txn.events(table_id, start):
            signed = SignedEvent.from_json(raw)
            live = self._fold(live, signed)
        if live is None:
            raise NotFoundError(f"no table {table_id!r}")
        return live

    def _fold(self, live: Live | None, signed: SignedEvent) -> Live:
        event = signed.event
        if live is None:
            game = self.games[event.data["game"]]
            head = ChainHead(event.table).advance(event, signed.hash)
            return Live(Table(game, game.new(event.data["options"]), head))
        table = live.table
        state = table.game.apply(table.state, event)
        live = replace(live, table=Table(table.game, state, table.head.advance(event, signed.hash)))
        if event.type == "round_opened":
            live = replace(live, current_round=event.round, rounds_opened=live.rounds_opened + 1)
        return live

    def _remember(self, live: Live) -> None:
        with self._live_lock:
            known = self._live.get(live.table_id)
            if known is None or known.table.head.next_seq <= live.table.head.next_seq:
                self._live[live.table_id] = live

    def _secret(self, txn: Transaction, round_id: str | None) -> bytes | None:
        row = txn.get_round(round_id) if round_id else None
        return row.server_seed if row else None

    def _check_amounts(self, *values: Any) -> None:
        """The deployment's hard limit on any number a request carries (options, buy-ins, bets)."""
        for value in values:
            numbers = _integers(value)
            if any(abs(n) > self.config.max_amount for n in numbers):
                raise OverLimitError(f"numbers above {self.config.max_amount} are refused here")

    def _seat(self, txn: Transaction, table_id: str, token: str | None) -> int:
        if not token:
            raise UnauthorizedError("this needs the seat's bearer token (Authorization: Bearer …)")
        seat = txn.seat_for_token(table_id, token_hash(token))
        if seat is None:
            raise ForbiddenError("the token is not a seat token of this table")
        return seat

    def _issue_token(self, txn: Transaction, table_id: str, seat: int) -> str:
        token = new_token()
        txn.put_token(table_id, seat, token_hash(token))  # replaces a departed seat's token
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
                    live.table.state, Command(JOIN, seat_actor(seat), now, join), None
                )
            except OutOfTurnError:
                continue
            except GameError as e:
                refusal = refusal or e
                continue
            return seat
        raise refusal or TableFullError("no seat is free at this table")

    def _legal(self, live: Live, seat: int | None, secret: bytes | None) -> list[str]:
        if seat is None:
            return []
        return live.table.game.legal_actions(live.table.state, seat, secret)

    def _replayed(self, txn: Transaction, table_id: str, idempotency: Idempotency | None) -> Any:
        if idempotency is None:
            return None
        row = txn.get_idempotent(table_id, idempotency.key)
        if row is None:
            return None
        if not secrets.compare_digest(row.request_hash, idempotency.request_hash):
            raise IdempotencyKeyReusedError("this Idempotency-Key was used for a different request")
        return row.response

    def _keep_idempotent(
        self, txn: Transaction, table_id: str, idempotency: Idempotency | None, result: Any
    ) -> None:
        if idempotency is not None:
            txn.put_idempotent(
                table_id, idempotency.key, IdempotencyRow(idempotency.request_hash, 200, result)
            )

    def _round_row(self, round_id: str) -> Any:
        with self.store.transaction() as txn:
            row = txn.get_round(round_id)
        if row is None:
            raise NotFoundError(f"no round {round_id!r}")
        return row

    def _bundle(self, txn: Transaction, round_id: str) -> dict[str, Any]:
        row = txn.get_round(round_id)
        if row is None:
            raise NotFoundError(f"no round {round_id!r}")
        if row.leaf_index is None or row.head_hash is None:
            raise RoundNotFinishedError(
                f"round {round_id!r} is not finished: no bundle before the reveal"
            )
        last = txn.round_events(row.table_id, round_id)[-1]["event"]["seq"]
        events = txn.events(row.table_id)[: last + 1]
        checkpoint = txn.latest_checkpoint()  # read first: the tree is then at least as new
        tree = self.log.tree(txn)
        assert checkpoint is not None and checkpoint.size > row.leaf_index
        proof = tree.inclusion_proof(row.leaf_index, checkpoint.size)
        entry = LogEntry(
            origin=self.log.origin,
            verifier_key=self.log.verifier_key(),
            leaf_index=row.leaf_index,
            head_hash=row.head_hash.hex(),
            tree_size=checkpoint.size,
            inclusion_proof=tuple(h.hex() for h in proof),
            checkpoint=checkpoint.note,
        )
        return make_bundle(row.table_id, round_id, events, self.key_list()["keys"], entry)

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
