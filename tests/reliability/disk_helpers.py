"""Real disk faults for tests: a small file system that can be filled (a tmpfs of its own),
and a read-only palace (``chattr +i`` as root, who ignores file modes; else chmod)."""

from __future__ import annotations

import errno
import os
import subprocess
from pathlib import Path
from typing import Iterator

import pytest


def freeze(paths, on: bool) -> None:
    """Read-only for real: chattr +i when root (root ignores file modes), else chmod."""
    if os.geteuid() == 0:
        subprocess.run(["chattr", "+i" if on else "-i", *map(str, paths)], check=True)
    else:
        for path in paths:
            path.chmod((0o555 if path.is_dir() else 0o444) if on else (0o700 if path.is_dir() else 0o600))


def palace_paths(workspace: Path) -> list[Path]:
    """Everything in the workspace, deepest first (so folders are frozen after their files)."""
    return sorted([workspace, *workspace.rglob("*")], key=lambda p: -len(p.parts))


class SmallDisk:
    """A tmpfs mounted at ``path``; ``fill(leave)`` leaves ``leave`` bytes free on it."""

    def __init__(self, path: Path):
        self.path = path
        self.filler = path / "filler"

    def free_bytes(self) -> int:
        stat = os.statvfs(self.path)
        return stat.f_bavail * stat.f_frsize

    def fill(self, leave: int = 0) -> None:
        with open(self.filler, "ab") as handle:
            chunk = b"\0" * 65536
            try:
                while self.free_bytes() > leave:
                    handle.write(chunk[: max(4096, min(len(chunk), self.free_bytes() - leave))])
                    handle.flush()
            except OSError as exc:
                assert exc.errno == errno.ENOSPC, exc
        assert self.free_bytes() <= max(leave, 4096)

    def empty(self) -> None:
        self.filler.unlink(missing_ok=True)


def mounted_tmpfs(tmp_path: Path) -> Iterator[SmallDisk]:
    """A real 16 MiB file system of its own, for a fixture to yield from. Mounting needs
    root (CAP_SYS_ADMIN); elsewhere the test is skipped, saying so."""
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m,mode=0700", "tmpfs", str(mount)],
                          capture_output=True, text=True)
    if done.returncode:
        pytest.skip(f"cannot mount a tmpfs here (a full disk needs one): {done.stderr.strip()}")
    try:
        yield SmallDisk(mount)
    finally:
        subprocess.run(["chattr", "-R", "-i", str(mount)], capture_output=True)
        subprocess.run(["umount", "-l", str(mount)], check=True)
