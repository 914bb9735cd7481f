"""What the viewer's pages show, read from a palace through the manager's public API.

One ``PalaceReader`` per viewer. The manager is not meant for concurrent use
from several threads, and the web server answers from a thread pool, so every
call into it goes through one lock. Numbers that need the whole palace (the
decay distribution, rooms over time, room counts) are cached for a short while
and dropped on every edit made here; a single memory is always read fresh, so
a file edited on disk shows its new state on reload.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Callable, Sequence

from ..models import Memory, SearchResult

PAGE_SIZE = 50
FEED_SIZE = 30
ROOMS_TTL_S = 5.0
WHOLE_PALACE_TTL_S = 60.0


@dataclass
class RoomNode:
    """A room and the rooms inside it; ``total`` counts memories in all of them."""

    name: str
    path: str
    own: int = 0
    total: int = 0
    children: dict[str, "RoomNode"] = field(default_factory=dict)

    def sorted_children(self) -> list["RoomNode"]:
        return sorted(self.children.values(), key=lambda node: node.name)


def room_tree(counts: dict[str, int]) -> RoomNode:
    """Rooms as a tree from {"projects/palace": 3, ...}; parents sum their children."""
    root = RoomNode(name="", path="")
    for location, count in counts.items():
        node = root
        root.total += count
        parts = [p for p in location.split("/") if p]
        for depth, part in enumerate(parts):
            path = "/".join(parts[: depth + 1])
            node = node.children.setdefault(part, RoomNode(name=part, path=path))
            node.total += count
        node.own += count
    return root


class _Cached:
    def __init__(self, ttl_s: float):
        self.ttl_s = ttl_s
        self.value: Any = None
        self.at = float("-inf")

    def get(self, compute: Callable[[], Any]) -> Any:
        if time.monotonic() - self.at > self.ttl_s:
            self.value = compute()
            self.at = time.monotonic()
        return self.value

    def drop(self) -> None:
        self.at = float("-inf")


class _NoAccessPalace:
    """The manager, except that nothing read through it counts as a use.

    A preview of ``bootstrap`` must show what it *would* inject without
    reinforcing those memories against decay (the real bootstrap does)."""

    def __init__(self, pm):
        self._pm = pm

    def record_access(self, ids, **_kwargs) -> None:
        return None

    def search(self, *args, **kwargs):
        kwargs["record_access"] = False
        return self._pm.search(*args, **kwargs)

    def get(self, *args, **kwargs):
        kwargs["record_access"] = False
        return self._pm.get(*args, **kwargs)

    def __getattr__(self, name: str):
        return getattr(self._pm, name)


@dataclass(frozen=True)
class SearchView:
    results: list[SearchResult]
    notes: tuple[str, ...]
    time_range: dict[str, Any] | None   # {"text", "start", "end"} as the search resolved it
    now: datetime


class PalaceReader:
    def __init__(self, pm):
        self.pm = pm
        self.lock = threading.RLock()
        self._rooms = _Cached(ROOMS_TTL_S)
        self._scores = _Cached(WHOLE_PALACE_TTL_S)
        self._timeline = _Cached(WHOLE_PALACE_TTL_S)

    # -- plumbing ----------------------------------------------------------------

    def call(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        with self.lock:
            return fn(*args, **kwargs)

    def changed(self) -> None:
        """An edit went through: whole-palace numbers must be recomputed."""
        for cache in (self._rooms, self._scores, self._timeline):
            cache.drop()

    def now(self) -> datetime:
        return datetime.now(self.pm.tz).replace(microsecond=0)

    @property
    def decay_params(self):
        return self.pm.decay_params

    # -- lists -------------------------------------------------------------------

    def rooms(self) -> dict[str, Any]:
        """Room tree and status counts (pm.stats), cached for a few seconds."""
        def compute():
            with self.lock:
                stats = self.pm.stats()
            return {"tree": room_tree(stats.get("by_location", {})),
                    "by_status": stats.get("by_status", {}), "trash": stats.get("trash", 0),
                    "problems": stats.get("problems", 0)}
        return self._rooms.get(compute)

    def page(self, *, page: int = 1, room: str | None = None, status: str = "active",
             type: str | None = None, size: int = PAGE_SIZE) -> tuple[list[Memory], bool]:
        """One page of memories, newest first, and whether there is a next page."""
        with self.lock:
            rows = self.pm.list_page(offset=(page - 1) * size, limit=size + 1, location=room,
                                     status=status, type=type)
        return rows[:size], len(rows) > size

    def newest(self, limit: int = FEED_SIZE) -> list[Memory]:
        """The newest memories and observations for the live feed (cheap: two indexed
        queries). Observations get their own query so a flood of ordinary memories
        cannot push a fresh observation out of the window."""
        with self.lock:
            found = {m.id: m for m in self.pm.list(limit=limit)}
            found.update({m.id: m for m in self.pm.list(type="observation", limit=limit)})
        return sorted(found.values(), key=lambda m: m.created_at.timestamp() if m.created_at else 0,
                      reverse=True)[:limit]

    def trash(self) -> list[Memory]:
        with self.lock:
            memories = self.pm.list_trash()
        return sorted(memories, key=lambda m: str(m.extra.get("deletedAt", "")), reverse=True)

    def experiences(self):
        with self.lock:
            return self.pm.experiences.list()

    # -- one memory --------------------------------------------------------------

    def memory(self, memory_id: str) -> tuple[Memory | None, list[datetime], Memory | None]:
        """(memory, its access history, the trashed copy if it is only in the trash)."""
        with self.lock:
            memory = self.pm.get(memory_id, record_access=False)
            if memory is not None:
                return memory, self.pm.access_history(memory_id), None
            trashed = next((m for m in self.pm.list_trash() if m.id == memory_id), None)
            return None, [], trashed

    # -- search ------------------------------------------------------------------

    def search(self, query: str, *, room: str | None = None, include_archived: bool = False,
               top_k: int = 20) -> SearchView:
        now = self.now()
        with self.lock:
            # Looking is not using: a search from the viewer must not reinforce.
            results = self.pm.search(query, top_k=top_k, now=now, location=room or None,
                                     include_archived=include_archived, record_access=False)
            time_range = None
            notes: tuple[str, ...] = ()
            if results:
                notes = results[0].explanation.notes
                time_range = results[0].explanation.time_range
            elif self.pm.settings.time_reasoning_enabled:
                parsed = self.pm.time_reasoner.parse(query, now=now)
                if parsed is not None:
                    time_range = {"text": parsed.text, "start": parsed.start.isoformat(),
                                  "end": parsed.end.isoformat()}
        return SearchView(results=results, notes=tuple(notes), time_range=time_range, now=now)

    # -- whole-palace pictures ---------------------------------------------------

    def decay_scores(self) -> list[float]:
        def compute():
            with self.lock:
                return list(self.pm.decay_scores().values())
        return self._scores.get(compute)

    def created_by_room(self) -> dict[str, list[datetime]]:
        def compute():
            with self.lock:
                memories = self.pm.list(status="all")
            by_room: dict[str, list[datetime]] = {}
            for memory in memories:
                if memory.created_at is not None:
                    by_room.setdefault(memory.location, []).append(memory.created_at)
            return by_room
        return self._timeline.get(compute)

    def bootstrap_preview(self, query: str | None = None):
        from ..context import bootstrap

        with self.lock:
            return bootstrap(_NoAccessPalace(self.pm), query or None)

    # -- edits (through the manager, so the files stay the truth) ----------------

    def edit(self, action: Callable[[], Any]) -> Any:
        with self.lock:
            try:
                return action()
            finally:
                self.changed()

    def update(self, memory_id: str, **fields: Any) -> Memory:
        return self.edit(lambda: self.pm.update(memory_id, **fields))

    def delete(self, memory_id: str) -> Memory:
        return self.edit(lambda: self.pm.delete(memory_id))

    def restore(self, memory_id: str) -> Memory:
        return self.edit(lambda: self.pm.restore(memory_id))

    def empty_trash(self) -> list[str]:
        return self.edit(lambda: self.pm.empty_trash())


def parse_tags(raw: str) -> list[str]:
    """Tags typed in a form: separated by commas (or Chinese commas), blanks ignored."""
    return [tag.strip() for tag in raw.replace("，", ",").split(",") if tag.strip()]


def ids_of(memories: Sequence[Memory]) -> list[str]:
    return [m.id for m in memories]
