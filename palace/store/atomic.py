"""Writing a file whole: a temp file in the same folder, fsync, rename.

The one way palace replaces a file it must not leave half-written: memories, the
trash, caches, vector snapshots, the access journal's compaction, capture spools,
the hooks' service state and the hosts' configuration files that ``palace install``
edits. Standard library only, and nothing here knows of a palace, so the installer and
the hooks' service use it too. tests/store/test_atomic_writes.py holds every ``os.replace``
in palace to this module (or to a listed move of a whole file).
"""

from __future__ import annotations

import os
import re
import secrets
import stat as stat_module
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO, Callable, Iterator, Union

# ".<name>.<pid>.<hex>.tmp" (atomic writes) and ".<name>.<pid>.tmp" (caches)
TEMP_NAME = re.compile(r"^\..+\.(\d+)(?:\.[0-9a-f]+)?\.tmp$")
STALE_TEMP_AGE_S = 3600.0

# what a file is written from: text (UTF-8), bytes, or a function writing into the binary file
Data = Union[str, bytes, Callable[[BinaryIO], object]]


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError):
        return pid > 0  # exists but is someone else's (or cannot be asked): leave it
    return True


def is_stale_temp(name: str, mtime: float, now: float) -> bool:
    """A temp file of a writer that is gone (dead pid) or that is over an hour old."""
    match = TEMP_NAME.match(name)
    if match is None:
        return False
    return not _pid_alive(int(match.group(1))) or now - mtime > STALE_TEMP_AGE_S


def atomic_write(path: Path, data: Data, *, mode: int | None = None) -> None:
    """Write via a temp file in the same folder, fsync, rename: never a half file.

    ``data`` is text (written as UTF-8, ``\\n`` line ends kept), bytes, or a function
    that writes into the open binary file (a large array, without a copy in memory).

    ``mode``: the file's permissions. By default a new file is owner-only (0600,
    whatever the umask: what palace writes is private) and a rewrite keeps the mode
    the file had (someone may have widened it on purpose); a symbolic link in the way
    counts as new (its 0777 is not the mode of anything). Missing folders are made
    owner-only too (``make_private_dirs``)."""
    with _written_beside(path, data, _mode_kept(path) if mode is None else mode) as tmp:
        os.replace(tmp, path)


def write_once(path: Path, data: Data) -> bool:
    """Create ``path`` whole (0600) unless it exists: the first of racing writers wins
    (a hard link never replaces), and a crash leaves no file or all of it. True when
    this call created it."""
    with _written_beside(path, data, 0o600) as tmp:
        try:
            os.link(tmp, path)
        except FileExistsError:
            return False
    return True


@contextmanager
def _written_beside(path: Path, data: Data, mode: int) -> Iterator[Path]:
    """A temp file beside ``path`` holding ``data``, on disk (fsync), removed after."""
    make_private_dirs(path.parent)
    tmp = path.parent / f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
        os.fchmod(fd, mode)
        with open(fd, "wb") as handle:
            if callable(data):
                data(handle)
            else:
                handle.write(data.encode("utf-8") if isinstance(data, str) else data)
            handle.flush()
            os.fsync(handle.fileno())
        yield tmp
    finally:
        if tmp.exists():
            tmp.unlink()


def _mode_kept(path: Path) -> int:
    try:
        found = os.lstat(path).st_mode
    except FileNotFoundError:
        return 0o600
    return stat_module.S_IMODE(found) if stat_module.S_ISREG(found) else 0o600


def make_private_dirs(folder: Path) -> None:
    """``mkdir -p`` with every folder it creates owner-only (0700): Path.mkdir gives
    the parents it creates the umask's mode, not the one asked for."""
    missing = []
    current = Path(folder)
    while not current.exists():
        missing.append(current)
        if current.parent == current:
            break
        current = current.parent
    for part in reversed(missing):
        try:
            part.mkdir(mode=0o700)
            os.chmod(part, 0o700)  # mkdir's mode is masked by the umask too
        except FileExistsError:
            pass


__all__ = ["STALE_TEMP_AGE_S", "TEMP_NAME", "atomic_write", "is_stale_temp", "make_private_dirs", "write_once"]
