"""The plug-in contract (fairdeal/games/README.md), proved by a game nobody else knows:
tests/toy_game.py, registered for these tests only, is taken by the registry, the CLI,
the service over real HTTP and the verifier, and a forged or tampered log of it fails."""

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fairdeal import cards
from fairdeal.api.cli.main import main
from fairdeal.api.client import BundleInvalidError, ServerRefusedError
from fairdeal.games import register, registry, unregister
from fairdeal.verifier import load_trust, verify_bundle
from tests import toy_game
from tests.api.conftest import Server, start_server, stop_server
from tests.verifier import corpus, helpers

STAKE, BUY_IN = 7, 100


@pytest.fixture
def toy() -> Iterator[None]:
    register(toy_game.GAME)
    try:
        yield
    finally:
        unregister(toy_game.NAME)


@pytest.fixture
def toy_server(toy: None, tmp_path: Path) -> Iterator[Server]:
    running, http = start_server(tmp_path)
    try:
        yield running
    finally:
        stop_server(running, http)


def test_a_registered_game_and_its_deck_are_known_until_it_is_unregistered() -> None:
    register(toy_game.GAME)
    try:
        assert registry()[toy_game.NAME] is toy_game.GAME
        assert cards.canonical_deck(toy_game.NAME, 1) == toy_game.DECK
    finally:
        unregister(toy_game.NAME)
    assert toy_game.NAME not in registry()
    with pytest.raises(ValueError, match="no deck"):
        cards.canonical_deck(toy_game.NAME, 1)
    assert cards.canonical_deck("toto21", 1) == cards.toto21_deck()


def test_a_second_game_of_a_registered_name_is_refused(toy: None) -> None:
    with pytest.raises(ValueError, match="already registered"):
        register(toy_game.GAME)


def test_the_deck_command_derives_a_registered_game_s_deck(toy: None, capsys: Any) -> None:
    args = ["deck", "--game", toy_game.NAME, "--round-id", "r", "--server-seed", "00" * 32]
    assert main(args) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["rules"] == {"decks": 1, "game": toy_game.NAME}
    assert sorted(printed["deck"], key=int) == list(toy_game.DECK)


def _played_round(server: Server) -> tuple[Any, str]:
    client = server.client()
    creator = client.create_table(toy_game.NAME, {"stake": STAKE}, {"buy_in": BUY_IN})
    joiner = client.join(creator.table_id, {"buy_in": BUY_IN})
    round_id = creator.open_round()
    creator.seed(round_id)
    joiner.seed(round_id)  # the last commitment opens the reveals: the joiner's at once
    creator.reveal(round_id)  # the last seed seals, deals, settles and reveals
    return client, round_id


def test_the_toy_game_plays_a_round_through_the_api_and_its_bundle_verifies(
    toy_server: Server,
) -> None:
    client, round_id = _played_round(toy_server)
    assert client.verify_round(round_id).verdict == "valid"
    events = [e["event"] for e in client.bundle(round_id)["events"]]
    won = next(e for e in events if e["type"] == toy_game.ROUND_WON)
    winner, loser = f"seat:{won['data']['winner']}", f"seat:{1 - won['data']['winner']}"
    assert won["data"]["balances"] == {winner: BUY_IN + STAKE, loser: BUY_IN - STAKE}
    assert [e["type"] for e in events][-1] == "round_revealed"


def test_a_game_registered_after_the_service_started_is_played_and_an_unregistered_refused(
    server: Server,
) -> None:
    """The service reads the live registry: no restart to take a game, and none to drop one."""
    register(toy_game.GAME)
    try:
        client, round_id = _played_round(server)
        assert client.verify_round(round_id).verdict == "valid"
    finally:
        unregister(toy_game.NAME)
    with pytest.raises(ServerRefusedError) as refused:
        client.create_table(toy_game.NAME, {"stake": STAKE}, {"buy_in": BUY_IN})
    assert refused.value.status == 422


def test_a_tampered_toy_bundle_fails_verification(toy_server: Server) -> None:
    client, round_id = _played_round(toy_server)
    bundle = client.bundle(round_id)
    won = corpus.index_of(bundle["events"], toy_game.ROUND_WON)
    bundle["events"][won]["event"]["data"]["winner"] ^= 1
    with pytest.raises(BundleInvalidError):
        client.verify_bundle(round_id, bundle)


def _offline_bundle() -> dict[str, Any]:
    """A round of the toy game played by the verifier tests' driver, signed, as a bundle."""
    driver = helpers.TableDriver(toy_game.NAME, "hc", {"stake": STAKE})
    for seat in toy_game.SEATS:
        driver.seat(seat, "seat_joined", {"buy_in": BUY_IN})
    driver.play_round()
    return helpers.Log().add_all(driver).bundle(0)


def test_the_verifier_replays_the_toy_rules_and_reports_a_forged_winner(toy: None) -> None:
    honest, trust = _offline_bundle(), load_trust([helpers.VERIFIER_KEY])
    assert verify_bundle(honest, trust).verdict == "valid"

    def other_winner(events: list[dict[str, Any]]) -> None:
        data = events[corpus.index_of(events, toy_game.ROUND_WON)]["data"]
        data["winner"] ^= 1
        for transfer in data["transfers"]:
            transfer["from"], transfer["to"] = transfer["to"], transfer["from"]
        data["balances"] = {seat: 2 * BUY_IN - amount for seat, amount in data["balances"].items()}

    report = verify_bundle(corpus.operator(honest, other_winner), trust)
    assert report.verdict != "valid"
    assert "rules.mismatch" in {finding.code for finding in report.findings}


def test_the_verifier_follows_the_registry_as_it_is_now_not_as_it_was() -> None:
    """Its cache of table starts is by game as well as by table_created: a bundle of a game
    unregistered since is of an unknown game, and valid again once the game is back."""
    register(toy_game.GAME)
    try:
        bundle, trust = _offline_bundle(), load_trust([helpers.VERIFIER_KEY])
        assert verify_bundle(bundle, trust).verdict == "valid"
    finally:
        unregister(toy_game.NAME)
    report = verify_bundle(bundle, trust)
    assert "rules.unknown_game" in {finding.code for finding in report.findings}
    assert report.verdict == "unusable"  # a game it does not know: nothing judged
    register(toy_game.GAME)
    try:
        assert verify_bundle(bundle, trust).verdict == "valid"
    finally:
        unregister(toy_game.NAME)
