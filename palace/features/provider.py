"""OpenClaw's ``VectorSearchProvider`` over a memory palace.

OpenClaw's TypeScript side sees three operations: ``search(query, topK, filter)``,
``index(id, content, metadata)`` and ``remove(id)``. ``PalaceVectorSearchProvider``
implements them on a palace (``palace.features.palace_api.Palace``) in process; the sidecar's ``/search``,
``/index`` and ``/remove`` endpoints are thin shells over it, so the mapping between
OpenClaw's shapes and palace's lives only here.

Keys are accepted in camelCase (as TypeScript sends them) or snake_case; answers
use camelCase.
"""

from __future__ import annotations

import logging
import contextlib
import threading
import time
from typing import TYPE_CHECKING, Any, Iterator, Mapping, Protocol, TypedDict, runtime_checkable

from palace.errors import InvalidInputError, MemoryNotFoundError
from palace.validation import validate_id

if TYPE_CHECKING:  # pragma: no cover
    from palace.features.palace_api import Palace
    from palace.models import SearchResult

log = logging.getLogger(__name__)

MAX_TOP_K = 100


class VectorSearchResult(TypedDict):
    id: str
    score: float
    content: str
    metadata: dict[str, Any]


class IndexResult(TypedDict):
    id: str
    created: bool


@runtime_checkable
class VectorSearchProvider(Protocol):
    def search(self, query: str, top_k: int = 10,
               filter: Mapping[str, Any] | None = None) -> list[VectorSearchResult]: ...

    def index(self, id: str, content: str,
              metadata: Mapping[str, Any] | None = None) -> IndexResult: ...

    def remove(self, id: str) -> bool:
        """True if the memory existed; removing an unknown id is not an error."""
        ...


# OpenClaw key -> MemoryPalaceManager keyword. Filters that palace cannot apply are
# refused (a silently ignored filter returns wrong results). Metadata palace has no
# field for (a source path, line numbers...) is kept verbatim under this frontmatter
# key and handed back in search results, so OpenClaw gets out what it put in.
OPENCLAW_EXTRA_KEY = "openclaw"
_FILTER_KEYS = {
    "tags": "tags",
    "location": "location",
    "type": "type",
    "includeArchived": "include_archived",
    "include_archived": "include_archived",
}
_METADATA_KEYS = {
    "tags": "tags",
    "importance": "importance",
    "location": "location",
    "type": "type",
    "source": "source",
    "summary": "summary",
    "createdAt": "created_at",
    "created_at": "created_at",
}


class _Closing(Exception):
    """The provider is closing: the background worker stops."""


# The background worker embeds a long memory in small batches and, before each, waits
# until no request has been served for QUIET_S (at most PAUSE_AT_MOST_S, so it never
# starves): on a 2-core machine a 1 MB memory's embedding otherwise took the cores from
# the searches it runs beside (sidecar /search 2.4x slower while it ran).
BACKGROUND_BATCH = 8
QUIET_S = 0.05
PAUSE_AT_MOST_S = 2.0


class _ServingLock:
    """A re-entrant lock that counts the requests holding it and when the last one ended,
    so background work can give way to them (``wait_quiet``); ``background()`` takes it
    without counting."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._state = threading.Condition()
        self._serving = 0
        self._last = 0.0

    def __enter__(self) -> "_ServingLock":
        with self._state:
            self._serving += 1
        self._lock.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self._lock.release()
        with self._state:
            self._serving -= 1
            self._last = time.monotonic()
            self._state.notify_all()

    @contextlib.contextmanager
    def background(self) -> Iterator[None]:
        with self._lock:
            yield

    def wait_quiet(self) -> None:
        give_up = time.monotonic() + PAUSE_AT_MOST_S
        with self._state:
            while (now := time.monotonic()) < give_up:
                if self._serving:
                    self._state.wait(give_up - now)  # woken when a request ends
                elif now < self._last + QUIET_S:
                    self._state.wait(self._last + QUIET_S - now)
                else:
                    return


class PalaceVectorSearchProvider:
    """``VectorSearchProvider`` on a palace's manager; calls are serialised,
    so one provider can serve a threaded web server."""

    def __init__(self, manager: "Palace"):
        self.manager = manager
        self._lock = _ServingLock()
        self._worker_lock = threading.Lock()
        self._worker: threading.Thread | None = None
        self._more = False
        self._closing = False

    @contextlib.contextmanager
    def _while_open(self) -> Iterator[None]:
        """The lock, for the worker: once ``close`` began, the index is not touched again."""
        with self._lock.background():
            if self._closing:
                raise _Closing()
            yield

    def close(self) -> None:
        """Stop the background worker (it stops at its next index access) and close
        the manager; a worker in the middle of embedding never sees a closed index."""
        with self._lock:
            self._closing = True
            self.manager.close()
        worker = self._worker
        if worker is not None:
            worker.join(timeout=5)

    def search(self, query: str, top_k: int = 10,
               filter: Mapping[str, Any] | None = None) -> list[VectorSearchResult]:
        if not isinstance(query, str) or not query.strip():
            raise InvalidInputError("query must be a non-empty string")
        if isinstance(top_k, bool) or not isinstance(top_k, int) or not 1 <= top_k <= MAX_TOP_K:
            raise InvalidInputError(f"topK must be an integer from 1 to {MAX_TOP_K}, got {top_k!r}")
        options = _translate(filter, _FILTER_KEYS, "filter", strict=True)[0]
        if isinstance(options.get("tags"), str):
            options["tags"] = [options["tags"]]
        with self._lock:
            # OpenClaw's VectorSearchProvider is a nearest-neighbour interface: the
            # caller ranks and cuts, so weak matches are returned too (their score says so)
            results = self.manager.search(query, top_k=top_k, include_weak=True, **options)
        return [_result(r) for r in results]

    def index(self, id: str, content: str,
              metadata: Mapping[str, Any] | None = None) -> IndexResult:
        validate_id(id)
        if not isinstance(content, str):
            raise InvalidInputError(f"content must be a string, got {type(content).__name__}")
        fields, other_keys = _translate(metadata, _METADATA_KEYS, "metadata", strict=False)
        if isinstance(fields.get("tags"), str):
            fields["tags"] = [fields["tags"]]
        # Replaced as a whole on every index: OpenClaw's metadata is its current truth.
        given = metadata or {}
        fields["extra"] = {OPENCLAW_EXTRA_KEY: {key: given[key] for key in other_keys} or None}
        with self._lock:
            # Indexing is not reading: it must not count as an access for decay.
            exists = self.manager.get(id, record_access=False) is not None
            if exists or self._restore(id):
                self.manager.update(id, content=content, **fields)
            else:
                fields["extra"] = {k: v for k, v in fields["extra"].items() if v is not None}
                self.manager.store(content, id=id, **fields)
        self.embed_in_background()
        return {"id": id, "created": not exists}

    def _restore(self, id: str) -> bool:
        """Bring a removed id back from the trash, where it would block a new memory
        of that id: OpenClaw indexing it again means it is wanted again."""
        try:
            self.manager.restore(id)
        except MemoryNotFoundError:
            return False
        return True

    def embed_in_background(self) -> None:
        """Embed what the write could not in its MEMORY_VECTOR_TIMEOUT (a long memory) in
        a worker thread that takes the lock only to read and write the index: searches
        never wait for an embedding. One worker at a time; it stops when nothing is left."""
        if self.manager.embedder is None or self._closing:
            return
        with self._worker_lock:
            self._more = True
            if self._worker is not None and self._worker.is_alive():
                return
            self._worker = threading.Thread(target=self._embed_all, name="palace-embed", daemon=True)
            self._worker.start()

    def _embed_all(self) -> None:
        while True:
            with self._worker_lock:
                if not self._more:
                    self._worker = None
                    return
                self._more = False
            try:
                self.manager.embed_pending(lock=self._while_open, batch_size=BACKGROUND_BATCH,
                                           pause=self._lock.wait_quiet)
            except _Closing:
                return
            except Exception as exc:  # the memory is stored and found by keywords meanwhile
                log.warning("background embedding failed (%s: %s); the next index retries",
                            type(exc).__name__, exc)
                return

    def remove(self, id: str) -> bool:
        validate_id(id)
        with self._lock:
            try:
                self.manager.delete(id)
            except MemoryNotFoundError:
                return False
        return True


def _translate(values: Mapping[str, Any] | None, keys: Mapping[str, str], what: str,
               *, strict: bool) -> tuple[dict[str, Any], list[str]]:
    if values is None:
        return {}, []
    if not isinstance(values, Mapping):
        raise InvalidInputError(f"{what} must be an object, got {type(values).__name__}")
    translated: dict[str, Any] = {}
    unknown: list[str] = []
    for key, value in values.items():
        if key in keys:
            if value is not None:
                translated[keys[key]] = value
        else:
            unknown.append(str(key))
    if unknown and strict:
        supported = ", ".join(k for k in keys if "_" not in k)  # the camelCase spellings
        raise InvalidInputError(
            f"unsupported {what} key(s): {', '.join(sorted(unknown))}; supported: {supported}")
    return translated, sorted(unknown)


def _result(result: "SearchResult") -> VectorSearchResult:
    memory = result.memory
    kept = memory.extra.get(OPENCLAW_EXTRA_KEY)
    metadata = dict(kept) if isinstance(kept, Mapping) else {}
    metadata.update({
        "tags": list(memory.tags),
        "importance": memory.importance,
        "location": memory.location,
        "type": memory.type,
        "source": memory.source,
        "summary": memory.summary,
        "status": memory.status,
        "createdAt": memory.created_at.isoformat() if memory.created_at else None,
        "updatedAt": memory.updated_at.isoformat() if memory.updated_at else None,
        "decayScore": memory.decay_score,
        "confidence": result.explanation.confidence,
        "explanation": result.explanation.to_dict(),
    })
    return {"id": memory.id, "score": float(result.score), "content": memory.content,
            "metadata": metadata}
