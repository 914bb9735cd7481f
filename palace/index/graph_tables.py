"""The entity graph's tables: derived, like postings, from each memory's frontmatter.

``entities`` holds every (entity key, memory) mention with the name as written and a
type when one was given; ``entity_aliases`` the aliases memories declare (alias key →
entity key); ``relations`` the triplets with their validity and the memory (row id)
stating them. A memory's rows are replaced on every upsert and dropped with it, so a
hand edit changes the graph at the next sync.
"""

from __future__ import annotations

import sqlite3
from typing import Any, Callable, Iterable, Sequence

from palace.index.rows import (EDGE_COLUMNS, MENTION_COLUMNS, RELATION_COLUMNS, EdgeRow, EntitySummaryRow,
                               GraphRows, MentionRow, RelationRow)

SCHEMA = """
CREATE TABLE IF NOT EXISTS entities (
    key TEXT NOT NULL, rid INTEGER NOT NULL, name TEXT NOT NULL, type TEXT,
    PRIMARY KEY (key, rid)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS entities_rid ON entities(rid);
CREATE TABLE IF NOT EXISTS entity_aliases (
    alias TEXT NOT NULL, key TEXT NOT NULL, rid INTEGER NOT NULL, PRIMARY KEY (alias, key, rid)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS entity_aliases_rid ON entity_aliases(rid);
CREATE TABLE IF NOT EXISTS relations (
    rid INTEGER NOT NULL, subject TEXT NOT NULL, predicate TEXT NOT NULL, object TEXT NOT NULL,
    predicate_text TEXT NOT NULL, valid_from REAL, valid_to REAL, purpose TEXT,
    extracted INTEGER NOT NULL DEFAULT 0, subject_text TEXT NOT NULL, object_text TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS relations_subject ON relations(subject);
CREATE INDEX IF NOT EXISTS relations_object ON relations(object);
CREATE INDEX IF NOT EXISTS relations_rid ON relations(rid);
"""
TABLES = ("entities", "entity_aliases", "relations")

# memory -> what the graph tables keep of it: see palace.graph.facts.graph_rows
GraphDeriver = Callable[[Any], GraphRows]


def write_rows(conn: sqlite3.Connection, rid: int, rows: GraphRows) -> None:
    drop_rows(conn, rid)
    entities, aliases, relations = rows
    conn.executemany("INSERT OR REPLACE INTO entities VALUES (?, ?, ?, ?)",
                     [(key, rid, name, type_) for key, name, type_ in entities])
    conn.executemany("INSERT OR IGNORE INTO entity_aliases VALUES (?, ?, ?)",
                     [(alias, key, rid) for alias, key in aliases])
    conn.executemany("INSERT INTO relations VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                     [(rid, *row) for row in relations])


def write_many(conn: sqlite3.Connection,
               items: Sequence[tuple[int, GraphRows]]) -> None:
    """``write_rows`` for many (rid, rows) at once, rids consecutive and ascending: one
    statement per table (the old rows of the whole range dropped by one)."""
    if not items:
        return
    first, last = items[0][0], items[-1][0]
    assert last - first == len(items) - 1, "write_many takes consecutive rids"
    for table in TABLES:
        conn.execute(f"DELETE FROM {table} WHERE rid BETWEEN ? AND ?", (first, last))
    conn.executemany("INSERT OR REPLACE INTO entities VALUES (?, ?, ?, ?)",
                     [(key, rid, name, type_) for rid, rows in items for key, name, type_ in rows[0]])
    conn.executemany("INSERT OR IGNORE INTO entity_aliases VALUES (?, ?, ?)",
                     [(alias, key, rid) for rid, rows in items for alias, key in rows[1]])
    conn.executemany("INSERT INTO relations VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                     [(rid, *row) for rid, rows in items for row in rows[2]])


def drop_rows(conn: sqlite3.Connection, rid: int) -> None:
    for table in TABLES:
        conn.execute(f"DELETE FROM {table} WHERE rid = ?", (rid,))


def clear(conn: sqlite3.Connection) -> None:
    for table in TABLES:
        conn.execute(f"DELETE FROM {table}")


def _marks(values: Sequence[Any]) -> str:
    return ",".join("?" * len(values))


def equivalent_keys(conn: sqlite3.Connection, keys: Iterable[str]) -> set[str]:
    """The keys and every key joined to them by a declared alias (either direction, to
    a fixed point: A alias of B, B alias of C → one entity)."""
    found = {key for key in keys if key}
    frontier = set(found)
    while frontier:
        marks = _marks(list(frontier))
        rows = conn.execute(f"SELECT alias, key FROM entity_aliases WHERE alias IN ({marks}) OR key IN ({marks})",
                            (*frontier, *frontier)).fetchall()
        new = {value for row in rows for value in row} - found
        found |= new
        frontier = new
    return found


def _typed(conn: sqlite3.Connection, make: Callable[[Iterable[Any]], Any], sql: str,
           params: Sequence[Any] = ()) -> list[Any]:
    """Rows of ``sql`` built by ``make`` (a NamedTuple's ``_make``) from plain tuples."""
    cursor = conn.cursor()
    cursor.row_factory = None  # the connection's sqlite3.Row would only be unpacked again
    return [make(row) for row in cursor.execute(sql, params)]


def relations_touching(conn: sqlite3.Connection, keys: Sequence[str], *,
                       as_subject_only: bool = False) -> list[RelationRow]:
    if not keys:
        return []
    marks = _marks(keys)
    where = f"r.subject IN ({marks})" if as_subject_only else f"(r.subject IN ({marks}) OR r.object IN ({marks}))"
    params = tuple(keys) if as_subject_only else (*keys, *keys)
    return _typed(conn, RelationRow._make, f"SELECT {RELATION_COLUMNS} FROM relations r JOIN memories m "
                  f"ON m.rid = r.rid WHERE {where} ORDER BY COALESCE(r.valid_from, m.created_ts), r.rid", params)


def mentions(conn: sqlite3.Connection, keys: Sequence[str]) -> list[MentionRow]:
    """Every memory mentioning one of ``keys``, once per key it names."""
    if not keys:
        return []
    return _typed(conn, MentionRow._make, f"SELECT {MENTION_COLUMNS} FROM entities e "
                  f"JOIN memories m ON m.rid = e.rid WHERE e.key IN ({_marks(keys)})", tuple(keys))


def entity_summary(conn: sqlite3.Connection, *, limit: int | None = None) -> list[EntitySummaryRow]:
    """Every entity key with one name, its type (if any memory gave one) and its mentions."""
    sql = ("SELECT key, MIN(name) AS name, MAX(type) AS type, COUNT(*) AS mentions FROM entities "
           "GROUP BY key ORDER BY mentions DESC, key")
    return _typed(conn, EntitySummaryRow._make, sql + (f" LIMIT {int(limit)}" if limit else ""))


def known_keys(conn: sqlite3.Connection, keys: Sequence[str]) -> set[str]:
    if not keys:
        return set()
    marks = _marks(keys)
    rows = conn.execute(f"SELECT key FROM entities WHERE key IN ({marks}) UNION "
                        f"SELECT alias FROM entity_aliases WHERE alias IN ({marks})", (*keys, *keys))
    return {row[0] for row in rows}


# The bounded walk (palace.graph.service.reach): one indexed lookup per entity and
# direction, newest relations first, so a hub entity (a city, a popular tool) costs
# ``per_key`` rows instead of all of its relations.
_EDGE_SQL = (f"SELECT {EDGE_COLUMNS} FROM relations r JOIN memories m ON m.rid = r.rid "
             "WHERE r.{side} = ? AND m.status = 'active' AND (? OR r.valid_to IS NULL OR r.valid_to > ?) "
             "ORDER BY r.rowid DESC LIMIT ?")


def edges_of(conn: sqlite3.Connection, keys: Sequence[str], *, now_ts: float, include_closed: bool,
             per_key: int) -> list[EdgeRow]:
    """Current relations (of active memories) touching each of ``keys``: at most
    ``per_key`` per key as subject and as many as object, newest first."""
    rows: list[EdgeRow] = []
    for side in ("subject", "object"):
        sql = _EDGE_SQL.format(side=side)
        for key in keys:
            rows.extend(_typed(conn, EdgeRow._make, sql, (key, int(include_closed), now_ts, per_key)))
    return rows


def mentions_of(conn: sqlite3.Connection, key: str, limit: int) -> list[MentionRow]:
    """At most ``limit`` memories mentioning ``key`` (newest rows first)."""
    return _typed(conn, MentionRow._make, f"SELECT {MENTION_COLUMNS} FROM entities e JOIN memories m "
                  "ON m.rid = e.rid WHERE e.key = ? ORDER BY e.rid DESC LIMIT ?", (key, limit))
