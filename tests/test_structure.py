"""The arrows between the parts, read from the source's own imports: the core does no I/O and
reads no clock, knows no game outside ``fairdeal/games``, and imports neither the service nor
the verifier; the verifier imports no service, web framework or database."""

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CORE = ROOT / "fairdeal"
# What the pure core may import: computation only (no os, sys, time, io, sockets, random).
CORE_MAY_IMPORT = {
    "base64", "binascii", "collections", "cryptography", "dataclasses", "difflib", "enum",
    "fairdeal", "functools", "hashlib", "hmac", "importlib", "itertools", "json", "math",
    "operator", "re", "struct", "types", "typing",
}  # fmt: skip
SERVICE = ("api", "fairdeal.api", "flask", "flask_smorest", "marshmallow", "sqlite3", "psycopg")


def _core_modules() -> list[Path]:
    """The core's files, not the service's or verifier's (``fairdeal/api`` and
    ``fairdeal/verifier`` name those folders)."""
    found = []
    for path in sorted(CORE.rglob("*.py")):
        part = path.relative_to(CORE).parts[0]
        if part not in ("api", "verifier"):
            found.append(path)
    return found


def _imports(path: Path) -> Iterator[str]:
    """Every module ``path`` imports, absolute (the project writes no relative imports)."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{path}: a relative import"
            yield node.module or ""


def _under(name: str, *packages: str) -> bool:
    return any(name == p or name.startswith(f"{p}.") for p in packages)


def test_the_reader_sees_the_core_and_the_verifier() -> None:
    assert len(_core_modules()) > 40
    assert (ROOT / "verifier" / "cli.py").is_file()


@pytest.mark.parametrize("path", _core_modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_the_core_does_no_io_and_imports_neither_service_nor_verifier(path: Path) -> None:
    for name in _imports(path):
        assert name.split(".")[0] in CORE_MAY_IMPORT, f"{path.name} imports {name}"
        assert not _under(name, "fairdeal.api", "fairdeal.verifier"), f"{path.name}: {name}"


def test_the_core_outside_the_games_knows_no_game() -> None:
    """The table engine, statements and bundles hold games through ``fairdeal.game``'s
    interface; only the registry (``fairdeal/games``) names the games."""
    for path in _core_modules():
        if path.parent == CORE:
            names = [n for n in _imports(path) if _under(n, "fairdeal.games")]
            assert not names, f"{path.name} imports {names}"


@pytest.mark.parametrize("path", sorted((ROOT / "verifier").glob("*.py")), ids=lambda p: p.name)
def test_the_verifier_imports_no_service_framework_or_database(path: Path) -> None:
    for name in _imports(path):
        assert not _under(name, *SERVICE), f"verifier/{path.name} imports {name}"
