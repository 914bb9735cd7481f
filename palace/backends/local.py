"""The local backend (MEMORY_BACKEND=local): Markdown files are the store of record,
a SQLite index beside them is derived from the files."""

from __future__ import annotations

from datetime import tzinfo
from pathlib import Path
from typing import Any

from palace.backends.base import Backend
from palace.errors import ConfigError
from palace.index import INDEX_DIR, INDEX_FILE, Syncer, VectorStore
from palace.index.opening import open_index
from palace.settings import Settings
from palace.store.files import FileStorage
from palace.store.locks import WriteLock


class LocalBackend(Backend):
    name = "local"
    keeps_files = True

    @classmethod
    def open(cls, settings: Settings, tz: tzinfo, derive_graph: Any, notes: list[str]) -> "LocalBackend":
        storage = FileStorage(settings.workspace, tz)
        storage.ensure()
        storage.check_palace_folders()  # never through a link (UnsafePathError)
        index = open_index(storage.root / INDEX_DIR / INDEX_FILE, notes, derive_graph=derive_graph)
        lock = WriteLock(storage.root / INDEX_DIR / "write.lock")
        return cls(storage, index, Syncer(storage, index, lambda: lock), lock)

    def vectors(self, chunk: Any) -> VectorStore:
        """The cached matrix over the SQLite index's vectors table."""
        return VectorStore(self.index, chunk)

    def review_queue(self, make_item: Any) -> None:
        return None  # the palace's review.json, kept by the graph

    def decision_log(self, make_decision: Any, scope: str) -> None:
        return None  # the palace's graph-decisions.json, kept by the graph

    def capture_state(self, folder: Path, scope: str) -> Any:
        """Files under ``folder``: one person's machine has one scope."""
        from palace.backends.capture_state import FileCaptureState  # fcntl: only when capture runs

        return FileCaptureState(folder)

    def agent_roles(self, settings: Settings) -> Any:
        raise ConfigError("one database role per agent needs MEMORY_BACKEND=postgres: the local "
                          "palace is one person's folder and has no roles or scopes")

    def cache_file(self, name: str) -> Path:
        return self.storage.root / INDEX_DIR / name
