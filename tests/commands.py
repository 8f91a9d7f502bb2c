"""A command of this repository run as a real process, from the repository's root."""

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def run_python(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """``python ARGS`` with this interpreter: its exit status, and its output as text."""
    return subprocess.run(
        [sys.executable, *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def run_python_unread(*args: str, timeout: float = 60) -> tuple[int, bytes]:
    """``python ARGS`` whose reader is gone before it prints (``| head -1``): its exit
    status, and what it wrote to stderr."""
    with subprocess.Popen(
        [sys.executable, *args], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    ) as process:
        assert process.stdout is not None and process.stderr is not None
        process.stdout.close()
        err = process.stderr.read()
        return process.wait(timeout=timeout), err
