"""The keyword lists a process has read, kept while the server's copy is unchanged.

A common word's packed list at 1M memories is megabytes, and a search read all of it
for every query. Each (term, scope, part) list here is kept with the state the server had
when it was read: the packed base part's ``version`` (a fold or rebuild gives the row a new one)
and its delta's row count and the sum of its rows' ``seq`` (every delta write takes a
new seq; rows leave the delta only by a fold, which changes the version). The sum, not
the newest seq: a writer takes its seq when it writes and may commit after a writer
with a newer one, rewriting a row the reader had, which leaves count and newest alike. A search sends the states it
holds, in the same statement that reads the rest, and the server returns the bytes only
of what changed, so the list a search scores is always the server's, from one snapshot.

A term's parts joined into one list are kept too, with the part states they were joined
from: joining a common word's sixteen parts at 1M copies megabytes a search.

Least recently used lists go first once the cache holds ``limit`` bytes, joined ones
before parts (a join is rebuilt from parts in memory; a part costs a read).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Iterable

from palace.index.postings import Lists

Key = tuple[str, str, int]  # (term, scope, part)
LIMIT = 256 << 20  # bytes of arrays one process keeps (16 bytes a posting: 16M postings)


@dataclass(frozen=True)
class State:
    """What the server had of one (term, scope) list: -1 where it had nothing."""

    version: int = -1
    delta_rows: int = 0
    delta_seqs: int = -1  # the sum of the delta rows' seqs


@dataclass(frozen=True)
class Kept:
    state: State
    base: Lists           # the packed base as read
    lists: Lists          # the base with the delta laid over it

    @property
    def size(self) -> int:
        return _size(*self.base, *self.lists)


def _size(*arrays: Any) -> int:
    return sum({id(a): a.nbytes for a in arrays}.values())  # an array shared by two counts once


class ListCache:
    def __init__(self, limit: int = LIMIT):
        self.limit = limit
        self._kept: OrderedDict[Key, Kept] = OrderedDict()
        self._joined: OrderedDict[str, tuple[Any, Lists, int]] = OrderedDict()  # term -> (signature, lists, size)
        self._bytes = 0
        self._lock = threading.Lock()

    def held(self, terms: Iterable[str]) -> dict[Key, Kept]:
        """What is kept of these terms, in every scope and part (the caller keeps the
        references: an eviction meanwhile takes nothing from it)."""
        wanted = set(terms)
        with self._lock:
            return {key: kept for key, kept in self._kept.items() if key[0] in wanted}

    def put(self, key: Key, kept: Kept) -> None:
        if self.limit <= 0:
            return
        with self._lock:
            old = self._kept.pop(key, None)
            if old is not None:
                self._bytes -= old.size
            if kept.size > self.limit:
                return
            self._kept[key] = kept
            self._bytes += kept.size
            self._evict()

    def touch(self, key: Key) -> None:
        with self._lock:
            if key in self._kept:
                self._kept.move_to_end(key)

    def joined(self, term: str, signature: Any) -> Lists | None:
        """The term's parts as joined before, if joined from parts in these same states."""
        with self._lock:
            kept = self._joined.get(term)
            if kept is None or kept[0] != signature:
                return None
            self._joined.move_to_end(term)
            return kept[1]

    def put_joined(self, term: str, signature: Any, lists: Lists) -> None:
        size = _size(*lists)
        if self.limit <= 0 or size > self.limit:
            return
        with self._lock:
            old = self._joined.pop(term, None)
            if old is not None:
                self._bytes -= old[2]
            self._joined[term] = (signature, lists, size)
            self._bytes += size
            self._evict()

    def _evict(self) -> None:
        while self._bytes > self.limit:
            if self._joined:
                self._bytes -= self._joined.popitem(last=False)[1][2]
            else:
                self._bytes -= self._kept.popitem(last=False)[1].size
