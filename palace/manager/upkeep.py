"""The manager's upkeep over its collaborators: what opening a palace settles, a rebuild
of the index, ``palace doctor``, export and import of the Markdown tree."""

from __future__ import annotations

from datetime import tzinfo
from pathlib import Path
import sqlite3
from typing import Any, Callable, ContextManager

from palace.errors import StorageError
from palace.maintenance.recovery import recover_after_crash
from palace.backends.transfer import TransferReport, export_tree, import_tree
from palace.index import SyncReport


def settle_on_open(keeps_files: bool, storage: Any, index: Any, syncer: Any, journal: Path, notes: list[str], *,
                   sync: Callable[[], Any] | None) -> bool:
    """What opening settles: the files changed meanwhile (``sync()``, the manager's, unless
    None), the journal's new lines, what killed writers left (their temp files, a memory
    both live and trashed). Returns whether the palace is read-only here, with a note."""
    try:
        if sync is not None:
            sync()
        syncer.catch_up_journal(journal)
        if keeps_files:  # the files' leftovers (Postgres writes are transactions)
            recover_after_crash(storage, index, notes)
    except (OSError, sqlite3.OperationalError, StorageError) as exc:
        # a read-only folder or a full disk: reads go on with the index as it is
        cause = exc.__cause__ if isinstance(exc, StorageError) and exc.__cause__ else exc
        notes.append(f"palace is read-only here ({cause}); reads use the index as last written")
        return True
    return False


def rebuild(index: Any, syncer: Any, lock: ContextManager[object], journal: Path) -> SyncReport:
    """``MemoryPalaceManager.reindex``'s rebuild, from the files and the journal."""
    # One lock and one transaction for the whole rebuild: other processes' writers
    # wait for it, and their readers see the old index until the new one commits
    # (WAL), so a rebuild is invisible to them; a rebuild that dies rolls back.
    with lock, index.write():
        index.clear_memories()
        # the files as they are: a rebuild derives, it does not re-apply supersession
        # (that is `palace sync`'s job for hand edits; store applies it at once)
        report = syncer.sync(full=True)
        syncer.catch_up_journal(journal)
        index.prune_orphan_vectors()
    return report


def doctor(keeps_files: bool, storage: Any, index: Any, syncer: Any, lock: ContextManager[object], *,
           sync: Callable[[], Any], repair: bool, move_unreadable: bool, journal_max_bytes: int | None) -> Any:
    """``MemoryPalaceManager.doctor``; ``sync()``: the manager's full sync (hand edits applied)."""
    from palace.maintenance.doctor import PalaceParts, examine, examine_database

    with lock:
        if not keeps_files:
            # one transactional store: no files to drift; orphaned vectors are checked
            return examine_database(index, repair=repair)
        parts = PalaceParts(storage, index, syncer, lock, sync=sync)
        return examine(parts, repair=repair, move_unreadable=move_unreadable, journal_max_bytes=journal_max_bytes)


def export(storage: Any, index: Any, graph: Callable[[], Any], lock: ContextManager[object], dest: Path,
           tz: tzinfo) -> TransferReport:
    with lock:
        report = export_tree(storage, index, dest, tz)
        # the decisions a person made in review travel with the memories
        report.review_items, report.decisions = graph().export_records(dest)
        return report


def import_(storage: Any, index: Any, syncer: Any, lock: ContextManager[object], source: Path, tz: tzinfo, *,
            graph: Callable[[], Any], after_import: Callable[[Any], None]) -> TransferReport:
    with lock:
        report = import_tree(storage, index, syncer, source, tz)
        if source.resolve() != storage.root.resolve():  # a palace's own files are already its own
            report.review_items, report.decisions = graph().import_records(source)
        if index.supports_graph and report.written:
            after_import(report.written)
    return report
