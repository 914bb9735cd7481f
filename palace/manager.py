"""MemoryPalaceManager: the one object agents, the CLI, the sidecar and MCP talk to.

It orchestrates the layers — FileStorage (the truth), Index (derived), the access
journal, time reasoning, concept expansion, vectors and decay — and owns the
rules that span them: a write goes to the file first, then the index; a read
counts as an access in the journal, never in the file; the index notices files
that changed behind its back.
"""

from __future__ import annotations

import fcntl
import hashlib
import math
import os
import secrets
import time
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone, tzinfo
from pathlib import Path
from typing import Any, Iterator, Sequence

from . import decay as decay_model
from .errors import (ConfigError, EmbedderUnavailableError, InvalidInputError, MemoryFileError,
                     MemoryNotFoundError)
from .index import INDEX_DIR, INDEX_FILE, Filters, Index, row_to_memory
from .journal import append_access, journal_path, read_events
from .models import MEMORY_STATUSES, Memory, SearchResult
from .settings import Settings
from .storage import FileStorage
from .sync import SyncReport, plan_sync
from .tokenize import index_text
from .validation import (coerce_datetime, normalize_location, normalize_tags, validate_content,
                         validate_id, validate_importance, validate_summary, validate_word)
from .vectors import VectorStore

_UNSET: Any = object()
UPDATABLE_FIELDS = frozenset({"content", "summary", "tags", "importance", "location", "type",
                              "source", "status", "pinned", "created_at", "extra"})
# Above this many memories, opening a manager checks room folders' mtimes and rescans
# only the folders that changed, instead of stat'ing every file (~3 s at 100k). A file
# edited in place in an unchanged folder is then noticed by get(), `palace sync`, or
# `palace reindex`.
QUICK_SYNC_ABOVE = 20_000
SYNC_BATCH = 2000
ACCESS_MERGE_WINDOW_S = 3600.0


def resolve_timezone(name: str | None) -> tzinfo:
    if name:
        try:
            from zoneinfo import ZoneInfo

            return ZoneInfo(name)
        except Exception:
            raise ConfigError(f"MEMORY_TIMEZONE={name!r} is not a known time zone "
                              "(use an IANA name like Asia/Shanghai)") from None
    return datetime.now().astimezone().tzinfo or timezone.utc


def _hash_text(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()


def collapse_bursts(timestamps: Sequence[float], window_s: float = ACCESS_MERGE_WINDOW_S) -> list[float]:
    """One access per window: five searches in a minute are one recall, not five
    (otherwise a burst would reset the decay score without the spacing that
    really makes a memory last)."""
    kept: list[float] = []
    for ts in sorted(timestamps):
        if not kept or ts - kept[-1] >= window_s:
            kept.append(ts)
    return kept


def embed_text(memory_content: str, summary: str | None) -> str:
    return memory_content if not summary else f"{memory_content}\n\n{summary}"


def _file_key(path: Path) -> tuple[str, int, int] | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return str(path), stat.st_mtime_ns, stat.st_size


def load_concepts_cached(cache: Path, user_file: str | None):
    """The concept expander, from a pickle beside the index when the maps it was built
    from are unchanged: parsing 546 YAML groups and building the matcher costs a
    one-shot CLI search ~0.1-0.2 s, unpickling ~5 ms. Any problem: build it afresh."""
    import pickle

    from . import concepts
    from .concepts import ConceptExpander

    builtin = Path(concepts.__file__).with_name("data") / "concepts.yaml"
    key = (__import__("palace").__version__, _file_key(builtin),
           _file_key(Path(user_file).expanduser()) if user_file else None)
    try:
        with open(cache, "rb") as handle:
            saved_key, expander = pickle.load(handle)
        if saved_key == key and isinstance(expander, ConceptExpander):
            return expander
    except Exception:  # missing, stale format, corrupt: rebuild below
        pass
    expander = ConceptExpander.load(user_file)
    try:
        tmp = cache.with_name(f".{cache.name}.{os.getpid()}.tmp")
        with open(tmp, "wb") as handle:
            pickle.dump((key, expander), handle, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, cache)
    except OSError:
        pass  # a read-only palace still searches, just without the cache
    return expander


@dataclass
class DecayReport:
    now: datetime
    threshold: float
    checked: int = 0
    archived: list[str] = field(default_factory=list)
    pinned: int = 0
    dry_run: bool = False
    scores: dict[str, float] = field(default_factory=dict)  # the archived ones

    def to_dict(self) -> dict[str, Any]:
        return {"now": self.now.isoformat(), "threshold": self.threshold, "checked": self.checked,
                "archived": list(self.archived), "archived_count": len(self.archived),
                "pinned": self.pinned, "dry_run": self.dry_run,
                "scores": {k: round(v, 4) for k, v in self.scores.items()}}


class MemoryPalaceManager:
    def __init__(self, workspace_dir: str | os.PathLike | None = None, *,
                 settings: Settings | None = None, embedder: Any = _UNSET, sync: bool = True,
                 inprocess_vectors: bool = True):
        settings = settings or Settings.from_env()
        if workspace_dir is not None:
            settings = settings.replace(workspace_dir=str(workspace_dir))
        self.settings = settings
        self.tz = resolve_timezone(settings.timezone)
        self.storage = FileStorage(settings.workspace, self.tz)
        self.storage.ensure()
        self.root = self.storage.root
        self.index = Index(self.root / INDEX_DIR / INDEX_FILE)
        self.journal_path = journal_path(self.root)
        self.decay_params = decay_model.DecayParams.from_settings(settings)
        self._embedder = embedder
        # The CLI passes False: it must never load torch itself (the sidecar may).
        self._inprocess_vectors = inprocess_vectors
        self._embedder_error: str | None = None
        self._vectors = VectorStore(self.index)
        self._time_reasoner = None
        self._expander = None
        self._experiences = None
        self.last_sync: SyncReport | None = None
        self._lock_depth = 0
        if sync:
            self.sync(full=None)
        self._catch_up_journal()

    # ------------------------------------------------------------------ plumbing

    def close(self) -> None:
        self.index.close()

    def __enter__(self) -> "MemoryPalaceManager":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _now(self) -> datetime:
        return datetime.now(self.tz).replace(microsecond=0)

    def _coerce_now(self, now: Any) -> datetime:
        return self._now() if now is None else coerce_datetime(now, tz=self.tz, what="now")

    @contextmanager
    def _locked(self) -> Iterator[None]:
        """Serialise writers across processes (an agent and a person's CLI)."""
        if self._lock_depth:  # re-entrant: flock on a second handle would deadlock us
            self._lock_depth += 1
            try:
                yield
            finally:
                self._lock_depth -= 1
            return
        lock_path = self.root / INDEX_DIR / "write.lock"
        with open(lock_path, "a+") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            self._lock_depth = 1
            try:
                yield
            finally:
                self._lock_depth = 0
                fcntl.flock(handle, fcntl.LOCK_UN)

    @property
    def embedder(self):
        if self._embedder is _UNSET:
            from .embedders import make_embedder

            try:
                self._embedder = make_embedder(self.settings, allow_inprocess=self._inprocess_vectors)
            except Exception as exc:  # a broken install must not break keyword search
                self._embedder = None
                self._embedder_error = f"vectors unavailable ({exc}); keyword search only"
        return self._embedder

    @property
    def time_reasoner(self):
        if self._time_reasoner is None:
            from .time_reasoning import TimeReasoner

            self._time_reasoner = TimeReasoner()
        return self._time_reasoner

    @property
    def concept_expander(self):
        if self._expander is None:
            self._expander = load_concepts_cached(self.root / INDEX_DIR / "concepts.pickle",
                                                  self.settings.concepts_file)
        return self._expander

    @property
    def experiences(self):
        if self._experiences is None:
            from .experiences import ExperienceManager

            self._experiences = ExperienceManager(self)
        return self._experiences

    # ------------------------------------------------------------------ indexing files

    def _index_memory(self, memory: Memory, path: Path, raw: bytes | None = None,
                      stat: os.stat_result | None = None) -> None:
        if raw is None or stat is None:
            raw = path.read_bytes()
            stat = path.stat()
        text = embed_text(memory.content, memory.summary)
        body = index_text(" ".join([memory.content, memory.summary or "", " ".join(memory.tags)]))
        relpath = str(path)[len(str(self.root)) + 1:].replace(os.sep, "/")
        self.index.upsert(memory, relpath=relpath, body_tokens=body,
                          content_hash=_hash_text(text),
                          file_hash=hashlib.blake2b(raw, digest_size=16).hexdigest(),
                          mtime_ns=stat.st_mtime_ns, size=stat.st_size)

    def _index_file(self, rel: str, disk: dict[str, tuple[int, int]], report: SyncReport) -> None:
        path = self.root / rel
        info = self.index.file_info(rel)
        try:
            memory, raw, stat = self.storage.read_with_raw(path, location=self.storage.location_of(rel))
        except MemoryFileError as exc:
            if info is not None and not path.exists():
                return  # vanished while we looked: the removal pass handles it

            self.index.record_problem(rel, exc.reason)
            report.errors.append((str(path), exc.reason))
            return
        if info is not None and hashlib.blake2b(raw, digest_size=16).hexdigest() == info["file_hash"]:
            self.index.touch_file(rel, stat.st_mtime_ns, stat.st_size)  # touched, not changed
            report.unchanged += 1
            return
        if memory.status == "deleted":
            # a trashed copy dropped into a room by hand: treat it as restored
            memory = replace(memory, status="active")
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
        self._index_memory(memory, path, raw, stat)

    def sync(self, *, full: bool | None = True) -> SyncReport:
        """Bring the index in line with the files (added, edited, moved, removed by hand).

        ``full=None`` (used on open): on palaces above QUICK_SYNC_ABOVE memories, only
        the room folders whose mtime changed are rescanned.
        """
        report = SyncReport()
        if self.index.postings_stale():  # a bulk load died half-way: finish it
            with self._locked():
                if self.index.postings_stale():
                    self.index.finish_bulk()
        if full is None and self.index.count() > QUICK_SYNC_ABOVE:
            with self._locked():
                changed = self._changed_room_dirs()
                if changed is None:
                    full = True
                elif changed:
                    self._sync_rooms(changed, report)
            if not full:
                self.last_sync = report
                return report
        with self._locked():
            disk = {rel: (mtime, size) for rel, mtime, size in self.storage.scan()}
            indexed = self.index.file_stats()
            problems = {path for path, _ in self.index.problems()}
            self._apply_plan(disk, indexed, report)
            for rel in problems - set(disk):
                self.index.remove_path(rel)  # a bad file that was fixed by deleting it
            self.index.set_room_dirs(dict(self.storage.room_dirs()))
            self.index.set_meta("last_full_scan", str(time.time()))
        # (the vector cache follows the index's versions by itself)
        self.last_sync = report
        return report

    def _apply_plan(self, disk: dict[str, tuple[int, int]], indexed: dict[str, tuple[int, int]],
                    report: SyncReport) -> None:
        plan = plan_sync(disk, indexed)
        report.unchanged += plan.unchanged
        to_read = list(plan.new) + list(plan.changed)
        # one transaction per batch, not per file: a rebuild of 100k files would
        # otherwise spend most of its time committing
        # many files at once (a rebuild, a folder copied in): pack the keyword
        # postings once at the end instead of folding deltas as they grow
        if len(to_read) > SYNC_BATCH:
            self.index.begin_bulk()
        try:
            for start in range(0, len(to_read), SYNC_BATCH):
                with self.index.write():
                    for rel in to_read[start:start + SYNC_BATCH]:
                        self._index_file(rel, disk, report)
        finally:
            if self.index.bulk:
                self.index.finish_bulk()
        with self.index.write():
            for rel in plan.removed:
                gone = self.index.remove_path(rel)
                if gone is not None:
                    report.removed.append(gone)

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
                if os.stat(os.path.join(self.root, rel) if rel else self.root).st_mtime_ns != mtime:
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
            folder = os.path.join(self.root, rel) if rel else str(self.root)
            try:
                dirs[rel] = os.stat(folder).st_mtime_ns
                entries = list(os.scandir(folder))
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
        indexed = {path: stat for path, stat in self.index.file_stats_in(scope).items()}
        self._apply_plan(disk, indexed, report)
        with self.index.write() as conn:
            for rel in rooms:
                if rel not in dirs:
                    conn.execute("DELETE FROM room_dirs WHERE rel = ?", (rel,))
            conn.executemany("INSERT OR REPLACE INTO room_dirs VALUES (?, ?)", dirs.items())

    def _remember_room_dir(self, folder: Path) -> None:
        """After our own write, record the folder's new mtime so the next process's
        quick check does not mistake our write for a hand edit."""
        try:
            rel = "" if folder == self.root else folder.relative_to(self.root).as_posix()
            mtime = folder.stat().st_mtime_ns
        except (OSError, ValueError):
            return
        with self.index.write() as conn:
            conn.execute("INSERT OR REPLACE INTO room_dirs VALUES (?, ?)", (rel, mtime))
            parent = folder.parent
            while parent != self.root.parent and self.root in (parent, *parent.parents):
                prel = "" if parent == self.root else parent.relative_to(self.root).as_posix()
                conn.execute("INSERT OR REPLACE INTO room_dirs VALUES (?, ?)",
                             (prel, parent.stat().st_mtime_ns))
                if parent == self.root:
                    break
                parent = parent.parent

    def reindex(self, *, vectors: bool = False) -> SyncReport:
        """Rebuild the index from the files and the journal. Vectors whose text did not
        change are kept (keyed by content hash); ``vectors=True`` also embeds every
        memory missing a vector for the current model."""
        with self._locked():
            self.index.clear_memories()
        report = self.sync(full=True)
        self._catch_up_journal()
        self.index.prune_orphan_vectors()
        self._vectors.invalidate()
        if vectors:
            embedder = self.embedder
            if embedder is None:
                raise EmbedderUnavailableError(
                    self._embedder_error or "no embedder configured: set MEMORY_VECTOR_MODEL and "
                    "install palace[vector], or point MEMORY_VECTOR_SERVICE_URL at a running sidecar")
            self._vectors.backfill(embedder, batch_size=self.settings.vector_batch_size)
        return report

    def _catch_up_journal(self) -> int:
        """Fold journal lines this index has not seen into its access table."""
        with self.index.write():
            offset = int(self.index.get_meta("journal_offset", "0") or 0)
            events, new_offset, _skipped = read_events(self.journal_path, offset)
            if new_offset < offset:  # journal replaced: refold from scratch
                self.index.clear_accesses()
            if events:
                self.index.add_accesses(
                    (memory_id, event.at.timestamp(), event.kind)
                    for event in events for memory_id in event.ids)
            if new_offset != offset:
                self.index.set_meta("journal_offset", str(new_offset))
            return len(events)

    def record_access(self, ids: Sequence[str], *, at: datetime | None = None,
                      kind: str = "access") -> None:
        """Count these memories as used at ``at`` (reinforcing them against decay)."""
        if not ids:
            return
        append_access(self.journal_path, list(ids), self._coerce_now(at), kind)
        self._catch_up_journal()

    # ------------------------------------------------------------------ reading rows

    def _decay_info(self, rows: Sequence[Any], now: datetime) -> dict[str, tuple[float, int, datetime | None]]:
        ids = [row["id"] for row in rows]
        times = self.index.access_times(ids)
        info = {}
        params = self.decay_params
        now_ts = now.timestamp()
        for row in rows:
            # accesses before creation belong to an earlier memory that had this id
            stamps_ts = [ts for ts in collapse_bursts(times.get(row["id"], [])) if ts >= row["created_ts"]]
            pinned = decay_model.is_pinned(row["importance"], bool(row["pinned"]))
            if not stamps_ts and not pinned and params.enabled:
                # never used: the curve from creation, R = exp(-Δt/S0), without
                # building datetimes (this runs for every search candidate)
                days = max(0.0, now_ts - row["created_ts"]) / 86400.0
                score = math.exp(-days / decay_model.initial_stability_days(row["importance"], params))
                info[row["id"]] = (score, 0, None)
                continue
            stamps = [datetime.fromtimestamp(ts, self.tz) for ts in stamps_ts]
            created = datetime.fromisoformat(row["created_at"])
            score = decay_model.current_score(created, row["importance"], stamps, now,
                                              params, pinned=bool(row["pinned"]))
            info[row["id"]] = (score, len(stamps), stamps[-1] if stamps else None)
        return info

    def _rows_to_memories(self, rows: Sequence[Any], now: datetime | None = None) -> list[Memory]:
        now = now or self._now()
        info = self._decay_info(rows, now)
        return [row_to_memory(row, self.root, decay_score=info[row["id"]][0],
                              access_count=info[row["id"]][1], last_accessed_at=info[row["id"]][2])
                for row in rows]

    def _fresh_row(self, memory_id: str):
        """The index row, re-read from the file first if the file changed by hand."""
        row = self.index.row_by_id(memory_id)
        if row is None:
            return None
        path = self.root / row["path"]
        try:
            stat = path.stat()
        except FileNotFoundError:
            # moved or removed by hand while we were open: a sync finds out which.
            # Both change their folders' mtimes, so on a large palace the quick
            # sync (changed rooms only) is enough; a full one only if it was not.
            self.sync(full=None)
            row = self.index.row_by_id(memory_id)
            if row is not None and not (self.root / row["path"]).exists():
                self.sync(full=True)
                row = self.index.row_by_id(memory_id)
            return row
        if (stat.st_mtime_ns, stat.st_size) != (row["mtime_ns"], row["size"]):
            report = SyncReport()
            with self._locked():
                self._index_file(row["path"], {row["path"]: (stat.st_mtime_ns, stat.st_size)}, report)
            row = self.index.row_by_id(memory_id)
        return row

    def _read_file_memory(self, memory_id: str) -> Memory:
        row = self._fresh_row(memory_id)
        if row is None:
            hint = ("it is in the trash: `palace restore " + memory_id + "`"
                    if self.storage.trash_path(memory_id).exists() else "")
            raise MemoryNotFoundError(memory_id, hint)
        return self.storage.read(self.root / row["path"])

    # ------------------------------------------------------------------ public API

    def store(self, content: str, *, tags: Sequence[str] = (), importance: float = 0.5,
              location: str = "general", type: str = "fact", source: str = "manual",
              summary: str | None = None, created_at: Any = None, id: str | None = None,
              pinned: bool = False, extra: dict[str, Any] | None = None) -> Memory:
        limit = self.settings.max_content_bytes
        text = validate_content(content, max_bytes=limit)
        memory_summary = validate_summary(summary, max_bytes=limit)
        tag_tuple = normalize_tags(tags)
        value = validate_importance(importance)
        room = normalize_location(location)
        memory_type = validate_word(type, "type")
        memory_source = validate_word(source, "source")
        now = self._now()
        created = coerce_datetime(created_at, tz=self.tz, what="created_at") if created_at else now
        with self._locked():
            if id is not None:
                memory_id = validate_id(id)
                if self.index.row_by_id(memory_id) is not None or self.storage.trash_path(memory_id).exists():
                    raise InvalidInputError(
                        f"a memory with id {memory_id!r} already exists; use update() to change it "
                        "or pick another id")
            else:
                memory_id = secrets.token_hex(8)
                while self.index.row_by_id(memory_id) is not None:
                    memory_id = secrets.token_hex(8)
            memory = Memory(id=memory_id, content=text, summary=memory_summary, tags=tag_tuple,
                            importance=value, status="active", location=room, type=memory_type,
                            source=memory_source, created_at=created, updated_at=now,
                            pinned=bool(pinned), extra=dict(extra or {}))
            path = self.storage.write(memory)
            self._index_memory(memory, path)
            self._remember_room_dir(path.parent)
        return replace(memory, path=path)

    def get(self, id: str, *, now: Any = None, record_access: bool = True) -> Memory | None:
        validate_id(id)
        row = self._fresh_row(id)
        if row is None:
            return None
        when = self._coerce_now(now)
        if record_access:
            self.record_access([id], at=when, kind="get")
        return self._rows_to_memories([row], when)[0]

    def update(self, id: str, **fields: Any) -> Memory:
        validate_id(id)
        unknown = set(fields) - UPDATABLE_FIELDS
        if unknown:
            raise InvalidInputError(
                f"cannot update {', '.join(sorted(unknown))}; updatable fields: "
                f"{', '.join(sorted(UPDATABLE_FIELDS))}")
        limit = self.settings.max_content_bytes
        with self._locked():
            memory = self._read_file_memory(id)
            changes: dict[str, Any] = {}
            if "content" in fields:
                changes["content"] = validate_content(fields["content"], max_bytes=limit)
            if "summary" in fields:
                changes["summary"] = validate_summary(fields["summary"], max_bytes=limit)
            if "tags" in fields:
                changes["tags"] = normalize_tags(fields["tags"])
            if "importance" in fields:
                changes["importance"] = validate_importance(fields["importance"])
            if "location" in fields:
                changes["location"] = normalize_location(fields["location"])
            if "type" in fields:
                changes["type"] = validate_word(fields["type"], "type")
            if "source" in fields:
                changes["source"] = validate_word(fields["source"], "source")
            if "pinned" in fields:
                changes["pinned"] = bool(fields["pinned"])
            if "created_at" in fields:
                changes["created_at"] = coerce_datetime(fields["created_at"], tz=self.tz, what="created_at")
            if "status" in fields:
                status = fields["status"]
                if status not in ("active", "archived"):
                    raise InvalidInputError(
                        f"status {status!r} cannot be set by update: use 'active' or 'archived' "
                        "(delete() moves a memory to the trash)")
                changes["status"] = status
            if "extra" in fields:
                extra = fields["extra"]
                if not isinstance(extra, dict):
                    raise InvalidInputError("extra must be a mapping of frontmatter keys to values")
                merged = dict(memory.extra)
                for key, value in extra.items():
                    if value is None:
                        merged.pop(key, None)
                    else:
                        merged[str(key)] = value
                changes["extra"] = merged
            updated = replace(memory, **changes, updated_at=self._now())
            old_path = memory.path
            new_path = self.storage.write(updated)
            if old_path is not None and old_path != new_path:
                self.storage.remove_file(old_path)
                if old_path.parent.exists():
                    self._remember_room_dir(old_path.parent)
            self._index_memory(updated, new_path)
            self._remember_room_dir(new_path.parent)
        return self._rows_to_memories([self.index.row_by_id(id)])[0]

    def delete(self, id: str) -> Memory:
        """Soft delete: the file moves to ``.trash/``; ``restore`` brings it back."""
        validate_id(id)
        with self._locked():
            memory = self._read_file_memory(id)
            trashed_path = self.storage.move_to_trash(memory, self._now())
            self.index.remove_id(id)
            if memory.path is not None and memory.path.parent.exists():
                self._remember_room_dir(memory.path.parent)
        return replace(memory, status="deleted", path=trashed_path)

    def restore(self, id: str, *, now: Any = None) -> Memory:
        """Bring a memory back from the trash, or an archived memory back to active."""
        validate_id(id)
        with self._locked():
            trashed = self.storage.read_trash(id)
            if trashed is None:
                row = self.index.row_by_id(id)
                if row is None:
                    raise MemoryNotFoundError(id, "it is neither in the trash nor archived")
                if row["status"] == "active":
                    raise InvalidInputError(f"memory {id!r} is already active")
                memory = self.storage.read(self.root / row["path"])
                restored = replace(memory, status="active", updated_at=self._now())
            else:
                if self.index.row_by_id(id) is not None:
                    raise InvalidInputError(
                        f"cannot restore {id!r}: a memory with that id exists again; delete or "
                        "rename it first")
                extra = {k: v for k, v in trashed.extra.items() if k != "deletedAt"}
                restored = replace(trashed, status="active", extra=extra, updated_at=self._now())
            path = self.storage.write(restored)
            self._index_memory(restored, path)
            self._remember_room_dir(path.parent)
            if trashed is not None:
                self.storage.trash_path(id).unlink(missing_ok=True)
        # bringing a memory back is a deliberate use of it: reinforce it, or the next
        # run_decay would archive it again at once
        self.record_access([id], at=self._coerce_now(now), kind="restore")
        return self._rows_to_memories([self.index.row_by_id(id)])[0]

    def list(self, *, location: str | None = None, tags: Sequence[str] | None = None,
             status: str | None = "active", type: str | None = None, limit: int | None = None,
             now: Any = None) -> list[Memory]:
        """Memories newest first. ``status=None`` or ``"all"`` lists active and archived."""
        if status in (None, "all"):
            statuses: tuple[str, ...] = ("active", "archived")
        elif status == "deleted":
            return self.list_trash()[:limit] if limit else self.list_trash()
        elif status in MEMORY_STATUSES:
            statuses = (status,)
        else:
            raise InvalidInputError(f"status must be one of active, archived, deleted, all; got {status!r}")
        if limit is not None and (not isinstance(limit, int) or limit < 0):
            raise InvalidInputError(f"limit must be a non-negative integer, got {limit!r}")
        filters = Filters(statuses=statuses, tags=normalize_tags(tags),
                          location=normalize_location(location) if location else None,
                          type=type)
        rows = self.index.list_rows(filters, limit=limit)
        return self._rows_to_memories(rows, self._coerce_now(now))

    def list_trash(self) -> list[Memory]:
        memories, _errors = self.storage.list_trash()
        return memories

    def empty_trash(self, *, older_than_days: float | None = None, now: Any = None) -> list[str]:
        """Delete trashed files for good (only those trashed ``older_than_days`` ago, if given)."""
        if older_than_days is not None and older_than_days < 0:
            raise InvalidInputError("older_than_days must be >= 0")
        with self._locked():
            return self.storage.empty_trash(older_than_days=older_than_days, now=self._coerce_now(now))

    def problems(self) -> list[tuple[str, str]]:
        """Files that could not be parsed: (path relative to the palace, reason)."""
        return self.index.problems()

    def stats(self) -> dict[str, Any]:
        data = self.index.stats()
        data["workspace"] = str(self.settings.workspace)
        data["palace"] = str(self.root)
        data["trash"] = len(self.list_trash())
        data["total"] = self.index.count()
        return data

    # ------------------------------------------------------------------ search

    def search(self, query: str, *, top_k: int = 10, now: Any = None,
               tags: Sequence[str] | None = None, location: str | None = None,
               type: str | None = None, include_archived: bool = False,
               start: Any = None, end: Any = None, record_access: bool = True,
               include_weak: bool = False) -> "SearchResults":
        """Best memories for ``query``, best first, each with its score explained.

        Time words in the query ("上周", "last Friday") name a period relative to
        ``now`` that ranks (MEMORY_TIME_FILTER=soft) or filters (strict) memories;
        ``start``/``end`` give an exact range (end exclusive). Results below the
        relevance floor are left out unless ``include_weak`` (then marked
        ``explanation.confidence == "weak"``). ``MEMORY_REINFORCE`` says which
        results count as accessed at ``now`` (weak ones never). The returned list
        also carries ``.notes`` and ``.time_range``, so an empty answer says why.
        The pipeline lives in ``palace.search``.
        """
        from .search import search

        return search(self, query, top_k=top_k, now=now, tags=tags, location=location, type=type,
                      include_archived=include_archived, start=start, end=end,
                      record_access=record_access, include_weak=include_weak)

    def embed_pending(self, *, limit: int | None = None) -> int:
        """Embed every memory that has no vector for the current model yet."""
        embedder = self.embedder
        if embedder is None:
            raise EmbedderUnavailableError(self._embedder_error or "no embedder configured")
        return self._vectors.backfill(embedder, limit=limit, batch_size=self.settings.vector_batch_size)

    # ------------------------------------------------------------------ decay

    def decay_scores(self, *, now: Any = None, statuses: Sequence[str] = ("active",)) -> dict[str, float]:
        when = self._coerce_now(now)
        rows = self.index.list_rows(Filters(statuses=tuple(statuses)))
        return {memory_id: value[0] for memory_id, value in self._decay_info(rows, when).items()}

    def run_decay(self, now: Any = None, *, dry_run: bool = False) -> DecayReport:
        """Archive active memories whose decay score is under the threshold.

        Archived files stay where they are (status ``archived``), are still found
        with ``include_archived=True`` and come back with ``restore``.
        """
        when = self._coerce_now(now)
        report = DecayReport(now=when, threshold=self.decay_params.archive_threshold, dry_run=dry_run)
        if not self.decay_params.enabled:
            return report
        rows = self.index.list_rows(Filters(statuses=("active",)))
        info = self._decay_info(rows, when)
        report.checked = len(rows)
        due = []
        for row in rows:
            if decay_model.is_pinned(row["importance"], bool(row["pinned"])):
                report.pinned += 1
                continue
            score = info[row["id"]][0]
            if decay_model.should_archive(score, self.decay_params):
                due.append(row["id"])
                report.scores[row["id"]] = score
        if dry_run:
            report.archived = due
            return report
        with self._locked():
            for memory_id in due:
                try:
                    memory = self._read_file_memory(memory_id)
                except (MemoryNotFoundError, MemoryFileError):
                    continue
                if memory.status != "active" or decay_model.is_pinned(memory.importance, memory.pinned):
                    continue  # pinned or changed by hand since the index last saw it
                archived = replace(memory, status="archived")
                path = self.storage.write(archived)
                self._index_memory(archived, path)
                report.archived.append(memory_id)
        return report

    @staticmethod
    def palace_root(workspace_dir: str | os.PathLike) -> Path:
        """Where the palace of a workspace lives, without creating it (opening a
        manager does): lets the CLI tell a mistyped --workspace from a palace."""
        return FileStorage(Path(workspace_dir).expanduser(), timezone.utc).root
