"""The one Protocol of the manager's public API that features and capture type it by.

Features sit above the manager and use only what it offers everyone (README's public
API): they never reach its index or files. ``pm.experiences`` builds the experience
feature from the manager itself, so features name this Protocol, never the manager's
class (tests/house/test_architecture.py keeps that one arrow the only one up).
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from datetime import datetime, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING, Any, List, Protocol, Sequence

from palace.models import Memory, SearchResults

if TYPE_CHECKING:
    from palace.errors import MemoryNotFoundError
    from palace.graph.service import GraphService
    from palace.settings import Settings


class Palace(Protocol):
    """What features use of a ``MemoryPalaceManager``: its public attributes and methods."""

    settings: Settings
    tz: tzinfo
    root: Path

    def store(self, content: str, *, tags: Sequence[str] = (), importance: float = 0.5,
              location: str = "general", type: str = "fact", source: str = "manual",
              summary: str | None = None, created_at: Any = None, id: str | None = None,
              pinned: bool = False, extra: dict[str, Any] | None = None) -> Memory: ...
    def get(self, id: str, *, now: Any = None, record_access: bool = True) -> Memory | None: ...
    def update(self, id: str, **fields: Any) -> Memory: ...
    def delete(self, id: str) -> Memory: ...
    def restore(self, id: str, *, now: Any = None) -> Memory: ...
    def list(self, *, location: str | None = None, tags: Sequence[str] | None = None,
             status: str | None = "active", type: str | None = None, limit: int | None = None,
             now: Any = None) -> List[Memory]: ...
    def list_trash(self) -> List[Memory]: ...
    def in_trash(self, id: str) -> bool: ...
    def trashed_at(self, memory: Memory) -> datetime | None: ...
    def not_found(self, id: str) -> MemoryNotFoundError: ...
    def search(self, query: str, *, top_k: int = 10, now: Any = None,
               tags: Sequence[str] | None = None, location: str | None = None,
               type: str | None = None, include_archived: bool = False,
               start: Any = None, end: Any = None, record_access: bool = True,
               include_weak: bool = True, injection: bool = False) -> SearchResults: ...
    def record_access(self, ids: Sequence[str], *, at: Any = None, kind: str = "access") -> None: ...
    def access_times(self, ids: Sequence[str], *, kinds: Sequence[str] | None = None) -> dict[str, List[float]]: ...
    def now(self, value: Any = None) -> datetime: ...
    def write_lock(self) -> AbstractContextManager[object]: ...
    def writes_batched(self) -> AbstractContextManager[None]: ...
    def capture_state(self, folder: Path) -> Any: ...
    def embed_pending(self, *, limit: int | None = None, seconds: float | None = None,
                      lock: Any = None, batch_size: int | None = None, pause: Any = None) -> int: ...
    def close(self) -> None: ...

    @property
    def embedder(self) -> Any: ...

    @property
    def graph(self) -> GraphService: ...


if TYPE_CHECKING:
    from palace.manager import MemoryPalaceManager

    def _the_manager_offers_this_api(pm: MemoryPalaceManager) -> Palace:
        return pm  # mypy fails here the day the manager and this Protocol part ways
