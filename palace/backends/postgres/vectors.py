"""Vectors in pgvector, keyed by (model, content hash) as locally.

Search is an exact cosine scan (``<=>``) over the model's rows, best chunk per
memory, which ranks exactly as the local matrix product does. (An HNSW index per
model and dimension, for palaces of millions, is not built yet: see docs/backends.md.)
"""

from __future__ import annotations

from typing import Any, Collection

from ...models import embed_text
from .database import PostgresPalace


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

    def scores(self, model: str, query_vector: Any, *, allowed: "Collection[int] | None",
               limit: int, statuses: tuple[str, ...] = ("active",)) -> dict[int, float]:
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
