"""The issue's acceptance test (SPEC 15.13.15): the operator cannot open a hidden card before
its owner does. During a round in play, with everything the operator holds -- every event of
its database file, its signing key, every server seed it drew (hence its round keys ``x_0``)
-- no combination of the shares in the log and its own keys decrypts a face-down card or the
blind card to a card; after the showdown the same cards open, to the cards shown.
"""

import hashlib
import itertools
import json
import sqlite3
from collections.abc import Iterable, Iterator
from typing import Any

from cryptography.hazmat.primitives import serialization

from fairdeal.api.client import SeatClient
from fairdeal.blind import elgamal
from fairdeal.blind.group import ORDER, hash_to_scalar, read_scalar_hex
from fairdeal.games.toto21 import cipher
from fairdeal.games.toto21.state import State
from fairdeal.protocol import CARD_DEALT, DECRYPTION_SHARES, ROUND_KEY
from fairdeal.statements import BLIND, command_data

from .conftest import Server
from .test_blind_match import BlindMatch, careful, keys_due

CARDS_SHOWN = "cards_shown"


def _database(server: Server) -> sqlite3.Connection:
    path = server.config.store_url.removeprefix("sqlite:///")
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True)


def operators_events(server: Server, table_id: str) -> list[dict[str, Any]]:
    """Every event of the table, as the database file holds it."""
    with _database(server) as db:
        rows = db.execute("SELECT body FROM events WHERE table_id = ? ORDER BY seq", (table_id,))
        return [json.loads(body)["event"] for (body,) in rows]


def operators_scalars(server: Server) -> list[int]:
    """Every secret scalar the operator holds: each server seed's round key ``x_0``, and its
    signing key read as scalars (its seed, and its clamped expanded scalar), for good measure."""
    with _database(server) as db:
        seeds = [bytes(seed) for (seed,) in db.execute("SELECT server_seed FROM rounds")]
    scalars = [elgamal.server_round_key(seed) for seed in seeds]
    private = server.service.keys.signer.private_key.private_bytes(
        serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption()
    )
    expanded = bytearray(hashlib.sha512(private).digest()[:32])
    expanded[0] &= 248
    expanded[31] = (expanded[31] & 127) | 64
    scalars += [
        int.from_bytes(private, "little") % ORDER,
        int.from_bytes(expanded, "little") % ORDER,
    ]
    scalars.append(hash_to_scalar(private))
    return [s for s in scalars if s]


def hidden_cards(events: list[dict[str, Any]], round_id: str) -> dict[int, dict[str, Any]]:
    """Every card of the round dealt face down or blind: its card_dealt data, by position."""
    return {
        e["data"]["position"]: e["data"]
        for e in events
        if e["round"] == round_id and e["type"] == CARD_DEALT and e["data"]["face"] != "up"
    }


def published_shares(events: list[dict[str, Any]], round_id: str) -> dict[int, list[bytes]]:
    """Every decryption share the log holds, by position: the service's and the seats'."""
    shares: dict[int, list[bytes]] = {}
    for event in events:
        if event["round"] != round_id:
            continue
        data = command_data(BLIND, event["data"])
        if event["type"] == CARD_DEALT and data.get("server_share"):
            shares.setdefault(data["position"], []).append(
                bytes.fromhex(data["server_share"]["share"])
            )
        if event["type"] == DECRYPTION_SHARES:
            for entry in data["shares"]:
                shares.setdefault(entry["position"], []).append(bytes.fromhex(entry["share"]))
    return shares


def _subsets(items: Iterable[Any]) -> Iterator[tuple[Any, ...]]:
    items = list(items)
    return itertools.chain.from_iterable(
        itertools.combinations(items, n) for n in range(len(items) + 1)
    )


def operator_openings(
    dealt: dict[str, Any], shares: list[bytes], scalars: list[int]
) -> Iterator[bytes]:
    """Every point the operator can compute as an opening of ``dealt``'s ciphertext: ``a``
    less any set of the published shares and of its own keys' shares."""
    group = cipher.group()
    ciphertext = elgamal.Ciphertext.from_json(group, dealt["ciphertext"])
    own = [group.mul(ciphertext.b, x) for x in scalars]
    for published in _subsets(shares):
        for keys in _subsets(range(len(scalars))):
            yield elgamal.decrypt(group, ciphertext, [*published, *(own[k] for k in keys)])
    for keys in _subsets(scalars):
        yield elgamal.decrypt_with_keys(group, ciphertext, list(keys))


def always_blind(seat: SeatClient, state: State, legal: list[str]) -> str:
    """The player takes its blind card first, whatever its cards (at 21 or more an illegal
    draw, which loses at the showdown), so that the round has one."""
    return "blind" if "blind" in legal else careful(seat, state, legal)


def test_the_operator_cannot_open_a_hidden_card_before_its_owner(server: Server) -> None:
    match = BlindMatch.start(server)
    match.play_round()  # a round before: its seed and revealed keys are the operator's too
    round_id = match.open_round()
    match.play(always_blind, until=keys_due)  # every share of the round is published
    state = match.state()
    assert keys_due(state) and state.hand is not None and state.hand.blind_taken
    points = set(elgamal.card_points(cipher.group(), "toto21", 1))

    events = operators_events(server, match.table_id)
    hidden = hidden_cards(events, round_id)
    faces = sorted(dealt["face"] for dealt in hidden.values())
    assert faces.count("blind") == 1 and faces.count("down") >= 2
    shares = published_shares(events, round_id)
    scalars = operators_scalars(server)
    assert len(scalars) >= 2 + 3  # the two rounds' x_0, and the signing key's
    # and the keys the first round's seats revealed at its showdown
    scalars += [
        read_scalar_hex(command_data(BLIND, e["data"])["secret"], "key")
        for e in events
        if e["type"] == ROUND_KEY
    ]
    tried = 0
    for position, dealt in hidden.items():
        for opening in operator_openings(dealt, shares.get(position, []), scalars):
            tried += 1
            assert opening not in points, f"the operator opened position {position}"
    assert tried > 1000
    # the owners see theirs
    owners = {h.position: h.seat for h in state.hand.held}
    for seat, client in match.seats.items():
        down = {p for p, d in hidden.items() if d["face"] == "down" and owners[p] == seat}
        assert set(client.own_cards()) == down

    match.play(always_blind)  # the showdown: both keys revealed, the round revealed
    assert not match.in_play()
    after = operators_events(server, match.table_id)
    shown = {
        card["position"]: card["card"]
        for e in after
        if e["round"] == round_id and e["type"] == CARDS_SHOWN
        for card in e["data"]["cards"]
    }
    assert set(shown) == set(hidden)
    with _database(server) as db:
        (seed,) = db.execute(
            "SELECT server_seed FROM rounds WHERE round_id = ?", (round_id,)
        ).fetchone()
    revealed = [
        read_scalar_hex(command_data(BLIND, e["data"])["secret"], "key")
        for e in after
        if e["round"] == round_id and e["type"] == ROUND_KEY
    ]
    assert len(revealed) == 2
    group = cipher.group()
    for position, dealt in hidden.items():
        ciphertext = elgamal.Ciphertext.from_json(group, dealt["ciphertext"])
        keys = [elgamal.server_round_key(bytes(seed)), *revealed]
        opened = elgamal.decrypt_with_keys(group, ciphertext, keys)
        assert opened in points
        assert cipher.card_of(opened) == shown[position]
