"""The keyword lists a process has read, kept while the server's copy is unchanged.

A common word's packed list at 1M memories is megabytes, and a search read all of it
for every query. Each (term, scope) list here is kept with the state the server had when
it was read: the packed base's ``version`` (a fold or rebuild gives the row a new one)
and its delta's row count and the sum of its rows' ``seq`` (every delta write takes a
new seq; rows leave the delta only by a fold, which changes the version). The sum, not
the newest seq: a writer takes its seq when it writes and may commit after a writer
with a newer one, rewriting a row the reader had, which leaves count and newest alike. A search sends the states it
holds, in the same statement that reads the rest, and the server returns the bytes only
of what changed, so the list a search scores is always the server's, from one snapshot.

Least recently used lists go first once the cache holds ``limit`` bytes.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Iterable

from palace.index.postings import Lists
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
        arrays = {id(a): a.nbytes for a in (*self.base, *self.lists)}
        return sum(arrays.values())


class ListCache:
    def __init__(self, limit: int = LIMIT):
        self.limit = limit
        self._kept: OrderedDict[tuple[str, str], Kept] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def held(self, terms: Iterable[str]) -> dict[tuple[str, str], Kept]:
        """What is kept of these terms, in every scope (the caller keeps the references:
        an eviction meanwhile takes nothing from it)."""
        wanted = set(terms)
        with self._lock:
            return {key: kept for key, kept in self._kept.items() if key[0] in wanted}

    def put(self, key: tuple[str, str], kept: Kept) -> None:
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
            while self._bytes > self.limit:
                _, gone = self._kept.popitem(last=False)
                self._bytes -= gone.size

    def touch(self, key: tuple[str, str]) -> None:
        with self._lock:
            if key in self._kept:
                self._kept.move_to_end(key)
