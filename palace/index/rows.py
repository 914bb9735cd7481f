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


# ---------------------------------------------------------------------- the entity graph
# What both indexes return from their graph tables (palace.graph.service reads them by
# attribute). Each holds the columns its readers use, in the order of its SELECT list
# below, so a row is built straight from the database's tuple (``RelationRow._make``).


class RelationRow(NamedTuple):
    """One relation with the memory stating it (``relations_touching``)."""
    rid: int  # the stating memory's
    memory_id: str
    subject: str  # entity keys (palace.graph.normalise.entity_key)
    predicate_text: str  # as written
    object: str
    subject_text: str  # the ends as written
    object_text: str
    valid_from: float | None  # POSIX seconds; None: since always, or until now
    valid_to: float | None
    purpose: str | None
    extracted: int  # 1: read from the text, not declared in the frontmatter
    status: str  # the stating memory's


class EdgeRow(NamedTuple):
    """A current relation for the bounded walk (``graph_edges``): RelationRow's first columns."""
    rid: int
    memory_id: str
    subject: str
    predicate_text: str
    object: str
    subject_text: str
    object_text: str


class MentionRow(NamedTuple):
    """One memory naming one entity (``entity_mentions``, ``entity_mentions_of``)."""
    key: str
    rid: int
    memory_id: str
    name: str  # as that memory wrote it


class EntitySummaryRow(NamedTuple):
    """One entity over the whole palace (``entity_summary``)."""
    key: str
    name: str  # the least of the names memories wrote it as
    type: str | None  # the greatest type given, None when no memory gave one
    mentions: int  # memories naming it


# the SELECT lists both indexes read them with, from ``relations r JOIN memories m ON
# m.rid = r.rid`` and ``entities e JOIN memories m ON m.rid = e.rid``
EDGE_COLUMNS = "r.rid, m.id AS memory_id, r.subject, r.predicate_text, r.object, r.subject_text, r.object_text"
RELATION_COLUMNS = EDGE_COLUMNS + ", r.valid_from, r.valid_to, r.purpose, r.extracted, m.status"
MENTION_COLUMNS = "e.key, e.rid, m.id AS memory_id, e.name"

# What the index stores for one memory, derived from its frontmatter and text
# (palace.graph.facts.graph_rows), the VALUES written to the graph tables besides its rid:
EntityValues = tuple[str, str, str | None]  # key, name, type
AliasValues = tuple[str, str]  # alias key, entity key
# subject key, predicate key, object key, predicate as written, valid from and to (POSIX
# seconds), purpose, extracted (0 or 1), the subject and object as written
RelationValues = tuple[str, str, str, str, float | None, float | None, str | None, int, str, str]
GraphRows = tuple[list[EntityValues], list[AliasValues], list[RelationValues]]
