"""The entity graph in Postgres: the same tables and queries as ``palace.index.graph_tables``.

``entities`` (every entity key a memory mentions, with its name and type),
``entity_aliases`` (alias key → entity key, as memories declare them) and
``relations`` (triplets with their validity and the memory stating them) are derived
from each memory's frontmatter in the transaction that writes it (``PgStore.write``
runs ``rows_statements``), and go with it (``ON DELETE CASCADE``). Each row carries its
memory's ``scope``, and the same row-level security as ``memories`` applies to it
(migration 3): an agent never learns another agent's private entities, aliases or
relations, not even by a raw query.

Ordering follows SQLite's: names compare as code points (``COLLATE "C"``), so both
backends list entities and break ties alike.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Sequence

from palace.index.rows import (EDGE_COLUMNS, MENTION_COLUMNS, RELATION_COLUMNS, EdgeRow, EntitySummaryRow,
                               GraphRows, MentionRow, RelationRow)

MIGRATION = """
CREATE TABLE entities (
    key TEXT NOT NULL, rid BIGINT NOT NULL REFERENCES memories (rid) ON DELETE CASCADE,
    scope TEXT NOT NULL, name TEXT NOT NULL, type TEXT, PRIMARY KEY (key, rid)
);
CREATE INDEX entities_rid ON entities (rid);
CREATE TABLE entity_aliases (
    alias TEXT NOT NULL, key TEXT NOT NULL, rid BIGINT NOT NULL REFERENCES memories (rid) ON DELETE CASCADE,
    scope TEXT NOT NULL, PRIMARY KEY (alias, key, rid)
);
CREATE INDEX entity_aliases_key ON entity_aliases (key);
CREATE INDEX entity_aliases_rid ON entity_aliases (rid);
CREATE TABLE relations (
    seq BIGSERIAL PRIMARY KEY,
    rid BIGINT NOT NULL REFERENCES memories (rid) ON DELETE CASCADE, scope TEXT NOT NULL,
    subject TEXT NOT NULL, predicate TEXT NOT NULL, object TEXT NOT NULL, predicate_text TEXT NOT NULL,
    valid_from DOUBLE PRECISION, valid_to DOUBLE PRECISION, purpose TEXT,
    extracted INTEGER NOT NULL DEFAULT 0, subject_text TEXT NOT NULL, object_text TEXT NOT NULL
);
CREATE INDEX relations_subject ON relations (subject);
CREATE INDEX relations_object ON relations (object);
CREATE INDEX relations_rid ON relations (rid);
ALTER TABLE entities ENABLE ROW LEVEL SECURITY;
ALTER TABLE entities FORCE ROW LEVEL SECURITY;
CREATE POLICY entities_scoped ON entities USING (palace_scope_visible(scope))
    WITH CHECK (palace_scope_visible(scope));
ALTER TABLE entity_aliases ENABLE ROW LEVEL SECURITY;
ALTER TABLE entity_aliases FORCE ROW LEVEL SECURITY;
CREATE POLICY entity_aliases_scoped ON entity_aliases USING (palace_scope_visible(scope))
    WITH CHECK (palace_scope_visible(scope));
ALTER TABLE relations ENABLE ROW LEVEL SECURITY;
ALTER TABLE relations FORCE ROW LEVEL SECURITY;
CREATE POLICY relations_scoped ON relations USING (palace_scope_visible(scope))
    WITH CHECK (palace_scope_visible(scope));
-- the review queue (facts palace was unsure about): shared like the memories it names,
-- visible to a client that may see both of them
CREATE TABLE review_items (
    seq BIGSERIAL PRIMARY KEY, id TEXT NOT NULL UNIQUE,
    old_memory TEXT NOT NULL, new_memory TEXT NOT NULL, old_scope TEXT NOT NULL, new_scope TEXT NOT NULL,
    old_relation JSONB NOT NULL, new_relation JSONB NOT NULL, reason TEXT NOT NULL, created_at TEXT NOT NULL
);
ALTER TABLE review_items ENABLE ROW LEVEL SECURITY;
ALTER TABLE review_items FORCE ROW LEVEL SECURITY;
CREATE POLICY review_items_scoped ON review_items
    USING (palace_scope_visible(old_scope) AND palace_scope_visible(new_scope))
    WITH CHECK (palace_scope_visible(old_scope) AND palace_scope_visible(new_scope));
"""

TABLES = ("entities", "entity_aliases", "relations")

def rows_statements(scope: str, rows: GraphRows) -> tuple[list[str], dict[str, Any]]:
    """The statements (and their named parameters) that replace a memory's graph rows,
    to run after its row in the same transaction: each finds the memory by ``%(id)s``,
    so the whole write can go to the server as one query (``PgStore.write``)."""
    rid = "(SELECT rid FROM memories WHERE id = %(id)s)"
    statements = [f"DELETE FROM {table} WHERE rid = {rid}" for table in TABLES]
    entities, aliases, relations = rows
    params: dict[str, Any] = {"g_scope": scope}
    if entities:  # one row per key (rows_of): ON CONFLICT never meets a key twice
        statements.append(
            f"INSERT INTO entities SELECT e.key, {rid}, %(g_scope)s, e.name, e.type "
            "FROM unnest(%(e_key)s::text[], %(e_name)s::text[], %(e_type)s::text[]) AS e(key, name, type) "
            "ON CONFLICT (key, rid) DO UPDATE SET name = EXCLUDED.name, type = EXCLUDED.type")
        params.update(e_key=[e[0] for e in entities], e_name=[e[1] for e in entities],
                      e_type=[e[2] for e in entities])
    if aliases:
        statements.append(
            f"INSERT INTO entity_aliases SELECT a.alias, a.key, {rid}, %(g_scope)s "
            "FROM unnest(%(a_alias)s::text[], %(a_key)s::text[]) AS a(alias, key) ON CONFLICT DO NOTHING")
        params.update(a_alias=[a[0] for a in aliases], a_key=[a[1] for a in aliases])
    if relations:
        columns = ("subject", "predicate", "object", "predicate_text", "valid_from", "valid_to", "purpose",
                   "extracted", "subject_text", "object_text")
        types = ("text", "text", "text", "text", "float8", "float8", "text", "int", "text", "text")
        arrays = ", ".join(f"%(r_{c})s::{t}[]" for c, t in zip(columns, types))
        statements.append(
            f"INSERT INTO relations (rid, scope, {', '.join(columns)}) SELECT {rid}, %(g_scope)s, r.* "
            f"FROM unnest({arrays}) AS r({', '.join(columns)})")
        params.update({f"r_{c}": [row[i] for row in relations] for i, c in enumerate(columns)})
    return statements, params


class PgGraphQueries:
    """The entity-graph half of ``MemoryIndex`` (``supports_graph``) for ``PgIndex``:
    the same answers as ``palace.index.graph_tables``, under row-level security."""

    palace: Any
    supports_graph = True

    def _graph_all(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        with self.palace.connection() as conn:
            return conn.execute(sql, params).fetchall()

    def _typed(self, make: Callable[[Iterable[Any]], Any], sql: str, params: Sequence[Any] = ()) -> list[Any]:
        """Rows of ``sql`` built by ``make`` (a NamedTuple's ``_make``) from plain tuples,
        as the local index builds them (palace.index.rows)."""
        from psycopg.rows import tuple_row

        with self.palace.connection() as conn, conn.cursor(row_factory=tuple_row) as cur:
            return [make(row) for row in cur.execute(sql, params)]

    def equivalent_keys(self, keys: Iterable[str]) -> set[str]:
        """The keys and every key joined to them by a declared alias, to a fixed point."""
        found = {key for key in keys if key}
        frontier = set(found)
        with self.palace.connection() as conn:
            while frontier:
                wanted = sorted(frontier)
                rows = conn.execute("SELECT alias, key FROM entity_aliases WHERE alias = ANY(%s) "
                                    "OR key = ANY(%s)", (wanted, wanted)).fetchall()
                new = {value for row in rows for value in (row["alias"], row["key"])} - found
                found |= new
                frontier = new
        return found

    def relations_touching(self, keys: Sequence[str], *, as_subject_only: bool = False) -> list[RelationRow]:
        keys = list(keys)
        if not keys:
            return []
        where = "r.subject = ANY(%s)" if as_subject_only else "(r.subject = ANY(%s) OR r.object = ANY(%s))"
        params = [keys] if as_subject_only else [keys, keys]
        return self._typed(RelationRow._make, f"SELECT {RELATION_COLUMNS} FROM relations r JOIN memories m "
                           f"ON m.rid = r.rid WHERE {where} ORDER BY COALESCE(r.valid_from, m.created_ts), "
                           "r.rid, r.seq", params)

    def entity_mentions(self, keys: Sequence[str]) -> list[MentionRow]:
        keys = list(keys)
        if not keys:
            return []
        return self._typed(MentionRow._make, f"SELECT {MENTION_COLUMNS} FROM entities e JOIN memories m "
                           "ON m.rid = e.rid WHERE e.key = ANY(%s) ORDER BY e.key COLLATE \"C\", e.rid", (keys,))

    def graph_edges(self, keys: Sequence[str], *, now_ts: float, include_closed: bool = False,
                    per_key: int) -> list[EdgeRow]:
        """The bounded walk's edges, as the local index gives them: current relations of
        active memories touching each key, at most ``per_key`` per key and side, newest
        written first (one lateral query per side, each an index probe per key)."""
        keys = list(keys)
        if not keys:
            return []
        rows: list[EdgeRow] = []
        for side in ("subject", "object"):
            rows.extend(self._typed(
                EdgeRow._make, "SELECT x.* FROM unnest(%s::text[]) AS k(key) CROSS JOIN LATERAL ("
                f"SELECT {EDGE_COLUMNS} FROM relations r JOIN memories m ON m.rid = r.rid "
                f"WHERE r.{side} = k.key AND m.status = 'active' "
                "AND (%s OR r.valid_to IS NULL OR r.valid_to > %s) ORDER BY r.seq DESC LIMIT %s) AS x",
                (keys, bool(include_closed), float(now_ts), int(per_key))))
        return rows

    def entity_mentions_of(self, key: str, *, limit: int) -> list[MentionRow]:
        """At most ``limit`` memories mentioning ``key``, newest rows first."""
        return self._typed(MentionRow._make, f"SELECT {MENTION_COLUMNS} FROM entities e JOIN memories m "
                           "ON m.rid = e.rid WHERE e.key = %s ORDER BY e.rid DESC LIMIT %s", (key, int(limit)))

    def entity_summary(self, *, limit: int | None = None) -> list[EntitySummaryRow]:
        sql = ("SELECT key, MIN(name COLLATE \"C\") AS name, MAX(type COLLATE \"C\") AS type, "
               "COUNT(*) AS mentions FROM entities GROUP BY key ORDER BY mentions DESC, key COLLATE \"C\"")
        if limit:
            return self._typed(EntitySummaryRow._make, sql + " LIMIT %s", (int(limit),))
        return self._typed(EntitySummaryRow._make, sql)

    def known_entity_keys(self, keys: Sequence[str]) -> set[str]:
        keys = list(keys)
        if not keys:
            return set()
        rows = self._graph_all("SELECT key AS k FROM entities WHERE key = ANY(%s) UNION "
                               "SELECT alias FROM entity_aliases WHERE alias = ANY(%s)", (keys, keys))
        return {row["k"] for row in rows}

    def passing(self, rids: Sequence[int], filters: Any) -> set[int]:
        """Which of ``rids`` pass ``filters`` (the graph retriever's hits are filtered here)."""
        return self._passing([int(r) for r in rids], filters)  # type: ignore[attr-defined]


class PgReviewQueue:
    """``palace.graph.review.ReviewQueue`` over the ``review_items`` table: one queue for
    every client of the database (each sees the items whose memories it may see).

    ``make_item`` is ``ReviewItem`` (passed in: the graph layer sits above this one)."""

    def __init__(self, palace: Any, make_item: Any):
        self.palace = palace
        self.make_item = make_item

    def _item(self, row: dict[str, Any]) -> Any:
        return self.make_item(row["id"], row["old_memory"], row["new_memory"], row["old_relation"],
                              row["new_relation"], row["reason"], row["created_at"])

    def items(self) -> list[Any]:
        with self.palace.connection() as conn:
            return [self._item(row) for row in conn.execute("SELECT * FROM review_items ORDER BY seq")]

    def items_from(self, new_memory: str) -> list[Any]:
        """The items asking about a fact that ``new_memory`` states, found by the server:
        every store asks (``GraphService.withdraw``), and the queue grows with every
        uncertain fact, so reading all of it per store made stores O(queue) (9 stores/s
        once 11,000 items were queued: docs/backends.md)."""
        with self.palace.connection() as conn:
            return [self._item(row) for row in conn.execute(
                "SELECT * FROM review_items WHERE new_memory = %s ORDER BY seq", (new_memory,))]

    def add(self, *, old_memory: str, new_memory: str, old_relation: dict[str, Any],
            new_relation: dict[str, Any], reason: str, created_at: str) -> Any:
        import secrets

        import psycopg
        from psycopg.types.json import Jsonb

        from palace.errors import PalaceError

        with self.palace.connection() as conn, conn.transaction():
            # the same pair is asked about once (the advisory lock: two writers, one item)
            conn.execute("SELECT pg_advisory_xact_lock(hashtext('palace review queue'))")
            same = conn.execute("SELECT 1 FROM review_items WHERE old_memory = %s AND new_memory = %s AND "
                                "old_relation = %s AND new_relation = %s",
                                (old_memory, new_memory, Jsonb(old_relation), Jsonb(new_relation))).fetchone()
            if same is not None:
                return None
            # ids are 8 hex digits (typed by people: `palace review accept <id>`), so tens of
            # thousands of items do meet a taken one (the 1M benchmark did): draw again. An
            # item of a scope this client cannot see is invisible to a lookup, hence the
            # savepoint around the insert rather than a check first.
            for _attempt in range(8):
                try:
                    with conn.transaction():
                        row = conn.execute(
                            "INSERT INTO review_items (id, old_memory, new_memory, old_scope, new_scope, "
                            "old_relation, new_relation, reason, created_at) SELECT %s, %s, %s, o.scope, "
                            "n.scope, %s, %s, %s, %s FROM memories o, memories n WHERE o.id = %s AND n.id = %s "
                            "RETURNING *",
                            (secrets.token_hex(4), old_memory, new_memory, Jsonb(old_relation),
                             Jsonb(new_relation), reason, created_at, old_memory, new_memory)).fetchone()
                    break
                except psycopg.errors.UniqueViolation:
                    continue
            else:
                raise PalaceError("no free review item id after 8 draws")  # 2^32 ids: not reached
        return None if row is None else self._item(row)

    def put(self, item: Any) -> bool:
        """Keep ``item`` as it is (an import): False when it, or its pair, is queued
        already, or a memory it names is not here (or not this client's to see)."""
        from psycopg.types.json import Jsonb

        with self.palace.connection() as conn, conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(hashtext('palace review queue'))")
            same = conn.execute("SELECT 1 FROM review_items WHERE id = %s OR (old_memory = %s AND new_memory = %s "
                                "AND old_relation = %s AND new_relation = %s)",
                                (item.id, item.old_memory, item.new_memory, Jsonb(item.old_relation),
                                 Jsonb(item.new_relation))).fetchone()
            if same is not None:
                return False
            row = conn.execute(
                "INSERT INTO review_items (id, old_memory, new_memory, old_scope, new_scope, old_relation, "
                "new_relation, reason, created_at) SELECT %s, %s, %s, o.scope, n.scope, %s, %s, %s, %s "
                "FROM memories o, memories n WHERE o.id = %s AND n.id = %s ON CONFLICT (id) DO NOTHING RETURNING id",
                (item.id, item.old_memory, item.new_memory, Jsonb(item.old_relation), Jsonb(item.new_relation),
                 item.reason, item.created_at, item.old_memory, item.new_memory)).fetchone()
        return row is not None

    def drop(self, items: list[Any]) -> None:
        """Remove these items (their new fact is no longer stated)."""
        gone = [item.id for item in items]
        if gone:
            with self.palace.connection() as conn:
                conn.execute("DELETE FROM review_items WHERE id = ANY(%s)", (gone,))

    def take(self, item_id: str) -> Any:
        from palace.errors import ReviewItemNotFoundError

        with self.palace.connection() as conn:
            row = conn.execute("DELETE FROM review_items WHERE id = %s RETURNING *", (item_id,)).fetchone()
        if row is None:
            raise ReviewItemNotFoundError(item_id)
        return self._item(row)


# Migration 8: the log of pairs already decided (palace.graph.decisions), one for every
# client (it was a file per client: a pair one rejected could be queued by another).
# Scoped like the review queue: a client sees a decision when it may see both memories.
DECISIONS_MIGRATION = """
CREATE TABLE IF NOT EXISTS graph_decisions (
    seq BIGSERIAL NOT NULL,
    old_memory TEXT NOT NULL, old_fact TEXT NOT NULL, new_memory TEXT NOT NULL, new_fact TEXT NOT NULL,
    old_scope TEXT NOT NULL, new_scope TEXT NOT NULL,
    decision TEXT NOT NULL, closed_at TEXT, marked BOOLEAN NOT NULL DEFAULT false,
    PRIMARY KEY (old_memory, old_fact, new_memory, new_fact)
);
CREATE INDEX IF NOT EXISTS graph_decisions_new ON graph_decisions (new_memory);
ALTER TABLE graph_decisions ENABLE ROW LEVEL SECURITY;
ALTER TABLE graph_decisions FORCE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS graph_decisions_scoped ON graph_decisions;
CREATE POLICY graph_decisions_scoped ON graph_decisions
    USING (palace_scope_visible(old_scope) AND palace_scope_visible(new_scope))
    WITH CHECK (palace_scope_visible(old_scope) AND palace_scope_visible(new_scope));
"""

_DECISION_COLUMNS = "old_memory, old_fact, new_memory, new_fact, decision, closed_at, marked"


class PgDecisionLog:
    """``palace.graph.decisions.DecisionLog`` over ``graph_decisions``: one log for every
    client. A memory's scope is read from its row (or its trashed copy); one this client
    cannot see takes ``scope``, the scope it writes into.

    ``make`` is ``palace.graph.decisions.Decision`` (passed in: the graph layer sits above)."""

    def __init__(self, palace: Any, make: Any, scope: str):
        self.palace = palace
        self.make = make
        self.scope = scope

    def _entry(self, row: Any) -> Any:
        return self.make(row["old_memory"], row["old_fact"], row["new_memory"], row["new_fact"],
                         row["decision"], row["closed_at"], bool(row["marked"]))

    def entries(self) -> list[Any]:
        with self.palace.connection() as conn:
            return [self._entry(r) for r in conn.execute(f"SELECT {_DECISION_COLUMNS} FROM graph_decisions "
                                                         "ORDER BY seq")]

    def find(self, old_memory: str, old_fact: str, new_memory: str, new_fact: str) -> Any:
        with self.palace.connection() as conn:
            row = conn.execute(f"SELECT {_DECISION_COLUMNS} FROM graph_decisions WHERE old_memory = %s AND "
                               "old_fact = %s AND new_memory = %s AND new_fact = %s",
                               (old_memory, old_fact, new_memory, new_fact)).fetchone()
        return None if row is None else self._entry(row)

    def record(self, entry: Any) -> None:
        self.merge([entry])

    def merge(self, entries: Iterable[Any]) -> int:
        """Record these decisions (each replaces the one for its pair); returns how many
        were new or different."""
        rows = [(e.old_memory, e.old_fact, e.new_memory, e.new_fact, e.decision, e.closed_at, bool(e.marked))
                for e in entries]
        if not rows:
            return 0
        scope_of = ("COALESCE((SELECT scope FROM memories WHERE id = {0}), "
                    "(SELECT scope FROM trash WHERE id = {0}), %(scope)s)")
        changed = 0
        with self.palace.connection() as conn, conn.transaction():
            for row in rows:  # in order: a later entry for a pair replaces an earlier one
                done = conn.execute(
                    f"INSERT INTO graph_decisions AS g ({_DECISION_COLUMNS}, old_scope, new_scope) "
                    "VALUES (%(o)s, %(of)s, %(n)s, %(nf)s, %(d)s, %(c)s, %(m)s, "
                    f"{scope_of.format('%(o)s')}, {scope_of.format('%(n)s')}) "
                    "ON CONFLICT (old_memory, old_fact, new_memory, new_fact) DO UPDATE SET "
                    "decision = EXCLUDED.decision, closed_at = EXCLUDED.closed_at, marked = EXCLUDED.marked, "
                    "seq = nextval(pg_get_serial_sequence('graph_decisions', 'seq')) "
                    "WHERE (g.decision, g.closed_at, g.marked) IS DISTINCT FROM "
                    "(EXCLUDED.decision, EXCLUDED.closed_at, EXCLUDED.marked) RETURNING 1",
                    {"o": row[0], "of": row[1], "n": row[2], "nf": row[3], "d": row[4], "c": row[5],
                     "m": row[6], "scope": self.scope}).fetchone()
                changed += done is not None
        return changed

    def by_new_memory(self, memory_id: str) -> list[Any]:
        with self.palace.connection() as conn:
            return [self._entry(r) for r in conn.execute(
                f"SELECT {_DECISION_COLUMNS} FROM graph_decisions WHERE new_memory = %s ORDER BY seq",
                (memory_id,))]

    def forget(self, entries: Iterable[Any]) -> None:
        pairs = [e.pair for e in entries]
        if pairs:
            with self.palace.connection() as conn, conn.cursor() as cur:
                cur.executemany("DELETE FROM graph_decisions WHERE old_memory = %s AND old_fact = %s AND "
                                "new_memory = %s AND new_fact = %s", pairs)
