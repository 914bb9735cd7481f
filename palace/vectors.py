"""Vector candidates: brute-force cosine over the chunk vectors stored in the index.

At 100k memories × 384 dimensions a matrix-vector product is a few milliseconds,
so no approximate index is needed (and none can drift from the files). The
matrix is cached per process and reloaded only when the index's vector version
changes (another process embedded something).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Collection

from .chunking import chunk_text
from .index import Index


@dataclass
class _Cache:
    model: str
    version: str
    rids: Any  # numpy arrays; numpy is imported lazily
    matrix: Any
    statuses: Any


class VectorStore:
    def __init__(self, index: Index):
        self.index = index
        self._cache: _Cache | None = None
        self._complete: dict[str, str] = {}  # model → vector_version when none was missing

    def _load(self, model: str) -> _Cache:
        version = self.index.vector_version()
        if self._cache is None or self._cache.model != model or self._cache.version != version:
            rids, matrix, statuses = self.index.vector_rows(model)
            self._cache = _Cache(model, version, rids, matrix, statuses)
        return self._cache

    def invalidate(self) -> None:
        self._cache = None

    def backfill(self, embedder, *, limit: int | None = None, batch_size: int = 64) -> int:
        """Embed live memories that have no vector for the embedder's model yet.

        Keyed by content hash, so identical texts and unchanged edits cost nothing.
        Returns the number of memories embedded.
        """
        model = embedder.name
        version = self.index.vector_version()
        if self._complete.get(model) == version:
            return 0  # nothing changed since every memory had a vector: skip the scan
        missing = self.index.hashes_missing_vectors(model, limit=limit)
        if not missing:
            self._complete[model] = version
            return 0
        done = 0
        for start in range(0, len(missing), batch_size):
            batch = missing[start:start + batch_size]
            texts: list[str] = []
            owners: list[tuple[str, int]] = []
            for content_hash, content, summary in batch:
                text = content if not summary else f"{content}\n\n{summary}"
                for number, chunk in enumerate(chunk_text(text, embedder.max_chars)):
                    texts.append(chunk)
                    owners.append((content_hash, number))
            vectors = embedder.embed_documents(texts)
            self.index.put_vectors(embedder.name, [(h, c, vectors[i]) for i, (h, c) in enumerate(owners)])
            done += len(batch)
        return done

    def scores(self, model: str, query_vector: Any, *, allowed: "Collection[int] | None",
               limit: int, statuses: tuple[str, ...] = ("active",)) -> dict[int, float]:
        """Best-chunk cosine per memory rid, top ``limit`` (vectors are normalised).

        ``allowed`` (rids passing every filter) wins when given; otherwise only the
        memory statuses are checked, from the cache, without a query per search.
        """
        import numpy as np

        cache = self._load(model)
        if cache.matrix.size == 0:
            return {}
        sims = cache.matrix @ np.asarray(query_vector, dtype=np.float32)
        rids = cache.rids
        if allowed is not None:
            mask = np.isin(rids, np.asarray(list(allowed) if isinstance(allowed, (set, frozenset))
                                            else allowed, dtype=np.int64))
            sims = np.where(mask, sims, -np.inf)
        elif set(statuses) != {"active", "archived"}:
            sims = np.where(np.isin(cache.statuses, list(statuses)), sims, -np.inf)
        # more rows than `limit` because several chunks can belong to one memory
        take = min(len(sims), limit * 4)
        top = np.argpartition(-sims, take - 1)[:take] if take < len(sims) else np.arange(len(sims))
        best: dict[int, float] = {}
        for row in top[np.argsort(-sims[top])]:
            score = float(sims[row])
            if score == -np.inf:
                break
            rid = int(rids[row])
            if rid not in best:
                best[rid] = score
                if len(best) >= limit:
                    break
        return best
