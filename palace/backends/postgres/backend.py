"""The Postgres backend (MEMORY_BACKEND=postgres): the database is the store of record,
shared by every client; each collaborator is a table set kept in the client's scope."""

from __future__ import annotations

from datetime import tzinfo
from pathlib import Path
from typing import Any

from palace.backends.base import Backend
from palace.backends.postgres.database import PgIndex, PgStore, PostgresPalace
from palace.backends.postgres.locks import PgWriteLock
from palace.backends.postgres.sync import PgSyncer
from palace.errors import ConfigError
from palace.settings import Settings


class PostgresBackend(Backend):
    name = "postgres"
    keeps_files = False
    index: PgIndex

    @classmethod
    def open(cls, settings: Settings, tz: tzinfo, derive_graph: Any) -> "PostgresBackend":
        if not settings.database_url:
            raise ConfigError("MEMORY_BACKEND=postgres needs MEMORY_DATABASE_URL "
                              "(e.g. postgresql://palace@db.example/palace)")
        palace = PostgresPalace(settings.database_url, agent_id=settings.agent_id, user_id=settings.user_id)
        storage = PgStore(palace, settings.workspace, tz, derive_graph=derive_graph)
        storage.ensure()
        index = PgIndex(palace)
        lock = PgWriteLock(palace)
        return cls(storage, index, PgSyncer(storage, index, lock), lock)

    def vectors(self, chunk: Any) -> Any:
        """pgvector, with the local store's keys (model and content hash)."""
        from palace.backends.postgres.vectors import PgVectors

        return PgVectors(self.index.palace, chunk)

    def review_queue(self, make_item: Any) -> Any:
        """A table every client shares (review_items), scoped."""
        from palace.backends.postgres.graph import PgReviewQueue

        return PgReviewQueue(self.index.palace, make_item)

    def decision_log(self, make_decision: Any, scope: str) -> Any:
        """A table every client shares (graph_decisions), one log per ``scope``."""
        from palace.backends.postgres.graph import PgDecisionLog

        return PgDecisionLog(self.index.palace, make_decision, scope)

    def capture_state(self, folder: Path, scope: str) -> Any:
        """Rows of the database, shared by every machine, one set per ``scope``."""
        from palace.backends.postgres.capture import PgCaptureState

        return PgCaptureState(self.index.palace, scope)

    def agent_roles(self, settings: Settings) -> Any:
        from palace.backends.postgres.agents import AgentRoles

        return AgentRoles(str(settings.database_url))

    def cache_file(self, name: str) -> None:
        # no local folder: building the concept map costs ~0.1 s, and writing a cache
        # would make a memory/palace/ folder nobody asked for
        return None
