"""SPEC.md is enough: the protocol's core reimplemented from its text alone.

Nothing here imports fairdeal, api or verifier; only hashlib, hmac, json, base64 and
cryptography's Ed25519 (and node's, where node is on PATH, for the seats' signatures).
Each section cites the SPEC section it implements, and every vector of
tests/vectors/fairdeal-v1.json and fairdeal-v2.json (section 9) is checked against it,
as well as a chain this file tampers with itself (5.6).
"""

import base64
import copy
import hashlib
import hmac
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

VECTORS = json.loads(
    (Path(__file__).parent / "vectors" / "fairdeal-v1.json").read_text(encoding="utf-8")
)
EVENTS = VECTORS["events"]


# --- 2 Domain-separation tags: "fairdeal/v1/<name>" then one NUL byte -----------------------


def tag(name: str) -> bytes:
    return b"fairdeal/v1/" + name.encode("ascii") + b"\x00"


# --- 1.1 Canonical encoding (RFC 8785 on fairdeal's domain) ----------------------------------

MAX_INT = 2**53 - 1
SHORT_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f"}
SHORT_ESCAPES["\r"] = "\\r"


class NoEncoding(Exception):
    """A value outside the canonical domain."""


def quote(text: str) -> str:
    escaped = (SHORT_ESCAPES.get(c) or (f"\\u{ord(c):04x}" if ord(c) < 0x20 else c) for c in text)
    return '"' + "".join(escaped) + '"'


def encode(value: Any, depth: int = 0) -> str:
    if value is None or value is True or value is False:
        return {None: "null", True: "true", False: "false"}[value]
    if type(value) is int:
        if abs(value) > MAX_INT:
            raise NoEncoding("integer out of range")
        return str(value)
    if type(value) is str:
        return quote(value)
    if type(value) not in (list, dict):
        raise NoEncoding(f"{type(value).__name__} is outside the domain")
    if depth >= 32:  # at most 32 arrays and objects nested, the outermost included
        raise NoEncoding("nested too deeply")
    if type(value) is list:
        return "[" + ",".join(encode(item, depth + 1) for item in value) + "]"
    if not all(type(name) is str and name.isascii() for name in value):
        raise NoEncoding("member names are ASCII strings")
    members = (quote(name) + ":" + encode(value[name], depth + 1) for name in sorted(value))
    return "{" + ",".join(members) + "}"


def canonical(value: Any) -> bytes:
    try:
        return encode(value).encode("utf-8")
    except UnicodeEncodeError as e:  # a lone surrogate has no UTF-8 form
        raise NoEncoding("not Unicode text") from e


def nested(count: int, inner: Any) -> Any:
    for _ in range(count):
        inner = [inner]
    return inner


@pytest.mark.parametrize(
    "value",
    [1.0, 2**53, {"ü": 1}, {1: 1}, "\ud800", nested(32, []), nested(33, 1)],
    ids=["float", "big int", "non-ASCII name", "int name", "surrogate", "33 arrays", "deep"],
)
def test_values_outside_the_domain_have_no_encoding(value: Any) -> None:
    with pytest.raises(NoEncoding):
        canonical(value)


def test_canonical_form_of_the_spec_examples() -> None:
    assert canonical(nested(32, 1)) == b"[" * 32 + b"1" + b"]" * 32
    assert canonical({"b": [True, None, -MAX_INT], "a": "/\x7f"}) == (
        b'{"a":"/\x7f","b":[true,null,-9007199254740991]}'
    )
    assert canonical('a "quoted" \\ seed').hex() == "2261205c2271756f7465645c22205c5c207365656422"
    assert canonical("ünïcode ✓\n\u0007\u2028").hex() == (
        "22c3bc6ec3af636f646520e29c935c6e5c7530303037e280a822"
    )


# --- 3 Randomness and 4 decks -----------------------------------------------------------------


def commitment(server_seed: bytes) -> bytes:  # 3.1: over the 32 raw bytes
    return hashlib.sha256(tag("seed-commitment") + server_seed).digest()


def seal_input(round_id: str, commit: bytes, seeds: list[str], rules: dict[str, Any]) -> bytes:
    obj = {"client_seeds": seeds, "commitment": commit.hex(), "round": round_id, "rules": rules}
    return canonical(obj)  # 3.3


def shuffle_key(server_seed: bytes, seal: bytes) -> bytes:  # 3.3
    return hmac.digest(server_seed, tag("shuffle-key") + seal, "sha256")


def stream(key: bytes, purpose: str):  # 3.4: blocks 0, 1, 2, ... consumed in order
    counter = 0
    while True:
        message = tag("stream") + purpose.encode("ascii") + b"\x00" + counter.to_bytes(8, "big")
        yield from hmac.digest(key, message, "sha256")
        counter += 1


def uniform(source, n: int) -> int:  # 3.5: masked rejection sampling
    bits = (n - 1).bit_length()
    width, mask = (bits + 7) // 8, (1 << bits) - 1
    while True:
        value = 0
        for _ in range(width):
            value = value << 8 | next(source)
        if (value & mask) < n:
            return value & mask


def valid_client_seed(seed: str) -> bool:  # 3.2: 1 to 256 printable ASCII characters
    return 1 <= len(seed) <= 256 and all(" " <= char <= "~" for char in seed)


def canonical_deck(game: str, decks: int) -> list[str]:  # 4
    if game == "toto21" and decks == 1:
        ranks = ["6", "7", "8", "9", "10", "J", "Q", "K", "A"]
        return [rank + suit for suit in "CDHS" for rank in ranks]
    assert game == "kvitlach" and decks in (1, 2)
    return [str(n) for n in range(1, 13)] * 2 * decks


def shuffled(key: bytes, order: list[str]) -> list[str]:  # 3.6: Fisher-Yates, last index down
    deck, source = list(order), stream(key, "deck")
    for i in range(len(deck) - 1, 0, -1):
        j = uniform(source, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def card_salt(key: bytes, position: int) -> bytes:  # 3.8
    return hmac.digest(key, tag("card-salt") + position.to_bytes(8, "big"), "sha256")


def card_commitment(salt: bytes, card: str) -> bytes:  # 3.8
    return hashlib.sha256(tag("card-commitment") + salt + card.encode("ascii")).digest()


@pytest.mark.parametrize("vector", VECTORS["decks"], ids=lambda v: v["round_id"])
def test_deck_vector(vector: dict[str, Any]) -> None:
    seed = bytes.fromhex(vector["server_seed"])
    assert seed == hashlib.sha256(f"fairdeal vector {vector['round_id']}".encode()).digest()
    assert all(seed == "" or valid_client_seed(seed) for seed in vector["client_seeds"])
    commit = commitment(seed)
    assert commit.hex() == vector["commitment"]
    seal = seal_input(vector["round_id"], commit, vector["client_seeds"], vector["rules"])
    assert seal == vector["seal_input"].encode("utf-8")
    key = shuffle_key(seed, seal)
    assert key.hex() == vector["shuffle_key"]
    source = stream(key, "deck")
    assert bytes(next(source) for _ in range(64)).hex() == vector["stream_deck_first_64_bytes"]
    deck = shuffled(key, canonical_deck(vector["rules"]["game"], vector["rules"]["decks"]))
    assert deck == vector["deck"]
    assert card_salt(key, 0).hex() == vector["salt_0"]
    assert card_commitment(card_salt(key, 0), deck[0]).hex() == vector["card_commitment_0"]
    assert uniform(stream(key, "dealer"), 2) == vector["dealer_choice"]  # 3.7


@pytest.mark.parametrize("vector", VECTORS["uniform"], ids=lambda v: f"n={v['n']}")
def test_uniform_vector_reads_exactly_its_bytes(vector: dict[str, Any]) -> None:
    source = iter(vector["bytes"])
    assert uniform(source, vector["n"]) == vector["result"]
    assert next(source, None) is None  # every crafted byte read, none left over


# --- 5 Events, keys, signatures and the chain ------------------------------------------------

GENESIS = "0" * 64
SEED = bytes.fromhex(EVENTS["signing_key_seed"])
PRIVATE = Ed25519PrivateKey.from_private_bytes(SEED)


def event_hash(event: dict[str, Any]) -> bytes:  # 5.2
    return hashlib.sha256(tag("event") + canonical(event)).digest()


def key_id(public_key: bytes) -> str:  # 5.4
    return hashlib.sha256(tag("key-id") + public_key).digest()[:16].hex()


def signed(event: dict[str, Any], private: Ed25519PrivateKey = PRIVATE) -> dict[str, Any]:
    digest = event_hash(event)
    raw = private.public_key().public_bytes_raw()
    signature = private.sign(tag("event-signature") + digest)  # 5.5
    return {
        "event": event,
        "hash": digest.hex(),
        "key_id": key_id(raw),
        "signature": signature.hex(),
    }


def check_signed(item: dict[str, Any], trusted: dict[str, bytes]) -> None:  # 5.5
    if event_hash(item["event"]).hex() != item["hash"]:
        raise ValueError("hash mismatch")
    if item["key_id"] not in trusted:
        raise ValueError("unknown key")
    message = tag("event-signature") + bytes.fromhex(item["hash"])
    try:
        public = Ed25519PublicKey.from_public_bytes(trusted[item["key_id"]])
        public.verify(bytes.fromhex(item["signature"]), message)
    except InvalidSignature:
        raise ValueError("bad signature") from None


def check_chain(
    chain: list[dict[str, Any]],
    trusted: dict[str, bytes],
    start: tuple[int, str, int] | None = None,
) -> None:  # 5.6; from (seq, prev, time) for a bundle that starts at a table_state (13.1)
    seq, prev, time = start or (0, GENESIS, 0)
    table = chain[0]["event"]["table"]
    for item in chain:
        event = item["event"]
        if event["table"] != table:
            raise ValueError("wrong table")
        if event["seq"] != seq:
            raise ValueError("gap")
        if event["prev"] != prev:
            raise ValueError("fork")
        if event["time"] < time:
            raise ValueError("time went back")
        check_signed(item, trusted)
        seq, prev, time = seq + 1, item["hash"], event["time"]


PUBLIC = bytes.fromhex(EVENTS["public_key"])
TRUSTED = {key_id(PUBLIC): PUBLIC}
CHAIN = [{k: item[k] for k in ("event", "hash", "key_id", "signature")} for item in EVENTS["chain"]]


def test_key_and_key_id() -> None:
    assert hashlib.sha256(b"fairdeal vector key").digest() == SEED
    assert PRIVATE.public_key().public_bytes_raw() == PUBLIC
    assert key_id(PUBLIC) == EVENTS["key_id"]


@pytest.mark.parametrize("item", EVENTS["chain"], ids=lambda i: i["event"]["type"])
def test_event_vector(item: dict[str, Any]) -> None:
    assert canonical(item["event"]) == item["canonical"].encode("utf-8")
    assert event_hash(item["event"]).hex() == item["hash"]
    assert item["key_id"] == EVENTS["key_id"]
    check_signed(item, TRUSTED)
    # Ed25519 (RFC 8032) is deterministic: re-signing gives the very same signature.
    assert signed(item["event"])["signature"] == item["signature"]


def test_the_vector_chain_links() -> None:
    assert [item["event"]["time"] for item in CHAIN] == [1_760_000_000_000 + i for i in range(4)]
    assert valid_client_seed(CHAIN[2]["event"]["data"]["seed"])
    assert not valid_client_seed(CHAIN[3]["event"]["data"]["text"])
    check_chain(CHAIN, TRUSTED)


def _gap(chain: list[dict[str, Any]]) -> None:
    del chain[1]


def _fork(chain: list[dict[str, Any]]) -> None:  # re-signed: only the link is wrong
    chain[2] = signed({**chain[2]["event"], "prev": hashlib.sha256(b"another chain").hexdigest()})


def _changed_byte(chain: list[dict[str, Any]]) -> None:
    chain[1]["event"]["data"]["deposit"] = 11


def _time_back(chain: list[dict[str, Any]]) -> None:
    chain[3] = signed({**chain[3]["event"], "time": chain[2]["event"]["time"] - 1})


def _foreign_key(chain: list[dict[str, Any]]) -> None:
    chain[3] = signed(chain[3]["event"], Ed25519PrivateKey.from_private_bytes(bytes(32)))


def _other_table(chain: list[dict[str, Any]]) -> None:
    chain[2] = signed({**chain[2]["event"], "table": "tbl-other"})


def _bad_signature(chain: list[dict[str, Any]]) -> None:
    signature = bytearray(bytes.fromhex(chain[0]["signature"]))
    signature[0] ^= 1
    chain[0]["signature"] = signature.hex()


@pytest.mark.parametrize(
    "tamper, found",
    [
        (_gap, "gap"),
        (_fork, "fork"),
        (_changed_byte, "hash mismatch"),
        (_time_back, "time went back"),
        (_foreign_key, "unknown key"),
        (_other_table, "wrong table"),
        (_bad_signature, "bad signature"),
    ],
    ids=lambda p: p if isinstance(p, str) else p.__name__.strip("_"),
)
def test_a_tampered_chain_is_detected(tamper: Any, found: str) -> None:
    chain = copy.deepcopy(CHAIN)
    tamper(chain)
    with pytest.raises(ValueError, match=found):
        check_chain(chain, TRUSTED)


# --- 10.3 The note key of the same Ed25519 key, as 10.4 quotes it -----------------------------


def test_note_verifier_key() -> None:
    name = "fairdeal.example/log"
    note_key_id = hashlib.sha256(name.encode() + b"\n\x01" + PUBLIC).digest()[:4]
    material = base64.b64encode(b"\x01" + PUBLIC).decode()
    assert (
        f"{name}+{note_key_id.hex()}+{material}"
        == "fairdeal.example/log+e30c9444+AdXOcj832NxEfMsxqgMdexngF9kqzpqIThcu+DwQvRbz"
    )


BOUNDED = json.loads(
    (Path(__file__).parent / "vectors" / "fairdeal-bundle-2.json").read_text(encoding="utf-8")
)


def test_the_bounded_export_links_bundle_to_bundle() -> None:
    """13.1: each bundle starts at seq 0 or at a table_state right after its table's
    previous bundle, and its events chain from there; 6.6: after a table_state, a round
    id is <table>.<number>."""
    previous: dict[str, Any] | None = None
    for bundle in BOUNDED["export"]:
        assert bundle["format"] == "fairdeal-bundle/2"
        chain = bundle["events"]
        first = chain[0]["event"]
        if previous is None:
            assert (first["seq"], first["type"]) == (0, "table_created")
            check_chain(chain, TRUSTED)
        else:
            assert first["type"] == "table_state"
            assert (first["seq"], first["prev"]) == (previous["seq"] + 1, previous["hash"])
            check_chain(chain, TRUSTED, (first["seq"], first["prev"], first["time"]))
        for item in chain:
            event = item["event"]
            if event["type"] == "round_opened":
                assert event["round"] == f"{event['table']}.{event['data']['number']}"
        previous = {"seq": chain[-1]["event"]["seq"], "hash": chain[-1]["hash"]}
        assert bundle["log"]["head_hash"] == previous["hash"]


# --- Version 2 (3.9, 6.4, 6.7, 9.3): commitments to client seeds, seat keys, statements ------

V2 = json.loads(
    (Path(__file__).parent / "vectors" / "fairdeal-v2.json").read_text(encoding="utf-8")
)
V2_CHAIN = [item for bundle in V2["export"] for item in bundle["events"]]


def tag_v2(name: str) -> bytes:  # 2: the version-2 tags, "fairdeal/v2/<name>" then NUL
    return b"fairdeal/v2/" + name.encode("ascii") + b"\x00"


def client_seed_commitment(round_id: str, seat: int, seed: str) -> str:  # 3.9
    opening = canonical({"round": round_id, "seat": seat, "seed": seed})
    return hashlib.sha256(tag_v2("client-seed-commitment") + opening).hexdigest()


def statement(event: dict[str, Any]) -> bytes:  # 6.7: what the seat signed, from its event
    signed_ = event["data"]["signed"]
    body = {
        "after": signed_["after"],
        "data": signed_["data"],
        "n": signed_["n"],
        "round": event["round"],
        "seat": int(event["actor"].removeprefix("seat:")),
        "table": event["table"],
        "type": event["type"],
    }
    return tag_v2("seat-statement") + canonical(body)


def seat_signature_verifies(public_key: str, message: bytes, signature: str) -> bool:
    try:  # 1: PureEdDSA Ed25519 over the message itself, no pre-hash
        key = Ed25519PublicKey.from_public_bytes(bytes.fromhex(public_key))
        key.verify(bytes.fromhex(signature), message)
    except InvalidSignature:
        return False
    return True


def test_version_2_tags_and_seat_keys() -> None:
    assert V2["tags"] == {
        "CLIENT_SEED_COMMITMENT": tag_v2("client-seed-commitment").hex(),
        "SEAT_STATEMENT": tag_v2("seat-statement").hex(),
    }
    for item in V2["seat_keys"]:
        seed = hashlib.sha256(f"fairdeal vector seat {item['seat']}".encode()).digest()
        assert item["private_key_seed"] == seed.hex()
        private = Ed25519PrivateKey.from_private_bytes(seed)
        assert private.public_key().public_bytes_raw().hex() == item["public_key"]


def test_a_client_seed_commitment_from_the_spec() -> None:
    example = V2["client_seed_commitment"]
    opening = {"round": example["round"], "seat": example["seat"], "seed": example["seed"]}
    assert canonical(opening).decode() == example["canonical"]
    assert canonical(opening).hex() == example["canonical_hex"]
    digest = client_seed_commitment(example["round"], example["seat"], example["seed"])
    assert digest == example["commitment"]


@pytest.mark.parametrize("example", V2["statements"], ids=lambda e: e["event"]["type"])
def test_a_statement_from_the_spec(example: dict[str, Any]) -> None:
    message = statement(example["event"])
    assert message == tag_v2("seat-statement") + example["canonical"].encode()
    assert message.hex() == example["message_hex"]
    assert example["event"]["data"]["signed"]["signature"] == example["signature"]
    assert seat_signature_verifies(example["public_key"], message, example["signature"])
    seed = next(k["private_key_seed"] for k in V2["seat_keys"] if k["seat"] == example["seat"])
    private = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(seed))
    assert private.sign(message).hex() == example["signature"]  # RFC 8032 is deterministic


NODE_VERIFY = """
const crypto = require('crypto');
const cases = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const results = cases.map(({key, message, signature}) => {
  const jwk = {kty: 'OKP', crv: 'Ed25519', x: Buffer.from(key, 'hex').toString('base64url')};
  const publicKey = crypto.createPublicKey({key: jwk, format: 'jwk'});
  return crypto.verify(null, Buffer.from(message, 'hex'), publicKey, Buffer.from(signature, 'hex'));
});
process.stdout.write(JSON.stringify(results));
"""


def node_verifies(cases: list[dict[str, str]]) -> list[bool]:
    """Each case's Ed25519 signature checked by node's crypto (another implementation)."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not on PATH: the seat signatures are checked with Python only")
    run = subprocess.run(
        [node, "-e", NODE_VERIFY], input=json.dumps(cases), capture_output=True, text=True,
        check=True, timeout=60,
    )  # fmt: skip
    return list(json.loads(run.stdout))


def test_node_verifies_every_seat_signature_of_the_vector() -> None:
    """Every statement a seat signed in the version-2 chain, rebuilt from SPEC 6.7 and
    checked by node's Ed25519 under the key its seat_joined bound; and a statement
    changed by one byte fails there too."""
    keys: dict[int, str] = {}
    cases = []
    for item in V2_CHAIN:
        event = item["event"]
        if event["type"] == "seat_joined":
            keys[int(event["actor"].removeprefix("seat:"))] = event["data"]["key"]
        if "signed" in event["data"]:
            seat = int(event["actor"].removeprefix("seat:"))
            message = statement(event).hex()
            signature = event["data"]["signed"]["signature"]
            cases.append({"key": keys[seat], "message": message, "signature": signature})
    assert len(cases) >= 10
    forged = {**cases[0], "message": cases[0]["message"][:-2] + "7e"}  # "}" becomes "~"
    assert node_verifies([*cases, forged]) == [True] * len(cases) + [False]


def test_the_version_2_chain_by_the_spec() -> None:
    """6.4 and 6.7 on the vector's chain: version 2 throughout; each seat's statements
    verify under its bound key with rising n, each made after an event of this chain
    within the span 6.7 allows; each reveal opens its commitment; the
    seal's seeds are the revealed (or plain) ones in seat order; a withheld reveal voids
    its round naming exactly the seats that did not reveal, and moves no money."""
    check_chain(V2_CHAIN, TRUSTED)
    keys: dict[int, str | None] = {}
    last_n: dict[int, int] = {}
    rounds: dict[str, dict[str, Any]] = {}
    for item in V2_CHAIN:
        event, data = item["event"], item["event"]["data"]
        assert event["version"] == 2
        seat = None if event["actor"] == "server" else int(event["actor"].removeprefix("seat:"))
        if event["type"] == "seat_joined":
            keys[seat], last_n[seat] = data["key"], 0
        elif seat is not None:
            key = keys[seat]
            assert set(data["signed"]) == {"after", "data", "n", "signature"}
            assert key is not None and seat_signature_verifies(
                key, statement(event), data["signed"]["signature"]
            )
            assert data["signed"]["n"] > last_n[seat]
            last_n[seat] = data["signed"]["n"]
            assert_after_in_span(event, V2_CHAIN)
        if event["type"] == "table_state":
            assert data["seat_keys"] == [
                {"seat": s, "key": keys[s], "n": last_n[s]} for s in sorted(keys)
            ]
        if event["round"] is not None:
            current = rounds.setdefault(event["round"], {"commit": {}, "seeds": {}, "run": []})
            current["run"].append(event)
            _follow_seeds(current, event, seat)
    assert [bool(r["voided"]) for r in rounds.values()] == [False, True, False]


def assert_after_in_span(event: dict[str, Any], chain: list[dict[str, Any]]) -> None:
    """6.7: ``after`` names, by seq and hash, an event from the one before the chain's
    last table_state (or table_created, with none yet) to the event before this one; a
    reveal names its round's seeds_committed or a later event."""
    after = event["data"]["signed"]["after"]
    assert set(after) == {"seq", "hash"}
    earlier = [item for item in chain if item["event"]["seq"] < event["seq"]]
    states = [item["event"]["seq"] for item in earlier if item["event"]["type"] == "table_state"]
    start = states[-1] - 1 if states else 0
    assert start <= after["seq"] <= event["seq"] - 1
    named = next(item for item in earlier if item["event"]["seq"] == after["seq"])
    assert named["hash"] == after["hash"]
    opened = [
        item["event"]["seq"]
        for item in earlier
        if item["event"]["type"] == "seeds_committed" and item["event"]["round"] == event["round"]
    ]
    if event["type"] == "client_seed" and opened:
        assert after["seq"] >= opened[-1]


def test_a_statement_after_an_event_outside_the_span_is_caught_by_the_spec() -> None:
    """The creator's accept was made at rest, after the event just before the table_state
    the engine logged: naming the event before that one, or another hash, is refused."""
    accept = next(i["event"] for i in V2_CHAIN if i["event"]["type"] == "joiner_accepted")
    assert_after_in_span(accept, V2_CHAIN)
    after = accept["data"]["signed"]["after"]
    older = V2_CHAIN[after["seq"] - 1]
    for named in (
        {"seq": older["event"]["seq"], "hash": older["hash"]},
        {**after, "hash": "00" * 32},
    ):
        changed = copy.deepcopy(accept)
        changed["data"]["signed"]["after"] = named
        with pytest.raises(AssertionError):
            assert_after_in_span(changed, V2_CHAIN)


def _follow_seeds(current: dict[str, Any], event: dict[str, Any], seat: int | None) -> None:
    data, kind = event["data"], event["type"]
    if kind == "round_opened":
        current["seats"], current["voided"] = data["seats"], None
    elif kind == "seed_commitment":
        current["commit"][seat] = data["commitment"]
    elif kind == "client_seed" and seat in current["commit"]:
        opened = client_seed_commitment(event["round"], seat, data["seed"])
        assert opened == current["commit"][seat]
        current["seeds"][seat] = data["seed"]
    elif kind == "client_seed":
        current["seeds"][seat] = data["seed"]
    elif kind == "round_sealed":
        seeds = [current["seeds"].get(s, "") for s in current["seats"]]
        assert data == {"client_seeds": seeds}
        current["sealed"] = seeds
    elif kind == "round_voided":
        withheld = [s for s in current["seats"] if s in current["commit"]]
        withheld = [s for s in withheld if s not in current["seeds"]]
        assert data == {"reason": "seed_withheld", "seats": withheld}
        assert current["run"][-2]["type"] == "seed_timeout"
        assert current["run"][-2]["data"]["seats"] == withheld
        assert not any("transfers" in e["data"] or "balances" in e["data"]
                       for e in current["run"])  # fmt: skip
        current["voided"] = data
    elif kind == "round_revealed" and "sealed" in current:  # 3.3 to 3.6: as in version 1
        seed = bytes.fromhex(data["server_seed"])
        rules = {"decks": 1, "game": "toto21"}
        seal = seal_input(event["round"], commitment(seed), current["sealed"], rules)
        deck = shuffled(shuffle_key(seed, seal), canonical_deck("toto21", 1))
        up = [e["data"] for e in current["run"] if e["type"] == "card_dealt"]
        assert all(d["card"] == deck[d["position"]] for d in up if d["face"] == "up")
