"""A client with no key library of its own plays keyed seats with ``fairdeal keygen``,
``fairdeal commit`` and ``fairdeal sign`` (each run as a real process) and raw HTTP, as a
curl user does, against a real service; its round verifies offline."""

import json
import secrets
import stat
from pathlib import Path
from typing import Any

from fairdeal.verifier import load_trust, verify_bundle
from tests.api.bots import error_of, raw
from tests.api.conftest import Server
from tests.commands import run_python

SEEDS = {seat: secrets.token_hex(16) for seat in (0, 1)}  # a guessable seed keeps no secret


def fairdeal(*args: str) -> str:
    done = run_python("-m", "fairdeal.api.cli", *args)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


class CurlSeat:
    """A seat as a shell script holds it: a key file, a bearer token, its statements' count."""

    def __init__(self, url: str, folder: Path, seat: int) -> None:
        self.url, self.seat, self.n = url, seat, 0
        self.key = folder / f"seat{seat}.key"
        self.public_key = fairdeal("keygen", "--out", str(self.key))
        self.table, self.token = "", ""

    def sign(self, kind: str, data: dict[str, Any], round_id: str | None = None) -> Any:
        """The body to send, as ``fairdeal sign`` prints it, at the seat's next n, after
        the table's head as its view shows it now."""
        self.n += 1
        head = raw(self.url, "GET", f"/v1/tables/{self.table}").json["head"]
        where = ["--round", round_id] if round_id else []
        identity = ["--key", str(self.key), "--table", self.table, "--seat", str(self.seat)]
        after = ["--after-seq", str(head["seq"]), "--after-hash", head["hash"]]
        statement = ["--n", str(self.n), "--type", kind, json.dumps(data)]
        return json.loads(fairdeal("sign", *identity, *where, *after, *statement))

    def post(self, path: str, body: Any) -> Any:
        reply = raw(self.url, "POST", path, body, token=self.token)
        assert reply.status in (200, 201), reply.text
        return reply.json


def test_a_curl_client_plays_a_signed_round_with_fairdeal_sign(
    server: Server, tmp_path: Path
) -> None:
    alice, bob = CurlSeat(server.url, tmp_path, 0), CurlSeat(server.url, tmp_path, 1)
    assert stat.S_IMODE(alice.key.stat().st_mode) == 0o600
    table = {"game": "toto21", "options": {"target": 4}, "key": alice.public_key}
    created = raw(server.url, "POST", "/v1/tables", table)
    alice.table = bob.table = created.json["table_id"]
    alice.token = created.json["token"]
    joined = raw(server.url, "POST", f"/v1/tables/{alice.table}/seats", {"key": bob.public_key})
    bob.token = joined.json["token"]
    assert joined.json["events"][-1]["event"]["data"]["key"] == bob.public_key
    decision = alice.sign("joiner_accepted", {"seat": 1})
    assert decision == {"accept": True, "signed": decision["signed"]}
    alice.post(f"/v1/tables/{alice.table}/seats/1/decision", decision)

    round_id = alice.post(f"/v1/tables/{alice.table}/rounds", None)["round_id"]
    seeds = f"/v1/rounds/{round_id}/seeds"
    for seat in (alice, bob):
        commitment = fairdeal(
            "commit", "--round", round_id, "--seat", str(seat.seat), SEEDS[seat.seat]
        )
        seat.post(seeds, seat.sign("seed_commitment", {"commitment": commitment}, round_id))
    for seat in (alice, bob):
        seat.post(seeds, seat.sign("client_seed", {"seed": SEEDS[seat.seat]}, round_id))
    actions = f"/v1/rounds/{round_id}/actions"
    unsigned = raw(server.url, "POST", actions, {"type": "stand"}, token=alice.token)
    assert (unsigned.status, error_of(unsigned)["code"]) == (403, "signature_missing")
    while (turn := _turn(server, round_id)) is not None:
        mover = (alice, bob)[turn]
        mover.post(actions, mover.sign("stand", {}, round_id))

    bundle = raw(server.url, "GET", f"/v1/rounds/{round_id}/bundle").json
    trust = load_trust([raw(server.url, "GET", "/v1/keys").json["log"]["verifier_key"]])
    assert verify_bundle(bundle, trust).verdict == "valid"
    sealed = next(e for e in bundle["events"] if e["event"]["type"] == "round_sealed")
    assert sealed["event"]["data"]["client_seeds"] == [SEEDS[0], SEEDS[1]]


def _turn(server: Server, round_id: str) -> int | None:
    turn: int | None = raw(server.url, "GET", f"/v1/rounds/{round_id}").json["view"]["round"][
        "turn"
    ]
    return turn
