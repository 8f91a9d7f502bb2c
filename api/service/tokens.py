"""Bearer tokens: made from the OS CSPRNG, shown once, stored only as a tagged hash."""

import hashlib
import hmac
import secrets

from fairdeal import tags

TOKEN_BYTES = 32


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def token_hash(token: str) -> bytes:
    return hashlib.sha256(tags.TOKEN + token.encode("utf-8", "surrogatepass")).digest()


def same_secret(given: str, expected: str) -> bool:
    """Constant-time comparison of two secrets given as text."""
    return bool(expected) and hmac.compare_digest(
        given.encode("utf-8", "surrogatepass"), expected.encode("utf-8", "surrogatepass")
    )
