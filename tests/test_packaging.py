"""Packaging: only ``fairdeal`` is installed, with the service and the verifier under it (an
application's own ``api`` or ``verifier`` package never collides with them); each source file has
one import name; and what a wheel and an sdist hold does not depend on the checkout. The wheel and
the sdist are built from a clone made as Git for Windows makes one (``core.symlinks=false``), and
the wheel is installed in a fresh environment where ``fairdeal-verify`` and ``fairdeal serve``
run. Offline: the build is setuptools' own hooks in this interpreter, the install takes no index,
and the fresh environment finds the dependencies in this one's site-packages."""

import importlib.util
import socket
import subprocess
import sys
import sysconfig
import tarfile
import time
import urllib.request
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
IMPORTS = "import fairdeal.api.client, fairdeal.verifier.cli; print(fairdeal.api.client.__name__)"
# pyproject.toml's mapping: the folder in the checkout, the package it is installed as
INSTALLED_AS = {"fairdeal": "fairdeal", "api": "fairdeal/api", "verifier": "fairdeal/verifier"}
VECTORS = Path("tests", "vectors")
BUILD = "from setuptools import build_meta as b; print(b.build_{0}({1!r}))"


def _python(code: str, cwd: Path, path: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {"PATH": "/usr/bin:/bin"} | ({"PYTHONPATH": path} if path else {})
    return subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True, check=False
    )


def _run(*args: str | Path, cwd: Path | None = None) -> str:
    done = subprocess.run(args, cwd=cwd, capture_output=True, text=True, check=False)
    assert done.returncode == 0, f"{args}: {done.stderr}"
    return done.stdout


def _tracked(repo: Path) -> list[str]:
    return _run("git", "-C", repo, "ls-files", "-z").split("\0")[:-1]


def _needs_git() -> None:
    if not (REPO / ".git").exists():
        pytest.skip("not a git checkout (an sdist, say): nothing to clone")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The clone, its sdist and its wheel."""
    _needs_git()
    pytest.importorskip("setuptools", minversion="68", reason="the build needs setuptools>=68")
    top = tmp_path_factory.mktemp("packaging")
    clone, dist = top / "clone", top / "dist"
    _run("git", "-c", "core.symlinks=false", "clone", "-q", REPO, clone)
    dist.mkdir()
    sdist = _run(sys.executable, "-c", BUILD.format("sdist", str(dist)), cwd=clone)
    wheel = _run(sys.executable, "-c", BUILD.format("wheel", str(dist)), cwd=clone)
    return {
        "clone": clone,
        "sdist": dist / sdist.splitlines()[-1],
        "wheel": dist / wheel.splitlines()[-1],
    }


def test_an_application_s_own_api_package_does_not_collide(tmp_path: Path) -> None:
    (tmp_path / "api").mkdir()
    (tmp_path / "api" / "__init__.py").write_text("MINE = True\n")
    done = _python(f"import api; assert api.MINE; {IMPORTS}", tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "fairdeal.api.client"


def test_the_installed_editable_package_has_no_top_level_api_or_verifier(tmp_path: Path) -> None:
    for name in ("api", "verifier"):
        done = _python(f"import {name}", tmp_path)
        assert done.returncode == 1 and "ModuleNotFoundError" in done.stderr


@pytest.mark.parametrize("name", ["api", "verifier"])
def test_the_checkout_s_folders_are_importable_by_their_installed_name_only(name: str) -> None:
    """With the checkout on sys.path (as under pytest), ``api`` would be a second copy of
    ``fairdeal.api``, its classes not the installed ones: it refuses."""
    done = _python(f"import {name}.findings", REPO, str(REPO))
    assert done.returncode == 1
    assert f"{name}/ is" in done.stderr and f"fairdeal.{name}" in done.stderr
    assert _python(f"import fairdeal.{name}", Path("/"), str(REPO)).returncode == 0


def test_the_checkout_has_no_symlink() -> None:
    _needs_git()
    links = [p for p in _tracked(REPO) if (REPO / p).is_symlink()]
    assert not links


def test_the_wheel_holds_every_source_file_under_fairdeal_and_nothing_else(
    built: dict[str, Path],
) -> None:
    with zipfile.ZipFile(built["wheel"]) as wheel:
        names = set(wheel.namelist())
    assert {n.split("/")[0] for n in names if ".dist-info/" not in n} == {"fairdeal"}
    expected = {"fairdeal/py.typed"}
    for path in _tracked(built["clone"]):
        folder, _, rest = path.partition("/")
        if folder in INSTALLED_AS and (path.endswith(".py") or rest.startswith("static/")):
            expected.add(f"{INSTALLED_AS[folder]}/{rest}")
    assert expected - names == set()
    assert "fairdeal/api/static/web/js/fairdeal/engine/rules.js" in names


def test_the_sdist_holds_every_tracked_file_so_that_its_tests_run(
    built: dict[str, Path],
) -> None:
    with tarfile.open(built["sdist"]) as sdist:
        members = {m.name.partition("/")[2] for m in sdist.getmembers() if m.isfile()}
    tracked = set(_tracked(built["clone"]))
    assert tracked - members == set()
    for needed in ("tests/conftest.py", "SPEC.md", "conformance/README.md", "MANIFEST.in"):
        assert needed in members


def test_the_wheel_installed_in_a_fresh_environment_verifies_and_serves(
    built: dict[str, Path], tmp_path: Path
) -> None:
    venv = _fresh_environment(tmp_path / "venv", built["wheel"])
    env = {"PATH": f"{venv / 'bin'}:/usr/bin:/bin", "HOME": str(tmp_path)}
    legacy = built["clone"] / VECTORS / "legacy-export-1"
    verify = [venv / "bin" / "fairdeal-verify", "--key", legacy.with_suffix(".key")]
    verified = subprocess.run(
        [*verify, legacy.with_suffix(".jsonl"), "--checkpoint", legacy.with_suffix(".checkpoint")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert verified.returncode == 0, verified.stderr
    assert verified.stdout.startswith("VALID"), verified.stdout
    if importlib.util.find_spec("flask") is None:
        pytest.skip("the server extra is not installed here: fairdeal serve cannot run")
    _serve_until_it_answers(venv, env | {"FAIRDEAL_INSTANCE_PATH": str(tmp_path / "instance")})


def _fresh_environment(venv: Path, wheel: Path) -> Path:
    """A new venv with the wheel installed (no index, no dependencies), finding the
    dependencies in this interpreter's site-packages, read after its own."""
    _run(sys.executable, "-m", "venv", "--without-pip", venv)
    purelib = "import sysconfig; print(sysconfig.get_path('purelib'))"
    site = Path(_run(venv / "bin" / "python", "-c", purelib).strip())
    ours = {sysconfig.get_path("purelib"), sysconfig.get_path("platlib")}
    (site / "dependencies.pth").write_text("".join(f"{p}\n" for p in sorted(ours)))
    pip = [sys.executable, "-m", "pip", "--python", venv / "bin" / "python", "install"]
    _run(*pip, "-q", "--no-index", "--no-deps", wheel)
    where = "import fairdeal.api; print(fairdeal.api.__file__)"
    shown = _run(venv / "bin" / "python", "-c", where, cwd=venv)  # not a checkout's folder
    assert Path(shown.strip()).is_relative_to(site), shown
    return venv


def _serve_until_it_answers(venv: Path, env: dict[str, str]) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    command = [venv / "bin" / "fairdeal", "serve", "--port", str(port), "--workers", "1"]
    server = subprocess.Popen(
        command,
        cwd=env["HOME"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        keys = _answer(f"http://127.0.0.1:{port}/v1/keys", server)
        assert keys.startswith("{") and "keys" in keys, keys
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    if server.stderr is not None:
        server.stderr.close()


def _answer(url: str, server: subprocess.Popen[str]) -> str:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"fairdeal serve exited {server.returncode}: {server.communicate()[1]}")
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                return str(response.read().decode())
        except OSError:
            time.sleep(0.2)
    pytest.fail("fairdeal serve did not answer /v1/keys within 60 s")
