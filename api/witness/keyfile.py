"""The witness's cosigning key: one file in the state folder, made on first start."""

from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from fairdeal.cosignature import Cosigner

from ..storage import private_files

KEY_FILE = "witness-key"
DEFAULT_NAME = "witness.example/w1"


class KeyNameError(ValueError):
    """A name asked for that is not the name of the key already made."""


def load_cosigner(state_dir: Path, name: str | None = None) -> Cosigner:
    """The witness's key in ``state_dir``, made under ``name`` (default DEFAULT_NAME) if
    there is none yet. A name given must be the key's: a witness's name is part of its key."""
    path = state_dir / KEY_FILE
    private_files.make_folder(state_dir)
    if not path.exists():
        made = Cosigner(name or DEFAULT_NAME, Ed25519PrivateKey.generate())
        private_files.write_once(path, f"{made.private_key_string()}\n".encode())
    cosigner = Cosigner.from_key_string(private_files.read_own(path).decode().removesuffix("\n"))
    if name is not None and name != cosigner.name:
        raise KeyNameError(f"the key in {path} is named {cosigner.name}, not {name}")
    return cosigner
