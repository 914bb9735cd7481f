"""Choosing the backend: the one place that reads ``MEMORY_BACKEND``.

``open_backend`` hands the manager its four collaborators (store, index, syncer,
write lock) for either backend; both satisfy the protocols in
``palace.index.backend``. Postgres is imported only when chosen, so the local
backend never needs psycopg.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import tzinfo
from typing import Any, ContextManager

from palace.errors import ConfigError
from palace.index import INDEX_DIR, INDEX_FILE, Syncer
from palace.index.opening import open_index
from palace.settings import Settings
from palace.store.files import FileStorage
from palace.store.locks import WriteLock


@dataclass
class Backend:
    name: str
    storage: Any  # palace.index.backend.MemoryStore
    index: Any  # palace.index.backend.MemoryIndex
    syncer: Any  # Syncer, or PgSyncer
    lock: ContextManager[Any]


def open_backend(settings: Settings, tz: tzinfo, *, derive_graph: Any = None,
                 notes: list[str] | None = None) -> Backend:
    """``derive_graph(memory)`` gives the graph rows the local index keeps beside each
    memory (palace.graph), in the SQLite index or in Postgres's graph tables. ``notes``
    collects what opening had to repair (a corrupt index rebuilt, a read-only folder)."""
    if settings.backend == "postgres":
        return _open_postgres(settings, tz, derive_graph)
    storage = FileStorage(settings.workspace, tz)
    storage.ensure()
    storage.check_palace_folders()  # never through a link (UnsafePathError)
    index = open_index(storage.root / INDEX_DIR / INDEX_FILE, [] if notes is None else notes,
                       derive_graph=derive_graph)
    lock = WriteLock(storage.root / INDEX_DIR / "write.lock")
    return Backend("local", storage, index, Syncer(storage, index, lambda: lock), lock)


def _open_postgres(settings: Settings, tz: tzinfo, derive_graph: Any) -> Backend:
    if not settings.database_url:
        raise ConfigError("MEMORY_BACKEND=postgres needs MEMORY_DATABASE_URL "
                          "(e.g. postgresql://palace@db.example/palace)")
    from palace.backends.postgres import PgIndex, PgStore, PgSyncer, PgWriteLock, PostgresPalace

    palace = PostgresPalace(settings.database_url, agent_id=settings.agent_id, user_id=settings.user_id)
    storage = PgStore(palace, settings.workspace, tz, derive_graph=derive_graph)
    storage.ensure()
    index = PgIndex(palace)
    lock = PgWriteLock(palace)
    return Backend("postgres", storage, index, PgSyncer(storage, index, lock), lock)


def open_vectors(backend: Backend, chunk: Any) -> Any:
    """The vector store over ``backend``: the cached matrix over SQLite locally,
    pgvector in Postgres (same keys: model and content hash)."""
    if backend.name == "postgres":
        from palace.backends.postgres.vectors import PgVectors

        return PgVectors(backend.index.palace, chunk)
    from palace.index import VectorStore

    return VectorStore(backend.index, chunk)


def open_review_queue(backend: Backend, make_item: Any) -> Any:
    """The graph's review queue kept in the database (Postgres: shared by every client,
    scoped), or None where the caller keeps its own (the local review.json)."""
    if backend.name == "postgres":
        from palace.backends.postgres.graph import PgReviewQueue

        return PgReviewQueue(backend.index.palace, make_item)
    return None


def open_decision_log(backend: Backend, make_decision: Any, scope: str) -> Any:
    """The graph's log of pairs already decided kept in the database (Postgres: one for
    every client, scoped), or None where the caller keeps its own (graph-decisions.json)."""
    if backend.name == "postgres":
        from palace.backends.postgres.graph import PgDecisionLog

        return PgDecisionLog(backend.index.palace, make_decision, scope)
    return None


def open_capture_state(backend: Backend, folder: Any, scope: str) -> Any:
    """Where live capture keeps each open turn's events and OpenClaw's sessionKey map
    (``palace.backends.capture_state``): files under ``folder`` locally, rows of the
    database in Postgres (shared by every machine, one set per ``scope``)."""
    if backend.name == "postgres":
        from palace.backends.postgres.capture import PgCaptureState

        return PgCaptureState(backend.index.palace, scope)
    from palace.backends.capture_state import FileCaptureState

    return FileCaptureState(folder)


def open_agent_roles(backend: Backend, settings: Settings) -> Any:
    """One database role per agent (``palace.backends.postgres.agents.AgentRoles``)."""
    if backend.name != "postgres":
        raise ConfigError("one database role per agent needs MEMORY_BACKEND=postgres: the local "
                          "palace is one person's folder and has no roles or scopes")
    from palace.backends.postgres.agents import AgentRoles

    return AgentRoles(str(settings.database_url))
