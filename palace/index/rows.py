"""One memory's indexed fields, as both indexes return them (SQLite and Postgres).

Readers (search, decay, the manager) take attributes (``row.created_ts``), typed, not
column names. A NamedTuple is built straight from the database's tuple (no dict, no
``sqlite3.Row`` lookups by name): search reads thousands of rows per query.
"""

from __future__ import annotations

from typing import NamedTuple


class IndexRow(NamedTuple):
    rid: int  # the index's row id (postings, vectors and the graph tables point at it)
    id: str
    path: str  # relative to the palace root
    location: str
    type: str
    status: str
    source: str
    importance: float
    pinned: int  # 0 or 1, as stored
    created_ts: float
    updated_ts: float
    created_at: str  # ISO 8601, with its zone
    updated_at: str
    tags: str  # a JSON list
    summary: str | None
    content: str
    extra: str  # the frontmatter's other keys, a JSON object
    content_hash: str  # the vectors' key (models.embed_key)
    mtime_ns: int  # the file's, when indexed (0 where the database is the store)
    size: int


# the SELECT list both indexes read rows with, in IndexRow's order
ROW_COLUMNS = ", ".join(IndexRow._fields)
