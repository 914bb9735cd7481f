"""Choosing the backend: the one place that reads ``MEMORY_BACKEND``.

``open_backend`` hands the manager an opened ``Backend``: its four collaborators
(store, index, syncer, write lock), which satisfy the protocols in
``palace.index.backend``, and methods for the collaborators that differ by backend
(vectors, the graph's review queue and decision log, capture state, agent roles).
What differs is said once, in ``LocalBackend`` (palace.backends.local) and
``PostgresBackend`` (palace.backends.postgres.backend); callers never test the name.
Postgres is imported only when chosen, so the local backend never needs psycopg.
"""

from __future__ import annotations

from datetime import tzinfo
from typing import Any

from palace.backends.base import Backend
from palace.settings import Settings

__all__ = ["Backend", "open_backend"]


def open_backend(settings: Settings, tz: tzinfo, *, derive_graph: Any = None,
                 notes: list[str] | None = None) -> Backend:
    """``derive_graph(memory)`` gives the graph rows the local index keeps beside each
    memory (palace.graph), in the SQLite index or in Postgres's graph tables. ``notes``
    collects what opening had to repair (a corrupt index rebuilt, a read-only folder)."""
    if settings.backend == "postgres":
        from palace.backends.postgres.backend import PostgresBackend

        return PostgresBackend.open(settings, tz, derive_graph)
    from palace.backends.local import LocalBackend

    return LocalBackend.open(settings, tz, derive_graph, [] if notes is None else notes)
