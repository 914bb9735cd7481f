"""The read path: index rows turned into memories with their decay (score, accesses),
the engines search uses (made on first use), search and recall over them, and a read
counted as a use in the access journal."""

from __future__ import annotations

import sqlite3
from datetime import datetime, tzinfo
from pathlib import Path
from typing import Any, Callable, Sequence

from palace.decay import DecayInfo, DecayParams, DecayReport, collapse_bursts, decay_info, plan_archive
from palace.errors import InvalidInputError, StorageError
from palace.index import Filters, row_to_memory
from palace.models import Memory, SearchResult, SearchResults
from palace.settings import Settings
from palace.validation import list_statuses, normalize_location, normalize_tags


def listing(location: str | None, tags: Sequence[str] | None, status: str | None, type: str | None) -> Filters:
    """The index filters of a listing (``status`` as in ``MemoryPalaceManager.list``)."""
    return Filters(statuses=list_statuses(status), tags=normalize_tags(tags),
                   location=normalize_location(location) if location else None, type=type)


def no_trash(status: str | None) -> None:
    if status == "deleted":
        raise InvalidInputError("status must be one of active, archived, all; got 'deleted'")


class Reader:
    def __init__(self, *, index: Any, vectors: Any, settings: Settings, tz: tzinfo, root: Path,
                 decay_params: DecayParams, concept_cache: Path | None, embedder: Callable[[], tuple[Any, str | None]]):
        """``concept_cache``: where the concept map is cached (None: Postgres keeps no local folder);
        ``embedder()``: the embedder, or None and why (the manager's ``Embedding``)."""
        self.index, self.vectors, self.settings, self.tz, self.root = index, vectors, settings, tz, root
        self.decay_params, self.concept_cache, self.embedder = decay_params, concept_cache, embedder
        self._time_reasoner: Any = None
        self._expander: Any = None

    def decay_info(self, rows: Sequence[Any], now: datetime) -> dict[str, DecayInfo]:
        times = self.index.access_times([row.id for row in rows])
        return decay_info(rows, times, now, self.decay_params, self.tz)

    def memories(self, rows: Sequence[Any], now: datetime) -> list[Memory]:
        info = self.decay_info(rows, now)
        return [row_to_memory(row, self.root, decay_score=info[row.id].score,
                              access_count=info[row.id].access_count,
                              last_accessed_at=info[row.id].last_accessed_at) for row in rows]

    def access_history(self, id: str) -> list[datetime]:
        row = self.index.row_by_id(id)
        if row is None:
            return []
        stamps = collapse_bursts(self.index.access_times([id]).get(id, []))
        return [datetime.fromtimestamp(ts, self.tz) for ts in stamps if ts >= row.created_ts]

    def decay_due(self, when: datetime, dry_run: bool) -> tuple[DecayReport, list[str]]:
        """A decay run's report so far and the active memories it would archive."""
        report = DecayReport(now=when, threshold=self.decay_params.archive_threshold, dry_run=dry_run)
        if not self.decay_params.enabled:
            return report, []
        rows = self.index.list_rows(Filters(statuses=("active",)))
        return report, plan_archive(rows, self.decay_info(rows, when), self.decay_params, report)

    # ------------------------------------------------------------------ search and recall

    @property
    def time_reasoner(self) -> Any:
        if self._time_reasoner is None:
            from palace.time_reasoning import TimeReasoner

            self._time_reasoner = TimeReasoner()
        return self._time_reasoner

    @property
    def concept_expander(self) -> Any:
        if self._expander is None:
            from palace.search.concepts import load_cached

            self._expander = load_cached(self.concept_cache, self.settings.concepts_file)
        return self._expander

    def search(self, query: str, when: datetime, **options: Any) -> SearchResults:
        """``palace.search`` over this palace's collaborators; ``options`` as in
        ``MemoryPalaceManager.search`` (accesses not counted here)."""
        from palace.search import SearchServices, search

        services = SearchServices(
            index=self.index, vectors=self.vectors, settings=self.settings,
            decay_params=self.decay_params, tz=self.tz, root=self.root,
            time_reasoner=lambda: self.time_reasoner, concept_expander=lambda: self.concept_expander,
            embedder=self.embedder)
        return search(services, query, now=when, **options)

    def reinforced(self, results: SearchResults) -> list[str]:
        """The results a search counts as used (MEMORY_REINFORCE; weak ones never)."""
        strong = [r.memory.id for r in results if r.explanation.confidence == "strong"]
        return {"returned": strong, "top": strong[:1], "used": []}[self.settings.reinforce]

    def recall(self, graph: Any, start: str | Sequence[str], depth: int, when: datetime, *,
               limit: int, include_superseded: bool) -> list[SearchResult]:
        from palace.graph.recall import recall_results

        reached = graph.recall(start, depth, now=when, include_superseded=include_superseded, limit=limit)
        by_rid = self.index.rows_by_rid([x.rid for x in reached])  # one query, not one per memory
        rows = {x.memory_id: row for x in reached if (row := by_rid.get(x.rid)) is not None
                and row.id == x.memory_id}
        return recall_results(reached, rows, self.decay_info(list(rows.values()), when), self.root)


class Uses:
    """Reads counted as uses in the access journal (they reinforce against decay)."""

    def __init__(self, syncer: Any, journal: Path, notes: list[str], read_only: Callable[[], bool]):
        self.syncer, self.journal, self.notes, self.read_only = syncer, journal, notes, read_only

    def record(self, ids: list[str], when: datetime, kind: str) -> None:
        """``MemoryPalaceManager.record_access`` of ids already checked."""
        try:
            self.syncer.record_access(self.journal, ids, when, kind)
        except (OSError, sqlite3.OperationalError) as exc:
            if not self.read_only():
                raise
            # a read on a read-only or full disk still answers; this use goes uncounted
            self.notes.append(f"access not recorded: {exc}")

    def count(self, record: Callable[..., None], ids: Sequence[str], when: datetime, kind: str) -> str | None:
        """Count a read as a use, by ``record`` (the manager's ``record_access``), when that
        can be written. A read never needs free space: on a full or read-only disk the use
        goes unrecorded and the note saying so (also in ``notes``) is returned, instead of
        failing the read."""
        try:
            record(ids, at=when, kind=kind)
        except StorageError as exc:
            note = f"this {kind} was not counted as a use (decay will not see it): {exc}"
            if note not in self.notes:  # a long-lived server: once, not once a search
                self.notes.append(note)
            return note
        return None
