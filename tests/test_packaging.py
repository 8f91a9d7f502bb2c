"""The installed import names: only ``fairdeal`` is taken, with the service and the verifier
under it, so an application's own ``api`` or ``verifier`` package never collides with them."""

import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
_NOT_SOURCES = shutil.ignore_patterns(
    ".git", ".venv", "build", "*.egg-info", "__pycache__", ".*_cache", ".hypothesis", "instance"
)
IMPORTS = "import fairdeal.api.client, fairdeal.verifier.cli; print(fairdeal.api.client.__name__)"


def _python(code: str, cwd: Path, path: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {"PATH": "/usr/bin:/bin"} | ({"PYTHONPATH": path} if path else {})
    return subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True, check=False
    )


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


def test_a_regular_install_holds_the_service_and_the_verifier_under_fairdeal(
    tmp_path: Path,
) -> None:
    target, source = tmp_path / "site", tmp_path / "source"
    # Built from a copy: setuptools writes its build/ beside the sources it is given.
    shutil.copytree(REPO, source, symlinks=True, ignore=_NOT_SOURCES)
    install = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target)]
    build = subprocess.run(
        [*install, str(source)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert build.returncode == 0, build.stderr
    assert sorted(p.name for p in target.iterdir() if not p.name.endswith("-info")) == [
        "bin",
        "fairdeal",
    ]
    assert (target / "fairdeal" / "api" / "client.py").is_file()
    assert (target / "fairdeal" / "api" / "static" / "redoc" / "redoc.standalone.js").is_file()
    assert (target / "fairdeal" / "api" / "static" / "web" / "index.html").is_file()
    # every file of the pages' modules, however deep (the engine, each game, vendored code)
    js = Path("api", "static", "web", "js")
    installed = target / "fairdeal" / js
    shipped = {p.relative_to(installed) for p in installed.rglob("*")}
    assert {p.relative_to(REPO / js) for p in (REPO / js).rglob("*")} <= shipped
    assert not (target / "fairdeal" / "api").is_symlink()
    done = _python(IMPORTS, tmp_path, str(target))
    assert done.returncode == 0, done.stderr
