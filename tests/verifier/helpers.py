"""Valid bundles made by the real game code: tables driven through table.create/execute,
signed with a fixed Ed25519 key, their finished rounds in a real Merkle tree with a
signed checkpoint. Nothing here imports the service (``api``)."""

import hashlib
import json
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from fairdeal import randomness, table
from fairdeal.bundle import LogEntry, make_bundle
from fairdeal.errors import GameError
from fairdeal.events import Draft, SignedEvent
from fairdeal.games import registry
from fairdeal.games.base import Command
from fairdeal.keys import Signer, key_id, public_key_pem
from fairdeal.merkle import MerkleTree
from fairdeal.note import Checkpoint, NoteSigner, sign_checkpoint
from fairdeal.protocol import SERVER, TABLE_STATE
from fairdeal.statements import FIRST

T0 = 1_760_000_000_000
ORIGIN = "fairdeal.test/log"


def signer(label: str) -> Signer:
    seed = hashlib.sha256(label.encode()).digest()
    return Signer(Ed25519PrivateKey.from_private_bytes(seed))


SIGNER = signer("fairdeal verifier test key")
OTHER = signer("somebody else's key")
NOTE_SIGNER = NoteSigner(ORIGIN, SIGNER.private_key)
VERIFIER_KEY = NOTE_SIGNER.verifier_key()
PEM = public_key_pem(SIGNER.public_key).decode()


def server_seed(round_id: str) -> bytes:
    return hashlib.sha256(b"verifier test seed " + round_id.encode()).digest()


# What a seat sends for each command type (the rest of the data the rules derive).
DATA: dict[str, dict[str, Any]] = {"bet": {"amount": 10}, "seat_joined": {}}


@dataclass
class TableDriver:
    """A live table: every command goes through table.execute with SIGNER."""

    game_name: str
    table_id: str
    options: dict[str, Any]
    signer: Signer = SIGNER
    log: list[SignedEvent] = field(default_factory=list)
    now: int = T0
    secret: bytes | None = None
    rounds: list[str] = field(default_factory=list)
    rng: random.Random = field(default_factory=lambda: random.Random(7))
    version: int = FIRST  # the protocol version of the table's chain

    def __post_init__(self) -> None:
        game = registry()[self.game_name]
        self.table, created = table.create(
            game, self.table_id, self.options, self.now, SIGNER, version=self.version
        )
        self.log.append(created)

    @property
    def game(self) -> Any:
        return self.table.game

    def do(self, type_: str, actor: str, data: dict[str, Any], round_id: str | None) -> None:
        command = Command(type_, actor, self.now, data, round_id)
        self.table, signed = table.execute(self.table, command, self.secret, self.signer)
        self.log.extend(signed)

    def open_round(self) -> str:
        round_id = f"{self.table_id}.{len(self.rounds) + 1}"
        self.rounds.append(round_id)
        self.secret = server_seed(round_id)
        commitment = randomness.seed_commitment(self.secret).hex()
        self.do("round_opened", SERVER, {"commitment": commitment}, round_id)
        return round_id

    def play_round(self, seeds: Sequence[str | None] = (), max_steps: int = 400) -> str:
        """Open, seed (None: let that seat time out) and play one round to its reveal."""
        round_id = self.open_round()
        opened = [s.event for s in self.log if s.event.type == "round_opened"][-1]
        seats = opened.data["seats"]
        self.seed(round_id, seats, list(seeds) + ["s"] * len(seats))
        for _ in range(max_steps):
            if self._revealed(round_id):
                return round_id
            self._step(round_id)
        raise AssertionError(f"round {round_id} did not finish")

    def seed(self, round_id: str, seats: Sequence[int], seeds: Sequence[str | None]) -> None:
        """Each seat of the round sends its seed (None: it lets its seed time run out)."""
        for seat, seed in zip(seats, seeds, strict=False):
            if seed is not None and not self._revealed(round_id):
                self.do("client_seed", f"seat:{seat}", {"seed": f"{seed}-{seat}"}, round_id)

    def _revealed(self, round_id: str) -> bool:
        # A run may go on after the reveal (Toto21's match_won), so look back a little.
        return any(
            s.event.type == "round_revealed" and s.event.round == round_id for s in self.log[-4:]
        )

    def _step(self, round_id: str) -> None:
        seats = sorted({int(a.removeprefix("seat:")) for a in self._actors()})
        for seat in seats:
            actions = self.game.legal_actions(self.table.state, seat, self.secret)
            for action in self.rng.sample(actions, len(actions)):
                if action in ("client_seed", "seat_left", "banker_exit", "seat_joined"):
                    continue
                if self._try(action, f"seat:{seat}", round_id):
                    return
        self.now += 60_000  # nobody can act: let a deadline pass
        due = self.game.due(self.table.state, self.now)
        if due is not None:
            self.do(due.type, due.actor, dict(due.data), due.round)

    def _actors(self) -> set[str]:
        return {s.event.actor for s in self.log if s.event.actor.startswith("seat:")}

    def _try(self, action: str, actor: str, round_id: str) -> bool:
        try:
            self.do(action, actor, dict(DATA.get(action, {})), round_id)
        except GameError:
            return False
        return True

    def seat(self, seat: int, type_: str, data: dict[str, Any] | None = None) -> None:
        self.do(type_, f"seat:{seat}", data or {}, None)


def toto21_table(table_id: str = "t21", rounds: int = 2, **options: Any) -> TableDriver:
    driver = TableDriver("toto21", table_id, {"stake": 5, "target": 10, **options})
    driver.seat(0, "seat_joined")
    driver.seat(1, "seat_joined")
    driver.seat(0, "joiner_accepted")
    for _ in range(rounds):
        driver.play_round()
    return driver


def kvitlach_table(table_id: str = "kv", rounds: int = 2, **options: Any) -> TableDriver:
    driver = TableDriver("kvitlach", table_id, dict(options))
    for seat in range(3):
        driver.seat(seat, "seat_joined", {"buy_in": 1_000})
    for _ in range(rounds):
        driver.play_round()
    return driver


# What a lying operator may state in a table_state instead of the snapshot of the table
# (``lying_table``).


def move_money(data: dict[str, Any]) -> None:
    data["balances"]["seat:1"] -= 100
    data["balances"]["seat:2"] += 100


def other_banker(data: dict[str, Any]) -> None:
    data["banker"] = 1
    data["term"]["paid"] = [0, 2]  # the term's ante payers are the banker's other seats


def other_options(data: dict[str, Any]) -> None:
    data["options"]["max_bet"] = 40


def lying_table(change: Callable[[dict[str, Any]], None]) -> TableDriver:
    """A Kvitlach table whose operator, after round 1, logs a table_state that is not the
    table round 1 left (``change`` applied to the true snapshot), signed with its own key,
    and then plays rounds 2 and 3 on from the state it stated, as its engine would: every
    later event is what the rules decide from the lie, so nothing after it gives it away."""
    driver = kvitlach_table("kv", rounds=1)
    true = table.state_draft(driver.game, driver.table.state)
    assert true is not None
    data = json.loads(json.dumps(dict(true.data)))
    change(data)
    assert data != json.loads(json.dumps(dict(true.data)))
    state, _ = table.restored(driver.game, data)  # the game takes it: a well-formed snapshot
    now = driver.table.head.time
    head, signed = driver.table.head.extend([Draft(TABLE_STATE, SERVER, data)], now, driver.signer)
    standing = driver.table.standing.after([TABLE_STATE])
    driver.table = table.Table(driver.game, state, head, standing)
    driver.log.extend(signed)
    driver.play_round()
    driver.play_round()
    return driver


@dataclass
class Log:
    """A deployment's transparency log over finished rounds, in the order they finish."""

    tree: MerkleTree = field(default_factory=MerkleTree)
    entries: list[tuple[TableDriver, str, int]] = field(default_factory=list)

    def add(self, driver: TableDriver, round_id: str) -> None:
        last = _reveal_index(driver.log, round_id)
        self.tree.append(driver.log[last].hash)
        self.entries.append((driver, round_id, last))

    def add_all(self, *drivers: TableDriver) -> "Log":
        """Every round of the drivers, interleaved by round number."""
        for number in range(max(len(d.rounds) for d in drivers)):
            for driver in drivers:
                if number < len(driver.rounds):
                    self.add(driver, driver.rounds[number])
        return self

    def checkpoint(self, size: int | None = None) -> str:
        size = self.tree.size if size is None else size
        return sign_checkpoint(Checkpoint(ORIGIN, size, self.tree.root(size)), NOTE_SIGNER)

    def bundle(
        self, index: int, size: int | None = None, bounded: bool = False, compact: bool = False
    ) -> dict[str, Any]:
        """Round ``index``'s bundle: its table's whole chain from seq 0, or if ``bounded``,
        from where the service starts it (``first``); in the second format, or the compact
        one (SPEC 13.1.1)."""
        driver, round_id, last = self.entries[index]
        size = self.tree.size if size is None else size
        head = driver.log[last].hash
        entry = LogEntry(
            origin=ORIGIN,
            verifier_key=VERIFIER_KEY,
            leaf_index=index,
            head_hash=head.hex(),
            tree_size=size,
            inclusion_proof=tuple(h.hex() for h in self.tree.inclusion_proof(index, size)),
            checkpoint=self.checkpoint(size),
        )
        start = self.first(index) if bounded else 0
        events = [s.to_json() for s in driver.log[start : last + 1]]
        keys = [{"key_id": key_id(SIGNER.public_key), "public_key_pem": PEM, "current": True}]
        made = make_bundle(driver.table_id, round_id, events, keys, entry, compact_form=compact)
        return json.loads(json.dumps(made))

    def bundles(self, bounded: bool = False) -> list[dict[str, Any]]:
        return [self.bundle(i, bounded=bounded) for i in range(len(self.entries))]

    def first(self, index: int) -> int:
        """Where the service starts round ``index``'s bundle (api/service/publishing.py): at the
        table_state logged right after the same table's previous head in the log, or at
        seq 0 (the table's first head here, or no table_state there)."""
        driver = self.entries[index][0]
        previous = [last for d, _, last in self.entries[:index] if d is driver]
        after = previous[-1] + 1 if previous else 0
        if after < len(driver.log) and driver.log[after].event.type == "table_state":
            return after
        return 0

    def consistency(self, first: int, second: int) -> dict[str, Any]:
        proof = self.tree.consistency_proof(first, second)
        return {"from": first, "to": second, "proof": [h.hex() for h in proof]}


def _reveal_index(log: list[SignedEvent], round_id: str) -> int:
    for i, signed in enumerate(log):
        if signed.event.type == "round_revealed" and signed.event.round == round_id:
            return i
    raise AssertionError(f"no reveal for {round_id}")


def export_text(bundles: Sequence[dict[str, Any]]) -> str:
    return "".join(json.dumps(b) + "\n" for b in bundles)


def resign(
    events: list[dict[str, Any]],
    change: Callable[[list[dict[str, Any]]], None],
    by: Signer = SIGNER,
    *,
    prev: str | None = None,
    seats: Mapping[int, Ed25519PrivateKey] | None = None,
) -> list[dict[str, Any]]:
    """The operator lying: change the events, then re-hash, re-link and re-sign all of them,
    the first linked to ``prev`` (GENESIS by default). With ``seats`` (private keys by
    seat), the operator holds those seats' keys too: each of their statements is made again
    after the event it names as re-signed, so that only the rules can tell the lie."""
    from fairdeal.events import GENESIS_PREV, Event, sign

    plain = [e["event"] for e in events]
    change(plain)
    out, prev = [], GENESIS_PREV if prev is None else prev
    hashes = {plain[0]["seq"] - 1: prev} if plain and type(plain[0]["seq"]) is int else {}
    for raw in plain:
        raw["prev"] = prev
        if seats:
            _restated(raw, hashes, seats)
        signed = sign(Event(**raw), by)
        out.append(json.loads(json.dumps(signed.to_json())))
        prev = hashes[raw["seq"]] = signed.hash.hex()
    return out


def _restated(
    raw: dict[str, Any], hashes: Mapping[int, str], seats: Mapping[int, Ed25519PrivateKey]
) -> None:
    """A seat's logged statement (SPEC 6.7) signed again by its key, after the event of the
    re-signed chain it names; left as it is where it names none or holds no statement."""
    from fairdeal.statements import statement

    seat = {f"seat:{seat}": seat for seat in seats}.get(raw["actor"])
    logged = raw["data"].get("signed") if isinstance(raw["data"], dict) else None
    if seat is None or not isinstance(logged, dict):
        return
    after, n, data = logged.get("after"), logged.get("n"), logged.get("data")
    named = after.get("seq") if isinstance(after, dict) else None
    if type(named) is not int or named not in hashes or not isinstance(data, dict):
        return
    after["hash"] = hashes[after["seq"]]
    message = statement(
        raw["table"], raw["round"], seat, n=n, after=after, kind=raw["type"], data=data
    )
    logged["signature"] = seats[seat].sign(message).hex()


def run(capsys: Any, *args: str) -> tuple[int, Any]:
    """fairdeal-verify's main() with --json; the exit status and the parsed report."""
    from fairdeal.verifier.cli import main

    status = main([*args, "--json"])
    return status, json.loads(capsys.readouterr().out)


def codes(report: Any) -> set[str]:
    return {f["code"] for f in report["findings"]}
