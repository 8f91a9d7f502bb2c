"""Files for the service's own user alone: the signing key, and the SQLite database, whose
open rounds' server seeds tell every hidden card to whoever reads them (and, alike, a
witness's key and database).

New folders are made 0700 and new files 0600, whatever the umask (it can only take bits
away). SQLite gives a database's -wal and -shm files the database file's own mode.
"""

import contextlib
import os
import stat
from pathlib import Path

FOLDER_MODE, FILE_MODE = 0o700, 0o600
_OTHERS = 0o077  # every permission of the file's group and of everyone else


def make_folder(path: Path) -> None:
    """The folder, made if missing (its missing parents too, with the usual mode)."""
    path.mkdir(mode=FOLDER_MODE, parents=True, exist_ok=True)


def create_file(path: Path) -> None:
    """An empty file, made unless one is there already."""
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE))


def open_to_others(mode: int) -> bool:
    """Whether a file of this ``st_mode`` lets its group or anyone else in."""
    return bool(mode & _OTHERS)


def too_open(path: Path, mode: int) -> str:
    """What to say of a file that is open to others, and how to close it."""
    return (
        f"{path} is open to other users (mode {stat.S_IMODE(mode):04o}): "
        f"chmod 600 {path} makes it yours alone"
    )


class TooOpenError(PermissionError):
    """A private file that its group or other users may use."""


def read_own(path: Path) -> bytes:
    """The whole file, unless others may use it (TooOpenError)."""
    with path.open("rb") as handle:
        mode = os.fstat(handle.fileno()).st_mode
        if open_to_others(mode):
            raise TooOpenError(too_open(path, mode))
        return handle.read()


def write_once(path: Path, data: bytes) -> None:
    """Write the whole file to a private temporary file, then link it into place.

    The link fails if another starting process got there first; then its file stays, and no
    process ever reads a half-written one.
    """
    make_folder(path.parent)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    try:
        os.link(temporary, path)
    except FileExistsError:
        pass
    finally:
        temporary.unlink()
