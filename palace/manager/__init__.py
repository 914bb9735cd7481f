"""MemoryPalaceManager: the one object agents, the CLI, the sidecar and MCP talk to.

It wires the layers and holds the public API; the rules that span the layers live
beside it: ``writer`` (a write goes to the file first, then the index and the graph,
under its locks), ``reader`` (rows to memories with decay; a read counts as an access
in the journal, never in the file), ``embedding`` (vectors at write time),
``entity_graph`` (facts changed outside store), ``upkeep`` (opening, rebuild, doctor,
export and import). Search is ``palace.search`` over explicit collaborators.

Features built on top (experiences, context, summary, the OpenClaw provider) are
classes or functions that take a ``MemoryPalaceManager`` and use only its public
methods, never ``pm.index`` or ``pm.storage`` (those two attributes are the seam a
second backend replaces: see ``palace.index.backend``).
"""

from __future__ import annotations

import os
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, ContextManager, List, Sequence  # List: the class has a list() method

from palace.decay import DecayParams, DecayReport
from palace.errors import ConfigError, MemoryNotFoundError
from palace.text.chunking import chunk_text
from palace.backends import open_backend
from palace.backends.transfer import TransferReport
from palace.index import Filters, SyncReport
from palace.graph.service import GraphService
from palace.store.journal import journal_path
from palace.models import Memory, SearchResult, SearchResults
from palace.settings import Settings
from palace.manager.entity_graph import FactChanges, open_graph
from palace.manager.embedding import UNSET, Embedding
from palace.manager.reader import Reader, Uses, listing, no_trash
from palace.manager import upkeep
from palace.manager.writer import GraphDeriver, Writer, writes as _writes
from palace.store.files import FileStorage, text_lines
from palace.validation import (check_updatable, coerce_datetime, coerce_days, list_statuses, resolve_timezone,
                               validate_count, validate_id)


class MemoryPalaceManager:
    def __init__(self, workspace_dir: str | os.PathLike | None = None, *,
                 settings: Settings | None = None, embedder: Any = UNSET, sync: bool = True,
                 inprocess_vectors: bool = True):
        settings = settings or Settings.from_env()
        if workspace_dir is not None:
            settings = settings.replace(workspace_dir=str(workspace_dir))
        self.settings = settings
        self.tz = resolve_timezone(settings.timezone)
        self.notes: list[str] = []  # what opening had to repair or could not do
        # MEMORY_BACKEND: local files or Postgres
        deriver = GraphDeriver(self.tz)
        backend = open_backend(settings, self.tz, derive_graph=deriver, notes=self.notes)
        self.backend = backend.name
        self._opened = backend  # what differs by backend, as its methods (vectors, review queue)
        self.storage, self.index, self.syncer, self._lock = backend.storage, backend.index, backend.syncer, backend.lock
        self.root = self.storage.root
        self.journal_path = journal_path(self.root)
        self.decay_params = DecayParams.from_settings(settings)
        self._vectors = backend.vectors(chunk_text)
        # The CLI passes inprocess_vectors=False: it must never load torch itself (the sidecar may).
        self._embedding = Embedding(settings, self._vectors, embedder, inprocess=inprocess_vectors)
        self._reader = Reader(index=self.index, vectors=self._vectors, settings=settings, tz=self.tz,
                              root=self.root, decay_params=self.decay_params, concept_cache=backend.cache_file("concepts.pickle"),
                              embedder=lambda: (self.embedder, self._embedding.error))
        self._experiences: Any = None
        self._graph: GraphService | None = None
        self._writer = Writer(storage=self.storage, index=self.index, syncer=self.syncer, lock=self._lock,
                              settings=settings, tz=self.tz, deriver=deriver, now=self.now,
                              graph=lambda: self.graph, record_access=self.record_access)
        self._facts = FactChanges(graph=lambda: self.graph, read=lambda i: self.get(i, record_access=False),
                                  now=self.now, tz=self.tz, notes=self.notes)
        self._uses = Uses(self.syncer, self.journal_path, self.notes, lambda: self.read_only)
        self.read_only = False
        self.read_only = upkeep.settle_on_open(backend.keeps_files, self.storage, self.index, self.syncer,
                                               self.journal_path, self.notes,
                                               sync=(lambda: self.sync(full=None)) if sync else None)

    # ------------------------------------------------------------------ plumbing

    def close(self) -> None:
        self.index.close()

    def __enter__(self) -> "MemoryPalaceManager":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def now(self, value: Any = None) -> datetime:
        """``value`` as an aware datetime in the palace's zone; the clock when None."""
        if value is None:
            return datetime.now(self.tz).replace(microsecond=0)
        return coerce_datetime(value, tz=self.tz, what="now")

    def write_lock(self) -> ContextManager[object]:
        """Serialise writers across processes (an agent and a person's CLI); re-entrant,
        so a feature can read, change and write a memory under one lock."""
        return self._lock

    @property
    def last_sync(self) -> SyncReport | None:
        return self.syncer.last

    @property
    def embedder(self):
        return self._embedding.embedder

    @property
    def time_reasoner(self):
        return self._reader.time_reasoner

    @property
    def concept_expander(self):
        return self._reader.concept_expander

    @property
    def experiences(self) -> Any:
        # The one arrow up to a feature (README's public API). Handing ``self`` to it is where
        # mypy checks the manager against palace.features.palace_api.Palace.
        if self._experiences is None:
            from palace.features.experiences import ExperienceManager

            self._experiences = ExperienceManager(self)
        return self._experiences

    @property
    def graph(self) -> GraphService:
        """The entity graph (``palace.graph``): history, review queue, entity merges."""
        if not self.index.supports_graph:
            raise ConfigError("the entity graph (recall, history, review, entity merge) is not "
                              "kept by this backend")
        if self._graph is None:
            self._graph = open_graph(self._opened, self.index, self.root, self.tz, self.settings.scope,
                                     read=lambda i: self.get(i, record_access=False), update=self.update,
                                     lock=lambda i: self._writer.memory_lock(f"id:{i}"))
        return self._graph

    def capture_state(self, folder: Path) -> Any:
        """Live capture's waiting events and sessionKey map (``palace.backends.capture_state``):
        files under ``folder`` locally, shared rows in Postgres, in this client's scope."""
        return self._opened.capture_state(folder, self.settings.scope)

    def agent_roles(self) -> Any:
        """Postgres: make, list and drop one database role per agent, bound by the database
        to that agent's scopes (``palace agent``; docs/backends.md). Local: a ConfigError."""
        return self._opened.agent_roles(self.settings)

    # ------------------------------------------------------------------ files and index

    @_writes
    def sync(self, *, full: bool | None = True) -> SyncReport:
        """Bring the index in line with the files (added, edited, moved, removed by hand);
        ``full=None``: on a large palace only the rooms whose folder changed.

        Facts added or edited by hand then go through the same supersession rule as
        ``store`` (``GraphService.apply_changes``): a hand-written fact that retires an
        older one closes it, an uncertain pair is queued for review, and a fact removed
        by hand gives back what it had retired. Pairs already decided are not decided
        again, so syncing the same files twice changes nothing."""
        report = self.syncer.sync(full=full)
        if self.index.supports_graph and (report.added or report.updated or report.moved or report.removed):
            self._facts.after_sync(report, self.index, self.write_lock())
        return report

    @_writes
    def reindex(self, *, vectors: bool = False) -> SyncReport:
        """Rebuild the index from the files and the journal. Vectors whose text did not
        change are kept (keyed by content hash); ``vectors=True`` also embeds every
        memory missing a vector for the current model."""
        report = upkeep.rebuild(self.index, self.syncer, self.write_lock(), self.journal_path)
        self._vectors.invalidate()
        if vectors:
            self.embed_pending()
        return report

    def _rows_to_memories(self, rows: Sequence[Any], now: datetime | None = None) -> List[Memory]:
        return self._reader.memories(rows, now or self.now())

    # ------------------------------------------------------------------ public API

    @_writes
    def store(self, content: str, *, tags: Sequence[str] = (), importance: float = 0.5,
              location: str = "general", type: str = "fact", source: str = "manual",
              summary: str | None = None, created_at: Any = None, id: str | None = None,
              pinned: bool = False, extra: dict[str, Any] | None = None) -> Memory:
        now = self.now()
        memory = self._writer.new_memory(content, tags=tags, importance=importance, location=location, type=type,
                                         source=source, summary=summary, created_at=created_at, pinned=pinned,
                                         extra=extra, now=now)
        written = self._writer.store(memory, id, now)
        if not written.duplicate:
            self.embed_written()
        return written

    def get(self, id: str, *, now: Any = None, record_access: bool = True) -> Memory | None:
        validate_id(id)
        row = self.syncer.fresh_row(id)
        if row is None:
            return None
        when = self.now(now)
        if record_access:
            self._count_use([id], when, "get")
        return self._rows_to_memories([row], when)[0]

    @_writes
    def update(self, id: str, **fields: Any) -> Memory:
        validate_id(id)
        check_updatable(fields)
        row, changes = self._writer.update(id, fields)
        if "content" in changes or "summary" in changes:
            self.embed_written()
        return self._rows_to_memories([row])[0]

    @_writes
    def delete(self, id: str) -> Memory:
        """Soft delete: the file moves to ``.trash/``; ``restore`` brings it back."""
        return self._writer.delete(validate_id(id))

    def delete_many(self, ids: Sequence[str]) -> dict[str, Any]:
        """``delete`` each id (repeats once), like ``rm a b``: every id is checked first
        (a malformed one refuses them all), then the found ones go to the trash and the
        missing ones are reported. Returns ``{deleted: [Memory], missing: [id], errors:
        [why each is missing]}``."""
        return self._writer.delete_each([validate_id(memory_id) for memory_id in ids], self.delete)

    @_writes
    def restore(self, id: str, *, now: Any = None) -> Memory:
        """Bring a memory back from the trash, or an archived memory back to active."""
        validate_id(id)
        when = self.now(now)  # refused before anything is written
        return self._rows_to_memories([self._writer.restore(id, when)])[0]

    def list(self, *, location: str | None = None, tags: Sequence[str] | None = None,
             status: str | None = "active", type: str | None = None, limit: int | None = None,
             now: Any = None) -> List[Memory]:
        """Memories newest first. ``status=None`` or ``"all"`` lists active and archived."""
        if status == "deleted":
            return self.list_trash()[:limit] if limit else self.list_trash()
        list_statuses(status)  # a bad status is refused before a bad limit
        if limit is not None:
            validate_count(limit, "limit")
        filters = listing(location, tags, status, type)
        return self._rows_to_memories(self.index.list_rows(filters, limit=limit), self.now(now))

    def list_trash(self) -> List[Memory]:
        return self.storage.list_trash()[0]

    def in_trash(self, id: str) -> bool:
        return self.storage.in_trash(validate_id(id))

    def trashed_at(self, memory: Memory) -> datetime | None:
        """When a memory from ``list_trash`` was deleted (None if not recorded)."""
        return self.storage.deleted_at(memory)

    def text_lines(self, memory: Memory) -> tuple[int, int] | None:
        """The lines of a memory's file that hold its text (1-based, inclusive, below the
        frontmatter), for citations; None without a readable file (a database palace)."""
        return text_lines(memory.path, memory.content) if memory.path else None

    def not_found(self, id: str) -> MemoryNotFoundError:
        """The error for a missing id, saying whether (and how) it can be restored."""
        return MemoryNotFoundError(id, in_trash=self.in_trash(id))

    @_writes
    def empty_trash(self, *, older_than_days: float | None = None, now: Any = None) -> List[str]:
        """Delete trashed files for good (only those trashed ``older_than_days`` ago, if given)."""
        days = None if older_than_days is None else coerce_days(older_than_days)
        with self.write_lock():
            return self.storage.empty_trash(older_than_days=days, now=self.now(now))

    def count(self) -> int:
        """Memories in the index (active and archived)."""
        return self.index.count()

    def problems(self) -> List[tuple[str, str]]:
        """Files that could not be parsed: (path relative to the palace, reason)."""
        return self.index.problems()

    def tag_tree(self) -> List[dict[str, Any]]:
        """Hierarchical tags (``project/palace/search``) as a tree: each node's own count
        and the count with its descendants (a filter on a tag matches its descendants)."""
        from palace.graph.tags import tag_tree

        return tag_tree(self.index.tag_counts())

    def stats(self) -> dict[str, Any]:
        data = self.index.stats()
        data.update(workspace=str(self.settings.workspace), palace=str(self.root),
                    trash=len(self.list_trash()), total=self.index.count())
        return data

    # ------------------------------------------------------------------ search and accesses

    def search(self, query: str, *, top_k: int = 10, now: Any = None,
               tags: Sequence[str] | None = None, location: str | None = None,
               type: str | None = None, include_archived: bool = False,
               start: Any = None, end: Any = None, record_access: bool = True,
               include_weak: bool = True, injection: bool = False) -> SearchResults:
        """Best memories for ``query``, best first, each with its score explained.

        Time words in the query ("上周", "last Friday") name a period relative to
        ``now`` that ranks (MEMORY_TIME_FILTER=soft) or filters (strict) memories;
        ``start``/``end`` give an exact range (end exclusive). Each result carries
        ``explanation.confidence``, ``"strong"`` or ``"weak"``, with its reason
        (``explanation.reason``); weak results come after the strong ones, and
        ``include_weak=False`` leaves them out. ``injection=True`` judges at the
        precision-first operating point (the floors injection uses: get_context, the
        prompt hooks), so an unrelated prompt finds nothing strong. ``MEMORY_REINFORCE`` says which
        results count as accessed at ``now`` (weak ones never). The returned list
        also carries ``.notes`` and ``.time_range``, so an empty answer says why.
        The pipeline lives in ``palace.search``.
        """
        when = self.now(now)
        results = self._reader.search(query, when, top_k=top_k, tags=tags, location=location, type=type,
                                      include_archived=include_archived, start=start, end=end,
                                      include_weak=include_weak, injection=injection)
        if record_access:
            note = self._count_use(self._reader.reinforced(results), when, "search")
            if note:
                results.notes = (*results.notes, note)
        return results

    def recall(self, entities_or_query: str | Sequence[str], depth: int = 2, *, now: Any = None,
               limit: int = 20, include_superseded: bool = False) -> List[SearchResult]:
        """Memories reached through the entity graph from the named entities (a list) or
        the known entities a query names (a string), nearest first, each with its path."""
        when = self.now(now)
        results = self._reader.recall(self.graph, entities_or_query, depth, when, limit=limit,
                                      include_superseded=include_superseded)
        self._count_use([r.memory.id for r in results], when, "recall")
        return results

    @_writes
    def embed_pending(self, *, limit: int | None = None, seconds: float | None = None,
                      lock: Any = None, batch_size: int | None = None, pause: Any = None) -> int:
        """Embed the memories that have no vector for the current model yet, oldest first
        (all of them, or as many as ``limit`` / ``seconds`` allow: a memory is embedded
        whole or not at all). ``lock`` (a callable giving a context manager): held while
        the index is read or written, not while embedding. ``batch_size`` chunks a model
        call (default MEMORY_VECTOR_BATCH_SIZE); ``pause``, called before each: a background
        worker waits there for requests to end. Returns how many were embedded."""
        return self._embedding.pending(limit=limit, seconds=seconds, lock=lock, batch_size=batch_size, pause=pause)

    def writes_batched(self) -> ContextManager[None]:
        """Writes inside embed together when it ends (one model call for the batch, still
        bounded by MEMORY_VECTOR_TIMEOUT), not one by one: a capture of 200 events
        embedded its memories one call each, ~20 ms apiece."""
        return self._embedding.batched(self.embed_written)

    def embed_written(self) -> int:
        """Vectors at write time, so that no search ever embeds a memory: after a store or
        an edit, what has no vector yet is embedded for at most MEMORY_VECTOR_TIMEOUT
        (loading the model not counted). A memory too long for that (a 1 MB paste) waits
        for a background worker (the sidecar, the MCP server, the hook service) or
        ``palace reindex --vectors``; searches meanwhile find it by keywords and say
        how many memories wait. A failing embedder never fails the write."""
        return self._embedding.written(self.embed_pending)

    @_writes
    def record_access(self, ids: Sequence[str], *, at: Any = None, kind: str = "access") -> None:
        """Count these memories as used at ``at`` (reinforcing them against decay)."""
        if not ids:
            return
        self._uses.record([validate_id(i) for i in ids], self.now(at), kind)

    def _count_use(self, ids: Sequence[str], when: datetime, kind: str) -> str | None:
        return self._uses.count(self.record_access, ids, when, kind)

    @_writes
    def doctor(self, *, repair: bool = True, move_unreadable: bool = False,
               journal_max_bytes: int | None = None):
        """Find (and with ``repair``, fix) drift between files and index, orphaned
        vectors, leftover temp files, memories both live and in the trash, unreadable
        files (moved to .quarantine/ with ``move_unreadable``), an oversized journal.
        On Postgres: orphaned vectors (of every scope) only.
        Returns a ``palace.maintenance.doctor.DoctorReport`` (``.ok``, ``.findings``)."""
        return upkeep.doctor(self._opened.keeps_files, self.storage, self.index, self.syncer, self.write_lock(), repair=repair,
                             sync=lambda: self.sync(full=True), move_unreadable=move_unreadable, journal_max_bytes=journal_max_bytes)

    def access_times(self, ids: Sequence[str], *, kinds: Sequence[str] | None = None) -> dict[str, List[float]]:
        """Journalled access timestamps (POSIX seconds, oldest first) of these memories."""
        return self.index.access_times(list(ids), kinds=kinds)

    # ------------------------------------------------------------------ decay

    def decay_scores(self, *, now: Any = None, statuses: Sequence[str] = ("active",)) -> dict[str, float]:
        rows, when = self.index.list_rows(Filters(statuses=tuple(statuses))), self.now(now)
        return {memory_id: info.score for memory_id, info in self._reader.decay_info(rows, when).items()}

    @_writes
    def run_decay(self, now: Any = None, *, dry_run: bool = False) -> DecayReport:
        """Archive active memories whose decay score is under the threshold.

        Archived files stay where they are (status ``archived``), are still found
        with ``include_archived=True`` and come back with ``restore``.
        """
        report, due = self._reader.decay_due(self.now(now), dry_run)
        report.archived.extend(due if dry_run else self._writer.archive(due))
        return report

    # ------------------------------------------------------------------ export and import

    def export_tree(self, dest: str | os.PathLike) -> TransferReport:
        """Write the palace as the standard Markdown tree into ``dest`` (new or empty)."""
        return upkeep.export(self.storage, self.index, lambda: self.graph, self.write_lock(), Path(dest), self.tz)

    @_writes
    def import_tree(self, source: str | os.PathLike) -> TransferReport:
        """Load a Markdown tree (an export, or a local palace folder); idempotent."""
        report = upkeep.import_(self.storage, self.index, self.syncer, self.write_lock(), Path(source), self.tz,
                                graph=lambda: self.graph, after_import=self._facts.after_import)
        self._vectors.invalidate()
        return report

    @staticmethod
    def palace_root(workspace_dir: str | os.PathLike) -> Path:
        """Where the palace of a workspace lives, without creating it (opening a
        manager does): lets the CLI tell a mistyped --workspace from a palace."""
        return FileStorage(Path(workspace_dir).expanduser(), timezone.utc).root
    # ------------------------------------------------------------------ for the viewer

    def access_history(self, id: str) -> List[datetime]:
        """When this memory was used, as decay counts it: bursts within an hour merged,
        nothing from before its creation; oldest first. Empty for an unknown id."""
        return self._reader.access_history(validate_id(id))

    def list_page(self, *, offset: int = 0, limit: int = 50, location: str | None = None,
                  tags: Sequence[str] | None = None, status: str | None = "active",
                  type: str | None = None, now: Any = None) -> List[Memory]:
        """One page of ``list`` (newest first): ``limit`` memories from ``offset`` on,
        without reading the ones before it (``status`` as in ``list``, trash excluded)."""
        validate_count(offset, "offset")
        validate_count(limit, "limit")
        no_trash(status)
        rows = self.index.list_rows(listing(location, tags, status, type), limit=limit, offset=offset)
        return self._rows_to_memories(rows, self.now(now))

    def room_counts(self) -> dict[str, dict[str, int]]:
        """Memories per room and status, ``{room: {"active": n, "archived": m}}``
        (trash not included)."""
        return self.index.room_status_counts()

    def created_per_month(self, *, status: str | None = "all") -> dict[str, dict[str, int]]:
        """How many memories each room got per month of creation, ``{room: {"2026-03": n}}``;
        the month as written in the memory's own ``createdAt`` (its own offset)."""
        no_trash(status)
        return self.index.created_months(list_statuses(status))
