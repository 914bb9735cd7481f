"""Bringing the index in line with the files: a pure plan and a small executor.

The files are the truth. ``plan_sync`` (pure) compares what is on disk (path → mtime,
size) with what the index last saw and says which files to (re)read and which
index rows to drop. Reading is decided by mtime/size; the caller then compares
content hashes, so a file touched but not changed costs a hash, not a re-index.
A file moved by hand shows up as one removal plus one addition with the same id,
which the caller turns into a move.

``Syncer(storage, index, lock)`` carries the plan out: it reads the files the plan
names, indexes them in batches, notices moves and duplicate ids, and keeps the
room folders' mtimes so that a large palace rescans only the rooms that changed.
"""

from __future__ import annotations

import os
import time
from contextlib import AbstractContextManager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Mapping

from palace.errors import MemoryFileError
from palace.store.journal import append_access, read_events
from palace.models import Memory
from palace.store.files import FileStorage
from palace.index.database import Index, file_digest

# Above this many memories, opening a manager checks room folders' mtimes and rescans
# only the folders that changed, instead of stat'ing every file (~3 s at 100k). A file
# edited in place in an unchanged folder is then noticed by get(), `palace sync`, or
# `palace reindex`.
QUICK_SYNC_ABOVE = 20_000
# Files indexed per transaction (one commit per file would dominate a rebuild); above
# this many files to read, keyword postings are packed once at the end instead.
SYNC_BATCH = 2000


@dataclass(frozen=True)
class SyncPlan:
    new: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    unchanged: int = 0

    @property
    def empty(self) -> bool:
        return not (self.new or self.changed or self.removed)


@dataclass
class SyncReport:
    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    moved: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    unchanged: int = 0
    errors: list[tuple[str, str]] = field(default_factory=list)  # (path, reason)
    duplicates: list[tuple[str, str, str]] = field(default_factory=list)  # (id, kept, ignored)

    def to_dict(self) -> dict:
        return {
            "added": len(self.added), "updated": len(self.updated), "moved": len(self.moved),
            "removed": len(self.removed), "unchanged": self.unchanged,
            "errors": [{"path": p, "reason": r} for p, r in self.errors],
            "duplicates": [{"id": i, "kept": k, "ignored": g} for i, k, g in self.duplicates],
        }


def plan_sync(disk: Mapping[str, tuple[int, int]],
              indexed: Mapping[str, tuple[int, int]]) -> SyncPlan:
    """``disk`` and ``indexed`` map relative path → (mtime_ns, size)."""
    new = sorted(path for path in disk if path not in indexed)
    removed = sorted(path for path in indexed if path not in disk)
    changed = sorted(path for path, stat in disk.items()
                     if path in indexed and indexed[path] != stat)
    unchanged = len(disk) - len(new) - len(changed)
    return SyncPlan(new=tuple(new), changed=tuple(changed), removed=tuple(removed),
                    unchanged=unchanged)


class Syncer:
    """Keeps ``index`` in line with ``storage``; ``lock`` serialises writers."""

    def __init__(self, storage: FileStorage, index: Index,
                 lock: Callable[[], AbstractContextManager[object]]):
        self.storage = storage
        self.index = index
        self.root = storage.root
        self.lock = lock
        self.last: SyncReport | None = None

    # ------------------------------------------------------------------ one memory

    def index_memory(self, memory: Memory, path: Path, raw: bytes | None = None,
                     stat: os.stat_result | None = None) -> None:
        """Index a memory just written to (or read from) ``path``."""
        if raw is None or stat is None:
            raw = path.read_bytes()
            stat = path.stat()
        relpath = str(path)[len(str(self.root)) + 1:].replace(os.sep, "/")
        self.index.upsert(memory, relpath=relpath, raw=raw, mtime_ns=stat.st_mtime_ns, size=stat.st_size)

    def index_file(self, rel: str, disk: Mapping[str, tuple[int, int]], report: SyncReport) -> None:
        """(Re)read one file and index it, reporting what it was (added, updated,
        moved, unchanged, unreadable, a duplicate id)."""
        info = self.index.file_info(rel)
        read = self._read(rel, info)
        if isinstance(read, MemoryFileError):
            self._refuse(rel, read, report)
        elif read is not None:
            self._place(rel, *read, info, disk, report)

    def _read(self, rel: str, info: Any, real_dirs: set[str] | None = None
              ) -> tuple[Memory, bytes, os.stat_result] | MemoryFileError | None:
        """A file's memory, bytes and stat; why it cannot be read; or None when it
        vanished while we looked (the removal pass handles it)."""
        path = self.root / rel
        try:
            memory, raw, stat = self.storage.read_with_raw(path, location=self.storage.location_of(rel),
                                                           real_dirs=real_dirs)
        except MemoryFileError as exc:
            return None if info is not None and not path.exists() else exc
        if memory.status == "deleted":
            # a trashed copy dropped into a room by hand: treat it as restored
            memory = replace(memory, status="active")
        return memory, raw, stat

    def _refuse(self, rel: str, exc: MemoryFileError, report: SyncReport) -> None:
        self.index.record_problem(rel, exc.reason)
        report.errors.append((str(self.root / rel), exc.reason))

    def _place(self, rel: str, memory: Memory, raw: bytes, stat: os.stat_result, info: Any,
               disk: Mapping[str, tuple[int, int]], report: SyncReport) -> None:
        """Index a memory read from ``rel``: unless unchanged (touched only) or a second
        copy of an id already indexed from a file that is still there."""
        path = self.root / rel
        if info is not None and file_digest(raw) == info["file_hash"]:
            self.index.touch_file(rel, stat.st_mtime_ns, stat.st_size)  # touched, not changed
            report.unchanged += 1
            return
        existing = self.index.path_of(memory.id)
        if existing is not None and existing != rel:
            if existing in disk and (self.root / existing).exists():
                reason = (f"duplicate id {memory.id!r}: also in {existing}; give one of the "
                          "copies a new id (or delete it)")
                self.index.record_problem(rel, reason)
                report.duplicates.append((memory.id, existing, rel))
                report.errors.append((str(path), reason))
                return
            report.moved.append(memory.id)
        elif info is None:
            report.added.append(memory.id)
        else:
            report.updated.append(memory.id)
        self.index_memory(memory, path, raw, stat)

    def _index_batch(self, rels: list[str], disk: Mapping[str, tuple[int, int]], report: SyncReport) -> None:
        """``index_file`` for each of ``rels`` during a bulk load, with the same outcome:
        files new to the index under ids it does not hold are inserted together
        (``Index.insert_new``); any other file takes ``index_file``'s way, in order."""
        infos = self.index.file_infos(rels)
        real_dirs: set[str] = set()  # folders found not to be links during this batch
        read = [(rel, self._read(rel, infos.get(rel), real_dirs)) for rel in rels]
        known = self.index.paths_of([r[0].id for _, r in read if isinstance(r, tuple)])
        fresh: list[tuple[Memory, str, bytes, int, int]] = []
        fresh_ids: set[str] = set()
        for rel, item in read:
            if isinstance(item, MemoryFileError):
                self._refuse(rel, item, report)  # (in order: the report lists them so)
                continue
            if item is None:
                continue
            memory, raw, stat = item
            if rel in infos or memory.id in known or memory.id in fresh_ids:
                self.index.insert_new(fresh)  # the files before it first, as one by one
                fresh, fresh_ids = [], set()
                self._place(rel, memory, raw, stat, infos.get(rel), disk, report)
                known[memory.id] = rel  # (or not, if refused: either way not fresh later)
                continue
            report.added.append(memory.id)
            fresh.append((memory, rel, raw, stat.st_mtime_ns, stat.st_size))
            fresh_ids.add(memory.id)
        self.index.insert_new(fresh)

    def fresh_row(self, memory_id: str) -> Any:
        """The index row of ``memory_id``, re-read from its file first if the file
        changed by hand; a file moved or removed meanwhile is found by a sync."""
        row = self.index.row_by_id(memory_id)
        if row is None:
            return None
        try:
            stat = (self.root / row.path).stat()
        except FileNotFoundError:
            # Both a move and a removal change their folders' mtimes, so on a large
            # palace the quick sync (changed rooms only) is enough; a full one only
            # if it was not.
            self.sync(full=None)
            row = self.index.row_by_id(memory_id)
            if row is not None and not (self.root / row.path).exists():
                self.sync(full=True)
                row = self.index.row_by_id(memory_id)
            return row
        if (stat.st_mtime_ns, stat.st_size) != (row.mtime_ns, row.size):
            with self.lock():
                self.index_file(row.path, {row.path: (stat.st_mtime_ns, stat.st_size)}, SyncReport())
            row = self.index.row_by_id(memory_id)
        return row

    def record_access(self, journal: Path, ids: list[str], at: Any, kind: str) -> None:
        """Journal the accesses (the file is their record here), then fold them in."""
        append_access(journal, ids, at, kind)
        self.catch_up_journal(journal)

    def catch_up_journal(self, journal: Path) -> int:
        """Fold the access-journal lines this index has not seen into its access table."""
        with self.index.write():
            offset = int(self.index.get_meta("journal_offset", "0") or 0)
            events, new_offset, _skipped = read_events(journal, offset)
            if new_offset < offset:  # journal replaced: refold from scratch
                self.index.clear_accesses()
            if events:
                self.index.add_accesses((memory_id, event.at.timestamp(), event.kind)
                                        for event in events for memory_id in event.ids)
            if new_offset != offset:
                self.index.set_meta("journal_offset", str(new_offset))
            return len(events)

    # ------------------------------------------------------------------ whole palace

    def sync(self, *, full: bool | None = True) -> SyncReport:
        """Bring the index in line with the files (added, edited, moved, removed by hand).

        ``full=None`` (used on open): on palaces above QUICK_SYNC_ABOVE memories, only
        the room folders whose mtime changed are rescanned.
        """
        report = SyncReport()
        if self.index.postings_stale():  # a bulk load died half-way: finish it
            with self.lock():
                if self.index.postings_stale():
                    self.index.finish_bulk()
        if full is None and self.index.count() > QUICK_SYNC_ABOVE:
            with self.lock():
                changed = self._changed_room_dirs()
                if changed is None:
                    full = True
                elif changed:
                    self._sync_rooms(changed, report)
            if not full:
                self.last = report
                return report
        with self.lock():
            disk = {rel: (mtime, size) for rel, mtime, size in self.storage.scan()}
            indexed = self.index.file_stats()
            problems = {path for path, _ in self.index.problems()}
            self._apply_plan(disk, indexed, report)
            for rel in problems - set(disk):
                self.index.remove_path(rel)  # a bad file that was fixed by deleting it
            self.index.set_room_dirs(dict(self.storage.room_dirs()))
            self.index.set_meta("last_full_scan", str(time.time()))
            # the walk passed every room folder: dead writers' temp files go now, so a
            # palace too big for the sweep on open is cleaned by its periodic full scan
            self.storage.remove_stale_temp_files()
        # (the vector cache follows the index's versions by itself)
        self.last = report
        return report

    def _apply_plan(self, disk: Mapping[str, tuple[int, int]], indexed: Mapping[str, tuple[int, int]],
                    report: SyncReport) -> None:
        plan = plan_sync(disk, indexed)
        report.unchanged += plan.unchanged
        to_read = list(plan.new) + list(plan.changed)
        # one transaction per batch, not per file; many files at once (a rebuild, a
        # folder copied in): pack the keyword postings once at the end
        if len(to_read) > SYNC_BATCH:
            self.index.begin_bulk()
        try:
            for start in range(0, len(to_read), SYNC_BATCH):
                with self.index.write():
                    batch = to_read[start:start + SYNC_BATCH]
                    if self.index.bulk:
                        self._index_batch(batch, disk, report)
                    else:
                        for rel in batch:
                            self.index_file(rel, disk, report)
        finally:
            if self.index.bulk:
                self.index.finish_bulk()
        with self.index.write():
            for rel in plan.removed:
                gone = self.index.remove_path(rel)
                if gone is not None:
                    report.removed.append(gone)

    # ------------------------------------------------------------------ room folders

    def _folder(self, rel: str) -> str:
        return os.path.join(self.root, rel) if rel else str(self.root)

    def _changed_room_dirs(self) -> list[str] | None:
        """Room folders whose mtime moved since the index last looked (a file added,
        removed or renamed in them: editors that save atomically, git). None when
        there is nothing recorded to compare with."""
        known = self.index.room_dirs()
        if not known:
            return None
        changed = []
        for rel, mtime in known.items():
            try:
                if os.stat(self._folder(rel)).st_mtime_ns != mtime:
                    changed.append(rel)
            except OSError:
                changed.append(rel)
        return changed

    def _sync_rooms(self, rooms: list[str], report: SyncReport) -> None:
        """Sync only these room folders (and any new room under them)."""
        known = self.index.room_dirs()
        disk: dict[str, tuple[int, int]] = {}
        dirs: dict[str, int] = {}
        pending = list(rooms)
        while pending:
            rel = pending.pop()
            try:
                dirs[rel] = os.stat(self._folder(rel)).st_mtime_ns
                entries = list(os.scandir(self._folder(rel)))
            except OSError:
                continue
            for path, mtime, size in self.storage.scan_folder(rel):
                disk[path] = (mtime, size)
            for entry in entries:
                if not entry.name.startswith(".") and entry.is_dir(follow_symlinks=False):
                    child = f"{rel}/{entry.name}" if rel else entry.name
                    if child not in known:
                        pending.append(child)
        scope = set(rooms) | set(dirs)
        self._apply_plan(disk, self.index.file_stats_in(scope), report)
        self.index.update_room_dirs(dirs, gone=[rel for rel in rooms if rel not in dirs])

    def remember_room_dir(self, folder: Path) -> None:
        """After our own write, record the folder's new mtime (and its parents') so the
        next process's quick check does not mistake our write for a hand edit."""
        seen: dict[str, int] = {}
        try:
            seen["" if folder == self.root else folder.relative_to(self.root).as_posix()] = \
                folder.stat().st_mtime_ns
            parent = folder.parent
            while parent != self.root.parent and self.root in (parent, *parent.parents):
                seen["" if parent == self.root else parent.relative_to(self.root).as_posix()] = \
                    parent.stat().st_mtime_ns
                if parent == self.root:
                    break
                parent = parent.parent
        except (OSError, ValueError):
            if not seen:
                return
        self.index.update_room_dirs(seen)
