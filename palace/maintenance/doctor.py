"""``palace doctor``: find, and on request repair, what crashes, hand edits and time leave.

What it looks for (each a ``Finding`` with a kind, a path and what it means):

* ``drift``: files and index disagree (a file not indexed, an index row whose file is
  gone or changed). Repair: a full sync.
* ``orphan-vectors``: vectors of texts no memory has any more. Repair: prune them.
* ``temp-file``: a temp file a killed or failed writer left (``.name.PID.HEX.tmp``)
  whose process is gone or which is over an hour old. Repair: remove it.
* ``live-and-trash``: a memory both in its room and in ``.trash`` (a kill inside
  restore, a failed delete). Repair: the live copy wins (no acknowledged delete is
  lost: a delete is acknowledged only once the original is gone); the trash copy is
  removed when it holds the same text, else moved to ``.quarantine/``.
* ``unreadable``: a memory file that cannot be parsed, with the reason. Repair, only
  with ``move_unreadable``: moved to ``.quarantine/<its path>`` (never scanned).
* ``journal``: the access journal is over ``limits.MAX_JOURNAL_BYTES`` or holds
  unreadable lines. Repair: compaction (unreadable lines and ids that exist nowhere
  dropped, bursts of accesses folded as decay folds them anyway), then a refold.
* ``symlink``: a link inside the palace. Palace never follows one; a person decides.

``check`` (``palace doctor --check``) only reports; ``ok`` is False when anything was
found that is still there after the repairs, and ``needs`` says what it takes.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, ContextManager

from palace import limits
from palace.index import Filters
from palace.store.atomic import TEMP_NAME, atomic_write, is_stale_temp, make_private_dirs
from palace.store.files import walk_entries
from palace.store.journal import ACCESS_FILE, JOURNAL_DIR, journal_path, read_events

QUARANTINE_DIR = ".quarantine"


@dataclass(frozen=True)
class PalaceParts:
    """What doctor examines and repairs, handed over by the manager: doctor sits below the
    manager and never calls back up into it. ``sync()``: a full sync that also applies the
    facts edited by hand (the manager's own ``sync``, so a repaired drift meets the graph
    as ``palace sync`` would have); ``lock``: the palace's write lock (re-entrant)."""
    storage: Any  # the files (palace.index.backend.MemoryStore)
    index: Any  # the derived index (palace.index.backend.MemoryIndex)
    syncer: Any
    lock: ContextManager[object]
    sync: Callable[[], Any]

    @property
    def root(self) -> Path:
        return self.storage.root


@dataclass
class Finding:
    kind: str
    path: str | None
    detail: str
    repaired: bool = False


# What a finding still there needs beyond a plain repair: an unreadable file is moved
# aside only when asked (a person may rather fix its YAML); a link is for a person to judge.
BEYOND_REPAIR = {"unreadable": "move_unreadable", "symlink": "by_hand"}


@dataclass
class DoctorReport:
    repair: bool
    findings: list[Finding] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(f.repaired for f in self.findings)

    @property
    def needs(self) -> list[str]:
        """What the findings still there need, in this order: ``repair`` (a run without
        --check fixes them), ``move_unreadable`` (fix by hand or move aside),
        ``by_hand`` (a link, or a repair that failed: its detail says why)."""
        wanted = {BEYOND_REPAIR.get(f.kind, "by_hand" if self.repair else "repair")
                  for f in self.findings if not f.repaired}
        return [need for need in ("repair", "move_unreadable", "by_hand") if need in wanted]

    def add(self, kind: str, path: str | None, detail: str) -> Finding:
        finding = Finding(kind, path, detail)
        self.findings.append(finding)
        return finding

    def to_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "repair": self.repair, "findings": [asdict(f) for f in self.findings],
                "needs": self.needs}


# --------------------------------------------------------------------------- temp files

def stale_temp_files(root: Path, *, now: float | None = None, dot_folders_only: bool = False) -> list[Path]:
    """Temp files under ``root`` whose writer is gone (dead pid) or that are old."""
    now = time.time() if now is None else now
    top = str(root)

    def descend(folder: str, entry: os.DirEntry) -> bool:
        return not dot_folders_only or folder != top or entry.name.startswith(".")

    found: list[Path] = []
    for _folder, entry in walk_entries(top, descend=descend):
        try:
            if not TEMP_NAME.match(entry.name) or not entry.is_file(follow_symlinks=False):
                continue
            mtime = entry.stat(follow_symlinks=False).st_mtime
        except OSError:
            continue
        if is_stale_temp(entry.name, mtime, now):
            found.append(Path(entry.path))
    return found


def remove_stale_temp_files(root: Path, *, dot_folders_only: bool = False) -> list[Path]:
    removed = []
    for path in stale_temp_files(root, dot_folders_only=dot_folders_only):
        try:
            path.unlink()
            removed.append(path)
        except OSError:
            pass
    return removed


# --------------------------------------------------------------------------- the checks

def _rel(root: Path, path: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def _check_temp_files(root: Path, report: DoctorReport) -> None:
    for path in stale_temp_files(root):
        finding = report.add("temp-file", _rel(root, path), "left by a writer that was killed or failed")
        if report.repair:
            try:
                path.unlink()
                finding.repaired = True
            except FileNotFoundError:
                finding.repaired = True
            except OSError as exc:
                finding.detail += f"; cannot remove: {exc.strerror or exc}"


def _check_symlinks(root: Path, report: DoctorReport) -> None:
    for _folder, entry in walk_entries(str(root), descend=lambda _f, e: e.name != QUARANTINE_DIR):
        if entry.is_symlink():
            report.add("symlink", _rel(root, Path(entry.path)),
                       f"a link to {os.readlink(entry.path)}: palace neither follows nor removes it; "
                       "replace it with a real folder or file")


def check_live_and_trash(storage: Any, report: DoctorReport, only: set[str] | None = None) -> None:
    """Memories both live and in the trash (of ``only`` those trash file names, if given)."""
    root = storage.root
    if not storage.trash.is_dir() or storage.trash.is_symlink():
        return
    for trashed in sorted(storage.trash.glob("*.md")):
        if only is not None and trashed.name not in only:
            continue
        memory_id = trashed.stem
        live = [p for p in root.rglob(f"{memory_id}.md")
                if not any(part.startswith(".") for part in p.relative_to(root).parts)]
        if not live:
            continue
        finding = report.add("live-and-trash", _rel(root, trashed),
                             f"memory {memory_id} is also live at {_rel(root, live[0])}")
        if not report.repair:
            continue
        try:
            same = storage.read(live[0]).content == storage.read(trashed, location="general").content
        except Exception:  # noqa: BLE001 - unreadable either way: keep the copy aside
            same = False
        if same:
            trashed.unlink(missing_ok=True)
            finding.detail += "; the trash copy (same text) was removed"
        else:
            target = _quarantine(root, trashed)
            finding.detail += f"; the trash copy differs: moved to {_rel(root, target)}"
        finding.repaired = True


def _quarantine(root: Path, path: Path) -> Path:
    target = root / QUARANTINE_DIR / path.relative_to(root)
    make_private_dirs(target.parent)  # .quarantine/ and its rooms too, not just the last folder
    if target.exists():
        target = target.with_name(f"{target.stem}.{int(time.time())}{target.suffix}")
    os.replace(path, target)
    return target


def _check_drift(parts: PalaceParts, report: DoctorReport) -> None:
    disk = {rel: (mtime, size) for rel, mtime, size in parts.storage.scan()}
    indexed = parts.index.file_stats()
    unreadable = {rel for rel, _reason in parts.index.problems()}
    drift = []
    for rel in sorted(set(disk) | set(indexed)):
        if rel in unreadable:
            continue
        if rel not in indexed:
            drift.append((rel, "on disk but not in the index"))
        elif rel not in disk:
            drift.append((rel, "in the index but the file is gone"))
        elif disk[rel] != indexed[rel]:
            drift.append((rel, "changed since it was indexed"))
    findings = [report.add("drift", rel, detail) for rel, detail in drift]
    if findings and report.repair:
        parts.sync()
        after = parts.index.file_stats()
        disk_after = {rel: (mtime, size) for rel, mtime, size in parts.storage.scan()}
        for finding in findings:
            finding.repaired = after.get(finding.path) == disk_after.get(finding.path)


def _check_unreadable(parts: PalaceParts, report: DoctorReport, move: bool) -> None:
    for rel, reason in parts.index.problems():
        finding = report.add("unreadable", rel, reason)
        if move:
            path = parts.root / rel
            if path.exists() and not path.is_symlink():
                target = _quarantine(parts.root, path)
                finding.detail += f"; moved to {_rel(parts.root, target)}"
            finding.repaired = True
    if move and report.findings and any(f.kind == "unreadable" for f in report.findings):
        parts.sync()


def _check_orphan_vectors(index: Any, report: DoctorReport) -> None:
    count = index.orphan_vector_count()
    if count:
        finding = report.add("orphan-vectors", None, f"{count} vectors of texts no memory has")
        if report.repair:
            index.prune_orphan_vectors()
            finding.repaired = True


def _check_journal(parts: PalaceParts, report: DoctorReport, max_bytes: int) -> None:
    path = parts.root / JOURNAL_DIR / ACCESS_FILE
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return
    _events, _offset, skipped = read_events(path, 0)
    if size <= max_bytes and not skipped:
        return
    finding = report.add("journal", _rel(parts.root, path),
                         f"{size} bytes (limit {max_bytes}), {skipped} unreadable lines")
    if report.repair:
        before, after = compact_journal(parts)
        finding.detail += f"; compacted {before} -> {after} bytes"
        finding.repaired = True


def compact_journal(parts: PalaceParts) -> tuple[int, int]:
    """Rewrite the journal: unreadable lines and ids that exist nowhere dropped, each
    id's accesses folded into one per burst window (what decay counts anyway), then the
    index refolds it. Holds the write lock; lines appended meanwhile are carried over."""
    from palace.decay import ACCESS_MERGE_WINDOW_S, collapse_bursts

    path = parts.root / JOURNAL_DIR / ACCESS_FILE
    with parts.lock:
        before = path.stat().st_size
        events, offset, _skipped = read_events(path, 0)
        known = ({row.id for row in parts.index.list_rows(Filters(statuses=("active", "archived")))}
                 | {m.id for m in parts.storage.list_trash()[0]})
        per_id: dict[str, list[tuple[float, str, str]]] = {}
        for event in events:
            for memory_id in event.ids:
                if memory_id in known:
                    per_id.setdefault(memory_id, []).append((event.at.timestamp(), event.at.isoformat(), event.kind))
        lines = []
        for memory_id, items in per_id.items():
            kept = set(collapse_bursts([ts for ts, _iso, _kind in items], ACCESS_MERGE_WINDOW_S))
            seen = set()
            for ts, iso, kind in sorted(items):
                if ts in kept and ts not in seen:
                    seen.add(ts)
                    lines.append((ts, json.dumps({"at": iso, "ids": [memory_id], "kind": kind},
                                                 ensure_ascii=False, separators=(",", ":"))))

        def write(handle) -> None:
            handle.write("".join(line + "\n" for _ts, line in sorted(lines)).encode("utf-8"))
            with open(path, "rb") as old:  # lines appended since the read
                old.seek(offset)
                handle.write(old.read().decode("utf-8", "replace").encode("utf-8"))

        atomic_write(path, write, mode=0o600)
        parts.index.clear_accesses()
        parts.index.set_meta("journal_offset", "0")
        parts.syncer.catch_up_journal(journal_path(parts.root))
        return before, path.stat().st_size


def examine_database(index: Any, *, repair: bool = False) -> DoctorReport:
    """On Postgres: the checks that apply to one transactional store (there are no
    files to drift from the index): orphaned vectors, across every scope."""
    report = DoctorReport(repair=repair)
    _check_orphan_vectors(index, report)
    return report


def examine(parts: PalaceParts, *, repair: bool = False, move_unreadable: bool = False,
            journal_max_bytes: int | None = None) -> DoctorReport:
    """Every check above, in an order where one repair cannot hide another's finding.
    The caller holds the write lock."""
    report = DoctorReport(repair=repair)
    _check_symlinks(parts.root, report)
    _check_temp_files(parts.root, report)
    check_live_and_trash(parts.storage, report)
    _check_drift(parts, report)
    _check_unreadable(parts, report, move_unreadable and repair)
    _check_orphan_vectors(parts.index, report)
    _check_journal(parts, report, journal_max_bytes or limits.MAX_JOURNAL_BYTES)
    return report


__all__ = ["DoctorReport", "Finding", "PalaceParts", "check_live_and_trash", "examine", "examine_database", "compact_journal", "remove_stale_temp_files",
           "stale_temp_files", "QUARANTINE_DIR"]
