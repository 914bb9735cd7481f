"""PostgreSQL as the store of record: the same seam as ``FileStorage`` + ``Index``.

One ``PostgresPalace`` holds a connection pool; ``PgStore`` (the ``MemoryStore``
protocol), ``PgIndex`` (``MemoryIndex``) and ``PgSyncer`` (what the manager asks of
``Syncer``) are thin views over it. Each memory is kept as the exact Markdown the
local backend would write (``raw``, rendered by ``palace.store.files.render_memory``,
unknown frontmatter keys included) plus the indexed columns, under the same column
names as the SQLite index so search and decay read rows from either alike.

Keyword search: the same jieba-segmented, Porter-stemmed terms as locally, kept as
postings rows (term, rid, tf) and scored by the same BM25 function
(``palace.index.postings.bm25_scores``), so both backends rank identically.

Paths: the manager speaks in paths (``root / location / id.md``); here they are
names only, never files: the id is the path's stem.
"""

from __future__ import annotations

import random
import threading
from contextlib import contextmanager, nullcontext
from dataclasses import replace
from datetime import datetime, tzinfo
from pathlib import Path
from typing import AbstractSet, Any, Iterable, Iterator, Sequence

from palace.errors import ConfigError, InvalidInputError, MemoryFileError
from palace.index.database import Filters
from palace.index.rows import ROW_COLUMNS, IndexRow
from palace.index.postings import Postings
from palace.index.topk import KeywordScoring
from palace.models import Memory
from palace.store.files import PALACE_SUBDIR, TRASH_DIR, TrashRules, parse_memory, render_memory
from palace.text.tokenize import duplicate_key, index_text, stem
from palace.backends.postgres.cache import Key, ListCache
from palace.backends.postgres.locks import Deferred
from palace.backends.postgres.graph import PgGraphQueries, rows_statements as graph_statements
from palace.backends.postgres.postings import FOLD_EVERY, Due, RidSet, fold_due, fold_read, part_of, read_postings
from palace.backends.postgres.roles import bound_identity
from palace.backends.postgres.rows import memory_row, row_ids, scope_of
from palace.backends.postgres.schema import migrate



def _where(filters: Filters, alias: str = "m", rooms: str = "both") -> tuple[str, list[Any]]:
    """``Filters.sql`` in Postgres syntax (same meaning: see ``palace.index.database``).
    ``rooms``: of a location filter, "both" the room and the rooms inside it, "room" the
    room alone, "inside" the rooms inside it (two disjoint index ranges)."""
    clauses = [f"{alias}.status = ANY(%s)"]
    params: list[Any] = [list(filters.statuses)]
    if filters.location:  # the room or any room inside it
        room, inside = f"{alias}.location = %s", f"({alias}.location ~>=~ %s AND {alias}.location ~<~ %s)"
        clauses.append({"both": f"({room} OR {inside})", "room": room, "inside": inside}[rooms])
        params += {"both": [filters.location, *_below(filters.location)], "room": [filters.location],
                   "inside": list(_below(filters.location))}[rooms]
    if filters.type:
        clauses.append(f"{alias}.type = %s")
        params.append(filters.type)
    if filters.start_ts is not None:
        clauses.append(f"{alias}.created_ts >= %s")
        params.append(filters.start_ts)
    if filters.end_ts is not None:
        clauses.append(f"{alias}.created_ts < %s")
        params.append(filters.end_ts)
    for tag in filters.tags:  # a tag or any tag below it, as locally (project/palace ⊃ project/palace/search)
        clauses.append(f"EXISTS (SELECT 1 FROM memory_tags t WHERE t.rid = {alias}.rid "
                       "AND (t.tag = %s OR (t.tag ~>=~ %s AND t.tag ~<~ %s)))")
        params += [tag, *_below(tag)]
    return " AND ".join(clauses), params


def _below(name: str) -> tuple[str, str]:
    """The byte range of everything under ``name/``: from ``name/`` up to ``name0`` ('0'
    follows '/'), compared by ``~>=~``/``~<~``, which compare bytes whatever the collation
    (as LIKE does). Unlike LIKE (not leakproof), they may run inside an index scan under
    row-level security: a room or tag filter reads its rows by the text_pattern_ops
    index, not by a scan of every memory (188 ms → 10 ms at 300k)."""
    return name + "/", name + "0"


@contextmanager
def refused(memory_id: str) -> Iterator[None]:
    """A write the scope policies refuse, as a palace error (not a driver traceback)."""
    import psycopg

    try:
        yield
    except psycopg.errors.InsufficientPrivilege:
        raise InvalidInputError(
            f"memory {memory_id!r}: its scope is not one this client may write (MEMORY_AGENT_ID / "
            "MEMORY_USER_ID decide which), or that id is taken in a scope it cannot see") from None


class PostgresPalace:
    """The pool and the schema; opened once per manager."""

    def __init__(self, url: str, *, agent_id: str | None = None, user_id: str | None = None,
                 min_size: int = 1, max_size: int = 8):
        try:
            import psycopg
            from psycopg.rows import dict_row
            from psycopg_pool import ConnectionPool
        except ImportError as exc:
            raise ConfigError("MEMORY_BACKEND=postgres needs the postgres extra: "
                              f"pip install 'palace-memory[postgres]' ({exc})") from None
        self.url = url
        try:
            with psycopg.connect(url, connect_timeout=10) as conn:
                migrate(conn)
                # an agent's own database role says who it is (roles.py)
                agent_id, user_id = bound_identity(conn, agent_id, user_id)
        except psycopg.OperationalError as exc:
            raise ConfigError(f"cannot reach the PostgreSQL server at {_redacted(url)}: "
                              f"{str(exc).strip()}") from None
        self.agent_id, self.user_id = agent_id, user_id
        self.pool = ConnectionPool(url, min_size=min_size, max_size=max_size, open=True, configure=self._declare,
                                   kwargs={"row_factory": dict_row, "autocommit": True})

        self._side_pool: Any = None  # dedicated_connection's (capture's spool visits)
        self._side_lock = threading.Lock()
        self._pinned = threading.local()  # the connection a thread holding the write lock works on
        self.lists = ListCache()  # the keyword lists this process read, while unchanged on the server
        self._touched: dict[Key, None] = {}  # (term, scope, part) written since the last fold check
        # a first check after a random share of FOLD_EVERY writes: clients started together
        # would otherwise all check at once, find the same deltas due and queue to fold them
        self._writes = random.randrange(FOLD_EVERY)
        self._touch_lock = threading.Lock()

    @contextmanager
    def dedicated_connection(self) -> Iterator[Any]:
        """A connection from a second, small pool (made on first use), declaring who this
        client is: for work that waits on a row lock (capture's spool). Visitors waiting
        on a busy row hold these, never the main pool's connections that the lock
        holder needs for its own writes, so they cannot starve it."""
        self._send_deferred()  # a lock this thread deferred is taken before the visit
        with self._side_lock:
            if self._side_pool is None:
                from psycopg.rows import dict_row
                from psycopg_pool import ConnectionPool

                self._side_pool = ConnectionPool(self.url, min_size=0, max_size=8, open=True,
                                                 configure=self._declare,
                                                 kwargs={"row_factory": dict_row, "autocommit": True})
        with self._side_pool.connection() as conn:
            yield conn

    def _declare(self, conn: Any) -> None:
        # who this client is, for the row-level security policies (schema migration 2)
        conn.execute("SELECT set_config('app.agent_id', %s, false), set_config('app.user_id', %s, false)",
                     (self.agent_id or "", self.user_id or ""))

    def connection(self) -> Any:
        """A pooled connection; while this thread holds the write lock, the locked one
        (the lock statements deferred on it sent first)."""
        pinned = self.pinned()
        if pinned is None:
            return self.pool.connection()
        self._send_deferred()
        return nullcontext(pinned)

    def fetch_all(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        """The rows of one read. A lock deferred on this thread's connection goes with it,
        in one round trip (a pipeline: the server takes the lock, then runs the read)."""
        pinned, deferred = self.pinned(), self._take_deferred()
        if not deferred:
            with self.connection() as conn:
                return conn.execute(sql, params).fetchall()
        with pinned.pipeline():
            for lock in deferred:
                pinned.execute(lock.sql, lock.params)
            cursor = pinned.execute(sql, params)
        return cursor.fetchall()

    def pin(self, conn: Any) -> None:
        self._pinned.conn, self._pinned.deferred = conn, []

    def pinned(self) -> Any:
        return getattr(self._pinned, "conn", None)

    def defer(self, lock: Deferred) -> None:
        """Send ``lock`` (a statement taking advisory locks) with the pinned connection's next query."""
        self._pinned.deferred.append(lock)

    def withdraw(self, lock: Deferred) -> bool:
        """Drop ``lock`` if it was never sent (True): then it was never taken either."""
        deferred = getattr(self._pinned, "deferred", [])
        if lock.sent or lock not in deferred:
            return False
        deferred.remove(lock)
        return True

    def _send_deferred(self) -> None:
        for lock in self._take_deferred():
            self.pinned().execute(lock.sql, lock.params)

    def _take_deferred(self) -> list[Deferred]:
        deferred = getattr(self._pinned, "deferred", None)
        if not deferred:
            return []
        self._pinned.deferred = []
        for lock in deferred:
            lock.sent = True  # a lock whose sending failed is unlocked all the same: a no-op then
        return deferred

    def touched(self, conn: Any, scope: str, rid: int, terms: Iterable[str]) -> None:
        """Note a written memory's terms; every ``FOLD_EVERY`` writes, fold the deltas
        of the terms written that have outgrown their share (postings.fold_due)."""
        part = part_of(rid)
        with self._touch_lock:
            self._touched.update(dict.fromkeys((term, scope, part) for term in terms))
            self._writes += 1
            if self._writes < FOLD_EVERY:
                return
            due, self._touched, self._writes = list(self._touched), {}, 0
        fold_due(conn, due)

    def close(self) -> None:
        self.pool.close()
        if self._side_pool is not None:
            self._side_pool.close()


def _redacted(url: str) -> str:
    """The URL without its password (it ends up in error messages and logs)."""
    if "@" in url and "://" in url:
        scheme, rest = url.split("://", 1)
        credentials, host = rest.rsplit("@", 1)
        return f"{scheme}://{credentials.split(':', 1)[0]}@{host}"
    return url


class PgStore(TrashRules):
    """The ``MemoryStore`` protocol over the ``memories`` and ``trash`` tables."""

    def __init__(self, palace: PostgresPalace, workspace: Path, tz: tzinfo, *, derive_graph: Any = None):
        self.palace = palace
        self.derive_graph = derive_graph  # memory -> its graph rows (palace.graph), kept beside it
        # never created: the database holds it all; paths under it only name memories
        # (the relative `path` column) and the hook service's socket, made where used
        self.root = Path(workspace) / PALACE_SUBDIR
        self.tz = tz

    def ensure(self) -> None:
        """Nothing to create: a local folder would be one the user never asked for."""

    def path_for(self, location: str, memory_id: str) -> Path:
        return self.root.joinpath(*location.split("/"), f"{memory_id}.md")

    def write(self, memory: Memory) -> Path:
        import psycopg

        path = self.path_for(memory.location, memory.id)
        row = memory_row(memory, path.relative_to(self.root).as_posix())
        columns = ", ".join(row)
        values = ", ".join(f"%({c})s" for c in row)
        updates = ", ".join(f"{c} = EXCLUDED.{c}" for c in row if c != "id")
        # The row first (the upsert locks this memory's row until commit: a concurrent
        # write of the same id waits, then bumps version again; the memories_index trigger
        # keeps its postings and BM25 counters), and a live memory leaves the trash
        # (restore: never both). Tags follow in a statement of their own: an agent role's
        # policy on memory_tags checks that the tagged memory exists, and a new row is
        # invisible to the statement that inserts it. Then the entity graph's rows.
        statements = [
            f"WITH m AS (INSERT INTO memories ({columns}) VALUES ({values}) ON CONFLICT (id) DO UPDATE "
            f"SET {updates}, version = memories.version + 1 RETURNING rid), "
            "gone AS (DELETE FROM trash WHERE id = %(id)s) SELECT rid FROM m",
            "WITH m AS (SELECT rid FROM memories WHERE id = %(id)s), gone AS (DELETE FROM memory_tags "
            "WHERE rid = (SELECT rid FROM m) AND tag <> ALL(%(w_tags)s::text[])) INSERT INTO memory_tags "
            "SELECT t, (SELECT rid FROM m) FROM unnest(%(w_tags)s::text[]) AS t ON CONFLICT DO NOTHING"]
        params = {**row, "w_tags": list(dict.fromkeys(memory.tags))}
        if self.derive_graph is not None:
            graph, graph_params = graph_statements(scope_of(memory), self.derive_graph(memory))
            statements += graph
            params.update(graph_params)
        with self.palace.connection() as conn:
            # One query of several statements: the server runs them as one transaction,
            # and the client is asked nothing until it ends, so the row locks it takes (the
            # memory's, a counter shard's) are held for the server's work only, however
            # long this client waits for a CPU (16 writers on 2 cores waited on each other's
            # idle transactions). Client-side binding: a query of several statements has no
            # server-side parameters.
            with refused(memory.id), psycopg.ClientCursor(conn) as cur:
                cur.execute(";\n".join(statements), params)
                written = cur.fetchone()  # the first statement's result: the row's id
            assert written is not None
            rid = written["rid"]
            self.palace.touched(conn, row["scope"], rid, row["terms"].split())
        return path

    def read(self, path: Path, *, location: str | None = None) -> Memory:
        with self.palace.connection() as conn:
            row = conn.execute("SELECT raw, location, created_ts FROM memories WHERE id = %s",
                               (path.stem,)).fetchone()
        if row is None:
            raise MemoryFileError(path, "no such memory in the database")
        return self._parse(row["raw"], path, location or row["location"], row["created_ts"])

    def _parse(self, raw: str, path: Path, location: str, ts: float) -> Memory:
        try:
            return parse_memory(raw, path=path, location=location,
                                fallback_time=datetime.fromtimestamp(ts, self.tz), tz=self.tz)
        except ValueError as exc:
            raise MemoryFileError(path, str(exc)) from None

    def remove_file(self, path: Path) -> None:
        """Drop the memory stored under ``path``; after a move its row already has the
        new path (one row per id), so there is nothing left to drop."""
        with self.palace.connection() as conn:
            conn.execute("DELETE FROM memories WHERE id = %s AND path = %s",
                         (path.stem, path.relative_to(self.root).as_posix()))

    def trash_path(self, memory_id: str) -> Path:
        return self.root / TRASH_DIR / f"{memory_id}.md"

    def move_to_trash(self, memory: Memory, deleted_at: datetime) -> Path:
        extra = dict(memory.extra)
        extra["deletedAt"] = deleted_at.isoformat()
        trashed = replace(memory, status="deleted", extra=extra)
        with self.palace.connection() as conn, conn.transaction(), refused(memory.id):
            conn.execute("INSERT INTO trash (id, scope, raw, deleted_ts) VALUES (%s, %s, %s, %s) ON CONFLICT "
                         "(id) DO UPDATE SET raw = EXCLUDED.raw, deleted_ts = EXCLUDED.deleted_ts",
                         (memory.id, scope_of(memory), render_memory(trashed), deleted_at.timestamp()))
            conn.execute("DELETE FROM memories WHERE id = %s", (memory.id,))
        return self.trash_path(memory.id)

    def read_trash(self, memory_id: str) -> Memory | None:
        with self.palace.connection() as conn:
            row = conn.execute("SELECT raw, deleted_ts FROM trash WHERE id = %s", (memory_id,)).fetchone()
        return None if row is None else self._trashed(memory_id, row["raw"], row["deleted_ts"])

    def _trashed(self, memory_id: str, raw: str, ts: float) -> Memory:
        from palace.store.files import split_frontmatter
        from palace.validation import normalize_location

        memory = self._parse(raw, self.trash_path(memory_id), "general", ts)
        meta, _ = split_frontmatter(raw)
        try:  # where to restore it, as the local trash reads it
            location = normalize_location(str((meta or {}).get("location") or "general"))
        except ValueError:
            location = "general"
        return replace(memory, location=location)

    def in_trash(self, memory_id: str) -> bool:
        with self.palace.connection() as conn:
            return conn.execute("SELECT 1 FROM trash WHERE id = %s", (memory_id,)).fetchone() is not None

    def move_from_trash(self, memory: Memory) -> Path:
        """Restore's first step (see FileStorage.move_from_trash): here the trash row goes
        in the same transaction as the restored memory's write (``write``), so nothing."""
        return self.path_for(memory.location, memory.id)

    def discard_trash(self, memory_id: str) -> None:
        with self.palace.connection() as conn:
            conn.execute("DELETE FROM trash WHERE id = %s", (memory_id,))

    def list_trash(self) -> tuple[list[Memory], list[Any]]:
        with self.palace.connection() as conn:
            rows = conn.execute("SELECT id, raw, deleted_ts FROM trash ORDER BY id").fetchall()
        memories, errors = [], []
        for row in rows:
            try:
                memories.append(self._trashed(row["id"], row["raw"], row["deleted_ts"]))
            except MemoryFileError as exc:
                errors.append(exc)
        return memories, errors


    def stored_digests(self) -> dict[str, tuple[str, str]]:
        """id → (MD5 of its Markdown, room): what an import compares a tree's files with."""
        from palace.backends.postgres.bulk import stored_digests

        return stored_digests(self)

    def import_memories(self, memories: Iterable[Memory],
                        stored: dict[str, tuple[str, str]] | None = None) -> tuple[list[str], int]:
        """``palace import``'s memories in bulk (see ``bulk.import_memories``)."""
        from palace.backends.postgres.bulk import import_memories

        return import_memories(self, memories, stored)

    def export_memories(self, dest: Path) -> Iterator[str]:
        """``palace export``'s memories, streamed (see ``bulk.export_memories``)."""
        from palace.backends.postgres.bulk import export_memories

        return export_memories(self, dest)

    def export_rows(self) -> Iterator[tuple[str, str]]:
        """(relative path, Markdown) of every memory and trashed memory, as the local tree has them."""
        with self.palace.connection() as conn:
            for row in conn.execute("SELECT path, raw FROM memories ORDER BY path"):
                yield row["path"], row["raw"]
            for row in conn.execute("SELECT id, raw FROM trash ORDER BY id"):
                yield f"{TRASH_DIR}/{row['id']}.md", row["raw"]


class PgIndex(PgGraphQueries, KeywordScoring):
    """The ``MemoryIndex`` protocol: the same queries as ``palace.index.Index``; the
    entity graph's queries come from ``PgGraphQueries`` (graph.py)."""

    concurrent_reads = True  # each read takes its own pooled connection: a search's legs may overlap

    def __init__(self, palace: PostgresPalace):
        self.palace = palace
        self._legacy_rows: bool | None = None  # rows without dup_key (written before migration 5)?

    def _all(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        return self.palace.fetch_all(sql, params)

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[IndexRow]:
        """``SELECT {ROW_COLUMNS} ...`` read as IndexRows (not the stored Markdown: raw)."""
        return [IndexRow(**row) for row in self._all(sql, params)]

    def row_by_id(self, memory_id: str) -> IndexRow | None:
        rows = self._rows(f"SELECT {ROW_COLUMNS} FROM memories WHERE id = %s", (memory_id,))
        return rows[0] if rows else None

    def terms_of(self, memory_id: str) -> str | None:
        """The stemmed keyword terms indexed for ``memory_id`` (a full sync compares them)."""
        rows = self._all("SELECT terms FROM memories WHERE id = %s", (memory_id,))
        return rows[0]["terms"] if rows else None

    def rows_by_rid(self, rids: Sequence[int]) -> dict[int, IndexRow]:
        return {row.rid: row for row in self._rows(
            f"SELECT {ROW_COLUMNS} FROM memories WHERE rid = ANY(%s::bigint[])", (row_ids(rids),))}

    def list_rows(self, filters: Filters, *, limit: int | None = None,
                  offset: int = 0) -> list[IndexRow]:
        where, params = _where(filters)
        # rid breaks ties as SQLite's rowid order does
        sql = f"SELECT {ROW_COLUMNS} FROM memories m WHERE {where} ORDER BY m.created_ts DESC, m.rid"
        if limit is not None or offset:
            sql += " LIMIT %s OFFSET %s"
            params += [limit, offset]
        return self._rows(sql, params)

    def room_status_counts(self) -> dict[str, dict[str, int]]:
        counts: dict[str, dict[str, int]] = {}
        for row in self._all("SELECT location, status, COUNT(*) AS n FROM memories GROUP BY 1, 2"):
            counts.setdefault(row["location"], {})[row["status"]] = row["n"]
        return counts

    def created_months(self, statuses: Sequence[str]) -> dict[str, dict[str, int]]:
        counts: dict[str, dict[str, int]] = {}
        for row in self._all("SELECT location, substr(created_at, 1, 7) AS month, COUNT(*) AS n FROM "
                             "memories WHERE status = ANY(%s) GROUP BY 1, 2", (list(statuses),)):
            counts.setdefault(row["location"], {})[row["month"]] = row["n"]
        return counts

    def count(self, statuses: Sequence[str] | None = None) -> int:
        if statuses is None:
            return int(self._all("SELECT COUNT(*) AS n FROM memories")[0]["n"])
        return int(self._all("SELECT COUNT(*) AS n FROM memories WHERE status = ANY(%s)",
                             (list(statuses),))[0]["n"])

    def tag_counts(self, statuses: Sequence[str] = ("active",)) -> dict[str, int]:
        """Memories per tag (as written), among memories in ``statuses`` (row security applies)."""
        return {r["tag"]: int(r["n"]) for r in self._all(
            "SELECT t.tag, COUNT(*) AS n FROM memory_tags t JOIN memories m ON m.rid = t.rid "
            "WHERE m.status = ANY(%s) GROUP BY t.tag ORDER BY t.tag", (list(statuses),))}

    def filtered_rids(self, filters: Filters) -> Any:
        if not filters.location:
            where, params = _where(filters)
            return self._packed_rids(f"SELECT m.rid FROM memories m WHERE {where}", params)
        # a room and the rooms inside it as two index-only scans of memories_room_rows: an OR
        # of the two ranges reads the table's pages (the room `projects`, 411k of 1M: 168 → 71 ms)
        (room, room_params), (inside, inside_params) = (_where(filters, rooms=part) for part in ("room", "inside"))
        return self._packed_rids(f"SELECT m.rid FROM memories m WHERE {room} UNION ALL "
                                 f"SELECT m.rid FROM memories m WHERE {inside}", [*room_params, *inside_params])

    def maybe_passing(self, filters: Filters) -> Any:
        """For a tag filter, the memories the tag index lists under each tag (their
        status, scope and other filters unchecked: ``best_passing`` checks its picks),
        which reads no memory row: a tag held by a quarter of 300k memories takes 30 ms
        so, 280 ms with every row's status and scope checked."""
        import numpy as np

        if not filters.tags:
            return self.filtered_rids(filters)
        # two index-only scans (an OR of the two ranges reads the table's pages: 14.7 → 4.8 ms)
        found = [self._packed_rids("SELECT rid FROM memory_tags WHERE tag = %s UNION ALL "
                                   "SELECT rid FROM memory_tags WHERE tag ~>=~ %s AND tag ~<~ %s",
                                   [tag, *_below(tag)]) for tag in filters.tags]
        common = found[0]
        for other in found[1:]:
            common = np.intersect1d(common, other)
        return common

    def _packed_rids(self, select: str, params: Sequence[Any]) -> Any:
        """The row ids ``select`` gives, packed by the server into one value (tens of
        thousands of rows each read into a Python dict cost more than the query)."""
        import numpy as np

        with self.palace.connection() as conn:
            row = conn.execute(f"SELECT string_agg(int8send(s.rid), ''::bytea) AS rids FROM ({select}) s",
                               params, binary=True).fetchone()
        return np.frombuffer(row["rids"] or b"", ">i8").astype(np.int64)

    def term_holders(self, terms: Iterable[str]) -> tuple[int, dict[str, AbstractSet[int]]]:
        """As ``Index.term_holders``: (memories indexed, term → row ids holding it), for
        the relevance floor, from the same stemmed postings."""
        wanted = list(dict.fromkeys(terms))
        stems = {t: stem(t) for t in wanted}
        due: list[Due] = []
        with self.palace.connection() as conn:
            postings, docs, _length = read_postings(conn, set(stems.values()), due)
            fold_read(conn, due)
        held = {s: RidSet(postings[s][0]) for s in set(stems.values())}
        return docs, {t: held[stems[t]] for t in wanted}

    def content_candidates(self, content: str, *, probe_terms: int, and_id: str | None = None) -> list[IndexRow]:
        """Rows that may hold ``content``: those with its normalised digest (one index
        lookup); while rows from before migration 5 lack one, also the local probe's.
        With ``and_id``, the row of that id too (a store's new id, looked at in the same query)."""
        rows = self._rows(f"SELECT {ROW_COLUMNS} FROM memories WHERE dup_key = %s OR id = %s",
                          (duplicate_key(content), and_id))
        if self._legacy_rows is None or self._legacy_rows:
            self._legacy_rows = bool(self._all("SELECT 1 AS x FROM memories WHERE dup_key IS NULL LIMIT 1"))
        if self._legacy_rows:
            terms = list(dict.fromkeys(index_text(content).split()))[:probe_terms]
            if terms:
                rarest = min(self.term_holders(terms)[1].values(), key=len)
                rows += list(self.rows_by_rid(sorted(rarest)[:1000]).values()) if rarest else []
        return rows

    def postings(self, terms: Iterable[str]) -> Postings:
        """As ``Index.postings``: the stems' postings over the scopes this client sees."""
        due: list[Due] = []
        with self.palace.connection() as conn:  # base, delta and counters from one snapshot
            lists, docs, length = read_postings(conn, list(dict.fromkeys(terms)), due, self.palace.lists)
            fold_read(conn, due)  # a delta grown past its share: folded by whoever reads it
        return Postings(docs, length, lists)

    def _passing(self, rids: list[int], filters: Filters) -> set[int]:
        where, params = _where(filters)
        return {r["rid"] for r in self._all(f"SELECT m.rid FROM memories m WHERE m.rid = ANY(%s::bigint[]) "
                                            f"AND {where}", [row_ids(rids), *params])}

    def access_times(self, ids: Sequence[str], *, until_ts: float | None = None,
                     kinds: Sequence[str] | None = None) -> dict[str, list[float]]:
        result: dict[str, list[float]] = {i: [] for i in ids}
        sql = "SELECT id, ts FROM accesses WHERE id = ANY(%s)"
        params: list[Any] = [list(ids)]
        if until_ts is not None:
            sql += " AND ts <= %s"
            params.append(until_ts)
        if kinds:
            sql += " AND kind = ANY(%s)"
            params.append(list(kinds))
        for row in self._all(sql + " ORDER BY ts", params):
            result[row["id"]].append(row["ts"])
        return result

    def all_accesses(self) -> list[tuple[str, float, str]]:
        return [(r["id"], r["ts"], r["kind"])
                for r in self._all("SELECT id, ts, kind FROM accesses ORDER BY ts, id, kind")]

    def add_accesses(self, rows: Iterable[tuple[str, float, str]]) -> None:
        """Accesses of memories this client can see (others are not its to record)."""
        from palace.backends.postgres.bulk import BULK_ABOVE, analyse

        batch = [(i, ts, kind, i, i) for i, ts, kind in rows]
        with self.palace.connection() as conn:
            with conn.cursor() as cur:
                cur.executemany("INSERT INTO accesses SELECT %s, %s, %s WHERE EXISTS (SELECT 1 FROM memories "
                                "WHERE id = %s) OR EXISTS (SELECT 1 FROM trash WHERE id = %s)", batch)
            if len(batch) > BULK_ABOVE:  # an import's journal: a search reads accesses by id
                analyse(conn, ["accesses"])

    def remove_id(self, memory_id: str) -> None:
        with self.palace.connection() as conn:
            conn.execute("DELETE FROM memories WHERE id = %s", (memory_id,))

    def problems(self) -> list[tuple[str, str]]:
        return []  # rows are written parsed: there is no unreadable file to report

    def stats(self) -> dict[str, Any]:
        def pairs(sql: str) -> dict[str, int]:
            return {row["k"]: row["n"] for row in self._all(sql)}

        return {"by_status": pairs("SELECT status AS k, COUNT(*) AS n FROM memories GROUP BY 1"),
                "by_location": pairs("SELECT location AS k, COUNT(*) AS n FROM memories GROUP BY 1 "
                                     "ORDER BY 2 DESC"),
                "by_type": pairs("SELECT type AS k, COUNT(*) AS n FROM memories GROUP BY 1 ORDER BY 2 DESC"),
                "accesses": self._all("SELECT COUNT(*) AS n FROM accesses")[0]["n"],
                "vectors": pairs("SELECT model AS k, COUNT(DISTINCT content_hash) AS n FROM vectors "
                                 "GROUP BY 1"),
                "problems": 0, "backend": "postgres"}

    def clear_memories(self) -> None:
        """``reindex`` here: re-derive every indexed column and posting from the stored
        Markdown (the rows themselves are the store of record and are kept)."""

    def prune_orphan_vectors(self) -> int:
        """Delete the vectors no memory in any scope has the text of (migration 7's
        owner function: this client's own view would take another agent's private
        vectors for orphans). Returns how many went."""
        return int(self._all("SELECT palace_orphan_vectors(true) AS n")[0]["n"])

    def orphan_vector_count(self) -> int:
        """How many vectors ``prune_orphan_vectors`` would delete."""
        return int(self._all("SELECT palace_orphan_vectors(false) AS n")[0]["n"])

    def write(self) -> Any:
        return self.palace.connection()

    def close(self) -> None:
        self.palace.close()
