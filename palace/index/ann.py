"""An approximate nearest-neighbour index over the chunk vectors: usearch HNSW on f16.

A brute-force matmul over every chunk vector grows with the palace: 5.5 ms at 100k
memories, 63-68 ms at 1M; an HNSW graph answers in under a millisecond with recall@10
of 0.99 on real MiniLM vectors (docs/backends.md, "ANN candidates", where usearch f16
was chosen by measurement among usearch, hnswlib, faiss-cpu and sqlite-vec).

The graph is a derivative of the vector cache (``palace.index.vectors``), as the cache
is of the index and the index of the files: its keys are the cache's row numbers, it
is built over a whole reload's rows, extended as rows are appended, and never asked
to forget (a retired row stays in the graph and the caller filters it out). A saved
graph names the snapshot it was built over in its file name, so a fresh process uses
it only beside that snapshot. Below ``MIN_ROWS`` the exact matmul is as fast and stays
the answer; it is also the answer whenever no graph is ready.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from palace.store.atomic import atomic_write

# Above this many vector rows a query reads the graph instead of every row (the
# matmul costs ~1 ms at 20k rows: below that an index saves nothing worth its build).
MIN_ROWS = 20_000
CONNECTIVITY = 16  # edges per node (usearch's default): recall 0.99 at ef 64 on 100k MiniLM vectors
EXPANSION_ADD = 128  # candidates kept while linking a new node
EXPANSION_SEARCH = 256  # candidates kept while searching (raised to the rows asked for): at 1M, 128 gave recall@10 0.94, 256 0.979 (1.4 ms)
BUILD_THREADS = 0  # all cores: a build runs in the background or in a reindex, never in a query


class Graph:
    """The HNSW graph over rows ``[0, rows)`` of one vector matrix."""

    def __init__(self, index: Any, rows: int, built_in_s: float | None = None):
        self.index, self.rows = index, rows
        self.built_in_s = built_in_s  # how long the build took (None: loaded from a file)

    @classmethod
    def build(cls, matrix: Any, rows: int) -> "Graph":
        """A graph over ``matrix[:rows]`` (normalised float32 rows)."""
        import time

        import numpy as np
        from usearch.index import Index

        started = time.perf_counter()
        index = Index(ndim=matrix.shape[1], metric="ip", dtype="f16", connectivity=CONNECTIVITY,
                      expansion_add=EXPANSION_ADD, expansion_search=EXPANSION_SEARCH)
        if rows:
            index.add(np.arange(rows, dtype=np.uint64), matrix[:rows], threads=BUILD_THREADS)
        return cls(index, rows, time.perf_counter() - started)

    def extend(self, matrix: Any, stop: int) -> None:
        """Add rows ``[self.rows, stop)`` of ``matrix`` (rows appended since the build)."""
        import numpy as np

        if stop > self.rows:
            self.index.add(np.arange(self.rows, stop, dtype=np.uint64), matrix[self.rows:stop], threads=1)
            self.rows = stop

    def nearest(self, query: Any, count: int) -> Any:
        """Row numbers of about the ``count`` rows nearest to ``query``, nearest first."""
        import numpy as np

        self.index.expansion_search = max(EXPANSION_SEARCH, count)
        found = self.index.search(np.asarray(query, dtype=np.float32), count, threads=1)
        return np.asarray(found.keys, dtype=np.int64)

    # saved beside the snapshot: "<snapshot stem>.<tag>.usearch", the tag naming the
    # snapshot's index id, versions and rows, so a graph of another snapshot is never read

    @staticmethod
    def path(snapshot: Path, tag: str) -> Path:
        return snapshot.with_name(f"{snapshot.stem}.{_safe(tag)}.usearch")

    def save(self, snapshot: Path, tag: str) -> None:
        """Write the graph for the snapshot ``tag`` names, replacing older graphs of it."""
        target = self.path(snapshot, tag)
        data = self.index.save()
        try:
            atomic_write(target, bytes(data))
        except OSError:  # a cache only: a full or read-only disk just means a later rebuild
            return
        for old in snapshot.parent.glob(f"{snapshot.stem}.*.usearch"):
            if old != target:
                old.unlink(missing_ok=True)

    @classmethod
    def load(cls, snapshot: Path, tag: str, rows: int) -> "Graph | None":
        """The saved graph of the snapshot ``tag`` names, or None (none, or unreadable)."""
        from usearch.index import Index

        try:
            index = Index.restore(str(cls.path(snapshot, tag)))
        except (OSError, RuntimeError, ValueError):
            return None
        if index is None or len(index) != rows:
            return None
        return cls(index, rows)

    @staticmethod
    def forget(folder: Path) -> None:
        for saved in folder.glob("vectors-*.usearch"):
            saved.unlink(missing_ok=True)


def _safe(tag: str) -> str:
    return re.sub(r"[^0-9A-Za-z_-]", "_", tag)
