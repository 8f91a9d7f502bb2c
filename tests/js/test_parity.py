"""The browser's verifier (api/static/web/js/fairdeal) against the Python one, on the same
files: clean bundles of every game, version and seat kind (long tables too: a Toto21 match
won on points and one ended by the game clock, Kvitlach terms that end, seats that leave),
the tamper corpus built through the real code, and named operator forgeries of the
settlements and of the rest of a run (a move_due's deadline). Every case gives the same
verdict and the same set of codes in both: there is no code the module leaves to Python."""

import copy
import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from fairdeal.verifier import Report, load_trust, verify_bundle
from tests.verifier import corpus, helpers, signed

HERE = Path(__file__).parent
NODE = shutil.which("node")
pytestmark = [
    pytest.mark.skipif(NODE is None, reason="node is not installed: no JS to run"),
    # one xdist worker runs all of it: its module fixture checks every case once, not per worker
    pytest.mark.xdist_group(__name__),
]
Bundle = dict[str, Any]


def _payout_conserved(events: list[dict[str, Any]]) -> None:
    """A settlement pays one unit more to its receiver, and its balances say so: money is
    conserved, only the game's showdown can tell."""
    for signed_event in reversed(events):
        data = signed_event["data"]
        if data.get("transfers") and "balances" in data and signed_event["round"]:
            transfer = data["transfers"][0]
            transfer["amount"] += 1
            data["balances"][transfer["from"]] -= 1
            data["balances"][transfer["to"]] += 1
            return
    raise AssertionError("no settlement to alter")


def _long_tables() -> list[helpers.TableDriver]:
    """Tables that reach what short ones do not: a Toto21 match won at its target, one
    ended by the game clock voiding an unsealed round, Kvitlach terms over many rounds
    (both rule sets), and seats that leave, the banker left alone (no_players)."""
    won = helpers.TableDriver("toto21", "t21m", {"stake": 7, "target": 10})
    for seat, type_ in ((0, "seat_joined"), (1, "seat_joined"), (0, "joiner_accepted")):
        won.seat(seat, type_)
    while not any(s.event.type == "match_won" for s in won.log):
        won.play_round()
    options = {"stake": 3, "target": 10, "game_time_ms": 60_000}
    clock = helpers.TableDriver("toto21", "t21c", options)
    for seat, type_ in ((0, "seat_joined"), (1, "seat_joined"), (0, "joiner_accepted")):
        clock.seat(seat, type_)
    clock.now += 59_000  # the round opens a second before the game's end, its seeds later
    clock.open_round()
    clock.now += 10_000
    due = clock.game.due(clock.table.state, clock.now)
    clock.do(due.type, due.actor, dict(due.data), due.round)
    long = helpers.kvitlach_table("kvl", rounds=12, max_bet=50)
    presslong = helpers.kvitlach_table("kpl", rounds=9, rule_set="pressburg", ante=0)
    leaving = helpers.kvitlach_table("kvs", rounds=2)
    leaving.seat(2, "seat_left")
    leaving.seat(1, "seat_left")  # the banker alone: term_ended, no_players
    leaving.seat(1, "seat_joined", {"buy_in": 500})
    leaving.play_round()
    return [won, clock, long, presslong, leaving]


def _move_deadline(events: list[dict[str, Any]]) -> None:
    events[corpus.index_of(events, "move_due", 0)]["data"]["deadline"] += 1


def _score_to_the_other_seat(events: list[dict[str, Any]]) -> None:
    """A round's points credited to the seat that lost it, the score re-stated to match."""
    won = next(e for e in events if e["type"] == "round_won")
    loser = 1 - won["data"]["seat"]
    won["data"]["seat"] = loser
    score = won["data"]["score"]
    score[loser] += won["data"]["points"]
    score[1 - loser] -= won["data"]["points"]


def _bust_paid_as_a_win(events: list[dict[str, Any]]) -> None:
    """A hand that went over 21 logged as won, paid by the bank, its balances re-stated."""
    lost = next(e for e in events if e["type"] == "hand_lost" and e["data"]["bet"])
    seat, bet = lost["data"]["seat"], lost["data"]["bet"]
    lost["type"] = "hand_won"
    lost["data"]["reason"] = "21"
    lost["data"]["transfers"] = [{"from": "bank", "to": f"seat:{seat}", "amount": bet}]
    lost["data"]["balances"][f"seat:{seat}"] += 2 * bet
    lost["data"]["balances"]["bank"] -= 2 * bet


def _settled_payout_conserved(events: list[dict[str, Any]]) -> None:
    """The showdown pays a winner one unit more, the bank one less: money conserved."""
    settled = next(e for e in events if e["type"] == "round_settled" and e["data"]["transfers"])
    transfer = settled["data"]["transfers"][0]
    transfer["amount"] += 1
    settled["data"]["balances"][transfer["from"]] -= 1
    settled["data"]["balances"][transfer["to"]] += 1


def _banker_total(total: int) -> Callable[[list[dict[str, Any]]], None]:
    def change(events: list[dict[str, Any]]) -> None:
        next(e for e in events if e["type"] == "round_settled")["data"]["banker_total"] = total

    return change


def _framed_banker(log: helpers.Log) -> Bundle:
    """The bundle (from its table_state) of a round the banker won on a framed pair, 2 + 11."""
    for index, (_, round_id, _) in enumerate(log.entries):
        bundle = log.bundle(index, bounded=True)
        events = [e["event"] for e in bundle["events"]]
        shown = [e for e in events if e["type"] == "cards_shown" and e["round"] == round_id]
        if shown and sorted(c["card"] for c in shown[0]["data"]["cards"]) == ["11", "2"]:
            return bundle
    raise AssertionError("no round of the long tables has a banker's framed pair")


SHOWDOWN_ATTACKS = {
    "a payout changed at the showdown, balances re-stated (conserved)": _settled_payout_conserved,
    "a toto21 round's points moved to the seat that lost it": _score_to_the_other_seat,
    "a kvitlach hand that busts paid as a win": _bust_paid_as_a_win,
}


def _first_bundle(log: helpers.Log, name: str) -> Bundle:
    """The first bundle from seq 0 that the attack named ``name`` can alter."""
    for index in range(len(log.entries)):
        bundle = log.bundle(index)
        try:
            SHOWDOWN_ATTACKS[name](copy.deepcopy([e["event"] for e in bundle["events"]]))
        except (StopIteration, KeyError):
            continue
        return bundle
    raise AssertionError(f"no bundle for {name}")


def _cases(tmp: Path) -> dict[str, tuple[Path, str]]:
    """name: (file, what it must be: "valid", "invalid" or "same")."""
    cases: dict[str, tuple[Bundle, str]] = {}
    toto21 = helpers.toto21_table("t21", rounds=3)
    kvitlach = helpers.kvitlach_table("kv", rounds=3)
    pressburg = helpers.kvitlach_table("kp", rounds=2, rule_set="pressburg")
    timeout = helpers.TableDriver("kvitlach", "kvt", {})
    for seat in range(3):
        timeout.seat(seat, "seat_joined", {"buy_in": 1_000})
    timeout.play_round(seeds=["a", "b", None])
    log = helpers.Log().add_all(toto21, kvitlach, pressburg, timeout, *_long_tables())
    v2 = helpers.Log().add_all(
        signed.toto21_table("v2t21"),
        signed.kvitlach_table("v2kv"),
        signed.kvitlach_table("v2kp", silent=1, rule_set="pressburg"),
    )
    for name, which in (("v1", log), ("v2", v2)):
        for i, (_, round_id, _) in enumerate(which.entries):
            cases[f"clean {name} {round_id} from seq 0"] = (which.bundle(i), "valid")
            cases[f"clean {name} {round_id} from its table_state"] = (
                which.bundle(i, bounded=True),
                "valid",
            )
    fixture = corpus.Fixture(
        toto21=log.bundle(log.entries.index(next(e for e in log.entries if e[1] == "t21.2"))),
        kvitlach=log.bundle(log.entries.index(next(e for e in log.entries if e[1] == "kv.2"))),
        timeout=log.bundle(log.entries.index(next(e for e in log.entries if e[1] == "kvt.1"))),
    )
    for name, (which_fixture, attack, _) in corpus.NAMED.items():
        cases[f"tampered: {name}"] = (attack(corpus.fixture_of(fixture, which_fixture)), "same")
    for game in ("toto21", "kvitlach"):
        bundle = corpus.fixture_of(fixture, game)
        for type_, index in corpus.first_of_each_type(bundle).items():
            for field in corpus.FIELD_CODES:
                attacked = corpus.field_attack(bundle, index, field)
                cases[f"tampered: {game} {type_} {field}"] = (attacked, "same")
    altered = corpus.operator(fixture.kvitlach, _payout_conserved)  # Toto21 pays at match end
    cases["a kvitlach payout changed, money conserved"] = (altered, "invalid")
    for name, change in SHOWDOWN_ATTACKS.items():
        cases[name] = (corpus.operator(_first_bundle(log, name), change), "invalid")
    deadline = corpus.operator(fixture.toto21, _move_deadline)
    cases["a move deadline re-stated"] = (deadline, "invalid")
    # SPEC 7.19: a framed pair's own total (2 + 11), as earlier services logged it, and no other.
    framed = _framed_banker(log)
    cases["a banker's framed pair logged at 13"] = (
        corpus.operator(framed, _banker_total(13)),
        "valid",
    )
    cases["a banker's framed pair logged at 14"] = (
        corpus.operator(framed, _banker_total(14)),
        "invalid",
    )
    return _files(tmp, cases)


def _files(tmp: Path, cases: dict[str, tuple[Any, str]]) -> dict[str, tuple[Path, str]]:
    """Each case's bundle in a file of its own: name -> (its path, the verdict expected)."""
    files = {}
    for n, (name, (bundle, expected)) in enumerate(cases.items()):
        path = tmp / f"{n:04d}.json"
        path.write_text(json.dumps(bundle))
        files[name] = (path, expected)
    return files


def _verdicts(
    tmp: Path, cases: Callable[[Path], dict[str, tuple[Path, str]]], timeout: int
) -> dict[str, tuple[str, dict[str, Any], Report]]:
    """Each case's expected verdict, the browser module's report (verify_cli.mjs, one Node
    process for all) and Python's, the same file given to both."""
    key = tmp / "operator.pem"
    key.write_text(helpers.PEM)
    files = cases(tmp)
    run = subprocess.run(
        [str(NODE), str(HERE / "verify_cli.mjs"), str(key), *(str(p) for p, _ in files.values())],
        capture_output=True,
        text=True,
        check=True,
        timeout=timeout,
    )
    by_file = {r["file"]: r for r in map(json.loads, run.stdout.splitlines())}
    trust = load_trust([helpers.VERIFIER_KEY])
    return {
        name: (expected, by_file[str(path)], verify_bundle(json.loads(path.read_text()), trust))
        for name, (path, expected) in files.items()
    }


@pytest.fixture(scope="module")
def verdicts(
    tmp_path_factory: pytest.TempPathFactory,
) -> dict[str, tuple[str, dict[str, Any], Report]]:
    return _verdicts(tmp_path_factory.mktemp("parity"), _cases, 600)


def test_clean_bundles_of_every_game_and_version_are_valid_in_both(verdicts: Any) -> None:
    clean = {n: v for n, v in verdicts.items() if v[0] == "valid"}
    assert len(clean) >= 20
    for name, (_, js, python) in clean.items():
        assert (js["verdict"], python.verdict) == ("valid", "valid"), (name, js, python.codes())


def test_every_case_gives_the_same_verdict_and_codes_in_both(verdicts: Any) -> None:
    for name, (_, js, python) in verdicts.items():
        assert (js["verdict"], set(js["codes"])) == (python.verdict, python.codes()), name


def test_the_tamper_corpus_is_never_valid(verdicts: Any) -> None:
    tampered = [v for v in verdicts.values() if v[0] == "same"]
    assert len(tampered) >= 50
    for _, js, python in tampered:
        assert python.verdict != "valid" and js["verdict"] != "valid"


def test_a_run_the_rules_do_not_give_is_invalid_in_both(verdicts: Any) -> None:
    named = {n: v for n, v in verdicts.items() if v[0] == "invalid"}
    assert len(named) == 3 + len(SHOWDOWN_ATTACKS)
    for name, (_, js, python) in named.items():
        assert python.verdict == "invalid", name
        assert "rules.mismatch" in python.codes(), (name, python.codes())
        assert (js["verdict"], "rules.mismatch" in js["codes"]) == ("invalid", True), (name, js)


def test_the_long_tables_reach_every_settlement(verdicts: Any, tmp_path: Path) -> None:
    """The clean cases hold every settlement event the showdown recomputes."""
    types = set()
    for driver in _long_tables():
        types |= {s.event.type for s in driver.log}
    wanted = {"match_won", "match_drawn", "round_double_bust", "round_voided", "term_ended"}
    wanted |= {"hand_won", "hand_lost", "round_settled", "bank_funded", "card_burned"}
    assert wanted - types == set()


# --- version 3: dealer-blind Toto21 (SPEC 15.13) ------------------------------------------------


def _blind_match() -> Any:
    from tests.blind_table import BlindTable

    match = BlindTable("blind-p", {"target": 2})
    while match.state.phase == "playing":
        match.play_round()
    return match


def _last_of(events: list[dict[str, Any]], type_: str, **data: Any) -> dict[str, Any]:
    """The last event of this type whose data (a seat's command data too) have these values."""
    for event in reversed(events):
        told = {**event["data"], **(event["data"].get("signed") or {}).get("data", {})}
        if event["type"] == type_ and all(told.get(k) == v for k, v in data.items()):
            return event
    raise AssertionError(f"no {type_} {data}")


def _up_card_opened_as_another(events: list[dict[str, Any]]) -> None:
    opened = _last_of(events, "card_opened")["data"]
    opened["card"] = "AS" if opened["card"] != "AS" else "KS"


def _services_step_swapped(events: list[dict[str, Any]]) -> None:
    deck = _last_of(events, "deck_shuffled", step=0)["data"]["deck"]
    deck[0], deck[1] = deck[1], deck[0]


def _ciphertext_of_another_position(events: list[dict[str, Any]]) -> None:
    first = _last_of(events, "card_dealt", position=0)["data"]
    first["ciphertext"] = _last_of(events, "card_dealt", position=1)["data"]["ciphertext"]


def _no_server_share(events: list[dict[str, Any]]) -> None:
    _last_of(events, "card_dealt", position=0)["data"]["server_share"] = None


def _server_share_proof_changed(events: list[dict[str, Any]]) -> None:
    proof = _last_of(events, "card_dealt", position=2)["data"]["server_share"]["proof"]
    proof["c"], proof["s"] = proof["s"], proof["c"]


def _shown_as_another(events: list[dict[str, Any]]) -> None:
    shown = next(
        c for e in reversed(events) if e["type"] == "cards_shown" for c in e["data"]["cards"]
    )
    shown["card"] = "AS" if shown["card"] != "AS" else "KS"


def _server_key_of_another_seed(events: list[dict[str, Any]]) -> None:
    opened = _last_of(events, "round_opened")["data"]
    key = _last_of(events, "seed_commitment")["data"]["signed"]["data"]["round_key"]
    opened["server_key"] = copy.deepcopy(key)


def _no_server_key(events: list[dict[str, Any]]) -> None:
    del _last_of(events, "round_opened")["data"]["server_key"]


def _a_revealed_key_changed(events: list[dict[str, Any]]) -> None:
    secret = _last_of(events, "round_key")["data"]["signed"]["data"]
    secret["secret"] = "01" + secret["secret"][2:]


def _blind_move_deadline(events: list[dict[str, Any]]) -> None:
    _last_of(events, "move_due")["data"]["deadline"] += 1


def _as_version_3(events: list[dict[str, Any]]) -> None:
    """A table that does not deal blind, every event stamped version 3: the rules, which deal
    a committed deck to it, must refuse it (no deck is opened in it as version 3 opens one)."""
    for event in events:
        event["version"] = 3


BLIND_ATTACKS = {
    "the up-card opened as another card": _up_card_opened_as_another,
    "the service's step with two ciphertexts swapped": _services_step_swapped,
    "a card dealt with another position's ciphertext": _ciphertext_of_another_position,
    "a card dealt without the service's share": _no_server_share,
    "the service's share with its proof changed": _server_share_proof_changed,
    "a shown card that is not its decryption": _shown_as_another,
    "the service's round key a seat's": _server_key_of_another_seed,
    "a round_opened without its server key": _no_server_key,
    "a seat's revealed round key changed": _a_revealed_key_changed,
    "a move deadline re-stated": _blind_move_deadline,
}


def _blind_cases(tmp: Path) -> dict[str, tuple[Path, str]]:
    """name: (file, "valid" or "same"): a blind match's bundles, each round from seq 0 and
    from its table_state, and the operator's lies about its first round, re-signed."""
    match = _blind_match()
    log = helpers.Log()
    for round_id in [s.event.round for s in match.log if s.event.type == "round_revealed"]:
        log.add(match, str(round_id))
    cases: dict[str, tuple[Bundle, str]] = {}
    for i, (_, round_id, _) in enumerate(log.entries):
        cases[f"clean v3 {round_id} from seq 0"] = (log.bundle(i), "valid")
        cases[f"clean v3 {round_id} from its table_state"] = (log.bundle(i, bounded=True), "valid")
    first = log.bundle(0)
    for name, attack in BLIND_ATTACKS.items():
        cases[f"v3 tampered: {name}"] = (corpus.operator(first, attack), "same")
    for game, driver in (
        ("toto21", helpers.toto21_table("v3t21", rounds=1)),
        ("kvitlach", helpers.kvitlach_table("v3kv", rounds=1)),
    ):
        plain = helpers.Log()
        plain.add(driver, driver.rounds[0])
        cases[f"v3 tampered: a committed {game} table re-signed as version 3"] = (
            corpus.operator(plain.bundle(0), _as_version_3),
            "same",
        )
    edited = corpus.outsider(
        first, lambda events: _up_card_opened_as_another([e["event"] for e in events])
    )
    cases["v3 edited without the key: the up-card"] = (edited, "same")
    return _files(tmp, cases)


@pytest.fixture(scope="module")
def blind_verdicts(
    tmp_path_factory: pytest.TempPathFactory,
) -> dict[str, tuple[str, dict[str, Any], Report]]:
    return _verdicts(tmp_path_factory.mktemp("blind-parity"), _blind_cases, 900)


def test_a_blind_match_is_valid_in_both(blind_verdicts: Any) -> None:
    clean = {n: v for n, v in blind_verdicts.items() if v[0] == "valid"}
    assert len(clean) >= 4
    for name, (_, js, python) in clean.items():
        assert (js.get("verdict"), python.verdict) == ("valid", "valid"), (name, js, python.codes())


def test_a_tampered_blind_bundle_is_never_valid_in_the_browser(blind_verdicts: Any) -> None:
    tampered = {n: v for n, v in blind_verdicts.items() if v[0] == "same"}
    assert len(tampered) == len(BLIND_ATTACKS) + 3
    for name, (_, js, python) in tampered.items():
        assert python.verdict != "valid", (name, python.codes())
        assert js.get("verdict") not in (None, "valid"), (name, js)


def test_every_blind_case_gives_the_same_verdict_and_codes_in_both(blind_verdicts: Any) -> None:
    for name, (_, js, python) in blind_verdicts.items():
        assert (js.get("verdict"), set(js.get("codes", ()))) == (python.verdict, python.codes()), (
            name,
            js.get("error", "")[-2000:],
        )


def test_a_blind_round_is_told_as_fairdeal_verify_tells_it(tmp_path: Path) -> None:
    """--explain's cards (as the round opened them), its words for the cryptographic members
    and its 'check it by hand' of a blind round, in the browser as in Python."""
    from fairdeal.verifier import explain as told_by
    from fairdeal.verifier.explain import BY_HAND_BLIND, explain

    match = _blind_match()
    log = helpers.Log()
    for round_id in [s.event.round for s in match.log if s.event.type == "round_revealed"]:
        log.add(match, str(round_id))
    key = tmp_path / "operator.pem"
    key.write_text(helpers.PEM)
    paths = []
    for i in range(len(log.entries)):
        paths.append(tmp_path / f"{i}.json")
        paths[-1].write_text(json.dumps(log.bundle(i, bounded=True)))
    run = subprocess.run(
        [str(NODE), str(HERE / "blind_verify_explain.mjs"), str(key), *map(str, paths)],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    told = {r["file"]: r for r in map(json.loads, run.stdout.splitlines())}
    words = list(told_by._CRYPTO.values())
    for path in paths:
        python = explain(json.loads(path.read_text()), as_json=True)
        js = told[str(path)]
        assert js["verdict"] == "valid"
        assert js["cards"] == python["cards"], path.name
        assert "?" not in json.dumps(js["cards"])  # every card opened: both keys revealed
        assert js["checkByHand"] == python["check_by_hand"] == BY_HAND_BLIND
        said = [w for line in python["happened"] for w in words if f"; {w}" in line]
        assert js["says"] == said and said, path.name
