"""The write path: every change to a memory goes file first, then the index, the graph
and (later) the vectors, under the lock its memory needs.

``Writer`` holds the steps of ``store``, ``update``, ``delete``, ``restore`` and a decay
run's archiving, the locks (the backend's write lock, one memory's) and the
merge of a stored text that is already there. The manager validates the arguments,
calls one of these and turns the rows it gets back into memories; it embeds afterwards.
"""

from __future__ import annotations

import contextlib
import functools
import secrets
import sqlite3
from dataclasses import replace
from datetime import datetime, tzinfo
from pathlib import Path
from typing import Any, Callable, ContextManager, Iterator, Sequence

from palace.decay import is_pinned
from palace.errors import InvalidInputError, MemoryFileError, MemoryNotFoundError, storage_error
from palace.graph import graph_rows, read_facts
from palace.graph.extract import with_extracted
from palace.graph.facts import Entity, Relation, rows_of
from palace.index.rows import GraphRows
from palace.models import Memory
from palace.settings import Settings
from palace.validation import (coerce_datetime, normalize_location, normalize_tags, validate_changes,
                               validate_content, validate_flag, validate_id, validate_importance,
                               validate_summary, validate_word)



def writes(method: Any) -> Any:
    """A write's raw disk faults (``OSError``, ``sqlite3`` errors: a full disk, a read-only
    or immutable palace) leave it as palace's ``DiskFullError`` / ``ReadOnlyPalaceError``
    naming the method and what to do; other errors pass through unchanged. For methods
    of an object with a ``root`` (the palace folder the message names)."""
    @functools.wraps(method)
    def run(self: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except (OSError, sqlite3.Error) as exc:
            error = storage_error(exc, doing=f"{method.__name__}()", where=self.root)
            if error is None:
                raise
            raise error from exc
    return run


class GraphDeriver:
    """The graph rows the index keeps beside each memory, given to the backend as its
    ``derive_graph(memory)``. A store has read its memory's facts already (to check
    them and apply supersession): ``known`` hands those rows to the
    index for that memory object instead of having them read once more."""

    def __init__(self, tz: tzinfo):
        self.tz = tz
        self._known: dict[int, tuple[Memory, GraphRows]] = {}  # by id(memory): one per writing thread

    def __call__(self, memory: Memory) -> GraphRows:
        known = self._known.get(id(memory))
        if known is not None and known[0] is memory:
            return known[1]
        return graph_rows(memory.extra, memory.content, created_at=memory.created_at, tz=self.tz)

    @contextlib.contextmanager
    def known(self, memory: Memory, rows: GraphRows) -> Iterator[None]:
        self._known[id(memory)] = (memory, rows)
        try:
            yield
        finally:
            self._known.pop(id(memory), None)


class Writer:
    # how many of a new memory's terms are looked up to find an earlier copy of it
    DUPLICATE_PROBE_TERMS = 24

    def __init__(self, *, storage: Any, index: Any, syncer: Any, lock: ContextManager[object],
                 settings: Settings, tz: tzinfo, deriver: GraphDeriver, now: Callable[[], datetime],
                 graph: Callable[[], Any], record_access: Callable[..., None]):
        """``graph()``: the manager's GraphService (built on first use); ``record_access``:
        the manager's, which a restore calls (bringing a memory back is a use of it)."""
        self.storage, self.index, self.syncer, self.lock = storage, index, syncer, lock
        self.root: Path = storage.root
        self.settings, self.tz, self.deriver = settings, tz, deriver
        self.now, self.graph, self.record_access = now, graph, record_access

    # ------------------------------------------------------------------ locks

    def memory_lock(self, *names: str) -> ContextManager[object]:
        """The lock one memory's read-change-write needs. A backend whose lock can be
        taken per memory (Postgres: ``PgWriteLock.keyed``) lets writers of different
        memories run at once; otherwise (the local file lock) the whole write lock."""
        keyed = getattr(self.lock, "keyed", None)
        if keyed is None:
            return self.lock
        return keyed(*names)

    def store_lock(self, content: str, memory_id: str | None) -> ContextManager[object]:
        """A new memory's lock: its id, or (a fresh id) its normalised content, so two
        clients storing the same text at once still find each other's copy."""
        from palace.text.tokenize import duplicate_key

        if memory_id is not None:
            return self.memory_lock(f"id:{memory_id}")
        return self.memory_lock("content:" + duplicate_key(content))

    # ------------------------------------------------------------------ files and index

    def write(self, memory: Memory, *, old: Memory | None = None) -> Memory:
        """Write ``memory``'s file, drop ``old``'s if it moved, index it, note the folders."""
        path = self.storage.write(memory)
        if old is not None and old.path is not None and old.path != path:
            self.storage.remove_file(old.path)
            if old.path.parent.exists():
                self.syncer.remember_room_dir(old.path.parent)
        self.syncer.index_memory(memory, path)
        self.syncer.remember_room_dir(path.parent)
        return replace(memory, path=path)

    def read_file_memory(self, memory_id: str) -> Memory:
        row = self.syncer.fresh_row(memory_id)
        if row is None:
            raise MemoryNotFoundError(memory_id, in_trash=self.storage.in_trash(memory_id))
        return self.storage.read(self.root / row.path)

    # ------------------------------------------------------------------ store

    def new_memory(self, content: str, *, tags: Sequence[str], importance: float, location: str, type: str,
                   source: str, summary: str | None, created_at: Any, pinned: bool,
                   extra: dict[str, Any] | None, now: datetime) -> Memory:
        """The memory ``MemoryPalaceManager.store`` was asked to write, each field checked
        (its id ``"-"`` until ``store`` picks one). MEMORY_SCOPE, when not the default
        team, is written as its ``scope`` key (the postgres backend enforces it)."""
        limit = self.settings.max_content_bytes
        extra = dict(extra or {})
        if self.settings.scope != "team":
            extra.setdefault("scope", self.settings.scope)
        return Memory(
            id="-", content=validate_content(content, max_bytes=limit),
            summary=validate_summary(summary, max_bytes=limit), tags=normalize_tags(tags),
            importance=validate_importance(importance), status="active",
            location=normalize_location(location), type=validate_word(type, "type"),
            source=validate_word(source, "source"),
            created_at=now if created_at is None else coerce_datetime(created_at, tz=self.tz, what="created_at"),
            updated_at=now, pinned=validate_flag(pinned, "pinned"), extra=extra)

    def store(self, memory: Memory, id: str | None, now: datetime) -> Memory:
        """Write a new, validated ``memory`` (its id ``"-"``) as ``id`` or a fresh id, or
        merge its tags into the active memory holding the same text (``duplicate``)."""
        given = memory.extra
        if self.settings.graph_extract:
            memory = replace(memory, extra=with_extracted(memory.extra, memory.content, memory.tags))
        entities, relations = self._stated(memory, given)
        rows = rows_of(entities, relations)
        # No lock on the subjects a memory states facts about: after_store reads their facts
        # after this memory's row is committed, so of two stores about one subject at once
        # the later reader sees both facts, and the rule gives the same timeline whichever
        # applies it (supersede.decide: a fact arriving late is ended by the later one)
        with self.store_lock(memory.content, id):
            if id is not None:
                memory_id = validate_id(id)
                if self.index.row_by_id(memory_id) is not None or self.storage.in_trash(memory_id):
                    raise InvalidInputError(
                        f"a memory with id {memory_id!r} already exists; use `palace update` to "
                        "change it or pick another id")
            else:
                memory_id = secrets.token_hex(8)
                # one look for an earlier copy of the text and at the new id: one round
                # trip on Postgres, the lock's statement with it
                candidates = self.index.content_candidates(
                    memory.content, probe_terms=self.DUPLICATE_PROBE_TERMS, and_id=memory_id)
                existing = self._same_content(memory.content, candidates)
                if existing is not None:
                    return self._merge_duplicate(existing, memory.tags)
                taken = any(row.id == memory_id for row in candidates)
                while taken:
                    memory_id = secrets.token_hex(8)
                    taken = self.index.row_by_id(memory_id) is not None
            new = replace(memory, id=memory_id)
            with self.deriver.known(new, rows):
                written = self.write(new)
            if self.index.supports_graph:  # a new fact may retire older ones, or a later one end it
                if self.graph().after_store(written, now, stated=relations, fresh=id is None).ended_own:
                    written = self.read_file_memory(written.id)
        return written

    def _stated(self, memory: Memory, given: dict[str, Any]) -> tuple[list[Entity], list[Relation]]:
        """``memory``'s facts, read once for the whole store; a malformed one the caller
        wrote is an error. ``given``: the caller's own frontmatter, before extraction added
        to it: an extracted item palace cannot read is skipped, as it always was, and the
        caller's own items are what the error names."""
        try:
            return read_facts(memory.extra, memory.content, created_at=memory.created_at, tz=self.tz)
        except InvalidInputError:
            if given is memory.extra:  # nothing was extracted: the caller's own item is bad
                raise
        read_facts(given, memory.content, created_at=memory.created_at, tz=self.tz)  # the caller's: raises
        return read_facts(memory.extra, memory.content, created_at=memory.created_at, tz=self.tz, strict=False)

    @staticmethod
    def _same_content(content: str, rows: Sequence[Any]) -> Any:
        """Of ``rows``, the active memory whose content equals ``content`` once
        normalised (NFKC, case, runs of white space), or None. The index names the
        candidates (locally from the postings, on Postgres by the normalised content's digest)."""
        from palace.text.tokenize import normalize

        wanted = " ".join(normalize(content).split())
        for row in sorted(rows, key=lambda r: (r.created_ts, r.rid)):
            if row.status == "active" and " ".join(normalize(row.content).split()) == wanted:
                return row
        return None

    def _merge_duplicate(self, row: Any, tags: Sequence[str]) -> Memory:
        with self.memory_lock(f"id:{row.id}"):
            memory = self.read_file_memory(row.id)
            merged = tuple(dict.fromkeys([*memory.tags, *tags]))
            if merged != memory.tags:
                memory = self.write(replace(memory, tags=merged, updated_at=self.now()), old=memory)
        return replace(memory, duplicate=True)

    # ------------------------------------------------------------------ update, delete, restore

    def update(self, id: str, fields: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        """Change memory ``id``'s checked ``fields``; its index row, read back inside the
        lock (a rebuild or a delete by another process afterwards must not turn this
        successful update into an error), and the changes made."""
        with self.memory_lock(f"id:{id}"):
            memory = self.read_file_memory(id)
            changes = validate_changes(fields, extra=memory.extra, max_bytes=self.settings.max_content_bytes,
                                       tz=self.tz)
            self.write(replace(memory, **changes, updated_at=self.now()), old=memory)
            return self.index.row_by_id(id), changes

    def delete(self, id: str) -> Memory:
        """Soft delete: the file moves to ``.trash/``; ``restore`` brings it back."""
        with self.memory_lock(f"id:{id}"):
            memory = self.read_file_memory(id)
            trashed_path = self.storage.move_to_trash(memory, self.now())
            try:
                self.index.remove_id(id)
            except (OSError, sqlite3.Error):
                self._untrash(memory)  # a full disk: undone, not reported failed yet half done
                raise
            if memory.path is not None and memory.path.parent.exists():
                self.syncer.remember_room_dir(memory.path.parent)
        return replace(memory, status="deleted", path=trashed_path)

    @staticmethod
    def delete_each(ids: Sequence[str], delete: Callable[[str], Memory]) -> dict[str, Any]:
        """``MemoryPalaceManager.delete_many`` of checked ids, by ``delete`` (the manager's)."""
        deleted, missing, errors = [], [], []
        for memory_id in dict.fromkeys(ids):
            try:
                deleted.append(delete(memory_id))
            except MemoryNotFoundError as exc:
                missing.append(memory_id)
                errors.append(str(exc))
        return {"deleted": deleted, "missing": missing, "errors": errors}

    def _untrash(self, memory: Memory) -> None:
        """Put a memory just moved to the trash back as it was (its index row still there)."""
        self.storage.move_from_trash(memory)
        with contextlib.suppress(OSError):  # on a full disk its deletedAt was not written either
            self.storage.write(memory)

    def restore(self, id: str, when: datetime) -> Any:
        """Bring memory ``id`` back from the trash, or from archived; its index row."""
        with self.memory_lock(f"id:{id}"):
            trashed = self.storage.read_trash(id)
            if trashed is None:
                restored = self._unarchived(id)
            else:
                if self.index.row_by_id(id) is not None:
                    raise InvalidInputError(
                        f"cannot restore {id!r}: a memory with that id exists again; delete or "
                        "rename it first")
                extra = {k: v for k, v in trashed.extra.items() if k != "deletedAt"}
                restored = replace(trashed, status="active", extra=extra, updated_at=self.now())
                # the trash file itself moves back (one rename), then gets its new
                # frontmatter: a kill in between never leaves it both live and trashed
                self.storage.move_from_trash(restored)
            self.write(restored)
            # bringing a memory back is a deliberate use of it: reinforce it, or the
            # next run_decay would archive it again at once
            self.record_access([id], at=when, kind="restore")
            return self.index.row_by_id(id)

    def _unarchived(self, id: str) -> Memory:
        row = self.index.row_by_id(id)
        if row is None:
            raise MemoryNotFoundError(id, "it is neither in the trash nor archived")
        if row.status == "active":
            raise InvalidInputError(f"memory {id!r} is already active")
        memory = self.storage.read(self.root / row.path)
        return replace(memory, status="active", updated_at=self.now())

    # ------------------------------------------------------------------ decay

    def archive(self, due: Sequence[str]) -> list[str]:
        """Archive the memories a decay run found due, under the write lock; those that
        are gone, unreadable, pinned or changed by hand since the index saw them are
        skipped. Returns the ids archived."""
        archived_ids = []
        with self.lock:
            for memory_id in due:
                try:
                    memory = self.read_file_memory(memory_id)
                except (MemoryNotFoundError, MemoryFileError):
                    continue
                if memory.status != "active" or is_pinned(memory.importance, memory.pinned):
                    continue  # pinned or changed by hand since the index last saw it
                archived = replace(memory, status="archived")
                self.syncer.index_memory(archived, self.storage.write(archived))
                archived_ids.append(memory_id)
        return archived_ids
