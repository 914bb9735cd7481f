"""``palace export`` / ``palace import``: a palace as the standard Markdown tree.

The tree is what the local backend keeps under ``<workspace>/memory/palace/``: one
``<room>/<id>.md`` per memory (rendered by ``palace.store.files.render_memory``, so an
export is byte-for-byte what the local backend would write), ``.trash/<id>.md`` for
trashed memories and the access journal; the manager adds the graph's review queue and
decision log (``review.json``, ``graph-decisions.json``: ``GraphService.export_records``). Either backend exports it and imports it,
so a team can snapshot a shared palace to git and a person can move between backends.

Import is idempotent: a memory whose Markdown is already stored as is, and an access
already recorded, are left alone; a memory that differs is replaced by the tree's.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from datetime import datetime, tzinfo
from pathlib import Path
from typing import Any, Iterator, Mapping

from palace.errors import InvalidInputError, MemoryFileError
from palace.index.database import Filters
from palace.store.journal import access_line, journal_path, read_events
from palace.models import Memory
from palace.store.atomic import atomic_write
from palace.store.files import TRASH_DIR, FileStorage, render_memory

ALL_STATUSES = ("active", "archived")


@dataclass
class TransferReport:
    written: list[str] = field(default_factory=list)
    unchanged: int = 0
    trashed: int = 0
    accesses: int = 0
    review_items: int = 0  # the graph's review queue (review.json) exported / added
    decisions: int = 0     # its log of pairs already decided (graph-decisions.json)
    errors: list[tuple[str, str]] = field(default_factory=list)  # (path, reason)

    def to_dict(self) -> dict[str, Any]:
        return {"written": len(self.written), "unchanged": self.unchanged, "trashed": self.trashed,
                "accesses": self.accesses, "review_items": self.review_items, "decisions": self.decisions,
                "errors": [{"path": p, "reason": r} for p, r in self.errors]}


def _tree(folder: Path, tz: tzinfo) -> FileStorage:
    """A ``FileStorage`` whose palace root is ``folder`` itself."""
    storage = FileStorage(folder, tz)
    storage.root = folder
    storage.trash = folder / TRASH_DIR
    return storage


def export_tree(storage: Any, index: Any, dest: Path, tz: tzinfo) -> TransferReport:
    dest = Path(dest)
    if dest.exists() and any(dest.iterdir()):
        raise InvalidInputError(f"{dest} is not empty: export into a new or empty folder")
    out = _tree(dest, tz)
    out.ensure()
    report = TransferReport()
    if hasattr(storage, "export_memories"):  # Postgres: the stored Markdown, streamed
        report.written.extend(storage.export_memories(dest))
    else:
        for row in index.list_rows(Filters(statuses=ALL_STATUSES)):
            memory = storage.read(storage.root / row.path)
            out.write(memory)
            report.written.append(memory.id)
    trashed, _errors = storage.list_trash()
    for memory in trashed:
        atomic_write(out.trash_path(memory.id), render_memory(memory))
        report.trashed += 1
    events: dict[tuple[float, str], list[str]] = {}
    for memory_id, ts, kind in index.all_accesses():
        events.setdefault((ts, kind), []).append(memory_id)
    lines = []
    for (ts, kind), ids in sorted(events.items()):
        lines.append(access_line(ids, datetime.fromtimestamp(ts, tz), kind))
        report.accesses += len(ids)
    if lines:  # one write for the whole journal (the lines append_access would write, in order)
        path = journal_path(dest)
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        atomic_write(path, "".join(lines))
    return report


def _memories_in(tree: FileStorage, report: TransferReport,
                 stored: Mapping[str, tuple[str, str]] | None = None) -> Iterator[Memory]:
    """The tree's memories. ``stored``: id → (MD5 of its Markdown, room) as the palace
    holds it; a file with those very bytes in that room is counted unchanged without
    being parsed (a second import of a million files reads them, and parses none)."""
    for rel, _mtime, _size in tree.scan():
        path = tree.root / rel
        try:
            raw, stat = tree.read_bytes(path)
            if stored is not None and stored.get(path.stem) == (hashlib.md5(raw).hexdigest(), tree.location_of(rel)):
                report.unchanged += 1
                continue
            yield tree.parse_bytes(path, raw, stat)
        except MemoryFileError as exc:
            report.errors.append((rel, exc.reason))


def import_tree(storage: Any, index: Any, syncer: Any, source: Path, tz: tzinfo) -> TransferReport:
    """Load the tree at ``source`` (call under the write lock)."""
    source = Path(source)
    if not source.is_dir():
        raise InvalidInputError(f"{source} is not a folder (give the palace folder of an export)")
    tree = _tree(source, tz)
    report = TransferReport()
    if hasattr(storage, "import_memories"):  # Postgres: COPY in batches, set-based, postings once
        stored = storage.stored_digests()
        written, unchanged = storage.import_memories(_memories_in(tree, report, stored), stored)
        report.written.extend(written)
        report.unchanged += unchanged
    for memory in () if hasattr(storage, "import_memories") else _memories_in(tree, report):
        row = index.row_by_id(memory.id)
        old = storage.read(storage.root / row.path) if row is not None else None
        if old is not None and render_memory(old) == render_memory(memory) and old.location == memory.location:
            report.unchanged += 1
            continue
        if storage.in_trash(memory.id):
            storage.discard_trash(memory.id)  # the tree says it is alive
        path = storage.write(memory)
        if old is not None and old.path is not None and old.path != path:
            storage.remove_file(old.path)
        syncer.index_memory(memory, path)
        syncer.remember_room_dir(path.parent)
        report.written.append(memory.id)
    trashed, errors = tree.list_trash()
    report.errors += [(str(e.path), e.reason) for e in errors]
    for memory in trashed:
        if index.row_by_id(memory.id) is not None:
            continue  # alive here: the live copy wins over a trashed one
        existing = storage.read_trash(memory.id)
        if existing is not None and render_memory(existing) == render_memory(memory):
            report.unchanged += 1
            continue
        deleted_at = storage.deleted_at(memory) or memory.updated_at
        extra = {k: v for k, v in memory.extra.items() if k != "deletedAt"}
        storage.move_to_trash(replace(memory, extra=extra, path=None), deleted_at)
        report.trashed += 1
    seen = set(index.all_accesses())
    events, _offset, _skipped = read_events(journal_path(source), 0)
    fresh: list[tuple[str, float, str]] = []
    for event in events:
        ids = [i for i in event.ids if (i, event.at.timestamp(), event.kind) not in seen]
        if ids:
            if hasattr(storage, "import_memories"):  # Postgres: all rows in one batch below
                fresh.extend((i, event.at.timestamp(), event.kind) for i in ids)
            else:
                syncer.record_access(journal_path(storage.root), ids, event.at, event.kind)
            seen.update((i, event.at.timestamp(), event.kind) for i in ids)
            report.accesses += len(ids)
    if fresh:
        index.add_accesses(fresh)
    return report
