"""The SDK's transport, seen from a relay on the wire: one kept-alive connection, an
Idempotency-Key on every command, a command whose answer was lost sent again and applied
once, 503s waited out as Retry-After says and within a bound; and its bundle helpers
verifying a real round offline, and refusing a tampered one."""

import copy
from collections.abc import Iterator, Mapping
from typing import Any

import pytest

from fairdeal.api.client import (
    BundleInvalidError,
    ClientError,
    FairdealClient,
    Retries,
    SeatClient,
    ServerRefusedError,
)
from tests.api.bots import events_of, types_of
from tests.api.conftest import Server
from tests.api.relay import Relay


@pytest.fixture
def relay(server: Server) -> Iterator[Relay]:
    port = int(server.url.rsplit(":", 1)[1])
    running = Relay(port)
    try:
        yield running
    finally:
        running.close()


def _client(relay: Relay, slept: list[float] | None = None) -> FairdealClient:
    sleep = (slept if slept is not None else []).append
    # A generous read timeout: on a loaded machine a slow answer must not become a timeout,
    # whose retry on a new connection these tests would count as the SDK's doing.
    return FairdealClient(relay.url, timeout=120.0, retries=Retries(sleep=sleep))


def _seated(client: FairdealClient) -> tuple[SeatClient, SeatClient]:
    alice = client.create_table("toto21", {"target": 4, "stake": 10})
    bob = client.join(alice.table_id)
    alice.decide(bob.seat, accept=True)
    return alice, bob


def _play(alice: SeatClient, bob: SeatClient) -> str:
    """One round, each seat standing on its turn, to its reveal; its id."""
    round_id = alice.open_round()
    alice.seed(round_id)
    bob.seed(round_id)
    seats = {alice.seat: alice, bob.seat: bob}
    while (turn := alice.view()["view"]["round"]["turn"]) is not None:
        seats[turn].act(round_id, "stand")
    return round_id


def test_many_requests_of_several_seats_share_one_tcp_connection(relay: Relay) -> None:
    client = _client(relay)
    alice, bob = _seated(client)
    round_id = _play(alice, bob)
    client.verify_round(round_id)
    # Many: a round the deal ends (a golden point, by the random seeds) sends the fewest, 13.
    assert len(relay.seen) >= 13
    # The keys; creating and joining the table, each on a new connection (never sent twice,
    # they must not meet a connection the server closed while it sat idle); then one for all.
    assert relay.accepted == 3
    assert [s.path for s in relay.seen].index(f"/v1/tables/{alice.table_id}/seats") == 2


def test_every_command_carries_an_idempotency_key_and_create_and_join_none(
    relay: Relay,
) -> None:
    _play(*_seated(_client(relay)))
    posts = [s for s in relay.seen if s.method == "POST"]
    seating = [s for s in posts if s.path.endswith(("/v1/tables", "/seats"))]
    commands = [s for s in posts if s not in seating]
    assert len(seating) == 2 and not [s for s in seating if "idempotency-key" in s.headers]
    # The decision, the round, both seeds; then one act per turn, none if the deal ended it.
    kinds = {s.path.rsplit("/", 1)[1] for s in commands}
    assert {"decision", "rounds", "seeds"} <= kinds and len(commands) >= 4
    keys = [s.headers.get("idempotency-key") for s in commands]
    assert None not in keys
    assert len(set(keys)) == len(keys)  # a fresh key per command


def test_a_command_whose_answer_was_lost_is_sent_again_and_applied_once(
    server: Server, relay: Relay
) -> None:
    slept: list[float] = []
    client = _client(relay, slept)
    alice, bob = _seated(client)
    round_id = alice.open_round()
    relay.lose_answer_to = "/seeds"
    before = relay.accepted
    reply = alice.seed(round_id, "alice's seed")  # its commitment
    assert relay.accepted == before + 1  # the cut connection, then a new one
    tries = [s for s in relay.seen if s.path.endswith("/seeds")]
    assert len(tries) == 2 and tries[0].headers == tries[1].headers
    chain = events_of(server.url, alice.table_id)
    committed = [e for e in chain if e["event"]["type"] == "seed_commitment"]
    assert len(committed) == 1
    # the first answer, given again: the same body (its statement signed once) was sent
    assert reply["events"] == committed
    assert len(slept) == 1
    bob.seed(round_id)  # the chain the client follows goes on: bob commits and reveals
    alice.reveal(round_id)
    chain = events_of(server.url, alice.table_id)
    assert [e["event"]["data"]["seed"] for e in chain if e["event"]["type"] == "client_seed"][
        -1
    ] == "alice's seed"
    assert types_of(chain).count("round_sealed") == 1


def test_a_503_is_waited_out_as_retry_after_says_and_the_command_applied_once(
    server: Server, relay: Relay
) -> None:
    slept: list[float] = []
    alice, _ = _seated(_client(relay, slept))
    relay.unavailable, relay.retry_after = 2, "3"
    round_id = alice.open_round()
    assert slept == [3.0, 3.0]
    assert types_of(events_of(server.url, alice.table_id)).count("round_opened") == 1
    assert round_id == f"{alice.table_id}.1"


def test_retries_are_bounded_and_the_last_503_is_raised(relay: Relay) -> None:
    slept: list[float] = []
    alice, _ = _seated(_client(relay, slept))
    relay.unavailable, relay.retry_after = 10, "120"
    with pytest.raises(ServerRefusedError) as refused:
        alice.open_round()
    assert (refused.value.status, refused.value.code) == (503, "database_unavailable")
    assert slept == [5.0, 5.0, 5.0]  # four tries in all; each wait capped at max_wait_s
    assert len([s for s in relay.seen if s.path.endswith("/rounds")]) == 4


def test_creating_a_table_whose_answer_was_lost_is_not_sent_twice(relay: Relay) -> None:
    slept: list[float] = []
    client = _client(relay, slept)
    relay.lose_answer_to = "/v1/tables"
    with pytest.raises(ClientError):
        client.create_table("toto21", {"target": 4})
    assert len([s for s in relay.seen if s.path.endswith("/v1/tables")]) == 1
    assert slept == []
    assert client.create_table("toto21", {"target": 4}).seat == 0  # the client goes on


def test_verify_round_finds_a_real_round_valid(server: Server) -> None:
    client = server.client()
    round_id = _play(*_seated(client))
    report = client.verify_round(round_id)
    assert report.verdict == "valid" and report.rounds == 1 and report.events > 10
    assert client.bundle(round_id)["round_id"] == round_id


def test_verify_round_with_keys_given_as_fairdeal_verify_takes_them(server: Server) -> None:
    client = server.client()
    round_id = _play(*_seated(client))
    log_key = client.request("GET", "/v1/keys")["log"]["verifier_key"]
    assert client.verify_round(round_id, keys=[log_key]).verdict == "valid"


def test_a_round_not_yet_revealed_has_no_bundle(server: Server) -> None:
    alice, _ = _seated(server.client())
    round_id = alice.open_round()
    with pytest.raises(ServerRefusedError) as refused:
        alice.client.verify_round(round_id)
    assert refused.value.code == "round_not_finished"


class _TamperedBundles(FairdealClient):
    """A man in the middle that changes every bundle it passes on."""

    def __init__(self, url: str, change: Any) -> None:
        super().__init__(url)
        self.change = change

    def request(
        self, method: str, path: str, body: Any = None, headers: Mapping[str, str] | None = None
    ) -> Any:
        reply = super().request(method, path, body, headers)
        return self.change(copy.deepcopy(reply)) if path.endswith("/bundle") else reply


def _another_card(bundle: Any) -> Any:
    dealt = next(e for e in bundle["events"] if e["event"]["type"] == "cards_shown")
    card = dealt["event"]["data"]["cards"][0]
    card["card"] = "AS" if card["card"] != "AS" else "6C"
    return bundle


def _keys_of_a_stranger(bundle: Any) -> Any:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from fairdeal.keys import public_key_pem

    stranger = public_key_pem(Ed25519PrivateKey.generate().public_key()).decode()
    bundle["keys"] = [{**k, "public_key_pem": stranger} for k in bundle["keys"]]
    return bundle


@pytest.mark.parametrize(
    "change",
    [_another_card, _keys_of_a_stranger, lambda b: {**b, "round_id": b["round_id"] + "0"}],
    ids=[
        "a shown card changed",
        "the bundle's own keys swapped for a stranger's (never trusted)",
        "the bundle of another round",
    ],
)
def test_verify_round_raises_for_a_tampered_bundle(server: Server, change: Any) -> None:
    round_id = _play(*_seated(server.client()))
    tampering = _TamperedBundles(server.url, change)
    if change is _keys_of_a_stranger:
        assert tampering.verify_round(round_id).verdict == "valid"  # its pinned keys decide
        return
    with pytest.raises(BundleInvalidError) as invalid:
        tampering.verify_round(round_id)
    assert invalid.value.round_id == round_id


def test_creating_a_table_answered_503_with_nothing_stored_is_sent_again(
    server: Server, relay: Relay
) -> None:
    slept: list[float] = []
    client = _client(relay, slept)
    relay.unavailable = 1  # its details say "rolled_back"
    seat = client.create_table("toto21", {"target": 4})
    assert slept == [3.0]
    assert len([s for s in relay.seen if s.path.endswith("/v1/tables")]) == 2
    assert types_of(events_of(server.url, seat.table_id))[0] == "table_created"


def test_the_wait_between_tries_stays_bounded_however_many_tries_a_client_allows() -> None:
    waits: list[float] = []
    retries = Retries(attempts=2000, backoff_s=0.02, max_wait_s=0.5, sleep=waits.append)
    for attempt in (1, 2, 3, 1025, 1999):  # 2 ** 1024 overflowed a float before
        retries.wait(attempt, None)
    assert waits == [0.02, 0.04, 0.08, 0.5, 0.5]
    retries.wait(1999, "3")  # a 503's Retry-After, still capped
    assert waits[-1] == 0.5
