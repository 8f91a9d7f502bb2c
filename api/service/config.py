"""The service's configuration: one object, read from the environment once, with hard limits."""

import difflib
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from urllib.parse import urlsplit

from fairdeal.cosignature import CosignatureVerifier
from fairdeal.errors import FairdealError


class ConfigError(ValueError):
    """A configuration value that cannot be used; the message names the variable."""


@dataclass(frozen=True)
class Config:
    instance_path: Path = Path("instance")
    database_url: str = ""  # empty: a SQLite file in the instance folder
    key_file: str = ""  # empty: a development key made in the instance folder
    key_passphrase: str = ""
    retired_keys_dir: str = ""  # public keys (PEM) still listed for verification
    operator_token: str = ""  # empty: the operator endpoints are closed
    log_origin: str = "fairdeal.example/log"  # PLACEHOLDER_ORIGIN: development only
    max_request_bytes: int = 16 * 1024
    max_seats: int = 7
    max_amount: int = 10**12  # the largest number any option, buy-in or bet may carry here
    sweep_interval_s: int = 1  # 0: no background sweeper (tests call sweep themselves)
    export_page: int = 200
    log_format: str = "text"  # or "json": one object a line
    log_level: str = "info"  # the least severe lines written: debug, info, warning or error
    rate_limit: str = "30/minute"  # creating or joining a table, per client address; "0" or "": off
    # Where the rate limit's counts are kept: this process's memory, or a Redis every process
    # of the deployment shares (redis://host:port/db).
    rate_limit_storage: str = "memory://"
    metrics_token: str = ""  # empty: /metrics is public; else it needs Authorization: Bearer
    # Witnesses that cosign each new checkpoint: "URL VKEY" entries separated by commas.
    witnesses: str = ""
    witness_timeout_s: int = 5  # the longest a witness may take to answer one request

    @property
    def sqlite_default(self) -> str:
        return f"sqlite:///{self.instance_path / 'fairdeal.sqlite3'}"

    @property
    def store_url(self) -> str:
        return self.database_url or self.sqlite_default

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: object) -> "Config":
        """FAIRDEAL_<FIELD> variables (upper case) override the defaults."""
        env = os.environ if env is None else env
        values: dict[str, object] = {}
        for field in fields(cls):
            raw = env.get(f"FAIRDEAL_{field.name.upper()}")
            if raw is not None:
                values[field.name] = _parse(field.name, field.type, raw)
        values.update(overrides)
        config = cls(**values)  # type: ignore[arg-type]
        config.check()
        return config

    def check(self) -> None:
        limits = {"max_request_bytes": (256, 1 << 20), "max_seats": (2, 7)}
        for name, (low, high) in limits.items():
            if not low <= getattr(self, name) <= high:
                raise ConfigError(f"FAIRDEAL_{name.upper()} must be {low}..{high}")
        if not 1 <= self.max_amount <= 2**53 - 1:
            raise ConfigError("FAIRDEAL_MAX_AMOUNT must be 1..2**53-1")
        if self.log_format not in LOG_FORMATS:
            raise ConfigError(f"FAIRDEAL_LOG_FORMAT must be one of {', '.join(LOG_FORMATS)}")
        if self.log_level not in LOG_LEVELS:
            raise ConfigError(f"FAIRDEAL_LOG_LEVEL must be one of {', '.join(LOG_LEVELS)}")
        if not 1 <= self.witness_timeout_s <= 60:
            raise ConfigError("FAIRDEAL_WITNESS_TIMEOUT_S must be 1..60")
        witness_list(self.witnesses)
        scheme = urlsplit(self.rate_limit_storage).scheme  # the URL itself may hold a password
        if scheme not in RATE_LIMIT_STORES:
            raise ConfigError(
                f"FAIRDEAL_RATE_LIMIT_STORAGE must be memory:// or a Redis URL such as "
                f"redis://127.0.0.1:6379/0, not a {scheme or 'scheme-less'} URL"
            )
        if self.key_file and self.log_origin == PLACEHOLDER_ORIGIN:
            raise ConfigError(
                f"FAIRDEAL_LOG_ORIGIN is still the placeholder {PLACEHOLDER_ORIGIN!r}, which "
                "every deployment left at the default shares: a witness keeps one state per "
                "origin, so two such logs conflict at any witness they share. With a real "
                "signing key (FAIRDEAL_KEY_FILE), set it to this log's own name, its URL "
                "without the scheme (C2SP), e.g. FAIRDEAL_LOG_ORIGIN=play.example.com/log"
            )


@dataclass(frozen=True)
class WitnessConfig:
    """A witness the service sends its checkpoints to: where, and the key that cosigns."""

    url: str  # the submission prefix: POST <url>/add-checkpoint
    verifier: CosignatureVerifier


def witness_list(text: str) -> tuple[WitnessConfig, ...]:
    """FAIRDEAL_WITNESSES: "URL VKEY" entries separated by commas (VKEY a C2SP witness key,
    name+keyid+base64(0x04 || key)); ConfigError naming the entry that is wrong."""
    witnesses = []
    for number, entry in enumerate(filter(None, map(str.strip, text.split(","))), 1):
        parts = entry.split()
        if len(parts) != 2:
            raise ConfigError(f"FAIRDEAL_WITNESSES entry {number} is not 'URL VKEY'")
        url, vkey = parts
        scheme = urlsplit(url).scheme
        if scheme not in ("http", "https") or not urlsplit(url).hostname:
            raise ConfigError(f"FAIRDEAL_WITNESSES entry {number}: {url!r} is not an http(s) URL")
        try:
            verifier = CosignatureVerifier.from_key_string(vkey)
        except FairdealError as e:
            raise ConfigError(f"FAIRDEAL_WITNESSES entry {number}: {e}") from None
        witnesses.append(WitnessConfig(url.rstrip("/"), verifier))
    if len({w.verifier.name for w in witnesses}) != len(witnesses):
        raise ConfigError("FAIRDEAL_WITNESSES names one witness twice")
    return tuple(witnesses)


LOG_FORMATS = ("text", "json")
LOG_LEVELS = ("debug", "info", "warning", "error")  # debug: a line for each rate-limited request
RATE_LIMIT_STORES = ("memory", "redis", "rediss", "redis+unix")
PLACEHOLDER_ORIGIN = Config.log_origin
PREFIX = "FAIRDEAL_"
# prometheus-client's own variable: the folder of its multiprocess mode (http/metrics.py).
MULTIPROCESS_METRICS = "PROMETHEUS_MULTIPROC_DIR"
# Read elsewhere, not by Config: the test suite's PostgreSQL server and its long runs.
OTHER_KNOWN = frozenset({"FAIRDEAL_TEST_POSTGRES_URL", "FAIRDEAL_SLOW"})


def known_variables() -> list[str]:
    return [f"{PREFIX}{field.name.upper()}" for field in fields(Config)] + sorted(OTHER_KNOWN)


def unknown_variables(env: Mapping[str, str] | None = None) -> Iterator[str]:
    """One line for each FAIRDEAL_* variable no one reads (a typo is otherwise silently
    ignored), naming the known one it is closest to."""
    env = os.environ if env is None else env
    known = known_variables()
    for name in sorted(env):
        if name.startswith(PREFIX) and name not in known:
            yield _unknown_line(name, _closest(name, known))


def _closest(name: str, known: list[str]) -> str | None:
    """The known name most like ``name``, compared without the prefix they all share."""
    suffixes = [k.removeprefix(PREFIX) for k in known]
    close = difflib.get_close_matches(name.removeprefix(PREFIX), suffixes, n=1)
    return PREFIX + close[0] if close else None


def _unknown_line(name: str, close: str | None) -> str:
    hint = f"; did you mean {close}?" if close else ""
    return f"{name} is not a fairdeal setting and is ignored{hint}"


def _parse(name: str, kind: object, raw: str) -> object:
    if kind in (int, "int"):
        try:
            return int(raw)
        except ValueError:
            raise ConfigError(f"FAIRDEAL_{name.upper()} must be an integer") from None
    if kind in (Path, "Path"):
        return Path(raw)
    return raw
