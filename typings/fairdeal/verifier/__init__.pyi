# mypy checks verifier/ as the package verifier (pyproject.toml, [tool.mypy]); installed, it is
# fairdeal.verifier. This stub is how the SDK's import of it reads to mypy: the verifier's public
# names (its __all__), the same objects.
from verifier import *  # noqa: F403
from verifier import __all__ as __all__
