"""Vectors at write time: the manager's embedder (made on first use) and the embedding
of what has no vector yet, after each write or once at the end of a batch of writes."""

from __future__ import annotations

import contextlib
import logging
import time
from typing import Any, Iterator

from palace.errors import EmbedderUnavailableError
from palace.settings import Settings

UNSET: Any = object()  # no embedder given: make the one the settings name, on first use
NO_EMBEDDER = ("no embedder configured: set MEMORY_VECTOR_MODEL and install palace[vector], or "
               "point MEMORY_VECTOR_SERVICE_URL at a running sidecar")
log = logging.getLogger("palace.manager")


class Embedding:
    def __init__(self, settings: Settings, vectors: Any, embedder: Any = UNSET, *, inprocess: bool = True):
        """``vectors``: the backend's vector store (``open_vectors``); ``inprocess`` False
        (the CLI): never load a model in this process (the sidecar may)."""
        self.settings, self.vectors = settings, vectors
        self._embedder = embedder
        self._inprocess = inprocess
        self.error: str | None = None  # why there is no embedder, once making one failed
        self._batched = 0  # > 0 inside batched(): embedding waits for its end

    @property
    def embedder(self) -> Any:
        if self._embedder is UNSET:
            from palace.embedders import make_embedder

            try:
                self._embedder = make_embedder(self.settings, allow_inprocess=self._inprocess)
            except Exception as exc:  # a broken install must not break keyword search
                self._embedder = None
                self.error = f"vectors unavailable ({exc}); keyword search only"
        return self._embedder

    def pending(self, *, limit: int | None, seconds: float | None, lock: Any, batch_size: int | None,
                pause: Any) -> int:
        """``MemoryPalaceManager.embed_pending``: embed what has no vector yet."""
        embedder = self.embedder
        if embedder is None:
            raise EmbedderUnavailableError(self.error or NO_EMBEDDER)
        deadline = None if seconds is None else time.monotonic() + seconds
        done = self.vectors.backfill(embedder, limit=limit, batch_size=batch_size or self.settings.vector_batch_size,
                                     deadline=deadline, lock=lock, pause=pause)
        if limit is None and seconds is None:  # a whole backfill (a reindex): leave search ready
            self.vectors.build_graph(embedder.name, lock=lock)
        return done

    @contextlib.contextmanager
    def batched(self, embed_written: Any) -> Iterator[None]:
        """Writes inside embed once, by ``embed_written()``, when the outermost batch ends."""
        self._batched += 1
        try:
            yield
        finally:
            self._batched -= 1
            if not self._batched:
                embed_written()

    def written(self, embed_pending: Any) -> int:
        """``MemoryPalaceManager.embed_written``: ``embed_pending(seconds=…)`` for at most
        MEMORY_VECTOR_TIMEOUT, unless inside a batch or without a working embedder; a
        failing embedder is logged, never raised (the memory is stored already)."""
        if self._batched:
            return 0  # batched() embeds when the batch ends
        if not self.settings.vector_enabled or self.settings.vector_mode == "none" or self.embedder is None:
            return 0  # no embedder: searches say why vectors are off
        if getattr(self.embedder, "state", None) == "error":
            return 0  # a model that failed to load said why once; each write would repeat it
        try:
            return embed_pending(seconds=self.settings.vector_timeout_s)
        except EmbedderUnavailableError:
            return 0  # the model failed to load as this write began, and said why then
        except Exception as exc:  # the memory is stored; the next write or worker retries
            log.warning("could not embed after writing (%s: %s); vectors follow later", type(exc).__name__, exc)
            return 0
