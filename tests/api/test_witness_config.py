"""FAIRDEAL_WITNESSES: each entry a URL and a witness's verifier key; anything else stops the
service at start with a message naming the entry, never later in a background thread."""

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from fairdeal.api.service.config import Config, ConfigError, witness_list
from fairdeal.cosignature import Cosigner
from fairdeal.note import NoteSigner

W1 = Cosigner("w1.example/witness", Ed25519PrivateKey.from_private_bytes(bytes(32))).verifier_key()
W2 = Cosigner("w2.example/witness", Ed25519PrivateKey.from_private_bytes(bytes([1] * 32)))
LOG_KEY = NoteSigner("w3.example/witness", Ed25519PrivateKey.generate()).verifier_key()


def test_entries_are_parsed_in_order_with_their_keys() -> None:
    text = f" http://127.0.0.1:8100/ {W1} ,https://w2.example/sub {W2.verifier_key()},"
    first, second = witness_list(text)
    assert (first.url, first.verifier.key_string()) == ("http://127.0.0.1:8100", W1)
    assert (second.url, second.verifier.name) == ("https://w2.example/sub", "w2.example/witness")
    assert witness_list("") == ()
    assert Config.from_env({"FAIRDEAL_WITNESSES": f"http://a {W1}"}).witnesses == f"http://a {W1}"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (f"http://a {W1} extra", "entry 1 is not 'URL VKEY'"),
        (f"{W1}", "entry 1 is not 'URL VKEY'"),
        (f"http://a {W1},ftp://b {W2.verifier_key()}", "entry 2: 'ftp://b' is not an http"),
        (f"http:// {W1}", "is not an http"),
        (f"http://a {LOG_KEY}", "entry 1: not an Ed25519 key of signature type 0x04"),
        (f"http://a {W1[:-2]}AA", "entry 1"),
        (f"http://a {W1},http://b {W1}", "names one witness twice"),
    ],
    ids=[
        "three words",
        "a key without its URL",
        "a URL that is not http",
        "a URL without a host",
        "a log's key (type 0x01) given as a witness's",
        "a key whose bytes were changed",
        "the same witness twice",
    ],
)
def test_a_bad_entry_stops_the_service_at_start_naming_it(text: str, message: str) -> None:
    with pytest.raises(ConfigError, match="FAIRDEAL_WITNESSES") as raised:
        Config.from_env({"FAIRDEAL_WITNESSES": text})
    assert message in str(raised.value)


def test_a_witness_timeout_out_of_range_is_refused() -> None:
    for value in ("0", "61"):
        with pytest.raises(ConfigError, match=r"FAIRDEAL_WITNESS_TIMEOUT_S must be 1\.\.60"):
            Config.from_env({"FAIRDEAL_WITNESS_TIMEOUT_S": value})
