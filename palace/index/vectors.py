"""Vector candidates: cosine over the chunk vectors stored in the index.

The vectors are one matrix, cached per process and kept current from the index's
change logs (memories written or deleted, texts given vectors); a snapshot file
beside the index lets a fresh process skip reading every vector row. Up to
``ann.MIN_ROWS`` rows a query is an exact matrix-vector product (a few ms at 100k
memories); above, an HNSW graph over the same rows (``palace.index.ann``) picks the
candidates, whose exact cosines are then computed from the matrix, and the exact
product stays the answer while no graph is ready or the graph finds too few rows
passing the filters.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Collection

from palace.index.ann import EXPANSION_SEARCH, MIN_ROWS as ANN_MIN_ROWS, Graph
from palace.models import embed_text
from palace.store.atomic import atomic_write
from palace.index.database import Index

log = logging.getLogger("palace.index")


class OutOfTime(Exception):
    """A bounded backfill reached its deadline inside a memory (its chunks are dropped)."""


def embedded_batches(missing: Any, chunk: Callable[[str, int], list[str]], embedder: Any, *,
                     batch_size: int, deadline: float | None = None,
                     too_long: set[str] | None = None, pause: Callable[[], None] | None = None) -> Any:
    """Embed the ``missing`` memories ((content_hash, content, summary) each), about
    ``batch_size`` chunks at a time; yield (memories done, [(hash, chunk number, vector)])
    for whole memories only, so a memory is never left half embedded. With a
    ``deadline`` (time.monotonic()) it stops there, dropping the memory it was in; that
    memory's hash goes to ``too_long``, which bounded backfills skip from then on (a
    1 MB paste waits for an unbounded one: a background worker or a reindex).
    ``pause`` is called before each model call (a background worker gives way there)."""
    import time

    texts: list[str] = []
    owners: list[tuple[str, int]] = []
    count = 0
    for content_hash, content, summary in missing:
        if deadline is not None and time.monotonic() >= deadline:
            break
        if deadline is not None and content_hash in (too_long or ()):
            continue
        pieces = chunk(embed_text(content, summary), embedder.max_chars)
        if texts and len(texts) + len(pieces) > batch_size:  # a batch holds whole memories
            yield count, _embed(embedder, texts, owners, batch_size, None, pause)
            texts, owners, count = [], [], 0
        texts.extend(pieces)
        owners.extend((content_hash, number) for number in range(len(pieces)))
        count += 1
        if len(texts) >= batch_size:
            try:
                yield count, _embed(embedder, texts, owners, batch_size, deadline, pause)
            except OutOfTime:
                if too_long is not None:
                    too_long.add(content_hash)
                return
            texts, owners, count = [], [], 0
    if texts:
        yield count, _embed(embedder, texts, owners, batch_size, None, pause)


def _embed(embedder: Any, texts: list[str], owners: list[tuple[str, int]], batch_size: int,
           deadline: float | None, pause: Callable[[], None] | None = None) -> list[tuple[str, int, Any]]:
    import time

    vectors: list[Any] = []
    for start in range(0, len(texts), batch_size):  # one long memory: its chunks in batches
        if deadline is not None and start and time.monotonic() >= deadline:
            raise OutOfTime()
        if pause is not None:
            pause()
        vectors.extend(embedder.embed_documents(texts[start:start + batch_size]))
    return [(h, c, vectors[i]) for i, (h, c) in enumerate(owners)]


@dataclass
class _Cache:
    """Chunk vectors of one model, one row each. Rows of changed memories are
    retired in place (rid -1) and new rows appended into spare capacity, so
    applying a write does not copy the whole matrix."""

    model: str
    vector_version: int
    memories_version: int
    rids: Any  # numpy arrays with spare capacity; numpy is imported lazily
    matrix: Any
    statuses: Any
    used: int = 0  # rows in use (live or retired)
    retired: int = 0
    # the snapshot these rows started from ("" when none was written): its rows lead the
    # matrix, and a graph saved over them is named by this tag
    snapshot_tag: str = ""
    snapshot_rows: int = 0
    graph: Graph | None = None  # HNSW over rows [0, graph.rows), kept up with appended rows
    graph_building: bool = False


# Above this many memories written since the cache was filled, reload it whole.
REFRESH_LIMIT = 2000
# Extra rows the matrix keeps for vectors of new memories (grown by this share when full).
SPARE = 0.125
# Below this many vector rows, reading them from the index is as fast as a snapshot.
SNAPSHOT_MIN_ROWS = 5000


def _allocate(capacity: int, dimension: int) -> tuple[Any, Any, Any]:
    """Empty cache arrays: rids (-1 = no memory), matrix, statuses ("deleted")."""
    import numpy as np

    return (np.full(capacity, -1, dtype=np.int64), np.empty((capacity, dimension), dtype=np.float32),
            np.full(capacity, "deleted", dtype="<U8"))


Chunker = Callable[[str, int], "list[str]"]


class VectorStore:
    """``chunk(text, max_chars)`` splits a text into the pieces that are embedded
    (``palace.text.chunking.chunk_text``; given by the caller, which owns that rule).
    ``graph_min_rows``: where the graph takes over from the exact product (``ann.MIN_ROWS``)."""

    def __init__(self, index: Index, chunk: Chunker | None = None, *, graph_min_rows: int = ANN_MIN_ROWS):
        self.index = index
        self.chunk = chunk
        self.graph_min_rows = graph_min_rows  # from this many vector rows on, queries use the graph
        self._cache: _Cache | None = None
        # model → (vector_version, memories_version) when no memory lacked a vector
        self._complete: dict[str, tuple[int, int]] = {}
        # model → ((versions, limit), count): what ``pending`` last counted, at those versions
        self._pending: dict[str, tuple[tuple[tuple[int, int], int], int]] = {}
        self._too_long: set[str] = set()  # hashes a bounded backfill ran out of time in
        self._graph_lock = threading.Lock()  # a background build installs its graph under it

    def _load(self, model: str) -> _Cache:
        """The vector matrix of ``model``, brought up to date.

        Only what changed since the cache was filled is applied: memories written
        or deleted, texts given vectors (a whole reload reads every vector: ~0.9 s
        at 100k memories). A fresh process starts from the snapshot file the last
        whole reload left beside the index, when there is one for this model.
        """
        with self.index.read_transaction():
            vector_version, memories_version = self.index.versions()
            cache = self._cache
            if cache is None or cache.model != model:
                cache = self._read_snapshot(model)
            if cache is not None:
                if (cache.vector_version, cache.memories_version) == (vector_version, memories_version):
                    self._cache = cache
                    return cache
                if self._refresh(cache, vector_version, memories_version):
                    self._cache = cache
                    return cache
            rids, matrix, statuses, used = self.index.vector_rows(model, spare=SPARE)
            self._cache = _Cache(model, vector_version, memories_version, rids, matrix, statuses,
                                 used=used)
            if self._write_snapshot(self._cache):
                self._cache.snapshot_tag, self._cache.snapshot_rows = self._tag(self._cache), used
            return self._cache

    def _refresh(self, cache: _Cache, vector_version: int, memories_version: int) -> bool:
        """Apply what changed since the cache was filled; False when that cannot be
        done (too much, or the logs no longer reach back) and a reload is needed."""
        removed = self.index.removed_since(cache.memories_version)
        embedded = self.index.vectors_added_since(cache.model, cache.vector_version)
        if removed is None or embedded is None or len(removed) + len(embedded) > REFRESH_LIMIT:
            return False
        changed = self.index.changed_since(cache.memories_version, limit=REFRESH_LIMIT + 1)
        if len(changed) > REFRESH_LIMIT:
            return False
        changed += self.index.memories_with_hashes(embedded)  # their text just got vectors
        if not self._replace_rows(cache, changed + [(rid, "deleted", "") for rid in removed]):
            return False
        cache.vector_version, cache.memories_version = vector_version, memories_version
        return True

    # the snapshot: the matrix of the last whole reload, so that the next process
    # (a CLI search) reads one file instead of every vector row

    def _snapshot_path(self, model: str) -> Path:
        digest = hashlib.blake2b(model.encode("utf-8"), digest_size=6).hexdigest()
        return self.index.path.parent / f"vectors-{digest}.npz"

    def _tag(self, cache: _Cache) -> str:
        """Names the snapshot of ``cache``'s current rows (and a graph built over them)."""
        return f"{self.index.get_meta('index_id', '')}-{cache.vector_version}-{cache.memories_version}-{cache.used}"

    def _write_snapshot(self, cache: _Cache) -> bool:
        import numpy as np

        if cache.used < SNAPSHOT_MIN_ROWS:
            return False
        index_id = self.index.get_meta("index_id", "")

        def save(handle: Any) -> None:
            np.savez(handle, matrix=cache.matrix[:cache.used], rids=cache.rids[:cache.used],
                     statuses=cache.statuses[:cache.used],
                     versions=np.array([cache.vector_version, cache.memories_version], dtype=np.int64),
                     model=np.array(cache.model), index_id=np.array(index_id))

        try:
            atomic_write(self._snapshot_path(cache.model), save)
        except OSError:  # a cache only: a read-only or full disk just means no snapshot
            return False
        return True

    def _read_snapshot(self, model: str) -> _Cache | None:
        import numpy as np

        try:
            with np.load(self._snapshot_path(model), allow_pickle=False) as data:
                if str(data["model"]) != model or str(data["index_id"]) != self.index.get_meta("index_id", ""):
                    return None  # another model, or versions of an index since rebuilt
                vector_version, memories_version = (int(v) for v in data["versions"])
                matrix, rids, statuses = data["matrix"], data["rids"], data["statuses"]
        except (OSError, ValueError, KeyError):
            return None
        used = len(rids)
        dimension = matrix.shape[1] if matrix.ndim == 2 else 0
        all_rids, full, all_statuses = _allocate(used + int(used * SPARE), dimension)
        full[:used], all_rids[:used], all_statuses[:used] = matrix, rids, statuses
        cache = _Cache(model, vector_version, memories_version, all_rids, full, all_statuses,
                       used=used, retired=int((rids < 0).sum()))
        cache.snapshot_tag, cache.snapshot_rows = self._tag(cache), used
        if used >= self.graph_min_rows:  # before the refresh, which extends it with the rows it appends
            cache.graph = Graph.load(self._snapshot_path(model), cache.snapshot_tag, used)
        return cache

    def _replace_rows(self, cache: _Cache, memories: list[tuple[int, str, str]]) -> bool:
        """Retire these memories' rows in the cache and append their current vectors
        (False when that cannot be done and the cache must be reloaded)."""
        import numpy as np

        live = [(rid, status, h) for rid, status, h in memories if status != "deleted"]
        vectors = self.index.vectors_of(cache.model, sorted({h for _, _, h in live}))
        new_rids, new_blobs, new_statuses = [], [], []
        for rid, status, content_hash in live:
            for blob in vectors.get(content_hash, ()):
                new_rids.append(rid)
                new_blobs.append(blob)
                new_statuses.append(status)
        used = cache.used
        old = np.flatnonzero(np.isin(cache.rids[:used], [rid for rid, _, _ in memories]))
        cache.rids[old] = -1
        cache.statuses[old] = "deleted"
        cache.retired += len(old)
        if new_blobs:
            fresh = np.frombuffer(b"".join(new_blobs), dtype=np.float32).reshape(len(new_blobs), -1)
            if used and fresh.shape[1] != cache.matrix.shape[1]:
                return False
            if used + len(fresh) > len(cache.rids) or not used:
                rids, matrix, statuses = _allocate(max(used + int(used * SPARE), used + len(fresh), 64),
                                                   fresh.shape[1])
                if used:
                    matrix[:used], rids[:used], statuses[:used] = (
                        cache.matrix[:used], cache.rids[:used], cache.statuses[:used])
                cache.matrix, cache.rids, cache.statuses = matrix, rids, statuses
            cache.matrix[used:used + len(fresh)] = fresh
            cache.rids[used:used + len(fresh)] = new_rids
            cache.statuses[used:used + len(fresh)] = new_statuses
            cache.used = used + len(fresh)
            with self._graph_lock:
                if cache.graph is not None:
                    cache.graph.extend(cache.matrix, cache.used)
        if cache.retired > 1000 and cache.retired > cache.used // 4:
            return False  # mostly retired rows: a reload packs the matrix again
        return True

    def invalidate(self) -> None:
        """Forget the cached matrix and the snapshots (a rebuild renumbers every
        memory; snapshots of models no longer used would only take disk space)."""
        self._cache = None
        self._pending.clear()  # counted against the rows a rebuild replaces
        for snapshot in self.index.path.parent.glob("vectors-*.npz"):
            snapshot.unlink(missing_ok=True)
        Graph.forget(self.index.path.parent)

    # "at versions (v, m) no memory lacked a vector for this model": kept in the
    # index too, so a fresh process (a CLI search) checks only what changed since
    # instead of every memory (~0.3 s at 100k)

    def _completeness(self, model: str) -> tuple[int, int] | None:
        if model not in self._complete:
            stored = self.index.get_meta(f"vectors_complete:{model}")
            try:
                vector_version, memories_version = (int(x) for x in (stored or "").split())
            except ValueError:
                return None
            self._complete[model] = (vector_version, memories_version)
        return self._complete[model]

    def _mark_complete(self, model: str, vector_version: int, memories_version: int) -> None:
        if self._complete.get(model) != (vector_version, memories_version):
            self._complete[model] = (vector_version, memories_version)
            self.index.set_meta(f"vectors_complete:{model}", f"{vector_version} {memories_version}")

    def pending(self, model: str, *, limit: int = 1000) -> int:
        """How many memories have no vector for ``model`` (counted up to ``limit``); free
        when every memory had one at the last backfill and nothing was written since."""
        versions = self.index.versions()
        complete = self._completeness(model)
        if complete == versions:
            return 0
        known = self._pending.get(model)
        if known is not None and known[0] == (versions, limit):
            return known[1]  # nothing written since it was counted: every search asks (a full count: 0.4 s at 100k)
        since = complete[1] if complete is not None and complete[0] == versions[0] else 0
        waiting = len(self.index.hashes_missing_vectors(model, limit=limit, since=since))
        self._pending[model] = ((versions, limit), waiting)
        if waiting == 0:
            self._complete[model] = versions  # this process knows; a backfill records it for others
        return waiting

    def backfill(self, embedder, *, limit: int | None = None, batch_size: int = 64,
                 deadline: float | None = None, lock: Callable[[], Any] | None = None,
                 pause: Callable[[], None] | None = None) -> int:
        """Embed live memories that have no vector for the embedder's model yet.

        Keyed by content hash, so identical texts and unchanged edits cost nothing.
        Once every memory had a vector, only memories written since are checked.
        ``deadline``: see ``embedded_batches``. ``lock``: held while the index is read
        or written, never while embedding, so a background backfill of a long memory
        does not hold up searches. Returns the number of memories embedded.
        """
        if self.chunk is None:
            raise TypeError("VectorStore needs a chunk function to embed memories")
        guard = lock or nullcontext
        model = embedder.name
        with guard():
            vector_version, memories_version = self.index.versions()
            complete = self._completeness(model)
            if complete == (vector_version, memories_version):
                return 0  # nothing changed since every memory had a vector
            since = complete[1] if complete is not None and complete[0] == vector_version else 0
            missing = self.index.hashes_missing_vectors(model, limit=limit, since=since)
            if not missing:
                self._mark_complete(model, vector_version, memories_version)
                return 0
        done = batches = 0
        for count, rows in embedded_batches(missing, self.chunk, embedder, batch_size=batch_size,
                                            deadline=deadline, too_long=self._too_long, pause=pause):
            with guard():
                self.index.put_vectors(embedder.name, rows)
            done += count
            batches += 1
        with guard():
            after, _ = self.index.versions()
            if done == len(missing) and after == vector_version + batches and (limit is None or len(missing) < limit):
                # no other process touched vectors meanwhile: all were there at `after`
                self._mark_complete(model, after, memories_version)
        return done

    def _chunk_sims(self, model: str, query_vector: Any, rids: "Collection[int]") -> Any:
        """(cache, rows, memory of each row, cosine of each row) over every chunk of
        ``rids``, or None when there is nothing to compare."""
        import numpy as np

        cache = self._load(model)
        if cache.used == 0 or not rids:
            return None
        live = cache.rids[:cache.used]
        rows = np.flatnonzero(np.isin(live, np.asarray(list(rids), dtype=np.int64)))
        sims = cache.matrix[rows] @ np.asarray(query_vector, dtype=np.float32)
        return cache, rows.tolist(), live[rows].tolist(), sims.tolist()

    def best_chunks(self, model: str, query_vector: Any, rids: "Collection[int]") -> dict[int, Any]:
        """Per memory of ``rids``, its chunk vector closest to ``query_vector``."""
        found = self._chunk_sims(model, query_vector, rids)
        if found is None:
            return {}
        cache, rows, owners, sims = found
        best: dict[int, tuple[float, int]] = {}
        for row, rid, sim in zip(rows, owners, sims):
            if rid not in best or sim > best[rid][0]:
                best[rid] = (sim, row)
        return {rid: cache.matrix[row].copy() for rid, (_sim, row) in best.items()}

    def chunk_cosines(self, model: str, query_vector: Any, rids: "Collection[int]",
                      n: int = 2) -> dict[int, tuple[float, ...]]:
        """Per memory of ``rids``, the cosines of its ``n`` chunks closest to
        ``query_vector``, best first (fewer when it has fewer chunks)."""
        found = self._chunk_sims(model, query_vector, rids)
        if found is None:
            return {}
        _cache, _rows, owners, sims = found
        cosines: dict[int, list[float]] = {}
        for rid, sim in zip(owners, sims):
            cosines.setdefault(int(rid), []).append(float(sim))
        return {rid: tuple(sorted(values, reverse=True)[:n]) for rid, values in cosines.items()}

    def scores(self, model: str, query_vector: Any, *, allowed: "Collection[int] | None",
               limit: int, statuses: tuple[str, ...] = ("active",)) -> dict[int, float]:
        """Best-chunk cosine per memory rid, top ``limit`` (vectors are normalised).

        ``allowed`` (rids passing every filter) wins when given; otherwise only the
        memory statuses are checked, from the cache, without a query per search.
        Above ``ann.MIN_ROWS`` rows the graph picks the candidate rows when it is ready.
        """
        import numpy as np

        cache = self._load(model)
        if cache.used == 0:
            return {}
        query = np.asarray(query_vector, dtype=np.float32)
        wanted = _Wanted.of(cache, allowed, statuses)
        graph = self._graph_for(cache)
        if graph is not None:
            found = _graph_scores(cache, graph, query, wanted, limit)
            if found is not None:
                return found
        sims = cache.matrix[:cache.used] @ query
        if wanted.any_filter:
            sims = np.where(wanted.passing(slice(0, cache.used)), sims, -np.inf)
        # more rows than `limit` because several chunks can belong to one memory
        take = min(len(sims), limit * 4)
        top = np.argpartition(-sims, take - 1)[:take] if take < len(sims) else np.arange(len(sims))
        return _best_per_memory(cache, top, sims[top], limit)

    # the graph: built in the background the first time a query above ann.MIN_ROWS finds
    # none (the exact product answers meanwhile), or at once by build_graph (a reindex)

    def build_graph(self, model: str, *, lock: Callable[[], Any] | None = None) -> bool:
        """Build and save the graph over ``model``'s vectors now, when there are enough
        of them to need one and none is ready; True when one is ready. ``lock``: held
        while the index is read, not while building (as in ``backfill``)."""
        with (lock or nullcontext)():
            cache = self._load(model)
        if cache.used < self.graph_min_rows:
            return False
        if cache.graph is None and not cache.graph_building:  # (a background build finishes alone)
            self._build_graph(cache)
        return cache.graph is not None

    def _graph_for(self, cache: _Cache) -> Graph | None:
        if cache.used < self.graph_min_rows:
            return None
        if cache.graph is None and not cache.graph_building:
            cache.graph_building = True
            threading.Thread(target=self._build_graph, args=(cache,), name="palace-ann", daemon=True).start()
        return cache.graph

    def _build_graph(self, cache: _Cache) -> None:
        """Build over the snapshot's rows (so the saved graph fits the snapshot a fresh
        process reads), then add the rows appended since and install it."""
        cache.graph_building = True
        matrix, rows = cache.matrix, cache.snapshot_rows or cache.used
        try:
            graph = Graph.build(matrix, rows)
        except Exception as exc:  # the exact product keeps answering; never retried in this process
            log.warning("could not build the vector graph (%s: %s); exact search is used",
                        type(exc).__name__, exc)
            return
        if cache.snapshot_tag and rows == cache.snapshot_rows:
            graph.save(self._snapshot_path(cache.model), cache.snapshot_tag)
        with self._graph_lock:
            graph.extend(cache.matrix, cache.used)
            cache.graph = graph
        cache.graph_building = False


@dataclass
class _Wanted:
    """Which rows of the cache a query may return: of allowed memories, or statuses."""

    cache: _Cache
    allowed: Any  # sorted int64 array of rids, or None
    statuses: tuple[str, ...]

    @classmethod
    def of(cls, cache: _Cache, allowed: "Collection[int] | None", statuses: tuple[str, ...]) -> "_Wanted":
        import numpy as np

        if allowed is not None:
            allowed = np.asarray(list(allowed) if isinstance(allowed, (set, frozenset)) else allowed,
                                 dtype=np.int64)
        return cls(cache, allowed, statuses)

    @property
    def any_filter(self) -> bool:
        return (self.allowed is not None or set(self.statuses) != {"active", "archived"}
                or self.cache.retired > 0)

    def share(self) -> float:
        """About what share of the rows passes (the graph over-fetches by its inverse)."""
        if self.allowed is None:
            return 1.0
        return min(1.0, len(self.allowed) / max(1, self.cache.used - self.cache.retired))

    def passing(self, rows: Any) -> Any:
        import numpy as np

        if self.allowed is not None:
            return np.isin(self.cache.rids[rows], self.allowed)
        if set(self.statuses) != {"active", "archived"}:
            return np.isin(self.cache.statuses[rows], list(self.statuses))
        return self.cache.rids[rows] >= 0


# The graph is asked for the rows a query needs divided by the share passing the filters
# (then 4x, twice), up to this many; a filter rarer than that is answered exactly.
GRAPH_MOST_ROWS = 8192
# ... and up to this share of its rows: walking the graph costs with the rows asked, the
# product with the rows held (MiniLM at 100k rows: exact 7.1 ms; asking 1,024 rows 5.0 ms,
# 2,048 9.0 ms, 8,192 28.8 ms), so past ~1/64 of them the exact product is cheaper
GRAPH_ROWS_PER_ASK = 64


def _most_asked(graph: Graph) -> int:
    """The most rows worth asking ``graph`` for (an ask within the search expansion
    costs what an unfiltered query does)."""
    return min(GRAPH_MOST_ROWS, max(EXPANSION_SEARCH, graph.rows // GRAPH_ROWS_PER_ASK))


def _graph_scores(cache: _Cache, graph: Graph, query: Any, wanted: _Wanted, limit: int) -> dict[int, float] | None:
    """The top ``limit`` memories among the graph's nearest rows, their cosines exact
    (from the float32 matrix); None when too few of those rows pass the filters."""
    count, most = int(limit * 4 / max(wanted.share(), 1e-9)), _most_asked(graph)
    for _ in range(3):
        if count > most and count < graph.rows:
            return None
        rows = graph.nearest(query, min(count, graph.rows))
        rows = rows[(rows >= 0) & (rows < cache.used)]
        rows = rows[wanted.passing(rows)]
        best = _best_per_memory(cache, rows, cache.matrix[rows] @ query, limit)
        if len(best) >= limit or count >= graph.rows:
            return best
        count *= 4
    return None


def _best_per_memory(cache: _Cache, rows: Any, sims: Any, limit: int) -> dict[int, float]:
    """Each memory's best cosine among ``rows`` (``sims`` theirs), best first, ``limit`` of them."""
    import numpy as np

    best: dict[int, float] = {}
    for at in np.argsort(-sims):
        score = float(sims[at])
        if score == -np.inf:
            break
        rid = int(cache.rids[rows[at]])
        if rid not in best:
            best[rid] = score
            if len(best) >= limit:
                break
    return best
