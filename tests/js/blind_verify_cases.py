"""Writes tests/js/blind_verify_cases.json: the synthetic dealer-blind round of
tests/verifier/blind_round.py (valid) and each named cheat of test_blind_steps.py, as the
events the verifier reads, each with the findings the Python RoundChecker gives them (code,
seq, reason, in order). blind_verify.test.mjs holds the browser's rounds.js to them;
test_blind_verify.py makes them afresh and runs that test on them, so that the Python side is
always today's. ``python -m tests.js.blind_verify_cases [PATH]`` rewrites the file.

The rounds draw fresh randomness (the seats' keys are fixed, their proofs and shuffles are not):
the file's bytes change at each run, its findings do not. Events are stored once and shared by
the cases that log them unchanged."""

import copy
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fairdeal.blind import shuffle as tw
from fairdeal.blind.group import ORDER, Group, random_scalar
from fairdeal.protocol import SERVER
from tests.blind.backends import SODIUM
from tests.verifier import blind_round as br
from tests.verifier.blind_round import BlindRound

PATH = Path(__file__).with_name("blind_verify_cases.json")
Change = Callable[[BlindRound], None]


def _group() -> Group:
    if SODIUM is None:  # the rounds are made with libsodium, as test_blind_steps makes them
        raise SystemExit("libsodium is needed to make the blind rounds")
    return SODIUM


def _stack(deck: list[Any]) -> None:
    deck[7] = deck[3]


def _swap(deck: list[Any]) -> None:
    deck[0], deck[1] = deck[1], deck[0]


def _re_encrypt(deck: list[Any]) -> None:
    group = _group()
    joint = br.joint_key(group)
    deck[:] = [tw.re_encrypt(group, joint, c, random_scalar()) for c in deck]


def _another(card: str) -> str:
    return "AS" if card != "AS" else "KS"


# --- cheats of the honest round, as test_blind_steps.py names them ---------------------------


def _proof_copied(r: BlindRound) -> None:
    r.find("deck_shuffled", step=2).command["proof"] = r.proofs[1]


def _malformed_step(r: BlindRound) -> None:
    del r.find("deck_shuffled", step=1).command["proof"]["t1"]


def _step_out_of_order(r: BlindRound) -> None:
    r.find("deck_shuffled", step=2).data["step"] = 1


def _rogue_key(r: BlindRound) -> None:
    round_key = r.find("seed_commitment", br.party(0)).command["round_key"]
    round_key["proof"] = r.events[0].data["server_key"]["proof"]


def _key_copied(r: BlindRound) -> None:
    first, second = [e for e in r.events if e.type == "seed_commitment"]
    second.command["round_key"] = first.command["round_key"]


def _identity_key(r: BlindRound) -> None:
    r.events[0].data["server_key"]["key"] = "00" * 32


def _bad_share(r: BlindRound) -> None:
    entry = r.every("decryption_shares", br.party(br.DEALER))[0].command["shares"][0]
    s = int.from_bytes(bytes.fromhex(entry["proof"]["s"]), "little")
    entry["proof"]["s"] = ((s + 1) % ORDER).to_bytes(32, "little").hex()


def _share_on_blind(r: BlindRound) -> None:
    r.find("card_dealt", position=br.BLIND_CARD).data["server_share"] = r.server_share(
        br.BLIND_CARD
    )


def _no_server_share(r: BlindRound) -> None:
    r.find("card_dealt", position=3).data["server_share"] = None


def _ciphertext_moved(r: BlindRound) -> None:
    two, three = (r.find("card_dealt", position=p) for p in (2, 3))
    two.data["ciphertext"] = three.data["ciphertext"]


def _opened_as_another(r: BlindRound) -> None:
    r.find("card_opened").data["card"] = _another(r.cards[1])


def _opened_without_a_share(r: BlindRound) -> None:
    answer = r.find("decryption_shares", br.party(br.PLAYER))
    answer.command["shares"] = answer.command["shares"][1:]


def _wrong_key_revealed(r: BlindRound) -> None:
    r.find("round_key", br.party(br.DEALER)).command["secret"] = br.scalar(
        br.seat_secret(br.PLAYER)
    )


def _shown_as_another(r: BlindRound) -> None:
    shown = r.find("cards_shown", seat=br.PLAYER).data["cards"]
    shown[0]["card"] = _another(shown[0]["card"])


def _shown_before_a_key(r: BlindRound) -> None:
    r.events.remove(r.find("round_key", br.party(br.DEALER)))


def _shown_with_a_salt(r: BlindRound) -> None:
    r.find("cards_shown", seat=br.DEALER).data["cards"][0]["salt"] = "00" * 32


def _no_server_key(r: BlindRound) -> None:
    del r.events[0].data["server_key"]


def _version_2_member(r: BlindRound) -> None:
    r.find("card_dealt", position=1).data["card"] = r.cards[1]


def _commitment_without_key(r: BlindRound) -> None:
    del r.find("seed_commitment", br.party(br.DEALER)).command["round_key"]


def _dealt_before_the_last_step(r: BlindRound) -> None:
    last = r.find("deck_shuffled", step=2)
    r.events.remove(last)
    r.events.insert(r.events.index(r.find("card_dealt", position=0)) + 1, last)


def _missed_commitment(r: BlindRound) -> None:
    r.events[2:] = [
        br.Logged("seed_timeout", SERVER, {"deadline": br.T0 + 10_000, "seats": [1]}),
        br.Logged("round_voided", SERVER, {"reason": "seed_withheld", "seats": [1]}),
        br.Logged("round_revealed", SERVER, {"server_seed": br.SERVER_SEED.hex()}),
    ]


def _missed_commitment_not_voided(r: BlindRound) -> None:
    _missed_commitment(r)
    del r.events[3]


def _plain_seed_first(r: BlindRound) -> None:
    seed = r.find("client_seed", br.party(1))
    r.events.remove(seed)
    r.events.insert(2, seed)


def _share_of_an_undealt_position(r: BlindRound) -> None:
    entry = r.every("decryption_shares", br.party(br.DEALER))[0].command["shares"][0]
    entry["position"] = 30


def _share_by_the_server(r: BlindRound) -> None:
    r.find("decryption_shares", br.party(br.PLAYER)).actor = SERVER


def _secret_not_a_scalar(r: BlindRound) -> None:
    r.find("round_key", br.party(br.PLAYER)).command["secret"] = "ff" * 32


def _dealt_past_the_end(r: BlindRound) -> None:
    r.find("card_dealt", position=br.BLIND_CARD).data["position"] = 36


CHEATS: dict[str, Change] = {
    "a proof copied from another step": _proof_copied,
    "a malformed step": _malformed_step,
    "a step out of order": _step_out_of_order,
    "a rogue key without a valid proof": _rogue_key,
    "a key equal to another party's": _key_copied,
    "the identity as a round key": _identity_key,
    "a share with a bad DLEQ proof": _bad_share,
    "a server share on a blind card": _share_on_blind,
    "a missing server share": _no_server_share,
    "a card_dealt whose ciphertext is not the deck's": _ciphertext_moved,
    "an up-card opened as another card": _opened_as_another,
    "a card opened without every share": _opened_without_a_share,
    "a revealed key that is not the seat's": _wrong_key_revealed,
    "a shown card that is not its decryption": _shown_as_another,
    "cards shown before a seat revealed its key": _shown_before_a_key,
    "a shown card with a salt": _shown_with_a_salt,
    "a round_opened without its server key": _no_server_key,
    "a card_dealt with a version-2 member": _version_2_member,
    "a seed_commitment without its round key": _commitment_without_key,
    "a card dealt before the last step": _dealt_before_the_last_step,
    "a missed commitment voids the round": _missed_commitment,
    "a missed commitment, the round not voided": _missed_commitment_not_voided,
    "a plain client seed in the commit phase": _plain_seed_first,
    "a share of a position never dealt": _share_of_an_undealt_position,
    "decryption_shares by the server": _share_by_the_server,
    "a revealed secret that is no scalar": _secret_not_a_scalar,
    "a card dealt past the deck's end": _dealt_past_the_end,
}

# Rounds built otherwise (the builder's options), not changed after
BUILT: dict[str, dict[str, Any]] = {
    "a stacked card": {"after_step": br.at_step(1, _stack)},
    "a swapped pair": {"after_step": br.at_step(2, _swap)},
    "an output re-encrypted with other randomness": {"after_step": br.at_step(1, _re_encrypt)},
    "the service's step not drawn from its shuffle key": {"shuffle_key": bytes(range(32))},
    "a server key that is not the revealed seed's": {"key_seed": bytes(32)},
}


def _case(built: BlindRound, pool: dict[str, int]) -> dict[str, Any]:
    events = br.events(built)
    findings = br.check(built)
    refs = []
    for event in events:
        text = json.dumps(_event(event))
        refs.append(pool.setdefault(text, len(pool)))
    return {
        "events": refs,
        "findings": [{"code": f.code, "seq": f.seq, "reason": f.reason} for f in findings],
    }


def _event(event: Any) -> dict[str, Any]:
    names = ("version", "table", "round", "seq", "prev", "time", "type", "actor", "data")
    return {name: getattr(event, name) for name in names}


def cases() -> dict[str, Any]:
    """{table, deck_rules, events (the pool, each event once), cases: {name: {events (indices
    into the pool), findings}}}."""
    group = _group()
    honest = br.build(group)
    pool: dict[str, int] = {}
    made = {"the valid round": _case(honest, pool)}
    for name, change in CHEATS.items():
        changed = copy.deepcopy(honest, {id(group): group})
        change(changed)
        made[name] = _case(changed, pool)
    for name, options in BUILT.items():
        made[name] = _case(br.build(group, **options), pool)
    return {
        "table": br.TABLE,
        "deck_rules": br.DECK_RULES,
        "events": [json.loads(text) for text in pool],
        "cases": made,
    }


def text() -> str:
    return json.dumps(cases(), separators=(",", ":")) + "\n"


if __name__ == "__main__":
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else PATH
    path.write_text(text())
