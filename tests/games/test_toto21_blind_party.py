"""A lying operator against a seat's party (SPEC 15.13.6.3, 15.13.7.3): the service signs
whatever server events it likes, and a client folds them with the rules' ``apply``, which
takes them as they come. Each forgery here is one a red team ran against the first parties
(each gave the operator a hidden card or a round key); the party now reads the round's
events itself and refuses. Events are folded as tests/blind_table.py's seats fold them;
nothing here is logged by the service."""

from dataclasses import replace
from types import SimpleNamespace
from typing import Any

import pytest

from fairdeal.games import registry
from fairdeal.games.toto21.party import Logged, PartyRefusedError
from fairdeal.games.toto21.state import State
from fairdeal.protocol import CARD_DEALT, DECK_SHUFFLED, KEYS_DUE, SERVER, SHARES_DUE
from tests.blind_table import BlindTable

GAME = registry()["toto21"]


def _to_the_first_move(t: BlindTable) -> None:
    """A round played to the player's first move, every share of the deal in."""
    t.open_round()
    t.commit_and_reveal()
    while t.state.crypto is not None and t.state.crypto.request is not None:
        t.answer(t.state.crypto.request.seats[0])


def _forged(t: BlindTable, *drafts: tuple[str, str, dict[str, Any]]) -> tuple[State, list[Logged]]:
    """The state and round events after the operator's ``drafts`` (type, actor, data),
    folded by the rules as a seat's client folds what it is served."""
    state, events = t.state, t.round_events()
    for kind, actor, data in drafts:
        event = SimpleNamespace(
            type=kind, actor=actor, data=data, round=t.round_id, time=t.now, table=t.table_id
        )
        state = GAME.apply(state, event)
        events.append((kind, actor, data))
    return state, events


def _asked(seats: list[int], positions: list[int], t: BlindTable) -> tuple[str, str, Any]:
    requests = [{"seat": seat, "positions": positions} for seat in seats]
    return (SHARES_DUE, SERVER, {"deadline": t.now + 10_000, "requests": requests})


def test_a_players_own_card_dealt_again_as_the_dealers_is_not_shared() -> None:
    """The operator logs position 0 (the player's face-down card) again, to the dealer, and
    asks the player for its share: given, the service's and the dealer's shares open it."""
    t = BlindTable("lie-relabel")
    _to_the_first_move(t)
    hand, crypto = t.state.hand, t.state.crypto
    assert hand is not None and crypto is not None
    again = {
        "position": 0,
        "seat": hand.dealer,
        "face": "down",
        "ciphertext": dict(crypto.deck()[0]),
        "server_share": crypto.shares[0][SERVER],
    }
    state, events = _forged(t, (CARD_DEALT, SERVER, again), _asked([hand.player], [0], t))
    with pytest.raises(PartyRefusedError, match="a card dealt that no deal or draw deals"):
        t.parties[hand.player].shares(state, events)


def test_a_step_logged_after_the_deal_is_not_shared_from() -> None:
    """The operator logs a fourth step (the deck's order changed under the cards dealt) and
    asks again for a position that is now another card."""
    t = BlindTable("lie-reshuffle")
    _to_the_first_move(t)
    hand = t.state.hand
    assert hand is not None
    last = next(data for kind, _, data in reversed(t.round_events()) if kind == DECK_SHUFFLED)
    state, events = _forged(t, (DECK_SHUFFLED, SERVER, dict(last)), _asked([hand.player], [3], t))
    with pytest.raises(PartyRefusedError, match="step 3 by server"):
        t.parties[hand.player].shares(state, events)


def test_steps_the_service_logs_for_the_seats_are_refused() -> None:
    """The operator shuffles alone: after its own step it logs the seats' steps itself
    (here its own step again as step 1): a seat's party refuses to answer on that chain."""
    t = BlindTable("lie-steps")
    t.open_round()
    t.commit_and_reveal()
    crypto = t.state.crypto
    assert crypto is not None and crypto.request is not None
    first = next(data for kind, _, data in t.round_events() if kind == DECK_SHUFFLED)
    state, events = _forged(t, (DECK_SHUFFLED, SERVER, dict(first)))
    asked = crypto.request.seats[0]
    with pytest.raises(PartyRefusedError, match="step 1 by server: the service shuffles first"):
        t.parties[asked].check_chain(state, events)


@pytest.mark.parametrize("ended_by", ["the player's stand", "the player's move timeout"])
def test_no_key_is_revealed_while_the_dealer_has_still_to_play(ended_by: str) -> None:
    """After the player's turn (its own stand, or a move timeout the operator logs), the
    operator asks for the keys instead of the dealer's move: with the player's key it would
    open the player's hand for a dealer still to play."""
    t = BlindTable("lie-early-key")
    _to_the_first_move(t)
    hand = t.state.hand
    assert hand is not None and hand.turn == hand.player
    player = f"seat:{hand.player}"
    turn = (
        ("stand", player, {})
        if ended_by == "the player's stand"
        else ("move_timeout", SERVER, {"seat": hand.player, "deadline": hand.move_deadline})
    )
    keys = (KEYS_DUE, SERVER, {"deadline": t.now + 10_000, "seats": [0, 1]})
    state, events = _forged(t, turn, keys)
    with pytest.raises(PartyRefusedError, match="not after the dealer's turn or a claim"):
        t.parties[hand.player].reveal(state, events)


def test_a_party_whose_key_is_revealed_answers_nothing_more() -> None:
    """A round id logged again (the rules' fold takes it) must not reuse a revealed key: the
    party that revealed it commits, shuffles and shares no more."""
    t = BlindTable("lie-reuse")
    t.play_round()
    party = t.parties[0]
    assert t.state.round is not None and t.state.round.revealed
    with pytest.raises(PartyRefusedError, match=r"key for round .* is revealed"):
        party.commitment_data("00" * 32)


def test_a_round_whose_seats_are_not_two_distinct_seats_is_refused() -> None:
    """Seats [0, 0] would leave seat 1's key out of the joint key: the service and seat 0
    could open every card together."""
    t = BlindTable("lie-seats")
    _to_the_first_move(t)
    current = t.state.round
    assert current is not None
    forged = replace(t.state, round=replace(current, seats=(0, 0)))
    with pytest.raises(PartyRefusedError, match=r"seats \[0, 0\] are not two seats"):
        t.parties[0].check_chain(forged, t.round_events())


def test_the_honest_round_is_read_as_the_rules_deal_it() -> None:
    """The reading the refusals rely on: every card of a played round, by position, to its
    seat and face, the joint key of the three keys."""
    t = BlindTable("honest-read")
    _to_the_first_move(t)
    hand = t.state.hand
    assert hand is not None
    read = t.parties[0].check_chain(t.state, t.round_events())
    assert read.roles == (hand.dealer, hand.player)
    assert read.cards == {h.position: (h.seat, h.face) for h in hand.held}
    assert len(read.decks) == 4 and len(read.keys) == 3
