"""The log's origin names it to every witness, which keeps one state per origin: a deployment
with a real signing key that kept the placeholder origin would share it with every other such
deployment, and their logs would conflict at any witness they share. It does not start."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from fairdeal.api.service.config import PLACEHOLDER_ORIGIN, Config, ConfigError


def test_a_real_key_with_the_placeholder_origin_is_refused_saying_what_to_set(
    key_file: Path,
) -> None:
    with pytest.raises(ConfigError, match=re.escape("FAIRDEAL_LOG_ORIGIN=play.example.com/log")):
        Config.from_env({"FAIRDEAL_KEY_FILE": str(key_file)})
    with pytest.raises(ConfigError, match="placeholder"):
        Config.from_env(
            {"FAIRDEAL_KEY_FILE": str(key_file), "FAIRDEAL_LOG_ORIGIN": PLACEHOLDER_ORIGIN}
        )


def test_its_own_origin_or_the_development_key_starts(key_file: Path) -> None:
    own = {"FAIRDEAL_KEY_FILE": str(key_file), "FAIRDEAL_LOG_ORIGIN": "play.example.com/log"}
    assert Config.from_env(own).log_origin == "play.example.com/log"
    assert Config.from_env({}).log_origin == PLACEHOLDER_ORIGIN  # development: a made-up key


def test_fairdeal_serve_stops_at_start_with_the_message_and_no_traceback(
    tmp_path: Path, key_file: Path
) -> None:
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("FAIRDEAL_")},
        "FAIRDEAL_KEY_FILE": str(key_file),
        "FAIRDEAL_INSTANCE_PATH": str(tmp_path / "instance"),
    }
    run = subprocess.run(
        [sys.executable, "-m", "fairdeal.api.cli", "serve", "--port", "1"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert run.returncode == 1
    assert "fairdeal: error: FAIRDEAL_LOG_ORIGIN is still the placeholder" in run.stderr
    assert "Traceback" not in run.stderr
