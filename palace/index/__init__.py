"""The derived index layer: SQLite rows, BM25 postings, vectors, and the sync that follows the files."""

from palace.index.database import (INDEX_DIR, INDEX_FILE, SCHEMA_VERSION, Filters, Index, file_digest,
                       row_to_memory)
from palace.index.sync import SyncPlan, SyncReport, Syncer, plan_sync
from palace.index.vectors import VectorStore

__all__ = ["INDEX_DIR", "INDEX_FILE", "SCHEMA_VERSION", "Filters", "Index", "SyncPlan", "SyncReport",
           "Syncer", "VectorStore", "file_digest", "plan_sync", "row_to_memory"]
