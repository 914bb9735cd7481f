"""Opening a palace after a crash or on a damaged disk: what the next open repairs by
itself, and how the index is opened when its file is corrupt or the folder read-only.

Everything here is cheap enough to run on every open; ``palace doctor`` does the
thorough version of each check (every folder, every file).
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from .errors import ConfigError, PalaceError
from .index import Index
from .storage import make_private_dirs

# Palaces up to this many memories have every folder checked for dead writers' temp
# files on open; larger ones only palace's own folders (doctor does the rest).
FULL_TEMP_SWEEP_UP_TO = 5000


def open_index(path: Path, notes: list[str]) -> Index:
    """The index at ``path``: created owner-only; a corrupt one moved aside and rebuilt
    (it is derived from the files); on a read-only folder, opened read-only."""
    folder = path.parent
    if folder.exists() and not folder.is_dir():
        raise ConfigError(
            f"{folder} is a file, but palace keeps its index in that folder: move the file "
            "away (the index is derived from the memories and is rebuilt on the next open)")
    try:
        make_private_dirs(folder)
        if not path.exists():
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))  # sqlite keeps the mode
    except OSError:
        pass  # a read-only folder: found out below
    try:
        return Index(path)
    except sqlite3.OperationalError as exc:
        if path.exists():
            try:
                index = Index(path, read_only=True)
            except sqlite3.DatabaseError:
                pass
            else:
                notes.append(f"the index cannot be written ({exc}): opened read-only")
                return index
        raise PalaceError(f"cannot open the index {path}: {exc}; check that the folder is "
                          "writable and the disk not full") from None
    except sqlite3.DatabaseError as exc:
        aside = path.with_name(path.name + ".corrupt")
        try:
            os.replace(path, aside)
            for suffix in ("-wal", "-shm"):
                path.with_name(path.name + suffix).unlink(missing_ok=True)
        except OSError as move_error:
            raise PalaceError(
                f"the index {path} is damaged ({exc}) and cannot be replaced ({move_error}); "
                "delete it: it is rebuilt from the memory files, nothing is lost") from None
        notes.append(f"the index was damaged ({exc}): moved to {aside.name} and rebuilt from the files")
        return open_index(path, notes)


def recover_after_crash(pm) -> None:
    """Remove dead writers' temp files; settle memories left both live and trashed."""
    from .doctor import DoctorReport, _check_live_and_trash, remove_stale_temp_files

    small = pm.index.count() <= FULL_TEMP_SWEEP_UP_TO
    removed = remove_stale_temp_files(pm.root, dot_folders_only=not small)
    if removed:
        pm.notes.append(f"removed {len(removed)} temp files left by interrupted writers")
    trash = pm.storage.trash
    if not trash.is_dir():
        return
    suspects = []
    for entry in os.scandir(trash):
        if entry.name.endswith(".md"):
            row = pm.index.row_by_id(entry.name[:-3])
            if row is not None and (pm.root / row["path"]).exists():
                suspects.append(entry.name)
    if suspects:
        report = DoctorReport(repair=True)
        _check_live_and_trash(pm, report, only=set(suspects))
        pm.notes.extend(f"{f.kind}: {f.detail}" for f in report.findings)
