"""The arrows between the parts, read from the source's own imports: the core does no I/O and
reads no clock, knows no game outside ``fairdeal/games``, and imports neither the service nor
the verifier; the verifier imports no service, web framework or database; the parts of ``api/``
stand on one another in one direction (the command lines on the HTTP layer, it on the service,
the service on storage), and the SDK on the core and the verifier alone; and no module of the
service or the verifier imports itself through others (no import loop). Imports are read as the
installed names: ``api/`` is ``fairdeal.api`` and ``verifier/`` is ``fairdeal.verifier``
(pyproject.toml), each importing within itself relatively."""

import ast
import sys
from collections.abc import Iterator, Mapping
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
# fairdeal/blind alone may also import these (issue 30), neither of which reads a file or the
# network: ctypes, to load libsodium (a shared library) for group arithmetic; secrets, for the
# fresh keys and nonces its proofs need, which no caller may be trusted to supply.
BLIND_MAY_IMPORT = {"ctypes", "secrets"}
SERVICE = ("api", "fairdeal.api", "flask", "flask_smorest", "marshmallow", "sqlite3", "psycopg")
# pyproject.toml's package-dir: each folder and the package it is installed as
INSTALLED_AS = {"fairdeal": "fairdeal", "api": "fairdeal.api", "verifier": "fairdeal.verifier"}
# The folders of api/ (each a package), and what each imports nothing of: the arrows run from
# the command lines to the HTTP layer, to the service, to storage; the pages, the SDK and the
# witness stand apart.
PARTS = ("cli", "client", "http", "service", "storage", "web", "witness")
FLASK = ("flask", "flask_smorest", "flask_limiter", "werkzeug", "marshmallow")
NEVER = {
    "storage": ("http", "service", "cli", "web", "client", "witness", *FLASK),
    "service": ("http", "cli", "web", "client", "witness", *FLASK),
    "http": ("cli", "client", "witness"),
    "web": ("http", "service", "storage", "cli", "client", "witness"),
    "witness": ("service", "cli", "web", "client"),
    "cli": (),
    "client": ("http", "service", "storage", "cli", "web", "witness", *FLASK),
}
ARROWS = [
    pytest.param("storage", id="storage imports nothing of the rest of api, nor flask"),
    pytest.param("service", id="the service imports no HTTP layer, command line, page or SDK"),
    pytest.param("http", id="the HTTP layer imports no command line, SDK or witness"),
    pytest.param("web", id="the pages import nothing of the service"),
    pytest.param("witness", id="the witness imports nothing of the service"),
    pytest.param("client", id="the SDK imports no flask and nothing of the service"),
]


def _core_modules() -> list[Path]:
    return sorted(CORE.rglob("*.py"))


def _module(path: Path) -> str:
    """The installed name of the module in ``path``."""
    folder, *parts = path.relative_to(ROOT).with_suffix("").parts
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join([INSTALLED_AS[folder], *parts])


def _package(path: Path) -> str:
    return _module(path) if path.name == "__init__.py" else _module(path).rpartition(".")[0]


def _imports(path: Path) -> Iterator[str]:
    """Every module ``path`` imports, by its absolute name: ``from . import x`` as the module
    ``x`` of this package (``_edges`` reads it as the package when ``x`` is a name in it), and
    ``from .y import z`` as ``y`` and ``y.z`` (a module, or a name in ``y``), and so too the
    absolute ``from a.b import c``. The core writes absolute imports only; ``api/`` and
    ``verifier/`` import within themselves relatively."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            module = _absolute(path, node)
            if node.module:
                yield module
            yield from (f"{module}.{alias.name}" for alias in node.names)


def _absolute(path: Path, node: ast.ImportFrom) -> str:
    """The module ``from ... import`` names, made absolute."""
    if node.level == 0:
        return node.module or ""
    assert path.relative_to(ROOT).parts[0] != "fairdeal", f"{path}: a relative import"
    base = _package(path).split(".")
    base = base[: len(base) - node.level + 1]
    return ".".join([*base, *([node.module] if node.module else [])])


def _under(name: str, *packages: str) -> bool:
    return any(name == p or name.startswith(f"{p}.") for p in packages)


def _edges(*folders: str) -> dict[str, set[str]]:
    """Each module of ``folders`` and the modules of ``folders`` it imports, anywhere in it
    (a function's import too: it is how a loop hides). Not its own packages: Python imports
    them before it whatever it writes, so that importing their names is no arrow."""
    paths = [p for folder in folders for p in sorted((ROOT / folder).rglob("*.py"))]
    modules = {_module(p): p for p in paths}
    edges: dict[str, set[str]] = {}
    for name, path in modules.items():
        found = {n if n in modules else n.rpartition(".")[0] for n in _imports(path)}
        edges[name] = {n for n in found if n in modules and not f"{name}.".startswith(f"{n}.")}
    return edges


def _loops(edges: Mapping[str, set[str]]) -> list[list[str]]:
    """The import loops: each strongly connected set of two or more modules (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(name: str) -> None:
        index[name] = low[name] = len(index)
        stack.append(name)
        for other in sorted(edges[name]):
            if other not in index:
                visit(other)
                low[name] = min(low[name], low[other])
            elif other in stack:
                low[name] = min(low[name], index[other])
        if low[name] == index[name]:
            members = []
            while (member := stack.pop()) != name:
                members.append(member)
            if members:
                found.append(sorted([name, *members]))

    for name in sorted(edges):
        if name not in index:
            visit(name)
    return found


def test_the_reader_sees_the_core_the_service_and_the_verifier() -> None:
    assert len(_core_modules()) > 20
    assert not (CORE / "api").exists() and not (CORE / "verifier").exists()
    edges = _edges("api", "verifier")
    assert "fairdeal.verifier.bundle" in edges["fairdeal.verifier.export"]
    assert "fairdeal.api.storage.private_files" in edges["fairdeal.api.storage.sqlite"]
    assert "fairdeal.api.storage.sqlite" in edges["fairdeal.api.storage"]
    assert "fairdeal.api.service.service" in edges["fairdeal.api.http.app"]
    assert "fairdeal.api.http.app" in edges["fairdeal.api.cli.server"]
    assert "fairdeal.verifier" in edges["fairdeal.api.client.client"]
    folders = {p.parent.name for p in (ROOT / "api").glob("*/__init__.py")}
    assert folders == set(PARTS) == set(NEVER), "a new folder of api/ states its arrows here"


@pytest.mark.parametrize("folder", ARROWS)
def test_each_part_of_the_service_imports_only_what_it_stands_on(folder: str) -> None:
    never = [f"fairdeal.api.{n}" if n in PARTS else n for n in NEVER[folder]]
    paths = sorted((ROOT / "api" / folder).rglob("*.py"))
    assert paths
    for path in paths:
        for name in _imports(path):
            assert not _under(name, *never), f"api/{folder}/{path.name} imports {name}"


def test_the_sdk_needs_only_the_standard_library_cryptography_the_core_and_the_verifier() -> None:
    """What the core install (no server extra) has: the SDK is installed without Flask."""
    for path in sorted((ROOT / "api" / "client").rglob("*.py")):
        for name in _imports(path):
            top = name.split(".")[0]
            assert top in sys.stdlib_module_names or top in ("cryptography", "fairdeal"), name
            assert _under(name, "fairdeal.api.client") or not _under(name, "fairdeal.api"), name


def test_finding_loops_finds_one() -> None:
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _loops(edges) == [["a", "b", "c"]]


def test_the_service_and_the_verifier_have_no_import_loop() -> None:
    assert _loops(_edges("api", "verifier")) == []


@pytest.mark.parametrize("path", _core_modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_the_core_does_no_io_and_imports_neither_service_nor_verifier(path: Path) -> None:
    may = CORE_MAY_IMPORT | (BLIND_MAY_IMPORT if path.parent.name == "blind" else set())
    for name in _imports(path):
        assert name.split(".")[0] in may, f"{path.name} imports {name}"
        assert not _under(name, "fairdeal.api", "fairdeal.verifier"), f"{path.name}: {name}"


def test_the_core_outside_the_games_knows_no_game() -> None:
    """The table engine, statements and bundles hold games through ``fairdeal.game``'s
    interface; only the registry (``fairdeal/games``) names the games."""
    for path in _core_modules():
        if path.parent == CORE:
            names = [n for n in _imports(path) if _under(n, "fairdeal.games")]
            assert not names, f"{path.name} imports {names}"


@pytest.mark.parametrize("path", sorted((ROOT / "verifier").rglob("*.py")), ids=lambda p: p.name)
def test_the_verifier_imports_no_service_framework_or_database(path: Path) -> None:
    for name in _imports(path):
        assert not _under(name, *SERVICE), f"verifier/{path.name} imports {name}"
