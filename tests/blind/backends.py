"""The two group backends every test of tests/blind runs against: libsodium's (skipped,
saying why, where libsodium cannot be loaded) and the pure-Python one, with its refusal of
secrets lifted so that both backends make and check the same proofs."""

import pytest

from fairdeal.blind.group import Group, ristretto255
from fairdeal.blind.ristretto_pure import PureRistretto255


def _sodium() -> Group | None:
    try:
        return ristretto255("sodium")
    except OSError:
        return None


SODIUM = _sodium()
PURE = PureRistretto255(allow_secrets=True)
NO_SODIUM = "libsodium cannot be loaded (Debian: apt-get install libsodium23)"

BACKENDS = [
    pytest.param(SODIUM, id="sodium", marks=pytest.mark.skipif(SODIUM is None, reason=NO_SODIUM)),
    pytest.param(PURE, id="pure"),
]
needs_sodium = pytest.mark.skipif(SODIUM is None, reason=NO_SODIUM)


def sodium() -> Group:
    assert SODIUM is not None
    return SODIUM
