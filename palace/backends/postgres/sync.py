"""What the manager asks of ``Syncer``, for a database that is its own store of record.

There are no files to bring the index in line with: a write is indexed in the same
transaction (``PgStore.write``). ``sync(full=True)`` (``palace sync`` / ``reindex``)
re-derives every row's indexed columns and postings from its stored Markdown, which
is what a rebuild means here; accesses go straight into the ``accesses`` table.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any, ContextManager, Sequence

from palace.errors import MemoryFileError
from palace.index.sync import SyncReport
from palace.models import Memory
from palace.backends.postgres.database import PgIndex, PgStore
from palace.backends.postgres.postings import rebuild


class PgSyncer:
    def __init__(self, store: PgStore, index: PgIndex, lock: ContextManager[Any]):
        self.store, self.index, self.lock = store, index, lock
        self.last: SyncReport | None = None

    def index_memory(self, memory: Memory, path: Path, raw: bytes | None = None, stat: Any = None) -> None:
        """Nothing to do: ``PgStore.write`` indexed it in the same transaction."""

    def remember_room_dir(self, folder: Path) -> None:
        """Nothing to do: there are no room folders to watch."""

    def fresh_row(self, memory_id: str) -> Any:
        return self.index.row_by_id(memory_id)

    def sync(self, *, full: bool | None = True) -> SyncReport:
        report = SyncReport()
        # the quick sync (every open, every MCP call now and then) has nothing to check:
        # no files here. It reads nothing, not even the count (a scan: 0.15-3 s at 1M)
        if full:
            with self.lock, self.store.palace.connection() as conn:
                rows = conn.execute("SELECT id, path, location, terms FROM memories ORDER BY rid").fetchall()
            for row in rows:
                path = self.store.root / row["path"]
                try:
                    memory = self.store.read(path, location=row["location"])
                except MemoryFileError as exc:
                    report.errors.append((row["path"], exc.reason))
                    continue
                with self.lock:
                    self.store.write(memory)
                fresh = self.index.terms_of(memory.id)
                if fresh is not None and fresh != row["terms"]:
                    report.updated.append(memory.id)
                else:
                    report.unchanged += 1
            # and the keyword postings and BM25 counters packed afresh from the rows
            with self.lock, self.store.palace.connection() as conn, conn.transaction():
                rebuild(conn)
        self.last = report
        return report

    def catch_up_journal(self, journal: Path) -> int:
        """Nothing to fold: accesses are written to the database directly."""
        return 0

    def record_access(self, journal: Path, ids: Sequence[str], at: datetime, kind: str) -> None:
        self.index.add_accesses((memory_id, at.timestamp(), kind) for memory_id in ids)
