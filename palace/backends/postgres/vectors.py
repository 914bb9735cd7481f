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

from ...models import embed_text
from .database import PostgresPalace

HNSW_ABOVE = 100_000  # below this many vectors of a model an exact scan is fast and exact


def _literal(vector: Any) -> str:
    return "[" + ",".join(f"{float(x):.7g}" for x in vector) + "]"


class PgVectors:
    def __init__(self, palace: PostgresPalace, chunk: Any):
        self.palace = palace
        self.chunk = chunk

    def invalidate(self) -> None:
        """Nothing cached in the process: the database is read on every search."""

    def backfill(self, embedder: Any, *, limit: int | None = None, batch_size: int = 64) -> int:
        model = embedder.name
        with self.palace.connection() as conn:
            missing = conn.execute(
                "SELECT DISTINCT ON (m.content_hash) m.content_hash, m.content, m.summary FROM memories m "
                "WHERE NOT EXISTS (SELECT 1 FROM vectors v WHERE v.model = %s AND v.content_hash = "
                "m.content_hash) ORDER BY m.content_hash LIMIT %s", (model, limit)).fetchall()
        for start in range(0, len(missing), batch_size):
            batch = missing[start:start + batch_size]
            texts, owners = [], []
            for row in batch:
                for number, piece in enumerate(self.chunk(embed_text(row["content"], row["summary"]),
                                                          embedder.max_chars)):
                    texts.append(piece)
                    owners.append((row["content_hash"], number))
            vectors = embedder.embed_documents(texts)
            with self.palace.connection() as conn, conn.cursor() as cur:
                cur.executemany(
                    "INSERT INTO vectors VALUES (%s, %s, %s, %s::vector) ON CONFLICT DO NOTHING",
                    [(model, h, c, _literal(vectors[i])) for i, (h, c) in enumerate(owners)])
        return len(missing)

    def ensure_hnsw(self, model: str, dimension: int) -> str:
        """The HNSW index of this model's vectors (made once, by whoever gets here first)."""
        from psycopg import sql

        name = "vectors_hnsw_" + hashlib.blake2b(f"{model}|{dimension}".encode(), digest_size=6).hexdigest()
        with self.palace.connection() as conn:
            conn.execute(sql.SQL("CREATE INDEX IF NOT EXISTS {} ON vectors USING hnsw "
                                 "((vec::vector({})) vector_cosine_ops) WHERE model = {}").format(
                sql.Identifier(name), sql.Literal(dimension), sql.Literal(model)))
        return name

    def _approximate(self, model: str, query_vector: Any, limit: int,
                     statuses: tuple[str, ...]) -> dict[int, float] | None:
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
        with self.palace.connection() as conn, conn.transaction():
            conn.execute(sql.SQL("SET LOCAL hnsw.ef_search = {}").format(sql.Literal(max(40, limit * 8))))
            rows = conn.execute(query, {"q": _literal(query_vector), "k": limit * 4, "s": list(statuses),
                                        "n": limit}).fetchall()
        return {row["rid"]: float(row["sim"]) for row in rows}

    def scores(self, model: str, query_vector: Any, *, allowed: "Collection[int] | None",
               limit: int, statuses: tuple[str, ...] = ("active",)) -> dict[int, float]:
        if allowed is None:
            with self.palace.connection() as conn:
                many = conn.execute("SELECT COUNT(*) > %s AS many FROM vectors WHERE model = %s",
                                    (HNSW_ABOVE, model)).fetchone()["many"]
            if many:
                found = self._approximate(model, query_vector, limit, statuses)
                if found is not None:
                    return found
        sql = ("SELECT m.rid, MAX(1 - (v.vec <=> %s::vector)) AS sim FROM vectors v JOIN memories m "
               "ON m.content_hash = v.content_hash WHERE v.model = %s AND m.status = ANY(%s)")
        params: list[Any] = [_literal(query_vector), model, list(statuses)]
        if allowed is not None:
            sql += " AND m.rid = ANY(%s)"
            params.append([int(r) for r in allowed])
        sql += " GROUP BY m.rid ORDER BY sim DESC, m.rid LIMIT %s"
        params.append(limit)
        with self.palace.connection() as conn:
            return {row["rid"]: float(row["sim"]) for row in conn.execute(sql, params)}
