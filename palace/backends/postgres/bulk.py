"""``palace import`` / ``palace export`` at 100k–1M memories on Postgres.

Import streams the tree's memories into a temporary table with COPY, in batches,
then applies them with a few set-based statements in one transaction: unchanged
memories (same Markdown, same room) are skipped by comparing digests, so a second
import writes nothing. A large load (``BULK_ABOVE``) switches the postings trigger
off for its transaction (``app.bulk``) and packs every visible term once at the end
(``postings.rebuild``); a small one lets the trigger index each row as any write.

The entity graph goes with it: each staged memory's graph rows (derived from its
frontmatter, as ``PgStore.write`` derives them) are COPYed into staging tables of their
own and moved beside the memory in the same transaction, so an imported palace has
the same entities, aliases and relations as one written memory by memory.

Export streams the stored Markdown (``raw``: what ``render_memory`` wrote, so what
the local backend keeps) straight into files, without parsing each memory back, and
flushes the file system once at the end instead of once per file.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any, Iterable, Iterator

from palace.errors import InvalidInputError
from palace.models import Memory
from palace.store.atomic import make_private_dirs
from palace.store.files import render_memory
from palace.backends.postgres.postings import rebuild
from palace.backends.postgres.rows import memory_row

BATCH = 5000  # memories per COPY batch
BULK_ABOVE = 5000  # more changed memories than this (and than a quarter of those stored): bulk mode
# what a bulk load fills, analysed once it has committed: until autovacuum gets to a freshly
# loaded table the planner knows nothing of it, and keyword searches at 300k took p50 189 ms
# so, against 17 ms after an ANALYZE of 1.1 s
LOADED_TABLES = ("memories", "memory_tags", "term_postings", "posting_delta", "collection_stats",
                 "entities", "entity_aliases", "relations")


def analyse(conn: Any, tables: Iterable[str]) -> None:
    """Fresh planner statistics for ``tables`` (a role that does not own them is told so by
    a server notice, and the next autovacuum analyses them instead)."""
    conn.execute(f"ANALYZE {', '.join(tables)}")

COLUMNS = ("id", "scope", "path", "location", "type", "status", "source", "importance", "pinned",
           "created_ts", "updated_ts", "created_at", "updated_at", "tags", "summary", "content", "extra",
           "content_hash", "raw", "terms", "doc_len", "size", "dup_key")


def digest(raw: str) -> str:
    """What Postgres's md5(raw) gives for the same text (UTF-8 database)."""
    return hashlib.md5(raw.encode("utf-8")).hexdigest()


def stored_digests(store: Any) -> dict[str, tuple[str, str]]:
    """id → (MD5 of its stored Markdown, room) of every memory this client sees."""
    with store.palace.connection() as conn:
        return {r["id"]: (r["h"], r["location"]) for r in conn.execute(
            "SELECT id, md5(raw) AS h, location FROM memories")}


def import_memories(store: Any, memories: Iterable[Memory],
                    stored: dict[str, tuple[str, str]] | None = None) -> tuple[list[str], int]:
    """Store the memories not already stored as they are; returns (ids written, unchanged).
    ``stored``: ``stored_digests`` when the caller read them already. Call under the
    exclusive write lock (the manager's import does)."""
    import psycopg

    if stored is None:
        stored = stored_digests(store)
    with store.palace.connection() as conn:
        written: list[str] = []
        unchanged = 0
        try:
            with conn.transaction():
                conn.execute("CREATE TEMP TABLE palace_import (LIKE memories INCLUDING DEFAULTS) ON COMMIT DROP")
                conn.execute("ALTER TABLE palace_import DROP COLUMN rid")
                derive = getattr(store, "derive_graph", None)
                if derive is not None:
                    conn.execute(GRAPH_STAGING)
                batch: list[tuple[Any, ...]] = []
                graph: dict[str, list[tuple[Any, ...]]] = {table: [] for table in GRAPH_COLUMNS}

                def flush() -> None:
                    with conn.cursor().copy(f"COPY palace_import ({', '.join(COLUMNS)}) FROM STDIN") as copy:
                        for values in batch:
                            copy.write_row(values)
                    batch.clear()
                    for table, rows in graph.items():
                        if rows:
                            with conn.cursor().copy(f"COPY palace_import_{table} FROM STDIN") as copy:
                                for values in rows:
                                    copy.write_row(values)
                            rows.clear()

                for memory in memories:
                    raw = render_memory(memory)
                    if stored.get(memory.id) == (digest(raw), memory.location):
                        unchanged += 1
                        continue
                    row = memory_row(memory, store.path_for(memory.location, memory.id)
                                     .relative_to(store.root).as_posix())
                    batch.append(tuple(row[c] for c in COLUMNS))
                    written.append(memory.id)
                    if derive is not None:
                        entities, aliases, relations = derive(memory)
                        graph["entities"].extend((memory.id, *e) for e in entities)
                        graph["entity_aliases"].extend((memory.id, *a) for a in aliases)
                        graph["relations"].extend((memory.id, *r) for r in relations)
                    if len(batch) >= BATCH:
                        flush()
                if batch:
                    flush()
                bulk = len(written) > max(BULK_ABOVE, len(stored) // 4)
                if written:
                    apply(conn, bulk=bulk)
                    if derive is not None:
                        apply_graph(conn)
        except psycopg.errors.InsufficientPrivilege:
            raise InvalidInputError(
                "the tree holds a memory whose scope this client may not write (MEMORY_AGENT_ID / "
                "MEMORY_USER_ID decide which), or whose id is taken in a scope it cannot see; "
                "nothing was imported") from None
        if bulk:
            analyse(conn, LOADED_TABLES)
    return written, unchanged


def apply(conn: Any, *, bulk: bool) -> None:
    """Move the staged rows into ``memories`` (with tags, out of the trash)."""
    if bulk:
        conn.execute("SET LOCAL app.bulk = 'on'")  # the trigger steps aside: rebuilt below
    updates = ", ".join(f"{c} = EXCLUDED.{c}" for c in COLUMNS if c != "id")
    conn.execute(f"INSERT INTO memories ({', '.join(COLUMNS)}) SELECT {', '.join(COLUMNS)} FROM palace_import "
                 f"ON CONFLICT (id) DO UPDATE SET {updates}, version = memories.version + 1")
    conn.execute("DELETE FROM memory_tags t USING memories m, palace_import s "
                 "WHERE t.rid = m.rid AND m.id = s.id")
    conn.execute("INSERT INTO memory_tags (tag, rid) SELECT DISTINCT tag.value, m.rid FROM palace_import s "
                 "JOIN memories m ON m.id = s.id CROSS JOIN LATERAL jsonb_array_elements_text(s.tags::jsonb) "
                 "AS tag(value) ON CONFLICT DO NOTHING")
    conn.execute("DELETE FROM trash t USING palace_import s WHERE t.id = s.id")  # the tree says alive
    if bulk:
        rebuild(conn)
        conn.execute("SET LOCAL app.bulk = 'off'")


# one staging table per graph table, keyed by memory id (the rid is known once applied)
GRAPH_COLUMNS = {
    "entities": "key TEXT, name TEXT, type TEXT",
    "entity_aliases": "alias TEXT, key TEXT",
    "relations": "subject TEXT, predicate TEXT, object TEXT, predicate_text TEXT, valid_from DOUBLE PRECISION, "
                 "valid_to DOUBLE PRECISION, purpose TEXT, extracted INTEGER, subject_text TEXT, object_text TEXT",
}
GRAPH_STAGING = ";".join(f"CREATE TEMP TABLE palace_import_{table} (id TEXT, {columns}) ON COMMIT DROP"
                         for table, columns in GRAPH_COLUMNS.items())


def apply_graph(conn: Any) -> None:
    """Replace the imported memories' graph rows with the staged ones."""
    for table in GRAPH_COLUMNS:
        conn.execute(f"DELETE FROM {table} t USING memories m, palace_import s WHERE t.rid = m.rid AND m.id = s.id")
    conn.execute("INSERT INTO entities (key, rid, scope, name, type) SELECT g.key, m.rid, m.scope, g.name, g.type "
                 "FROM palace_import_entities g JOIN memories m ON m.id = g.id ON CONFLICT (key, rid) DO NOTHING")
    conn.execute("INSERT INTO entity_aliases (alias, key, rid, scope) SELECT g.alias, g.key, m.rid, m.scope "
                 "FROM palace_import_entity_aliases g JOIN memories m ON m.id = g.id ON CONFLICT DO NOTHING")
    columns = ("subject, predicate, object, predicate_text, valid_from, valid_to, purpose, extracted, "
               "subject_text, object_text")
    conn.execute(f"INSERT INTO relations (rid, scope, {columns}) SELECT m.rid, m.scope, "
                 + ", ".join(f"g.{c.strip()}" for c in columns.split(","))
                 + " FROM palace_import_relations g JOIN memories m ON m.id = g.id")


def export_memories(store: Any, dest: Path) -> Iterator[str]:
    """Write every visible memory's Markdown under ``dest`` as ``<room>/<id>.md``
    (owner-only, as the local backend's files); yields the ids written."""
    made: set[Path] = set()
    with store.palace.connection() as conn, conn.transaction(), conn.cursor(name="palace_export") as cur:
        cur.itersize = 2000
        cur.execute("SELECT id, path, raw FROM memories ORDER BY path")
        for row in cur:
            parts = row["path"].split("/")
            if any(part in ("", ".", "..") for part in parts):
                raise InvalidInputError(f"memory {row['id']!r} has an unsafe stored path {row['path']!r}")
            path = dest.joinpath(*parts)
            if path.parent not in made:
                make_private_dirs(path.parent)
                made.add(path.parent)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
            with open(fd, "wb") as handle:
                handle.write(row["raw"].encode("utf-8"))
            yield row["id"]
    if hasattr(os, "sync"):
        os.sync()  # one flush for the whole tree (a new folder: rerun the export if it dies)
