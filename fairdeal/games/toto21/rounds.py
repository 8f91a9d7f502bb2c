"""A round's start: opening, client seeds, the seal, the dealer's choice and the deal."""

from fairdeal import randomness
from fairdeal.errors import IllegalActionError
from fairdeal.events import Draft
from fairdeal.games import dealing
from fairdeal.games.base import Command, Decision
from fairdeal.games.dealing import DOWN, UP
from fairdeal.games.toto21 import blind_round, hands, timing
from fairdeal.games.toto21.ending import finish_round
from fairdeal.games.toto21.run import (
    Run,
    current_round,
    in_time,
    move_due,
    require_server,
    single,
)
from fairdeal.games.toto21.state import (
    DEALER_PURPOSE,
    PLAYING,
    SEATS,
    State,
    cards_of,
    deck_of,
)
from fairdeal.protocol import SEED_TIMEOUT, SERVER


def open_round(state: State, command: Command, secret: bytes | None) -> Decision[State]:
    """``round_opened``: only during the match, after the last round was revealed."""
    require_server(command)
    if state.phase != PLAYING or state.in_round():
        raise IllegalActionError("a round opens only in a started match, after the last one")
    in_time(state.game_deadline, command.time, "game")
    if command.round in state.round_ids:
        raise IllegalActionError("this table already used that round id")
    if state.options.blind:
        return single(state, command, blind_round.opened(state, command, secret))
    seed_time = state.options.seed_time_ms
    return single(
        state, command, dealing.opened(command, secret, state.rounds + 1, SEATS, seed_time)
    )


def seeding(state: State, command: Command, secret: bytes | None) -> Decision[State]:
    """A seat's seed or commitment, or the seed timeout; the step that completes the
    seeds seals the round and deals, and a withheld reveal voids it (``dealing.seeding``).
    A seed for the last round after it ended (at the deal, say) is late, as it is in
    Kvitlach, not a stray command."""
    last = state.round
    if command.type == SEED_TIMEOUT:
        require_server(command)
        current = current_round(state, command)
        timing.check_due(state, command)
    else:
        if last is not None and command.round == last.round_id:
            dealing.refuse_if_sealed(last)
        current = current_round(state, command)
        in_time(state.game_deadline, command.time, "game")
    run = Run(state, command)
    reveal_time = _reveal_time(state, command.time)
    if state.options.blind:
        drafts, then = blind_round.seeding(state, current, command, reveal_time)
    else:
        drafts, then = dealing.seeding(current, command, reveal_time)
    for draft in drafts:
        run.emit(draft)
    if then == dealing.SEAL and state.options.blind:
        blind_round.seal(run, secret)
    elif then == dealing.SEAL:
        _seal_and_deal(run, secret)
    elif then == dealing.VOID:
        run.emit(dealing.revealed_draft(run.round(), secret))
    return run.decision()


def _reveal_time(state: State, now: int) -> int:
    """The reveals end by the game's end at the latest: a seat that withholds its reveal
    then voids the round under its own name (``seed_withheld``), not the game clock. If
    the game's time is already up (a commit timeout logged late), nobody can reveal and
    the game's end voids the round, as before any seed was shown."""
    seed_time, end = state.options.seed_time_ms, state.game_deadline
    return seed_time if end is None or end <= now else min(seed_time, end - now)


def _seal_and_deal(run: Run, secret: bytes | None) -> None:
    round_id = run.round().round_id
    run.emit(dealing.sealed_draft(run.round()))
    deck = deck_of(run.state, secret)
    seats = run.round().seats
    dealer = seats[randomness.choose(deck.key, DEALER_PURPOSE, len(seats))]
    player = next(seat for seat in seats if seat != dealer)
    run.emit(Draft("dealer_chosen", SERVER, {"dealer": dealer, "player": player}, round_id))
    for seat, face in ((player, DOWN), (dealer, UP), (player, DOWN), (dealer, DOWN)):
        run.emit(dealing.deal_draft(run.round(), deck, run.hand().dealt(), seat, face))
    hand = run.hand()
    mine, theirs = cards_of(deck, hand.of(player)), cards_of(deck, hand.of(dealer))
    golden = hands.golden_point(player, dealer, mine, theirs)
    if golden is not None:
        finish_round(run, deck, golden, secret)
    else:
        run.emit(move_due(round_id, player, run.time + run.state.options.move_time_ms))
