"""Opening a palace after a crash or on a damaged disk: what the next open repairs by
itself, and how the index is opened when its file is corrupt or the folder read-only.

Everything here is cheap enough to run on every open; ``palace doctor`` does the
thorough version of each check (every folder, every file).
"""

from __future__ import annotations

import os
from typing import Any


# Palaces up to this many memories have every folder checked for dead writers' temp
# files on open; larger ones only palace's own folders on open, and every room folder
# at their next full sync (Syncer, which walks them anyway; doctor does it on demand).
FULL_TEMP_SWEEP_UP_TO = 5000


def recover_after_crash(storage: Any, index: Any, notes: list[str]) -> None:
    """Remove dead writers' temp files; settle memories left both live and trashed;
    say what was done in ``notes``. Runs as a local palace opens, inside the manager's
    constructor, so it takes the files and the index themselves, not the manager."""
    from palace.maintenance.doctor import DoctorReport, check_live_and_trash, remove_stale_temp_files

    root = storage.root
    small = index.count() <= FULL_TEMP_SWEEP_UP_TO
    removed = remove_stale_temp_files(root, dot_folders_only=not small)
    if removed:
        notes.append(f"removed {len(removed)} temp files left by interrupted writers")
    trash = storage.trash
    if not trash.is_dir():
        return
    suspects = []
    for entry in os.scandir(trash):
        if entry.name.endswith(".md"):
            row = index.row_by_id(entry.name[:-3])
            if row is not None and (root / row.path).exists():
                suspects.append(entry.name)
    if suspects:
        report = DoctorReport(repair=True)
        check_live_and_trash(storage, report, only=set(suspects))
        notes.extend(f"{f.kind}: {f.detail}" for f in report.findings)
