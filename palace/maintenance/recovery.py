"""Opening a palace after a crash or on a damaged disk: what the next open repairs by
itself, and how the index is opened when its file is corrupt or the folder read-only.

Everything here is cheap enough to run on every open; ``palace doctor`` does the
thorough version of each check (every folder, every file).
"""

from __future__ import annotations

import os


# Palaces up to this many memories have every folder checked for dead writers' temp
# files on open; larger ones only palace's own folders on open, and every room folder
# at their next full sync (Syncer, which walks them anyway; doctor does it on demand).
FULL_TEMP_SWEEP_UP_TO = 5000


def recover_after_crash(pm) -> None:
    """Remove dead writers' temp files; settle memories left both live and trashed."""
    from palace.maintenance.doctor import DoctorReport, _check_live_and_trash, remove_stale_temp_files

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
            if row is not None and (pm.root / row.path).exists():
                suspects.append(entry.name)
    if suspects:
        report = DoctorReport(repair=True)
        _check_live_and_trash(pm, report, only=set(suspects))
        pm.notes.extend(f"{f.kind}: {f.detail}" for f in report.findings)
