"""The derived SQLite index: metadata, keyword postings (BM25), vectors and access times.

Everything here can be rebuilt from the Markdown files and the access journal;
deleting ``.palace/index.sqlite3`` loses nothing. Vectors are keyed by (model,
content hash), so a rebuild or an edit that does not change a memory's text never
re-embeds it, and a model change simply finds no vectors for the new model.

WAL mode lets one writer and many readers (an agent and a person's CLI) work at
once; every write is one short ``BEGIN IMMEDIATE`` transaction.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import uuid
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Sequence, cast

from palace.errors import IndexVersionError
from palace.models import Memory, embed_key
from palace.text.tokenize import stem
from palace.index import graph_tables
from palace.index.graph_tables import SCHEMA as GRAPH_SCHEMA
from palace.index.graph_tables import GraphDeriver
from palace.index.postings import SCHEMA as POSTINGS_SCHEMA
from palace.index.topk import KeywordScoring
from palace.index.postings import (Postings, add_doc, list_sizes, memory_terms, merge_due, remove_doc,
                                   read_lists)
from palace.index.postings import clear as clear_postings
from palace.index.postings import rebuild as rebuild_postings
from palace.index.rows import ROW_COLUMNS, EdgeRow, EntitySummaryRow, IndexRow, MentionRow, RelationRow

if TYPE_CHECKING:  # numpy is imported where vectors are used, not on CLI start-up
    import numpy as np

SCHEMA_VERSION = 10  # 9: the entity graph (graph_tables); 10: dialogues keyed by their chunk rule (models.embed_key)
INDEX_DIR = ".palace"
INDEX_FILE = "index.sqlite3"
REMOVED_KEPT = 10_000  # deletions remembered for caches (pruned every REMOVED_PRUNE_EVERY)
REMOVED_PRUNE_EVERY = 1000
VECTOR_LOG_KEPT = 50_000

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS memories (
    rid INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    path TEXT NOT NULL UNIQUE,
    location TEXT NOT NULL,
    type TEXT NOT NULL,
    status TEXT NOT NULL,
    source TEXT NOT NULL,
    importance REAL NOT NULL,
    pinned INTEGER NOT NULL,
    created_ts REAL NOT NULL,
    updated_ts REAL NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    tags TEXT NOT NULL,
    summary TEXT,
    content TEXT NOT NULL,
    extra TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    file_hash TEXT NOT NULL,
    mtime_ns INTEGER NOT NULL,
    size INTEGER NOT NULL,
    terms TEXT NOT NULL DEFAULT '',     -- indexed (stemmed) terms: postings are rebuilt from these
    doc_len INTEGER NOT NULL DEFAULT 0, -- indexed tokens, for BM25's length norm
    seq INTEGER NOT NULL DEFAULT 0      -- memories_version of its last write: what changed since
);
CREATE INDEX IF NOT EXISTS memories_seq ON memories(seq);
-- memory rows deleted, by the memories_version of the deletion: lets caches (the
-- vector matrix) drop exactly those (older entries are pruned: see removed_since)
CREATE TABLE IF NOT EXISTS removed (seq INTEGER PRIMARY KEY, rid INTEGER NOT NULL);
-- texts given vectors, by the vector_version of the write (same purpose, same pruning)
CREATE TABLE IF NOT EXISTS vector_log (vseq INTEGER NOT NULL, model TEXT NOT NULL, content_hash TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS vector_log_seq ON vector_log(vseq);
-- (…, status): filters on a room or a period are answered from the index alone
CREATE INDEX IF NOT EXISTS memories_created ON memories(created_ts, status);
CREATE INDEX IF NOT EXISTS memories_location ON memories(location, status);
CREATE INDEX IF NOT EXISTS memories_hash ON memories(content_hash);
-- the few rows outside a status filter (archived, trashed), read without the wide rows
CREATE INDEX IF NOT EXISTS memories_status ON memories(status);
CREATE TABLE IF NOT EXISTS memory_tags (
    tag TEXT NOT NULL, rid INTEGER NOT NULL, PRIMARY KEY (tag, rid)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS accesses (
    id TEXT NOT NULL, ts REAL NOT NULL, kind TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS accesses_id ON accesses(id, ts);
CREATE TABLE IF NOT EXISTS room_dirs (rel TEXT PRIMARY KEY, mtime_ns INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS problems (path TEXT PRIMARY KEY, reason TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS vectors (
    model TEXT NOT NULL, content_hash TEXT NOT NULL, chunk INTEGER NOT NULL,
    vec BLOB NOT NULL, PRIMARY KEY (model, content_hash, chunk)
) WITHOUT ROWID;
""" + POSTINGS_SCHEMA + GRAPH_SCHEMA


@dataclass(frozen=True)
class Filters:
    """What a candidate must satisfy. Tags: the memory must carry all of them.
    Location: the room or any room inside it."""

    statuses: tuple[str, ...] = ("active",)
    tags: tuple[str, ...] = ()
    location: str | None = None
    type: str | None = None
    start_ts: float | None = None
    end_ts: float | None = None

    def sql(self, alias: str = "m", *, from_tags: bool = False) -> tuple[str, list[Any]]:
        # nearly every row has the status asked for, but SQLite (no statistics kept) would
        # walk the status index before a room's range: with a room, "+" keeps it off the
        # status index (a room's 2k rows at 100k: 45 -> 1 ms)
        status = f"{'+' if self.location else ''}{alias}.status"
        clauses = [f"{status} IN ({','.join('?' * len(self.statuses))})"]
        params: list[Any] = list(self.statuses)
        if self.location:
            # the room or any room inside it: a range on the location index ('/' + 1
            # is '0'), not a LIKE that scans every row
            clauses.append(f"({alias}.location = ? OR ({alias}.location >= ? AND {alias}.location < ?))")
            params += [self.location, self.location + "/", self.location + "0"]
        if self.type:
            clauses.append(f"{alias}.type = ?")
            params.append(self.type)
        if self.start_ts is not None:
            clauses.append(f"{alias}.created_ts >= ?")
            params.append(self.start_ts)
        if self.end_ts is not None:
            clauses.append(f"{alias}.created_ts < ?")
            params.append(self.end_ts)
        for tag in self.tags:
            # a tag or any tag below it (project/palace matches project/palace/search):
            # a range on the tag index, like the room's
            match = "(tag = ? OR (tag >= ? AND tag < ?))"
            if from_tags:  # all memories with the tag, read from the tag index
                clauses.append(f"{alias}.rid IN (SELECT rid FROM memory_tags WHERE {match})")
            else:  # a few given memories, each probed
                clauses.append(f"EXISTS (SELECT 1 FROM memory_tags WHERE rid = {alias}.rid AND {match})")
            params += [tag, tag + "/", tag + "0"]
        return " AND ".join(clauses), params


class Index(KeywordScoring):
    supports_graph = True  # keeps the entity graph's tables (palace/index/graph_tables.py)

    def __init__(self, db_path: Path, *, derive_graph: GraphDeriver | None = None,
                 read_only: bool = False):
        """``read_only``: open an index on a read-only folder or disk as immutable (no
        journal files, no writes); every write then fails with OperationalError."""
        self.path = Path(db_path)
        # memory -> its entity, alias and relation rows (palace.graph, passed in by the
        # manager: the rules live a layer above the index)
        self.derive_graph = derive_graph
        self.read_only = read_only
        self._outside_cache: tuple[tuple[int, tuple[str, ...]], frozenset[int]] | None = None
        if read_only:
            self.conn = sqlite3.connect(f"{self.path.resolve().as_uri()}?immutable=1", uri=True,
                                        isolation_level=None, check_same_thread=False)
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.conn = sqlite3.connect(str(self.path), timeout=30.0, isolation_level=None,
                                        check_same_thread=False)
        self.conn.row_factory = sqlite3.Row
        self.conn.execute("PRAGMA busy_timeout = 30000")
        if not read_only:
            self.conn.execute("PRAGMA journal_mode = WAL")
            self.conn.execute("PRAGMA synchronous = NORMAL")
        # during a rebuild, postings deltas are folded once at the end (finish_bulk)
        self.bulk = False
        # the schema an older palace left here, when this open replaced it: the manager
        # says so, since the first command after an upgrade reads every file again
        self.upgraded_from: int | None = None
        try:
            if read_only:
                self.conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
                self.rebuilt_schema = False
            else:
                self.rebuilt_schema = self._ensure_schema()
        except BaseException:
            self.conn.close()
            raise

    def close(self) -> None:
        self.conn.close()

    def _ensure_schema(self) -> bool:
        """Create the schema; an index from another schema version is dropped and
        rebuilt from the files (it is only a cache). Returns True when empty/new."""
        with self.write():
            has_meta = self.conn.execute(
                "SELECT 1 FROM sqlite_master WHERE type='table' AND name='meta'").fetchone()
            version = None
            if has_meta:
                row = self.conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
                version = int(row[0]) if row else None
            if version == SCHEMA_VERSION:
                return False
            if version is not None and version > SCHEMA_VERSION:
                # dropping it would only make the newer palace rebuild it again, and
                # two versions on one workspace would take turns rebuilding
                raise IndexVersionError(
                    f"{self.path} was built by a newer palace (index schema {version}, this palace "
                    f"reads {SCHEMA_VERSION}): upgrade palace here (pip install -U palace-memory), or "
                    f"delete that file to rebuild it for this version (the Markdown files are the truth)")
            if has_meta:
                self.upgraded_from = version or 0  # 0: a meta table without a version
                tables = [r[0] for r in self.conn.execute(
                    "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%' "
                    "AND name NOT LIKE 'fts_%'")]
                for table in tables:
                    if table == "vectors" and self._vectors_table_compatible():
                        continue  # embeddings are slow to redo and their table did not change
                    self.conn.execute(f'DROP TABLE IF EXISTS "{table}"')
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    self.conn.execute(statement)
            self.conn.execute("INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)",
                              (str(SCHEMA_VERSION),))
            # versions restart with a new index: caches kept outside it (the vector
            # snapshot) must know which index their versions belong to
            self.conn.execute("INSERT OR REPLACE INTO meta VALUES ('index_id', ?)", (uuid.uuid4().hex,))
            return True

    def _vectors_table_compatible(self) -> bool:
        columns = [r[1] for r in self.conn.execute("PRAGMA table_info(vectors)")]
        return columns == ["model", "content_hash", "chunk", "vec"]

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        if self.conn.in_transaction:  # nested: join the outer transaction
            yield self.conn
            return
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield self.conn
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        else:
            self.conn.execute("COMMIT")

    @contextmanager
    def read_transaction(self) -> Iterator[sqlite3.Connection]:
        """Several reads that see one consistent state (a read transaction)."""
        if self.conn.in_transaction:
            yield self.conn
            return
        self.conn.execute("BEGIN")
        try:
            yield self.conn
        finally:
            self.conn.execute("COMMIT")

    # ------------------------------------------------------------------ meta

    def get_meta(self, key: str, default: str | None = None) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else default

    def set_meta(self, key: str, value: str) -> None:
        with self.write():
            self.conn.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    # ------------------------------------------------------------------ memories

    def upsert(self, memory: Memory, *, relpath: str, raw: bytes, mtime_ns: int, size: int) -> None:
        """Index ``memory``, read from ``relpath`` (``raw`` its bytes, ``mtime_ns`` and
        ``size`` its stat): its keyword terms, its vector key and its file hash are
        all derived here, so every writer indexes a memory the same way."""
        row, terms = _memory_row(memory, relpath, raw, mtime_ns, size)
        tfs, length = Counter(terms), len(terms)
        with self.write() as conn:
            old = conn.execute("SELECT rid, terms, doc_len FROM memories WHERE id = ?",
                               (memory.id,)).fetchone()
            # a different memory previously indexed at this path is gone now (its id
            # was edited by hand): drop it with its postings and tag rows
            for (stale,) in conn.execute("SELECT rid FROM memories WHERE path = ? AND id != ?",
                                         (relpath, memory.id)).fetchall():
                self._delete_rid(stale)
            columns = _ROW_COLUMNS
            if old is None:
                cursor = conn.execute(
                    f"INSERT INTO memories ({columns}) VALUES ({','.join('?' * len(row))})", row)
                rid = cast(int, cursor.lastrowid)
                old_terms: list[str] = []
                self._count_docs(1, length)
            else:
                rid = old[0]
                old_terms = old[1].split()
                self._count_docs(0, length - old[2])
                assignments = ", ".join(f"{c.strip()} = ?" for c in columns.split(","))
                conn.execute(f"UPDATE memories SET {assignments} WHERE rid = ?", (*row, rid))
                conn.execute("DELETE FROM memory_tags WHERE rid = ?", (rid,))
            if not self.bulk:  # a bulk load packs all postings at the end
                touched = add_doc(conn, rid, tfs, length, old_terms=old_terms)
                merge_due(conn, touched)
            conn.executemany("INSERT OR IGNORE INTO memory_tags VALUES (?, ?)",
                             [(tag, rid) for tag in memory.tags])
            if self.derive_graph is not None:
                graph_tables.write_rows(conn, rid, self.derive_graph(memory))
            conn.execute("DELETE FROM problems WHERE path = ?", (relpath,))
            conn.execute("UPDATE memories SET seq = ? WHERE rid = ?", (self._bump("memories_version"), rid))

    def insert_new(self, items: Sequence[tuple[Memory, str, bytes, int, int]]) -> None:
        """A bulk load's ``upsert`` of many memories whose ids and paths the index does
        not hold, (memory, relpath, raw, mtime_ns, size) each: the same rows (row ids and
        versions given in order, as one upsert after another would), written with one
        statement per table instead of a dozen per memory. The collection counts are
        left to ``finish_bulk``, which recounts them."""
        assert self.bulk, "insert_new is for bulk loads (postings are packed at the end)"
        if not items:
            return
        with self.write() as conn:
            first = conn.execute("SELECT COALESCE(MAX(rid), 0) + 1 FROM memories").fetchone()[0]
            version = int(self.get_meta("memories_version", "0") or 0)
            rows, tags, problems, graph = [], [], [], []
            for n, (memory, relpath, raw, mtime_ns, size) in enumerate(items):
                rid = first + n
                rows.append((rid, *_memory_row(memory, relpath, raw, mtime_ns, size)[0], version + n + 1))
                tags += [(tag, rid) for tag in memory.tags]
                problems.append((relpath,))
                if self.derive_graph is not None:
                    graph.append((rid, self.derive_graph(memory)))
            conn.executemany(f"INSERT INTO memories (rid, {_ROW_COLUMNS}, seq) "
                             f"VALUES ({','.join('?' * len(rows[0]))})", rows)
            conn.executemany("INSERT OR IGNORE INTO memory_tags VALUES (?, ?)", tags)
            graph_tables.write_many(conn, graph)
            conn.executemany("DELETE FROM problems WHERE path = ?", problems)
            conn.execute("INSERT OR REPLACE INTO meta VALUES ('memories_version', ?)",
                         (str(version + len(items)),))

    def _count_docs(self, docs: int, length: int) -> None:
        """Keep the collection size and total length BM25 needs (same transaction)."""
        for key, delta in (("kw_docs", docs), ("kw_length", length)):
            if delta:
                self.conn.execute(
                    "INSERT INTO meta VALUES (?, ?) ON CONFLICT(key) DO UPDATE "
                    "SET value = CAST(CAST(value AS INTEGER) + ? AS TEXT)", (key, str(delta), delta))

    def begin_bulk(self) -> None:
        """Start loading many memories: postings are left alone until finish_bulk
        packs them all at once (much faster than growing them one memory at a time).
        A flag in meta says so, so a load that died half-way is finished on next sync."""
        self.bulk = True
        self.set_meta("postings_stale", "1")

    def postings_stale(self) -> bool:
        return self.get_meta("postings_stale") is not None

    def finish_bulk(self) -> None:
        """Rebuild every term's postings and the collection counts from the memory rows."""
        self.bulk = False
        with self.write() as conn:
            rebuild_postings(conn, conn.execute("SELECT rid, terms FROM memories ORDER BY rid"))
            docs, length = conn.execute("SELECT COUNT(*), COALESCE(SUM(doc_len), 0) FROM memories").fetchone()
            conn.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)",
                             [("kw_docs", str(docs)), ("kw_length", str(length))])
            conn.execute("DELETE FROM meta WHERE key = 'postings_stale'")

    def touch_file(self, relpath: str, mtime_ns: int, size: int) -> None:
        with self.write():
            self.conn.execute("UPDATE memories SET mtime_ns = ?, size = ? WHERE path = ?",
                              (mtime_ns, size, relpath))

    def remove_path(self, relpath: str) -> str | None:
        with self.write() as conn:
            row = conn.execute("SELECT rid, id FROM memories WHERE path = ?", (relpath,)).fetchone()
            conn.execute("DELETE FROM problems WHERE path = ?", (relpath,))
            if row is None:
                return None
            self._delete_rid(row[0])
            return row[1]

    def remove_id(self, memory_id: str) -> None:
        with self.write() as conn:
            row = conn.execute("SELECT rid FROM memories WHERE id = ?", (memory_id,)).fetchone()
            if row is not None:
                self._delete_rid(row[0])

    def _delete_rid(self, rid: int) -> None:
        row = self.conn.execute("SELECT terms, doc_len FROM memories WHERE rid = ?", (rid,)).fetchone()
        if row is not None:
            self._count_docs(-1, -row[1])
            if not self.bulk:
                touched = remove_doc(self.conn, rid, row[0].split())
                merge_due(self.conn, touched)
        self.conn.execute("DELETE FROM memories WHERE rid = ?", (rid,))
        self.conn.execute("DELETE FROM memory_tags WHERE rid = ?", (rid,))
        graph_tables.drop_rows(self.conn, rid)
        seq = self._bump("memories_version")
        self.conn.execute("INSERT INTO removed VALUES (?, ?)", (seq, rid))
        if seq % REMOVED_PRUNE_EVERY == 0:  # keep the log short: the newest REMOVED_KEPT deletions
            cut = self.conn.execute("SELECT seq FROM removed ORDER BY seq DESC LIMIT 1 OFFSET ?",
                                    (REMOVED_KEPT,)).fetchone()
            if cut is not None:
                self.conn.execute("DELETE FROM removed WHERE seq <= ?", (cut[0],))
                self.conn.execute("INSERT OR REPLACE INTO meta VALUES ('removed_floor', ?)", (str(cut[0]),))

    def record_problem(self, relpath: str, reason: str) -> None:
        with self.write():
            self.conn.execute("INSERT OR REPLACE INTO problems VALUES (?, ?)", (relpath, reason))

    def problems(self) -> list[tuple[str, str]]:
        return [(r[0], r[1]) for r in self.conn.execute("SELECT path, reason FROM problems ORDER BY path")]

    def file_stats(self) -> dict[str, tuple[int, int]]:
        """relpath → (mtime_ns, size) of every indexed file (unreadable files are kept
        in ``problems`` and re-checked by a full sync)."""
        stats = {r[0]: (r[1], r[2]) for r in self.conn.execute("SELECT path, mtime_ns, size FROM memories")}
        return stats

    def file_stats_in(self, rooms: set[str]) -> dict[str, tuple[int, int]]:
        """Like ``file_stats``, for files lying directly in these room folders."""
        stats: dict[str, tuple[int, int]] = {}
        locations = {room or "general" for room in rooms}
        for location in locations:
            for path, mtime, size in self.conn.execute(
                    "SELECT path, mtime_ns, size FROM memories WHERE location = ?", (location,)):
                folder = path.rsplit("/", 1)[0] if "/" in path else ""
                if folder in rooms:
                    stats[path] = (mtime, size)
        for path, in self.conn.execute("SELECT path FROM problems"):
            folder = path.rsplit("/", 1)[0] if "/" in path else ""
            if folder in rooms and path not in stats:
                stats[path] = (-1, -1)
        return stats

    def file_info(self, relpath: str) -> sqlite3.Row | None:
        return self.conn.execute("SELECT id, file_hash, mtime_ns, size FROM memories WHERE path = ?",
                                 (relpath,)).fetchone()

    def file_infos(self, relpaths: Sequence[str]) -> dict[str, sqlite3.Row]:
        """``file_info`` of many paths: those indexed, by path."""
        found: dict[str, sqlite3.Row] = {}
        for start in range(0, len(relpaths), 500):
            chunk = list(relpaths[start:start + 500])
            for row in self.conn.execute(
                    f"SELECT path, id, file_hash, mtime_ns, size FROM memories WHERE path IN "
                    f"({','.join('?' * len(chunk))})", chunk):
                found[row["path"]] = row
        return found

    def paths_of(self, memory_ids: Sequence[str]) -> dict[str, str]:
        """``path_of`` of many ids: those indexed, id → path."""
        found: dict[str, str] = {}
        for start in range(0, len(memory_ids), 500):
            chunk = list(memory_ids[start:start + 500])
            found.update(self.conn.execute(
                f"SELECT id, path FROM memories WHERE id IN ({','.join('?' * len(chunk))})", chunk).fetchall())
        return found

    def path_of(self, memory_id: str) -> str | None:
        row = self.conn.execute("SELECT path FROM memories WHERE id = ?", (memory_id,)).fetchone()
        return row[0] if row else None

    def _rows(self, sql: str, params: Sequence[Any]) -> Iterator[IndexRow]:
        """``SELECT {ROW_COLUMNS} ...`` read as IndexRows, built from the plain tuples."""
        cursor = self.conn.cursor()
        cursor.row_factory = None  # plain tuples: an IndexRow each, no lookup by name
        return map(IndexRow._make, cursor.execute(sql, params))

    def row_by_id(self, memory_id: str) -> IndexRow | None:
        return next(self._rows(f"SELECT {ROW_COLUMNS} FROM memories WHERE id = ?", (memory_id,)), None)

    def rows_by_rid(self, rids: Sequence[int]) -> dict[int, IndexRow]:
        result: dict[int, IndexRow] = {}
        for start in range(0, len(rids), 500):
            chunk = list(rids[start:start + 500])
            for row in self._rows(
                    f"SELECT {ROW_COLUMNS} FROM memories WHERE rid IN ({','.join('?' * len(chunk))})", chunk):
                result[row.rid] = row
        return result

    def count(self, statuses: Sequence[str] | None = None) -> int:
        if statuses is None:
            return self.conn.execute("SELECT COUNT(*) FROM memories").fetchone()[0]
        return self.conn.execute(
            f"SELECT COUNT(*) FROM memories WHERE status IN ({','.join('?' * len(statuses))})",
            list(statuses)).fetchone()[0]

    def list_rows(self, filters: Filters, *, limit: int | None = None, offset: int = 0,
                  order: str = "created_ts DESC") -> list[IndexRow]:
        where, params = filters.sql()
        sql = f"SELECT {ROW_COLUMNS} FROM memories m WHERE {where} ORDER BY m.{order}"
        if limit is not None or offset:
            sql += " LIMIT ? OFFSET ?"
            params.extend([-1 if limit is None else limit, offset])
        return list(self._rows(sql, params))

    def room_status_counts(self) -> dict[str, dict[str, int]]:
        """``{room: {status: n}}`` in one pass over the (location, status) index."""
        counts: dict[str, dict[str, int]] = {}
        for location, status, count in self.conn.execute(
                "SELECT location, status, COUNT(*) FROM memories GROUP BY location, status"):
            counts.setdefault(location, {})[status] = count
        return counts

    def created_months(self, statuses: Sequence[str]) -> dict[str, dict[str, int]]:
        """``{room: {"YYYY-MM": n}}``, the month as written in each memory's createdAt."""
        counts: dict[str, dict[str, int]] = {}
        for location, month, count in self.conn.execute(
                "SELECT location, substr(created_at, 1, 7), COUNT(*) FROM memories WHERE status IN "
                f"({','.join('?' * len(statuses))}) GROUP BY 1, 2", list(statuses)):
            counts.setdefault(location, {})[month] = count
        return counts

    def filtered_rids(self, filters: Filters) -> "np.ndarray":
        """Row ids of every memory passing ``filters`` (an int64 array)."""
        import numpy as np

        where, params = filters.sql(from_tags=True)
        return np.fromiter((r for (r,) in self.conn.execute(f"SELECT rid FROM memories m WHERE {where}", params)),
                           dtype=np.int64)

    def tag_counts(self, statuses: Sequence[str] = ("active",)) -> dict[str, int]:
        """Memories per tag (as written), among memories in ``statuses``."""
        marks = ",".join("?" * len(statuses))
        return dict(self.conn.execute(
            f"SELECT t.tag, COUNT(*) FROM memory_tags t JOIN memories m ON m.rid = t.rid "
            f"WHERE m.status IN ({marks}) GROUP BY t.tag ORDER BY t.tag", tuple(statuses)).fetchall())

    def stats(self) -> dict[str, Any]:
        by_status = dict(self.conn.execute("SELECT status, COUNT(*) FROM memories GROUP BY status").fetchall())
        by_location = dict(self.conn.execute(
            "SELECT location, COUNT(*) FROM memories WHERE status != 'deleted' GROUP BY location "
            "ORDER BY COUNT(*) DESC").fetchall())
        by_type = dict(self.conn.execute(
            "SELECT type, COUNT(*) FROM memories GROUP BY type ORDER BY COUNT(*) DESC").fetchall())
        vectors = dict(self.conn.execute(
            "SELECT model, COUNT(DISTINCT content_hash) FROM vectors GROUP BY model").fetchall())
        return {"by_status": by_status, "by_location": by_location, "by_type": by_type,
                "accesses": self.conn.execute("SELECT COUNT(*) FROM accesses").fetchone()[0],
                "vectors": vectors, "problems": len(self.problems())}

    # ------------------------------------------------------------------ keyword search

    def postings(self, terms: Iterable[str]) -> Postings:
        """The postings of these stems (base overlaid with the delta) and the collection
        they count against: everything keyword scoring and the judge read, in one go."""
        wanted = {t: None for t in terms}
        docs, length = self._collection()
        return Postings(docs, length, read_lists(self.conn, wanted))

    def passing(self, rids: Sequence[int], filters: Filters) -> set[int]:
        """Which of ``rids`` pass ``filters`` (for candidates found outside the index's
        own scoring, e.g. through the entity graph)."""
        return self._passing(list(rids), filters)

    def _passing(self, rids: list[int], filters: Filters) -> set[int]:
        if filters == Filters(statuses=filters.statuses):  # a search's usual filter
            outside = self._outside_statuses(filters.statuses)
            return {rid for rid in rids if rid not in outside}
        where, params = filters.sql()
        passing: set[int] = set()
        for start in range(0, len(rids), 900):
            chunk = rids[start:start + 900]
            passing.update(r for (r,) in self.conn.execute(
                f"SELECT m.rid FROM memories m WHERE m.rid IN ({','.join('?' * len(chunk))}) AND {where}",
                [*chunk, *params]))
        return passing

    def _outside_statuses(self, statuses: tuple[str, ...]) -> frozenset[int]:
        """Row ids whose status is not among ``statuses``, kept until a memory changes:
        checking candidates against them reads no memory row (each lookup of a wide row
        cost ~50 µs at 100,000 memories: a quarter of a keyword search)."""
        key = (self.versions()[1], tuple(statuses))
        if self._outside_cache is None or self._outside_cache[0] != key:
            marks = ",".join("?" * len(statuses))
            rows = self.conn.execute(f"SELECT rid FROM memories WHERE status NOT IN ({marks})", list(statuses))
            self._outside_cache = (key, frozenset(r for (r,) in rows))
        return self._outside_cache[1]

    def term_holders(self, terms: Iterable[str]) -> tuple[int, dict[str, set[int]]]:
        """(memories indexed, term → row ids of the memories holding it): what the
        relevance floor needs (document frequencies and matches), from the postings."""
        from palace.index.postings import read_lists

        wanted = list(dict.fromkeys(terms))
        listed = read_lists(self.conn, {stem(t): None for t in wanted})
        return self._collection()[0], {t: set(listed[stem(t)][0].tolist()) for t in wanted}

    def content_candidates(self, content: str, *, probe_terms: int, and_id: str | None = None) -> list[IndexRow]:
        """Rows that may hold ``content`` (the caller compares): a copy holds every
        term, so the holders of the rarest of its first ``probe_terms`` terms. With
        ``and_id``, the row of that id too (a store's new id)."""
        rows = self._content_holders(content, probe_terms)
        own = self.row_by_id(and_id) if and_id is not None else None
        return [*rows, own] if own is not None and all(row.id != own.id for row in rows) else rows

    def _content_holders(self, content: str, probe_terms: int) -> list[IndexRow]:
        from palace.text.tokenize import index_text

        terms = list(dict.fromkeys(index_text(content).split()))[:probe_terms]
        stems = list(dict.fromkeys(stem(t) for t in terms))
        if not stems:
            return []
        # only the rarest term's list is read, found by the lists' sizes (reading all of
        # them was 45 ms a store at 100k: a copy's common words have long lists)
        sizes = list_sizes(self.conn, stems)
        rarest = min(stems, key=lambda s: sizes.get(s, 0))
        if not sizes.get(rarest):
            return []  # no memory holds this term, so none holds the content
        holders = read_lists(self.conn, {rarest: None})[rarest][0]
        return list(self.rows_by_rid(holders[:1000].tolist()).values())  # read_lists gives rids ascending

    def _collection(self) -> tuple[int, int]:
        rows = dict(self.conn.execute(
            "SELECT key, value FROM meta WHERE key IN ('kw_docs', 'kw_length')").fetchall())
        return int(rows.get("kw_docs", 0)), int(rows.get("kw_length", 0))

    # ------------------------------------------------------------------ accesses

    def add_accesses(self, rows: Iterable[tuple[str, float, str]]) -> None:
        with self.write():
            self.conn.executemany("INSERT INTO accesses VALUES (?, ?, ?)", rows)

    def all_accesses(self) -> list[tuple[str, float, str]]:
        """Every access (id, ts, kind), oldest first: what an export writes out."""
        return [(r[0], r[1], r[2]) for r in self.conn.execute(
            "SELECT id, ts, kind FROM accesses ORDER BY ts, id, kind")]

    def clear_accesses(self) -> None:
        with self.write():
            self.conn.execute("DELETE FROM accesses")

    def access_times(self, ids: Sequence[str], *, until_ts: float | None = None,
                     kinds: Sequence[str] | None = None) -> dict[str, list[float]]:
        result: dict[str, list[float]] = {i: [] for i in ids}
        for start in range(0, len(ids), 500):
            chunk = list(ids[start:start + 500])
            sql = f"SELECT id, ts FROM accesses WHERE id IN ({','.join('?' * len(chunk))})"
            params: list[Any] = chunk
            if until_ts is not None:
                sql += " AND ts <= ?"
                params = [*params, until_ts]
            if kinds:
                sql += f" AND kind IN ({','.join('?' * len(kinds))})"
                params = [*params, *kinds]
            for memory_id, ts in self.conn.execute(sql + " ORDER BY ts", params):
                result[memory_id].append(ts)
        return result

    # ------------------------------------------------------------------ room folders

    def room_dirs(self) -> dict[str, int]:
        """Room folder (relative to the palace, "" for its root) → mtime_ns last seen."""
        return {r[0]: r[1] for r in self.conn.execute("SELECT rel, mtime_ns FROM room_dirs")}

    def set_room_dirs(self, dirs: dict[str, int]) -> None:
        """Replace every recorded room folder (after a full scan)."""
        with self.write():
            self.conn.execute("DELETE FROM room_dirs")
            self.conn.executemany("INSERT INTO room_dirs VALUES (?, ?)", dirs.items())

    def update_room_dirs(self, seen: dict[str, int], gone: Iterable[str] = ()) -> None:
        """Record these folders' mtimes and forget folders that no longer exist."""
        with self.write():
            self.conn.executemany("DELETE FROM room_dirs WHERE rel = ?", [(rel,) for rel in gone])
            self.conn.executemany("INSERT OR REPLACE INTO room_dirs VALUES (?, ?)", seen.items())

    # ------------------------------------------------------------------ vectors

    def hashes_missing_vectors(self, model: str, *, limit: int | None = None,
                               since: int = 0) -> list[tuple[str, str, str | None]]:
        """(content_hash, content, summary) of live memories with no vector for ``model``
        (only those written after version ``since``, when given), oldest write first."""
        if since == 0:
            # everything: one pass over each table beats probing the vectors table
            # (wide rows: the vectors sit in it) once per memory, ~8x at 100k
            have = {h for (h,) in self.conn.execute(
                "SELECT DISTINCT content_hash FROM vectors WHERE model = ?", (model,))}
            wanted: list[str] = []
            for (content_hash,) in self.conn.execute(
                    "SELECT content_hash FROM memories WHERE status != 'deleted' ORDER BY seq"):
                if content_hash not in have:
                    have.add(content_hash)
                    wanted.append(content_hash)
                    if limit is not None and len(wanted) >= limit:
                        break
            texts: dict[str, tuple[str, str, str | None]] = {}
            for start in range(0, len(wanted), 500):
                chunk = wanted[start:start + 500]
                for row in self.conn.execute(
                        f"SELECT content_hash, content, summary FROM memories WHERE content_hash IN "
                        f"({','.join('?' * len(chunk))})", chunk):
                    texts.setdefault(row[0], (row[0], row[1], row[2]))
            return [texts[h] for h in wanted if h in texts]
        # the few written since: walk the seq index and probe each
        sql = ("SELECT m.content_hash, m.content, m.summary FROM memories m "
               "WHERE m.seq > ? AND m.status != 'deleted' "
               "AND NOT EXISTS (SELECT 1 FROM vectors v WHERE v.model = ? AND v.content_hash = m.content_hash) "
               "ORDER BY m.seq")
        found: dict[str, tuple[str, str, str | None]] = {}
        for content_hash, content, summary in self.conn.execute(sql, (since, model)):
            found.setdefault(content_hash, (content_hash, content, summary))
            if limit is not None and len(found) >= limit:
                break
        return list(found.values())

    def put_vectors(self, model: str, items: Iterable[tuple[str, int, "np.ndarray"]]) -> None:
        import numpy as np

        rows = [(model, h, c, np.asarray(v, dtype=np.float32).tobytes()) for h, c, v in items]
        with self.write():
            self.conn.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?, ?)", rows)
            vseq = self._bump("vector_version")
            self.conn.executemany("INSERT INTO vector_log VALUES (?, ?, ?)",
                                  [(vseq, model, h) for h in dict.fromkeys(r[1] for r in rows)])
            if vseq % REMOVED_PRUNE_EVERY == 0:
                cut = self.conn.execute("SELECT vseq FROM vector_log ORDER BY vseq DESC LIMIT 1 OFFSET ?",
                                        (VECTOR_LOG_KEPT,)).fetchone()
                if cut is not None:
                    self.conn.execute("DELETE FROM vector_log WHERE vseq <= ?", (cut[0],))
                    self._set_floor("vector_log_floor", cut[0])

    def _set_floor(self, key: str, value: int) -> None:
        self.conn.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, str(value)))

    def vectors_added_since(self, model: str, vseq: int) -> list[str] | None:
        """Content hashes given ``model`` vectors after vector version ``vseq``; None when
        vectors were dropped since, or the log no longer reaches back that far."""
        floor = int(self.get_meta("vector_log_floor", "0") or 0)
        if vseq < floor:
            return None
        return [h for (h,) in self.conn.execute(
            "SELECT DISTINCT content_hash FROM vector_log WHERE vseq > ? AND model = ?", (vseq, model))]

    def _bump(self, key: str) -> int:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        value = int(row[0]) + 1 if row else 1
        self.conn.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, str(value)))
        return value

    def _bump_vector_version(self) -> None:
        self._bump("vector_version")

    def versions(self) -> tuple[int, int]:
        """(vector_version, memories_version): each grows with every change of the
        vectors / of any memory row (a memory's ``seq`` is the version it was written at)."""
        rows = dict(self.conn.execute(
            "SELECT key, value FROM meta WHERE key IN ('vector_version', 'memories_version')").fetchall())
        return int(rows.get("vector_version", 0)), int(rows.get("memories_version", 0))

    def memories_with_hashes(self, hashes: Sequence[str]) -> list[tuple[int, str, str]]:
        """(rid, status, content_hash) of the memories whose text has these hashes."""
        found: list[tuple[int, str, str]] = []
        for start in range(0, len(hashes), 500):
            chunk = list(hashes[start:start + 500])
            found += [(r[0], r[1], r[2]) for r in self.conn.execute(
                f"SELECT rid, status, content_hash FROM memories WHERE content_hash IN "
                f"({','.join('?' * len(chunk))})", chunk)]
        return found

    def changed_since(self, seq: int, *, limit: int) -> list[tuple[int, str, str]]:
        """(rid, status, content_hash) of memories written after version ``seq``."""
        return [(r[0], r[1], r[2]) for r in self.conn.execute(
            "SELECT rid, status, content_hash FROM memories WHERE seq > ? ORDER BY seq LIMIT ?", (seq, limit))]

    def removed_since(self, seq: int) -> list[int] | None:
        """Row ids of memories deleted after version ``seq``; None when the log no
        longer reaches back that far (the caller must reload)."""
        floor = int(self.get_meta("removed_floor", "0") or 0)
        if seq < floor:
            return None
        return [r for (r,) in self.conn.execute("SELECT rid FROM removed WHERE seq > ?", (seq,))]

    def vectors_of(self, model: str, hashes: Sequence[str]) -> dict[str, list[bytes]]:
        """content_hash → its chunk vectors (raw float32 blobs, chunk order)."""
        found: dict[str, list[bytes]] = {}
        for start in range(0, len(hashes), 500):
            chunk = list(hashes[start:start + 500])
            for content_hash, vec in self.conn.execute(
                    f"SELECT content_hash, vec FROM vectors WHERE model = ? AND content_hash IN "
                    f"({','.join('?' * len(chunk))}) ORDER BY content_hash, chunk", [model, *chunk]):
                found.setdefault(content_hash, []).append(vec)
        return found

    def vector_rows(self, model: str, *, spare: float = 0.0) -> tuple["np.ndarray", "np.ndarray", "np.ndarray", int]:
        """(rid, vector, status) per chunk row, for every memory not in the trash, and
        how many rows there are. With ``spare``, the arrays have that share of extra
        rows (rid -1) for vectors added later without copying the whole matrix."""
        import numpy as np

        rids: list[int] = []
        blobs: list[bytes] = []
        statuses: list[str] = []
        for rid, blob, status in self.conn.execute(
                "SELECT m.rid, v.vec, m.status FROM memories m JOIN vectors v "
                "ON v.content_hash = m.content_hash AND v.model = ? WHERE m.status != 'deleted'",
                (model,)):
            rids.append(rid)
            blobs.append(blob)
            statuses.append(status)
        if not blobs:
            return (np.zeros(0, dtype=np.int64), np.zeros((0, 0), dtype=np.float32),
                    np.zeros(0, dtype="<U8"), 0)
        used = len(blobs)
        capacity = used + int(used * spare)
        dimension = len(blobs[0]) // 4
        matrix = np.empty((capacity, dimension), dtype=np.float32)
        for row, blob in enumerate(blobs):  # row by row: no second full-size copy in memory
            matrix[row] = np.frombuffer(blob, dtype=np.float32)
        all_rids = np.full(capacity, -1, dtype=np.int64)
        all_rids[:used] = rids
        all_statuses = np.full(capacity, "deleted", dtype="<U8")  # active, archived, deleted
        all_statuses[:used] = statuses
        return all_rids, matrix, all_statuses, used

    def orphan_vector_count(self) -> int:
        """How many vectors ``prune_orphan_vectors`` would delete (no memory has their text)."""
        return int(self.conn.execute(
            "SELECT count(*) FROM vectors WHERE content_hash NOT IN (SELECT content_hash FROM memories)"
        ).fetchone()[0])

    def prune_orphan_vectors(self) -> int:
        with self.write():
            cursor = self.conn.execute(
                "DELETE FROM vectors WHERE content_hash NOT IN (SELECT content_hash FROM memories)")
            if cursor.rowcount:
                self._bump_vector_version()
            return cursor.rowcount

    # ------------------------------------------------------------------ the entity graph

    def equivalent_keys(self, keys: Iterable[str]) -> set[str]:
        return graph_tables.equivalent_keys(self.conn, keys)

    def relations_touching(self, keys: Sequence[str], *, as_subject_only: bool = False) -> list[RelationRow]:
        return graph_tables.relations_touching(self.conn, list(keys), as_subject_only=as_subject_only)

    def entity_mentions(self, keys: Sequence[str]) -> list[MentionRow]:
        return graph_tables.mentions(self.conn, list(keys))

    def entity_summary(self, *, limit: int | None = None) -> list[EntitySummaryRow]:
        return graph_tables.entity_summary(self.conn, limit=limit)

    def known_entity_keys(self, keys: Sequence[str]) -> set[str]:
        return graph_tables.known_keys(self.conn, list(keys))

    def graph_edges(self, keys: Sequence[str], *, now_ts: float, include_closed: bool = False,
                    per_key: int) -> list[EdgeRow]:
        """The bounded walk's edges (see ``graph_tables.edges_of``); optional on a
        backend: without it ``reach`` filters ``relations_touching`` itself."""
        return graph_tables.edges_of(self.conn, list(keys), now_ts=now_ts, include_closed=include_closed,
                                     per_key=per_key)

    def entity_mentions_of(self, key: str, *, limit: int) -> list[MentionRow]:
        """At most ``limit`` mentions of one entity key (optional, like ``graph_edges``)."""
        return graph_tables.mentions_of(self.conn, key, limit)

    # ------------------------------------------------------------------ rebuild

    def clear_memories(self) -> None:
        """Forget every memory row (not vectors: they are keyed by content hash and
        stay valid for any text that did not change)."""
        with self.write():
            for table in ("memories", "memory_tags", "problems", "room_dirs", "accesses"):
                self.conn.execute(f"DELETE FROM {table}")
            clear_postings(self.conn)
            graph_tables.clear(self.conn)
            self.conn.execute("DELETE FROM meta WHERE key IN ('journal_offset', 'last_full_scan', "
                              "'kw_docs', 'kw_length')")
            # these removals are not logged one by one: older caches must reload
            self.conn.execute("DELETE FROM removed")
            self.conn.execute("INSERT OR REPLACE INTO meta VALUES ('removed_floor', ?)",
                              (str(self._bump("memories_version")),))


_ROW_COLUMNS = ("id, path, location, type, status, source, importance, pinned, created_ts, "
                "updated_ts, created_at, updated_at, tags, summary, content, extra, "
                "content_hash, file_hash, mtime_ns, size, terms, doc_len")


def _memory_row(memory: Memory, relpath: str, raw: bytes, mtime_ns: int, size: int) -> tuple[tuple, list[str]]:
    """A memory's ``memories`` row (``_ROW_COLUMNS``) and its indexed terms: its keyword
    terms, vector key and file hash are derived here, for every writer alike."""
    terms = memory_terms(memory.content, memory.summary, memory.tags)
    assert memory.created_at is not None and memory.updated_at is not None  # set by parse and store
    row = (
        memory.id, relpath, memory.location, memory.type, memory.status, memory.source,
        memory.importance, int(memory.pinned), memory.created_at.timestamp(),
        memory.updated_at.timestamp(), memory.created_at.isoformat(),
        memory.updated_at.isoformat(), json.dumps(list(memory.tags), ensure_ascii=False) if memory.tags else "[]",
        memory.summary, memory.content,
        json.dumps(memory.extra, ensure_ascii=False, default=str) if memory.extra else "{}",
        embed_key(memory.content, memory.summary), file_digest(raw), mtime_ns, size, " ".join(terms),
        len(terms),
    )
    return row, terms


def file_digest(raw: bytes) -> str:
    """The hash a file's bytes are compared by (touched but unchanged: no re-index)."""
    return hashlib.blake2b(raw, digest_size=16).hexdigest()


def row_to_memory(row: IndexRow, palace_root: Path, *, decay_score: float = 1.0,
                  access_count: int = 0, last_accessed_at: datetime | None = None) -> Memory:
    return Memory(
        id=row.id, content=row.content, summary=row.summary,
        tags=tuple(json.loads(row.tags)), importance=row.importance, status=row.status,
        location=row.location, type=row.type, source=row.source,
        created_at=datetime.fromisoformat(row.created_at),
        updated_at=datetime.fromisoformat(row.updated_at), pinned=bool(row.pinned),
        decay_score=decay_score, access_count=access_count, last_accessed_at=last_accessed_at,
        extra=json.loads(row.extra), path=palace_root / row.path,
    )
