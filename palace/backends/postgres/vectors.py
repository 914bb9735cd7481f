"""Vectors in pgvector, keyed by (model, content hash) as locally.

Search is an exact cosine scan (``<=>``) over the model's rows, best chunk per
memory, which ranks exactly as the local matrix product does. Above ``HNSW_ABOVE``
vectors of a model, unfiltered searches go through an HNSW index (cosine) made per
model and dimension (a partial expression index: one table holds every model), which
is approximate, as any ANN index is, and fast at millions of rows.
"""

from __future__ import annotations

import hashlib
from typing import Any, Collection

from palace.index.vectors import embedded_batches
from palace.backends.postgres.database import PostgresPalace
from palace.backends.postgres.rows import row_ids

HNSW_ABOVE = 20_000  # below this many vectors of a model an exact scan is fast (< ~20 ms) and exact
COUNT_TTL_S = 60.0  # how long a process trusts its count of a model's vectors (HNSW or not)
OVERSAMPLE_MAX = 4000  # a filtered search asks HNSW for at most this many candidates, else scans exactly
# How the HNSW graph is built: pgvector's default ef_construction (64) left some vectors of
# dense clusters unreachable, recall@10 0.937-0.957 at 1M whatever the search's ef; 128 gave
# 1.000 at ef 200-800, for a build twice as long (220 → 420 s at 1M)
HNSW_BUILD = "m = 16, ef_construction = 128"


def _within(rids: list[int], allowed: Collection[int]) -> set[int]:
    """Which of ``rids`` (a few hundred candidates) are in ``allowed`` (perhaps
    hundreds of thousands of row ids, as a numpy array or any collection)."""
    import numpy as np

    pool = allowed if isinstance(allowed, np.ndarray) else np.fromiter(allowed, np.int64, len(allowed))
    if len(pool) == 0 or not rids:
        return set()
    if not bool(np.all(pool[1:] >= pool[:-1])):
        pool = np.sort(pool)
    wanted = np.asarray(rids, dtype=np.int64)
    at = np.minimum(np.searchsorted(pool, wanted), len(pool) - 1)
    return {int(r) for r in wanted[pool[at] == wanted]}


def _literal(vector: Any) -> str:
    return "[" + ",".join(f"{float(x):.7g}" for x in vector) + "]"


class PgVectors:
    def __init__(self, palace: PostgresPalace, chunk: Any):
        self.palace = palace
        self.chunk = chunk
        # model → the text version (postings.text_version) at which every memory had a vector
        self._complete: dict[str, tuple[int, int]] = {}
        self._counts: dict[str, tuple[float, int]] = {}  # model → (when counted, vectors)
        self._too_long: set[str] = set()  # hashes a bounded backfill ran out of time in
        self._hnsw: dict[tuple[str, int], str] = {}  # (model, dimension) → its index, known to exist

    def invalidate(self) -> None:
        """Forget what this process remembers (completeness, counts); rows are read anew."""
        self._complete.clear()
        self._counts.clear()
        self._hnsw.clear()

    def pending(self, model: str, *, limit: int = 1000) -> int:
        """How many memories have no vector for ``model`` (counted up to ``limit``)."""
        from palace.backends.postgres.postings import text_version

        with self.palace.connection() as conn:
            version = text_version(conn)
            if self._complete.get(model) == version:
                return 0
            missing = int(conn.execute(
                "SELECT COUNT(*) AS n FROM (SELECT 1 FROM memories m WHERE NOT EXISTS (SELECT 1 FROM "
                "vectors v WHERE v.model = %s AND v.content_hash = m.content_hash) LIMIT %s) AS missing",
                (model, limit)).fetchone()["n"])
        if not missing:  # remembered as a backfill does: finding none reads every memory (1.5 s at 300k)
            self._complete[model] = version
        return missing

    def backfill(self, embedder: Any, *, limit: int | None = None, batch_size: int = 64,
                 deadline: float | None = None, lock: Any = None, pause: Any = None) -> int:
        from palace.backends.postgres.postings import text_version

        model = embedder.name
        with self.palace.connection() as conn:
            version = text_version(conn)
            if self._complete.get(model) == version:
                return 0  # no memory's text changed since every one had a vector
            missing = conn.execute(
                "SELECT DISTINCT ON (m.content_hash) m.content_hash, m.content, m.summary FROM memories m "
                "WHERE NOT EXISTS (SELECT 1 FROM vectors v WHERE v.model = %s AND v.content_hash = "
                "m.content_hash) ORDER BY m.content_hash LIMIT %s", (model, limit)).fetchall()
        if not missing:
            self._complete[model] = version
        done = 0
        rows = [(r["content_hash"], r["content"], r["summary"]) for r in missing]
        for count, vectors in embedded_batches(rows, self.chunk, embedder, batch_size=batch_size, deadline=deadline,
                                              too_long=self._too_long, pause=pause):
            with self.palace.connection() as conn, conn.cursor() as cur:
                cur.executemany(
                    "INSERT INTO vectors VALUES (%s, %s, %s, %s::vector) ON CONFLICT DO NOTHING",
                    [(model, h, c, _literal(v)) for h, c, v in vectors])
            done += count
        return done

    def build_graph(self, model: str, *, lock: Any = None) -> bool:
        """Nothing to build ahead: the server keeps its HNSW index (``ensure_hnsw``)
        current itself, made by the first search of a model."""
        return False

    def ensure_hnsw(self, model: str, dimension: int) -> str:
        """The HNSW index of this model's vectors (made once, by whoever gets here first)."""
        from psycopg import sql

        if (model, dimension) in self._hnsw:  # CREATE INDEX IF NOT EXISTS locks the table: once per process
            return self._hnsw[(model, dimension)]
        name = "vectors_hnsw_" + hashlib.blake2b(f"{model}|{dimension}".encode(), digest_size=6).hexdigest()
        with self.palace.connection() as conn:
            conn.execute(sql.SQL("CREATE INDEX IF NOT EXISTS {} ON vectors USING hnsw "
                                 "((vec::vector({})) vector_cosine_ops) WITH ({}) WHERE model = {}").format(
                sql.Identifier(name), sql.Literal(dimension), sql.SQL(HNSW_BUILD), sql.Literal(model)))
        self._hnsw[(model, dimension)] = name
        return name

    def _count(self, model: str) -> int:
        import time

        cached = self._counts.get(model)
        if cached is None or time.monotonic() - cached[0] > COUNT_TTL_S:
            with self.palace.connection() as conn:
                n = conn.execute("SELECT COUNT(*) AS n FROM vectors WHERE model = %s", (model,)).fetchone()["n"]
            cached = self._counts[model] = (time.monotonic(), int(n))
        return cached[1]

    def _approximate(self, model: str, query_vector: Any, limit: int, statuses: tuple[str, ...],
                     allowed: "Collection[int] | None" = None, candidates: int | None = None) -> dict[int, float] | None:
        """Nearest chunks by the HNSW index, then their memories (passing ``allowed``):
        a filter keeps the share of candidates it passes, so they are over-fetched, and
        the candidates are checked here (sending a broad filter's rows to the server cost
        more than the search: 411k row ids, 0.7 s at 1M).
        None: this role may not make the index (an agent's own role; the owner will),
        so the caller scans exactly until then."""
        import psycopg
        from psycopg import sql

        dimension = len(query_vector)
        try:
            self.ensure_hnsw(model, dimension)
        except psycopg.errors.InsufficientPrivilege:
            return None  # an agent's own role may not make the index: the owner will; exact till then
        cast = sql.SQL("vector({})").format(sql.Literal(dimension))
        query = sql.SQL(
            "SELECT m.rid, MAX(1 - (v.vec::{c} <=> %(q)s::{c})) AS sim FROM (SELECT content_hash, vec "
            "FROM vectors WHERE model = {model} ORDER BY vec::{c} <=> %(q)s::{c} LIMIT %(k)s) v "
            "JOIN memories m ON m.content_hash = v.content_hash WHERE m.status = ANY(%(s)s) "
            "GROUP BY m.rid ORDER BY sim DESC, m.rid LIMIT %(n)s").format(c=cast, model=sql.Literal(model))
        k = candidates or limit * 4
        with self.palace.connection() as conn, conn.transaction():
            conn.execute(sql.SQL("SET LOCAL hnsw.ef_search = {}").format(sql.Literal(min(1000, max(40, k * 2)))))
            rows = conn.execute(query, {"q": _literal(query_vector), "k": k, "s": list(statuses),
                                        "n": limit if allowed is None else k}).fetchall()
        found = {row["rid"]: float(row["sim"]) for row in rows}
        if allowed is not None:  # best first, as the server sent them
            kept = _within(list(found), allowed)
            found = dict([(rid, sim) for rid, sim in found.items() if rid in kept][:limit])
        return found

    def best_chunks(self, model: str, query_vector: Any, rids: "Collection[int]") -> dict[int, Any]:
        """Per memory of ``rids``, its chunk vector closest to ``query_vector`` (as the
        SQLite store's ``best_chunks``: vector feedback reads them)."""
        import numpy as np

        if not rids:
            return {}
        sql = ("SELECT DISTINCT ON (m.rid) m.rid, v.vec::text AS vec FROM vectors v JOIN memories m "
               "ON m.content_hash = v.content_hash WHERE v.model = %s AND m.rid = ANY(%s::bigint[]) "
               "ORDER BY m.rid, v.vec <=> %s::vector")
        with self.palace.connection() as conn:
            rows = conn.execute(sql, (model, row_ids(rids), _literal(query_vector))).fetchall()
        return {row["rid"]: np.array(row["vec"].strip("[]").split(","), dtype=np.float32) for row in rows}

    def chunk_cosines(self, model: str, query_vector: Any, rids: "Collection[int]",
                      n: int = 2) -> dict[int, tuple[float, ...]]:
        """Per memory of ``rids``, the cosines of its ``n`` chunks closest to
        ``query_vector``, best first (as the SQLite store's ``chunk_cosines``)."""
        if not rids:
            return {}
        sql = ("SELECT rid, sim FROM (SELECT m.rid, 1 - (v.vec <=> %(q)s::vector) AS sim, ROW_NUMBER() "
               "OVER (PARTITION BY m.rid ORDER BY v.vec <=> %(q)s::vector) AS place FROM vectors v "
               "JOIN memories m ON m.content_hash = v.content_hash WHERE v.model = %(m)s "
               "AND m.rid = ANY(%(r)s::bigint[])) near WHERE place <= %(n)s ORDER BY rid, place")
        found: dict[int, list[float]] = {}
        with self.palace.connection() as conn:
            for row in conn.execute(sql, {"q": _literal(query_vector), "m": model,
                                          "r": row_ids(rids), "n": n}):
                found.setdefault(row["rid"], []).append(float(row["sim"]))
        return {rid: tuple(cosines) for rid, cosines in found.items()}

    def scores(self, model: str, query_vector: Any, *, allowed: "Collection[int] | None",
               limit: int, statuses: tuple[str, ...] = ("active",)) -> dict[int, float]:
        total = self._count(model)
        if total > HNSW_ABOVE:
            found: dict[int, float] | None = None
            if allowed is None:
                found = self._approximate(model, query_vector, limit, statuses)
            else:
                # a broad filter: over-fetch from the index by the share it keeps; a narrow
                # one (few memories) is scanned exactly, which is then fast
                wanted = int(limit * 4 * total / max(1, len(allowed)))
                if len(allowed) > HNSW_ABOVE and wanted <= OVERSAMPLE_MAX:
                    found = self._approximate(model, query_vector, limit, statuses, allowed, wanted)
            if found is not None:
                return found
        sql = ("SELECT m.rid, MAX(1 - (v.vec <=> %s::vector)) AS sim FROM vectors v JOIN memories m "
               "ON m.content_hash = v.content_hash WHERE v.model = %s AND m.status = ANY(%s)")
        params: list[Any] = [_literal(query_vector), model, list(statuses)]
        if allowed is not None:
            sql += " AND m.rid = ANY(%s::bigint[])"
            params.append(row_ids(allowed))
        sql += " GROUP BY m.rid ORDER BY sim DESC, m.rid LIMIT %s"
        params.append(limit)
        with self.palace.connection() as conn:
            return {row["rid"]: float(row["sim"]) for row in conn.execute(sql, params)}
