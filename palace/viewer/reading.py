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
from typing import Any, Callable

from palace.models import Memory, SearchResult

PAGE_SIZE = 50
FEED_SIZE = 30
ROOMS_TTL_S = 5.0
WHOLE_PALACE_TTL_S = 60.0
# One edit moves one score among thousands, so the decay distribution is not redrawn
# on edits, only when it is this old (its chart says when it was computed).
DECAY_DISTRIBUTION_TTL_S = 600.0
# The decay distribution reads every memory (seconds at 100k): it is read a chunk at a
# time, releasing the manager between chunks so that pages are answered meanwhile.
SCORE_CHUNK = 1000
SCORE_PAUSE_S = 0.005  # between chunks: lets page requests have the GIL and the lock


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


class _Background:
    """A whole-palace number computed off the request path. The first caller waits
    for it; later ones get the last value at once, and a stale one is recomputed in
    a thread (so an edit, or time passing, never makes a page wait seconds)."""

    def __init__(self, ttl_s: float, compute: Callable[[], Any], default: Any):
        self.ttl_s = ttl_s
        self.compute = compute
        self.value = default
        self.at = float("-inf")
        self.have = False
        self.error: BaseException | None = None
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def get(self) -> Any:
        with self._lock:
            stale = time.monotonic() - self.at > self.ttl_s
            if stale and (self._thread is None or not self._thread.is_alive()):
                self._thread = threading.Thread(target=self._run, daemon=True,
                                                name="palace-viewer-picture")
                self._thread.start()
            thread, have = self._thread, self.have
        if not have and thread is not None:
            thread.join()
            if self.error is not None and not self.have:
                raise self.error
        return self.value

    def _run(self) -> None:
        try:
            value = self.compute()
        except BaseException as exc:  # kept for the waiting caller; the old value stays
            self.error = exc
            return
        with self._lock:
            self.value, self.at, self.have, self.error = value, time.monotonic(), True, None

    def stale(self) -> None:
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
        self._scores = _Background(DECAY_DISTRIBUTION_TTL_S, self._all_decay_scores, ([], None))
        self._timeline = _Background(WHOLE_PALACE_TTL_S, self._created_per_month, {})

    # -- plumbing ----------------------------------------------------------------

    def call(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        with self.lock:
            return fn(*args, **kwargs)

    def changed(self) -> None:
        """An edit went through: whole-palace numbers must be recomputed."""
        self._rooms.drop()
        self._timeline.stale()

    def redraw_pictures(self) -> None:
        """Recompute both whole-palace pictures on their next request (in the background)."""
        self._scores.stale()
        self._timeline.stale()

    def now(self) -> datetime:
        return datetime.now(self.pm.tz).replace(microsecond=0)

    @property
    def decay_params(self):
        return self.pm.decay_params

    # -- lists -------------------------------------------------------------------

    def rooms(self) -> dict[str, Any]:
        """Counts per room and status, trash and problem counts; cached a few seconds."""
        def compute():
            with self.lock:
                counts = self.pm.room_counts()
                trash = len(self.pm.list_trash())
                problems = len(self.pm.problems())
                review = len(self.pm.graph.queue.items())
            by_status: dict[str, int] = {}
            for statuses in counts.values():
                for status, count in statuses.items():
                    by_status[status] = by_status.get(status, 0) + count
            return {"counts": counts, "by_status": by_status, "trash": trash, "problems": problems,
                    "review": review}
        return self._rooms.get(compute)

    def tree(self, status: str = "active") -> RoomNode:
        counts = self.rooms()["counts"]
        return room_tree({room: by.get(status, 0) for room, by in counts.items() if by.get(status)})

    def page(self, *, page: int = 1, room: str | None = None, status: str = "active",
             type: str | None = None, size: int = PAGE_SIZE) -> tuple[list[Memory], bool]:
        """One page of memories, newest first, and whether there is a next page."""
        with self.lock:
            rows = self.pm.list_page(offset=(page - 1) * size, limit=size + 1, location=room,
                                     status=status, type=type)
        return rows[:size], len(rows) > size

    def newest(self, limit: int = FEED_SIZE) -> list[Memory]:
        """The newest memories (observations included) for the live feed: one indexed
        query, cheap enough to run every second per open feed."""
        with self.lock:
            return self.pm.list(limit=limit)

    def trash(self) -> list[Memory]:
        with self.lock:
            memories = self.pm.list_trash()
        return sorted(memories, key=lambda m: str(m.extra.get("deletedAt", "")), reverse=True)

    def experiences(self):
        with self.lock:
            return self.pm.experiences.list()

    def review(self) -> list[tuple[Any, Memory | None, Memory | None]]:
        """The graph's review queue (pairs of facts palace was unsure about), each item
        with its old and new memory as this client sees them (None: gone since)."""
        with self.lock:
            return [(item, self.pm.get(item.old_memory, record_access=False),
                     self.pm.get(item.new_memory, record_access=False)) for item in self.pm.graph.queue.items()]

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
               include_weak: bool = True, top_k: int = 20) -> SearchView:
        now = self.now()
        with self.lock:
            # Looking is not using: a search from the viewer must not reinforce.
            results = self.pm.search(query, top_k=top_k, now=now, location=room or None,
                                     include_archived=include_archived, include_weak=include_weak,
                                     record_access=False)
        # the response's own notes, so an empty answer says why ("no memory matches…")
        return SearchView(results=list(results), notes=tuple(results.notes), time_range=results.time_range,
                          now=now)

    # -- whole-palace pictures ---------------------------------------------------

    def decay_scores(self) -> tuple[list[float], datetime | None]:
        """Decay scores of all active memories, and when they were computed."""
        return self._scores.get()

    def created_per_month(self) -> dict[str, dict[str, int]]:
        return self._timeline.get()

    def _all_decay_scores(self) -> tuple[list[float], datetime]:
        # The same scores as pm.decay_scores(), a page at a time. A memory stored
        # meanwhile may shift one page: off by one in a histogram of thousands.
        scores: list[float] = []
        offset = 0
        started = self.now()
        while True:
            with self.lock:
                chunk = self.pm.list_page(offset=offset, limit=SCORE_CHUNK, status="active")
            scores.extend(m.decay_score for m in chunk)
            if len(chunk) < SCORE_CHUNK:
                return scores, started
            offset += SCORE_CHUNK
            time.sleep(SCORE_PAUSE_S)

    def _created_per_month(self) -> dict[str, dict[str, int]]:
        with self.lock:
            return self.pm.created_per_month()

    def bootstrap_preview(self, query: str | None = None):
        from palace.features.context import bootstrap

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

    def resolve_review(self, item_id: str, *, accept: bool) -> Any:
        """Accept (the new fact replaces the old: closed, its memory marked) or keep both;
        the decision is logged so the pair is not asked about again."""
        return self.edit(lambda: self.pm.graph.resolve(item_id, accept=accept, now=self.now()))


def parse_tags(raw: str) -> list[str]:
    """Tags typed in a form: separated by commas (or Chinese commas), blanks ignored."""
    return [tag.strip() for tag in raw.replace("，", ",").split(",") if tag.strip()]
