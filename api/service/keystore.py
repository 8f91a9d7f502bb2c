"""The service's signing key and the published key set.

A configured key file is loaded (with its passphrase from the environment). Without
one, a development key is made in the instance folder on first start and used again
afterwards, and the service says loudly that it is a development key. A key file that
other users may read or write is refused.
"""

import logging
from dataclasses import dataclass
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from fairdeal.keys import KeySet, Signer, load_private_key, load_public_key, private_key_pem

from ..storage import private_files
from .config import Config, ConfigError

log = logging.getLogger("fairdeal")
DEV_KEY_NAME = "dev-signing-key.pem"
DEV_KEY_WARNING = (
    "\n" + "!" * 78 + "\n"
    "!!  USING A DEVELOPMENT SIGNING KEY (%s),\n"
    "!!  made on this machine for testing. Nothing it signs proves anything to anyone\n"
    "!!  else. Set FAIRDEAL_KEY_FILE (and FAIRDEAL_KEY_PASSPHRASE) for real use.\n" + "!" * 78
)


@dataclass(frozen=True)
class Keys:
    signer: Signer
    retired: tuple[Ed25519PublicKey, ...]
    development: bool

    def key_set(self) -> KeySet:
        return KeySet((self.signer.public_key, *self.retired))


def load_keys(config: Config) -> Keys:
    retired = tuple(_retired_keys(config.retired_keys_dir))
    if config.key_file:
        pem = _read_private(Path(config.key_file), "FAIRDEAL_KEY_FILE")
        passphrase = config.key_passphrase.encode() or None
        return Keys(Signer(load_private_key(pem, passphrase)), retired, development=False)
    path = config.instance_path / DEV_KEY_NAME
    if not path.exists():
        private_files.write_once(path, private_key_pem(Ed25519PrivateKey.generate()))
    log.warning(DEV_KEY_WARNING, path)
    pem = _read_private(path, "the development key")
    return Keys(Signer(load_private_key(pem)), retired, development=True)


def _read_private(path: Path, name: str) -> bytes:
    try:
        return private_files.read_own(path)
    except private_files.TooOpenError as e:
        raise ConfigError(f"{name}: {e}") from None


def _retired_keys(folder: str) -> list[Ed25519PublicKey]:
    if not folder:
        return []
    return [load_public_key(p.read_bytes()) for p in sorted(Path(folder).glob("*.pem"))]
