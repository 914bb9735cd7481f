"""The backend contract beyond the index and store protocols (palace.index.backend):
an opened backend's collaborators, and each behaviour that differs by backend as a
method, so no caller tests which backend it runs on."""

from __future__ import annotations

from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any, ClassVar, ContextManager

from palace.settings import Settings


class Backend(ABC):
    """An opened backend: the manager's collaborators, and how each differs."""

    name: ClassVar[str]  # MEMORY_BACKEND's value: shown to people (pm.backend), never branched on
    # the store of record is files: they can drift from the index, and a killed writer
    # leaves temp files behind (recovery on open, doctor's file checks). A database
    # backend writes in transactions and has neither.
    keeps_files: ClassVar[bool]

    def __init__(self, storage: Any, index: Any, syncer: Any, lock: ContextManager[Any]):
        self.storage = storage  # palace.index.backend.MemoryStore
        self.index = index  # palace.index.backend.MemoryIndex
        self.syncer = syncer  # Syncer, or PgSyncer
        self.lock = lock

    @abstractmethod
    def vectors(self, chunk: Any) -> Any:
        """The vector store, keyed by model and content hash; ``chunk`` cuts a text for embedding."""

    @abstractmethod
    def review_queue(self, make_item: Any) -> Any | None:
        """The graph's review queue kept by the backend, or None where the caller keeps
        its own (the palace's review.json): ``make_item`` builds one item from its fields."""

    @abstractmethod
    def decision_log(self, make_decision: Any, scope: str) -> Any | None:
        """The graph's log of pairs already decided kept by the backend, or None where
        the caller keeps its own (graph-decisions.json)."""

    @abstractmethod
    def capture_state(self, folder: Path, scope: str) -> Any:
        """Where live capture keeps each open turn's events and OpenClaw's sessionKey map
        (``palace.backends.capture_state``), for the clients of ``scope``."""

    @abstractmethod
    def agent_roles(self, settings: Settings) -> Any:
        """One database role per agent (``palace.backends.postgres.agents.AgentRoles``),
        or a ConfigError that says which backend has them."""

    @abstractmethod
    def cache_file(self, name: str) -> Path | None:
        """Where a derived cache called ``name`` may be kept beside the palace (the
        concept map), or None where the backend keeps no local folder."""
