"""The ``fairdeal`` command line, run as a real process: its version, its command list, the
help of every option, the commands a core-only install lacks, and its refusals."""

import importlib.metadata
import json
import re
import stat
import subprocess
from pathlib import Path

import pytest

from fairdeal import randomness, statements
from fairdeal.keys import load_private_key
from fairdeal.note import NoteVerifier

from .commands import run_python, run_python_unread
from .help_text import options_and_help

SEED = "7bb1c63f224af4cf8466c831ab4309375a446df8581f6e77cbb6395753f57c79"
DECK = ["deck", "--game", "toto21", "--round-id", "tbl-demo.1", "--server-seed", SEED]

# A core-only install: no Flask (nor what comes with it), as `pip install fairdeal` has.
_CORE_ONLY = """
import sys
class Blocker:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {"flask", "flask_smorest", "marshmallow", "werkzeug"}:
            raise ImportError(f"No module named {name!r}")
        return None
sys.meta_path.insert(0, Blocker())
from fairdeal.api.cli.main import main
sys.exit(main(sys.argv[1:]))
"""


def fairdeal(*args: str, core_only: bool = False) -> subprocess.CompletedProcess[str]:
    start = ["-c", _CORE_ONLY] if core_only else ["-m", "fairdeal.api.cli"]
    return run_python(*start, *args)


def test_version_is_the_installed_distribution_s() -> None:
    done = fairdeal("--version")
    assert done.returncode == 0
    assert done.stdout == f"fairdeal {importlib.metadata.version('fairdeal')}\n"


@pytest.mark.parametrize("core_only", [False, True], ids=["with the server extra", "core only"])
def test_bare_fairdeal_lists_every_command_with_a_line_each_and_exits_2(core_only: bool) -> None:
    done = fairdeal(core_only=core_only)
    assert done.returncode == 2 and done.stdout == ""
    for command in ("deck", "keygen", "vkey", "sign", "commit", "serve", "demo", "witness"):
        assert re.search(rf"^    {command} {{2,}}\S", done.stderr, re.MULTILINE), done.stderr
    assert done.stderr.endswith("fairdeal: error: name a command (fairdeal COMMAND --help)\n")
    needs = " ".join(done.stderr.split()).count("(needs the server extra: pip install")
    assert needs == (3 if core_only else 0)


@pytest.mark.parametrize(
    "command", ["deck", "keygen", "vkey", "sign", "commit", "serve", "demo", "witness"]
)
def test_every_option_of_every_subcommand_has_help_and_its_default(command: str) -> None:
    done = fairdeal(command, "--help")
    assert done.returncode == 0, done.stderr
    found = options_and_help(done.stdout)
    assert len(found) > 1, done.stdout
    for option, text in found.items():
        assert text, f"{command} {option} has no help"
        takes_value = " " in option and not option.startswith("-h")
        if takes_value:
            assert "default:" in text or "required" in text, f"{command} {option}: {text}"


def test_the_top_level_options_have_help() -> None:
    found = options_and_help(fairdeal("--help").stdout)
    assert set(found) == {"-h, --help", "--version"} and all(found.values())


@pytest.mark.parametrize("command", ["serve", "demo", "witness"])
def test_a_core_only_install_says_how_to_get_serve_demo_and_witness(command: str) -> None:
    done = fairdeal(command, "--port", "9000", core_only=True)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (
        f"fairdeal: error: {command} needs the server extra: "
        "pip install -e '.[server]' in fairdeal's clone\n"
    )
    helped = fairdeal(command, "--help", core_only=True)
    assert helped.returncode == 0
    assert "pip install -e '.[server]' in fairdeal's clone" in " ".join(helped.stdout.split())


def test_a_core_only_install_still_deals_a_deck() -> None:
    done = fairdeal(*DECK, core_only=True)
    assert done.returncode == 0 and '"deck"' in done.stdout, done.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["deck", "--game", "toto21", "--round-id", "", "--server-seed", SEED], "--round-id"),
        (["deck", "--game", "toto21", "--round-id=", "--server-seed", SEED], "--round-id"),
        (["serve", "--port", "99999"], "--port: must be 1 to 65535"),
        (["serve", "--port", "0"], "--port: must be 1 to 65535"),
        (["serve", "--port", "http"], "--port: not an integer"),
    ],
    ids=["an empty round id", "an empty round id joined", "port 99999", "port 0", "no number"],
)
def test_a_bad_argument_is_refused_in_one_line_before_anything_starts(
    args: list[str], message: str
) -> None:
    done = fairdeal(*args)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and message in done.stderr, done.stderr


def test_a_closed_pipe_ends_the_deck_quietly() -> None:
    """``fairdeal deck ... | head -1``: the reader is gone before the deck is printed."""
    status, err = run_python_unread("-m", "fairdeal.api.cli", *DECK, "--salts")
    assert status == 0
    assert err == b""


def test_a_core_only_install_makes_a_seat_key_and_signs_with_it(tmp_path: Path) -> None:
    """A curl user's signing helpers need the core alone: the key made, a stand signed (as
    the seat statement verifies under the key printed), a seed committed."""
    key_file = tmp_path / "seat.key"
    made = fairdeal("keygen", "--out", str(key_file), core_only=True)
    assert made.returncode == 0, made.stderr
    public_key = made.stdout.strip()
    assert re.fullmatch(r"[0-9a-f]{64}", public_key)
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    where = ["--table", "t0123456789abcdef", "--round", "t0123456789abcdef.1", "--seat", "1"]
    after = {"seq": 7, "hash": "ab" * 32}
    seen = ["--after-seq", "7", "--after-hash", after["hash"]]
    signed = fairdeal("sign", "--key", str(key_file), *where, *seen, "--n", "3", "--type",
                      "bet", '{"amount": 5}', core_only=True)  # fmt: skip
    assert signed.returncode == 0, signed.stderr
    body = json.loads(signed.stdout)
    assert body["type"] == "bet" and body["data"] == {"amount": 5}
    message = statements.statement(
        "t0123456789abcdef", "t0123456789abcdef.1", 1, n=3, after=after, kind="bet",
        data={"amount": 5},
    )  # fmt: skip
    assert (body["signed"]["n"], body["signed"]["after"]) == (3, after)
    assert statements.verifies(public_key, message, body["signed"]["signature"])
    committed = fairdeal("commit", "--round", "r.1", "--seat", "0", "my seed", core_only=True)
    expected = randomness.client_seed_commitment("r.1", 0, "my seed").hex()
    assert (committed.returncode, committed.stdout) == (0, expected + "\n")


SIGN_AT = ["--table", "t", "--seat", "0", "--after-seq", "0", "--after-hash", "ab" * 32]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["keygen", "--out", "{taken}"], "a key file is never overwritten"),
        (["sign", "--key", "{missing}", *SIGN_AT, "--n", "1", "--type", "stand"], "--key"),
        (["sign", "--key", "{taken}", *SIGN_AT, "--n", "0", "--type", "stand"],
         "--n: must be 1 to"),
        (["sign", "--key", "{taken}", *SIGN_AT, "--n", "1", "--type", "stand", "[1]"],
         "not a JSON object"),
        (["sign", "--key", "{taken}", "--table", "t", "--seat", "0", "--n", "1", "--type",
          "stand"], "--after-seq, --after-hash"),
        (["sign", "--key", "{taken}", *SIGN_AT[:-1], "AB" * 32, "--n", "1", "--type",
          "stand"], "--after-hash: not 64 lowercase hex"),
        (["commit", "--round", "r.1", "--seat", "0", "caf\u00e9"], "SEED"),
    ],
    ids=["a key file already there", "no key file", "n of 0", "data not an object",
         "no head named", "a head hash in capitals", "a seed not printable ASCII"],
)  # fmt: skip
def test_a_bad_signing_argument_is_refused_in_one_line(
    tmp_path: Path, args: list[str], message: str
) -> None:
    taken = tmp_path / "taken.key"
    assert fairdeal("keygen", "--out", str(taken)).returncode == 0
    paths = {"taken": str(taken), "missing": str(tmp_path / "missing.key")}
    done = fairdeal(*(arg.format(**paths) for arg in args))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and message in done.stderr, done.stderr


def test_the_operators_key_gives_the_logs_verifier_key(
    tmp_path: Path,
) -> None:
    """keygen makes the operator's key too; vkey prints the log's C2SP verifier key
    (docs/operators.md's key rotation runs it against a witness and fairdeal-verify)."""
    key_file = tmp_path / "operator.key"
    assert fairdeal("keygen", "--out", str(key_file), core_only=True).returncode == 0
    done = fairdeal("vkey", "--key", str(key_file), "--origin", "play.example/log")
    assert done.returncode == 0, done.stderr
    key = load_private_key(key_file.read_bytes())
    assert done.stdout == NoteVerifier("play.example/log", key.public_key()).key_string() + "\n"
    assert done.stdout.startswith("play.example/log+")
    wrong = fairdeal("vkey", "--key", str(key_file), "--origin", "two words")
    assert wrong.returncode == 2 and "bad key name 'two words'" in wrong.stderr
