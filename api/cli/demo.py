"""``fairdeal demo``: a whole Toto21 match and Kvitlach tables of both rule sets, played by
bots over real HTTP.

The service runs in this process on a loopback port with a throwaway SQLite file; the
bots use the client SDK, so each seat has its own key and signs its every move, commits to
its seed before any is revealed, and checks every receipt as it arrives. The bundles, an
export and the keys are written to the output folder and then verified offline.
"""

import json
import random
import secrets
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from werkzeug.serving import make_server

from fairdeal.protocol import CLIENT_SEED, ROUND_REVEALED, SEAT_JOINED, SEAT_LEFT, SEED_COMMITMENT

from ..client import EventsReply, FairdealClient, SeatClient, ServerRefusedError
from ..http.app import close_app, create_app
from ..service.config import Config

KVITLACH_ROUNDS = 8
MAX_MOVES_PER_ROUND = 400


class OutFolderError(ValueError):
    """The output folder holds something already: an earlier run's bundles, signed by
    another key, would lie beside this run's."""


@dataclass
class Story:
    """What happened, for the summary."""

    rounds: list[str] = field(default_factory=list)
    events: int = 0
    lines: list[str] = field(default_factory=list)

    def note(self, reply: EventsReply) -> None:
        """Count a reply's receipts, and the rounds they finish."""
        self.events += len(reply["events"])
        for receipt in reply["events"]:
            event = receipt["event"]
            if event["type"] == ROUND_REVEALED and event["round"] is not None:
                self.rounds.append(event["round"])

    def seated(self, seat: SeatClient) -> SeatClient:
        """The seat, with the reveals its SDK makes on its own counted too."""
        seat.on_reveal = lambda _round_id, reply: self.note(reply)
        return seat


def run_demo(out: Path, say: Callable[[str], None] = print) -> int:
    _make_empty_folder(out)
    operator = secrets.token_urlsafe(16)
    with tempfile.TemporaryDirectory(prefix="fairdeal-demo-") as scratch:
        config = Config(
            instance_path=Path(scratch), operator_token=operator, log_origin="demo.fairdeal/log"
        )
        app = create_app(config)
        http = make_server("127.0.0.1", 0, app, threaded=True)
        threading.Thread(target=http.serve_forever, daemon=True).start()
        url = f"http://127.0.0.1:{http.server_port}"
        say(f"fairdeal demo: a service on {url} (throwaway SQLite, development key)")
        try:
            client = FairdealClient(url)
            rng = random.Random()  # noqa: S311 - bots choose moves; no secret comes from it
            story = Story()
            play_toto21(client, rng, story, say)
            for rule_set in ("classic", "pressburg"):
                play_kvitlach(client, rng, story, say, rule_set)
            write_outputs(client, operator, story, out)
        finally:
            http.shutdown()
            close_app(app)
    say(
        f"\n{len(story.rounds)} rounds, {story.events} signed events, every receipt checked; "
        "every move signed by its seat's own key."
    )
    say(f"Bundles, export.jsonl and keys are in {out}/")
    return verify_outputs(out, say)


def _make_empty_folder(out: Path) -> None:
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise OutFolderError(
            f"{out} is not an empty folder: an earlier run's bundles, signed by another key, "
            "would lie beside this run's; remove it or name a new folder"
        )
    out.mkdir(parents=True, exist_ok=True)


def play_toto21(
    client: FairdealClient, rng: random.Random, story: Story, say: Callable[[str], None]
) -> None:
    say("\nToto21: a match to 4 points, stake 10 each.")
    creator = story.seated(client.create_table("toto21", {"target": 4, "stake": 10}))
    joiner = story.seated(client.join(creator.table_id))
    story.note(creator.decide(joiner.seat, accept=True))
    seats = [creator, joiner]
    while True:
        try:
            round_id = creator.open_round()
        except ServerRefusedError:
            break  # the match is over: no more rounds
        play_round(seats, round_id, rng, story)
    view = creator.view()["view"]
    say(f"  match over after {len(story.rounds)} rounds; balances {view.get('balances')}")


def play_kvitlach(
    client: FairdealClient,
    rng: random.Random,
    story: Story,
    say: Callable[[str], None],
    rule_set: str,
) -> None:
    say(f"\nKvitlach ({rule_set}): four seats, bank 100, {KVITLACH_ROUNDS} rounds.")
    options = {"rule_set": rule_set, "bank_funding": 100, "decks": 2}
    banker = story.seated(client.create_table("kvitlach", options, {"buy_in": 1000}))
    joins = [client.join(banker.table_id, {"buy_in": 1000}) for _ in range(3)]
    seats = [banker, *map(story.seated, joins)]
    before = len(story.rounds)
    for _ in range(KVITLACH_ROUNDS):
        try:
            round_id = banker.open_round()
        except ServerRefusedError as e:
            say(f"  no further round: {e.message}")
            break
        play_round(seats, round_id, rng, story)
        view = banker.view()["view"]
        say(
            f"  round {round_id}: banker seat {view.get('banker')}, balances {view.get('balances')}"
        )
    say(f"  {len(story.rounds) - before} rounds played")


def play_round(seats: list[SeatClient], round_id: str, rng: random.Random, story: Story) -> None:
    """Every seat acts when the rules let it, picking at random, until the reveal (a seat's
    view reveals its committed seed once the reveals are open)."""
    for _ in range(MAX_MOVES_PER_ROUND):
        moves = [
            (seat, kind)
            for seat in seats
            for kind in seat.view()["legal_actions"]
            if kind not in (SEAT_LEFT, SEAT_JOINED)
        ]
        if round_id in story.rounds:
            return
        if not moves:  # a reveal in a later seat's view sealed the round: look again
            continue
        seat, kind = rng.choice(moves)
        story.note(_send(seat, round_id, kind, rng))
    raise RuntimeError(f"round {round_id} did not finish")


def _send(seat: SeatClient, round_id: str, kind: str, rng: random.Random) -> Any:
    if kind in (SEED_COMMITMENT, CLIENT_SEED):  # seed() commits, then reveals
        return seat.seed(round_id)
    if kind == "banker_exit":
        return seat.table_act(kind)
    if kind == "bet":
        try:
            return seat.act(round_id, kind, amount=rng.randint(1, 20))
        except ServerRefusedError:
            return seat.act(round_id, kind, amount=1)
    return seat.act(round_id, kind)


def write_outputs(client: FairdealClient, operator: str, story: Story, out: Path) -> None:
    bundles = out / "bundles"
    bundles.mkdir(exist_ok=True)
    for round_id in story.rounds:
        bundle = client.request("GET", f"/v1/rounds/{round_id}/bundle")
        (bundles / f"{round_id}.json").write_text(json.dumps(bundle, indent=1))
    keys = client.request("GET", "/v1/keys")
    (out / "keys.json").write_text(json.dumps(keys, indent=1))
    current = next(k for k in keys["keys"] if k["current"])
    (out / "signing-key.pub.pem").write_text(current["public_key_pem"])
    (out / "log-verifier-key.txt").write_text(keys["log"]["verifier_key"] + "\n")
    (out / "checkpoint.txt").write_text(client.request("GET", "/v1/log/checkpoint")["note"])
    _export(client, operator, out / "export.jsonl")


def _export(client: FairdealClient, operator: str, path: Path) -> None:
    import urllib.request

    request = urllib.request.Request(  # noqa: S310 - the client's own http URL
        client.base_url + "/v1/export", headers={"Authorization": f"Bearer {operator}"}
    )
    with urllib.request.urlopen(request, timeout=60) as response, path.open("wb") as sink:  # noqa: S310
        for line in response:
            sink.write(line)


def verify_outputs(out: Path, say: Callable[[str], None]) -> int:
    """Run the offline verifier over the export, pinned to the key written beside it."""
    command = [
        sys.executable,
        "-m",
        "fairdeal.verifier",  # the installed package: the demo runs from any folder
        str(out / "export.jsonl"),
        "--key",
        str(out / "signing-key.pub.pem"),
        "--checkpoint",
        str(out / "checkpoint.txt"),
    ]
    shown = " ".join(Path(c).name if "/" in c else c for c in command[3:])
    say(f"\nVerifying offline: fairdeal-verify {shown}")
    result = subprocess.run(command, capture_output=True, text=True, check=False)  # noqa: S603
    say(result.stdout.strip() or result.stderr.strip())
    return result.returncode
