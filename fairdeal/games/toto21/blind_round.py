"""A dealer-blind Toto21 round (SPEC 15.13): the round keys in the seed phase, the shuffle
chain, dealing ciphertexts with the service's shares, the seats' shares, the golden point
claim and the key reveals, and the timeouts of each request.

``rounds`` and ``play`` hand a blind table's commands here; ``blind_ending`` decides how
the round ends once the keys are in, or a request's time ran out.
"""

from collections.abc import Sequence
from dataclasses import replace

from fairdeal import randomness
from fairdeal.canonical import json_text
from fairdeal.errors import IllegalActionError, OutOfTurnError
from fairdeal.events import Draft
from fairdeal.games import dealing
from fairdeal.games.base import Command, Decision, record
from fairdeal.games.dealing import BLIND, DOWN, UP, RoundState
from fairdeal.games.toto21 import blind_ending, cipher, timing
from fairdeal.games.toto21.cipher import Crypto, Request
from fairdeal.games.toto21.run import (
    Run,
    acting_seat,
    current_round,
    in_time,
    move_due,
    require_server,
)
from fairdeal.games.toto21.state import DEALER_PURPOSE, State, deck_of
from fairdeal.protocol import (
    CARD_DEALT,
    CARD_OPENED,
    CLIENT_SEED,
    DECK_SHUFFLED,
    KEYS_DUE,
    ROUND_VOIDED,
    SEED_COMMITMENT,
    SEED_TIMEOUT,
    SEED_WITHHELD,
    SERVER,
    SHARES_DUE,
    SHUFFLE_DUE,
)

SERVER_KEY, ROUND_KEY_MEMBER = "server_key", "round_key"


# Round keys and seeds (SPEC 15.13.3, 15.13.4)


def opened(state: State, command: Command, secret: bytes | None) -> Draft:
    """``round_opened`` with the service's round key and proof (derived from the seed; given
    by the command where the seed is not known, and then checked)."""
    given = command.data.get(SERVER_KEY)
    bare = replace(command, data={k: v for k, v in command.data.items() if k != SERVER_KEY})
    seed_time = state.options.seed_time_ms
    draft = dealing.opened(bare, secret, state.rounds + 1, (0, 1), seed_time)
    round_id = draft.round or ""
    if secret is not None:
        key = cipher.server_key(secret, command.table, round_id)
        if given is not None and json_text(given) != json_text(key):
            raise IllegalActionError("server_key is not the one the server seed gives")
    elif given is None:
        raise IllegalActionError("round_opened needs server_key where the seed is not known")
    else:
        cipher.check_key(given, SERVER, command.table, round_id, ())
        key = given
    return replace(draft, data={**draft.data, SERVER_KEY: key})


def seeding(
    state: State, current: RoundState, command: Command, reveal_time: int
) -> tuple[list[Draft], str]:
    """``dealing.seeding`` at a blind table: every seat commits, with its round key; a plain
    seed in the commit phase is refused, and a missed commitment voids the round."""
    if command.type == CLIENT_SEED and not current.revealing:
        raise IllegalActionError("at a blind table every seat commits first, with its round key")
    if command.type == SEED_TIMEOUT and not current.revealing:
        draft = dealing.seeding_draft(current, command)
        withheld = {"reason": SEED_WITHHELD, "seats": draft.data["seats"]}
        return [draft, Draft(ROUND_VOIDED, SERVER, withheld, current.round_id)], dealing.VOID
    if command.type != SEED_COMMITMENT:
        return dealing.seeding(current, command, reveal_time)
    key = command.data.get(ROUND_KEY_MEMBER)
    bare = {k: v for k, v in command.data.items() if k != ROUND_KEY_MEMBER}
    drafts, then = dealing.seeding(current, replace(command, data=bare), reveal_time)
    if key is None:
        raise IllegalActionError("a blind table's seed_commitment carries round_key")
    crypto = _crypto(state)
    taken = (crypto.server_key, *crypto.round_keys.values())
    cipher.check_key(key, command.actor, command.table, current.round_id, taken)
    first = replace(drafts[0], data={**drafts[0].data, ROUND_KEY_MEMBER: key})
    return [first, *drafts[1:]], then


def seal(run: Run, secret: bytes | None) -> None:
    """The seal's run: ``round_sealed``, the service's shuffle step, the first seat asked."""
    current = run.round()
    run.emit(dealing.sealed_draft(current))
    shuffle_key = deck_of(run.state, secret).key
    crypto = _crypto(run.state)
    step = cipher.server_step(crypto, current.seats, shuffle_key, run.table, current.round_id)
    run.emit(Draft(DECK_SHUFFLED, SERVER, {**step, "step": cipher.SERVER_STEP}, current.round_id))
    _ask_step(run, current.seats[0])


# The shuffle chain (SPEC 15.13.5)


def shuffled(state: State, command: Command, secret: bytes | None) -> Decision[State]:
    """A seat's ``deck_shuffled``: its step verified against the last one; the last seat's
    step is followed by the dealer's choice and the deal."""
    if command.actor == SERVER:
        raise IllegalActionError("the service's step is logged by the rules, never sent")
    current = current_round(state, command)
    seat, crypto = acting_seat(command), _crypto(state)
    request = _asked(crypto, SHUFFLE_DUE, seat, command)
    in_time(request.deadline, command.time, "shuffle")
    step = len(crypto.decks)
    data = command.data
    if set(data) - {"step"} != {"deck", "proof"}:
        raise IllegalActionError("deck_shuffled carries exactly deck and proof")
    if "step" in data and (type(data["step"]) is not int or data["step"] != step):
        raise IllegalActionError(f"this is step {step}")
    where = cipher.context(command.table, current.round_id, command.actor, "shuffle", step)
    cipher.check_step(crypto, current.seats, step, data, where)
    run = Run(state, command)
    recorded = {"deck": data["deck"], "proof": data["proof"], "step": step}
    run.emit(record(command, recorded, current.round_id))
    if step < len(current.seats):
        _ask_step(run, current.seats[step])
    else:
        _deal(run, secret)
    return run.decision()


def shuffle_timeout(state: State, command: Command, secret: bytes | None) -> Decision[State]:
    """The seat asked for its step did not send it in time: the round is void (15.13.5.4)."""
    request = _timed_out(state, command, SHUFFLE_DUE)
    run = Run(state, command)
    seat = request.seats[0]
    run.emit(record(command, {"seat": seat, "deadline": request.deadline}, run.round().round_id))
    void = {"reason": "shuffle_withheld", "seats": [seat]}
    run.emit(Draft(ROUND_VOIDED, SERVER, void, run.round().round_id))
    run.emit(dealing.revealed_draft(run.round(), secret))
    return run.decision()


def _ask_step(run: Run, seat: int) -> None:
    deadline = run.time + run.state.options.seed_time_ms
    data = {"seat": seat, "deadline": deadline}
    run.emit(Draft(SHUFFLE_DUE, SERVER, data, run.round().round_id))


# Dealing and shares (SPEC 15.13.6)


def _deal(run: Run, secret: bytes | None) -> None:
    """The dealer chosen by the shuffle key, then four cards, then the shares they need."""
    current = run.round()
    seats = current.seats
    dealer = seats[randomness.choose(deck_of(run.state, secret).key, DEALER_PURPOSE, len(seats))]
    player = next(seat for seat in seats if seat != dealer)
    data = {"dealer": dealer, "player": player}
    run.emit(Draft("dealer_chosen", SERVER, data, current.round_id))
    for seat, face in ((player, DOWN), (dealer, UP), (player, DOWN), (dealer, DOWN)):
        deal_card(run, secret, seat, face)
    ask_shares(run, [0, 1, 2, 3])


def deal_card(run: Run, secret: bytes | None, seat: int, face: str) -> int:
    """``card_dealt`` of the next position: its ciphertext and, unless face blind, the
    service's share (SPEC 15.13.6.1)."""
    crypto, round_id = _crypto(run.state), run.round().round_id
    position = run.hand().dealt()
    if position >= len(crypto.deck()):
        raise IllegalActionError("the deck is exhausted")
    share = None
    if face != BLIND:
        if secret is None:
            raise IllegalActionError("a card is dealt with the service's share: the seed is needed")
        share = cipher.server_share(crypto, secret, run.table, round_id, position)
    data = {
        "position": position,
        "seat": seat,
        "face": face,
        "ciphertext": dict(crypto.deck()[position]),
        "server_share": share,
    }
    run.emit(Draft(CARD_DEALT, SERVER, data, round_id))
    return position


def ask_shares(run: Run, positions: Sequence[int]) -> None:
    """``shares_due``: each seat's shares of the cards just dealt, face up (every seat) or
    face down to another seat (SPEC 15.13.6.2)."""
    hand, current = run.hand(), run.round()
    held = {card.position: card for card in hand.held}
    requests = []
    for seat in current.seats:
        owed = [
            p for p in positions
            if held[p].face == UP or (held[p].face == DOWN and held[p].seat != seat)
        ]  # fmt: skip
        if owed:
            requests.append({"seat": seat, "positions": owed})
    data = {"deadline": run.time + run.state.options.seed_time_ms, "requests": requests}
    run.emit(Draft(SHARES_DUE, SERVER, data, current.round_id))


def shares(state: State, command: Command, secret: bytes | None) -> Decision[State]:
    """A seat's ``decryption_shares``; the last answer opens the face-up cards and gives the
    move to the seat whose turn it is."""
    current, seat, crypto, request = _answer(state, command, SHARES_DUE, "shares")
    positions = request.positions[seat]
    entries = cipher.check_shares(
        crypto, seat, positions, command.data["shares"], where=(command.table, current.round_id)
    )
    run = Run(state, command)
    run.emit(record(command, {"shares": entries}, current.round_id))
    after = _crypto(run.state)
    if after.request is None:
        held = {card.position: card for card in run.hand().held}
        asked = sorted({p for owed in request.positions.values() for p in owed})
        for position in (p for p in asked if held[p].face == UP):
            card = cipher.opened_card(after, position)
            data = {"position": position, "card": card}
            run.emit(Draft(CARD_OPENED, SERVER, data, current.round_id))
        assert after.then is not None
        deadline = run.time + run.state.options.move_time_ms
        run.emit(move_due(current.round_id, after.then, deadline))
    return run.decision()


def shares_timeout(state: State, command: Command, secret: bytes | None) -> Decision[State]:
    """A share not sent in time: its seat loses the round (SPEC 15.13.7.5)."""
    return _withheld(state, command, SHARES_DUE, "shares_withheld", secret)


# Play (SPEC 15.13.7.1, 15.13.7.2)


def draw(state: State, command: Command, secret: bytes | None, face: str) -> Decision[State]:
    """A hit (face down: the other seat's share is asked) or the blind card (no share). The
    draw limit is not applied here: the service cannot see the total (15.13.7.2)."""
    hand = state.hand
    assert hand is not None and hand.turn is not None  # play._on_turn checked
    run = Run(state, command)
    run.emit(record(command, {}, run.round().round_id))
    position = deal_card(run, secret, hand.turn, face)
    if face == DOWN:
        ask_shares(run, [position])
    else:
        deadline = run.time + state.options.move_time_ms
        run.emit(move_due(run.round().round_id, hand.turn, deadline))
    return run.decision()


def golden_point(state: State, command: Command, secret: bytes | None) -> Decision[State]:
    """The player claims two aces on its first move: the showdown comes at once."""
    crypto = _crypto(state)
    current = current_round(state, command)
    seat, hand = acting_seat(command), state.hand
    if hand is None or hand.turn != seat:
        raise OutOfTurnError(f"{command.actor} is not the seat to move")
    if seat != hand.player:
        raise OutOfTurnError("only the round's player claims the golden point")
    if any(drawer == seat for drawer, _ in crypto.draws):
        raise IllegalActionError("the golden point is claimed on the first move only")
    in_time(hand.move_deadline, command.time, "move")
    run = Run(state, command)
    run.emit(record(command, {}, current.round_id))
    ask_keys(run)
    return run.decision()


# The showdown: every seat's round key (SPEC 15.13.7.3)


def ask_keys(run: Run) -> None:
    current = run.round()
    data = {"deadline": run.time + run.state.options.seed_time_ms, "seats": list(current.seats)}
    run.emit(Draft(KEYS_DUE, SERVER, data, current.round_id))


def round_key(state: State, command: Command, secret: bytes | None) -> Decision[State]:
    """A seat's private round key; the last one opens every card and ends the round."""
    current, seat, crypto, _ = _answer(state, command, KEYS_DUE, "secret")
    cipher.check_secret(crypto, seat, command.data["secret"])
    run = Run(state, command)
    run.emit(record(command, {"secret": command.data["secret"]}, current.round_id))
    if _crypto(run.state).request is None:
        blind_ending.showdown(run, secret)
    return run.decision()


def keys_timeout(state: State, command: Command, secret: bytes | None) -> Decision[State]:
    """A key not revealed in time: its seat loses the round (SPEC 15.13.7.5)."""
    return _withheld(state, command, KEYS_DUE, "key_withheld", secret)


# Shared checks


def _crypto(state: State) -> Crypto:
    if state.crypto is None:
        raise IllegalActionError("only a dealer-blind table's round has this step")
    return state.crypto


def _answer(
    state: State, command: Command, kind: str, member: str
) -> tuple[RoundState, int, Crypto, Request]:
    """A seat's answer to the pending ``kind``, in time, its data exactly ``member``: the
    round, the seat, the round's cryptography and the request (SPEC 15.13.6.3, 15.13.7.3)."""
    current = current_round(state, command)
    seat, crypto = acting_seat(command), _crypto(state)
    request = _asked(crypto, kind, seat, command)
    in_time(request.deadline, command.time, "answer")
    if set(command.data) != {member}:
        raise IllegalActionError(f"{command.type} carries exactly {member}")
    return current, seat, crypto, request


def _asked(crypto: Crypto, kind: str, seat: int, command: Command) -> Request:
    """The pending request of ``kind`` that ``seat`` still owes an answer to."""
    request = crypto.request
    if request is None or request.kind != kind or seat not in request.seats:
        raise OutOfTurnError(f"no {kind} asks {command.actor} for {command.type} now")
    return request


def _timed_out(state: State, command: Command, kind: str) -> Request:
    require_server(command)
    current_round(state, command)
    request = _crypto(state).request
    if request is None or request.kind != kind:
        raise IllegalActionError(f"no {kind} is pending")
    timing.check_due(state, command)
    return request


def _withheld(
    state: State, command: Command, kind: str, reason: str, secret: bytes | None
) -> Decision[State]:
    request = _timed_out(state, command, kind)
    run = Run(state, command)
    seats = list(request.seats)
    run.emit(record(command, {"deadline": request.deadline, "seats": seats}, run.round().round_id))
    blind_ending.forfeit(run, seats, reason, secret)
    return run.decision()
