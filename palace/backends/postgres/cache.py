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

The least recently read terms go first once the cache holds ``limit`` bytes.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator

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


@dataclass
class _Term:
    """Everything kept of one term: its parts (by scope and part) and their join."""

    parts: dict[tuple[str, int], Kept] = field(default_factory=dict)
    joined: tuple[Any, Lists, int] | None = None  # (the part states it was joined from, the lists, bytes)
    size: int = 0  # bytes, kept up to date by each change (a common word has sixteen parts at 1M)


class ListCache:
    """Kept by term, least recently read term first out: a search reads every part of
    each of its terms, so a term's parts are kept and dropped together (and found
    without looking through every other term's)."""

    def __init__(self, limit: int = LIMIT):
        self.limit = limit
        self._terms: OrderedDict[str, _Term] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def held(self, terms: Iterable[str]) -> dict[Key, Kept]:
        """What is kept of these terms, in every scope and part (the caller keeps the
        references: an eviction meanwhile takes nothing from it)."""
        with self._lock:
            return {(term, *where): kept for term in set(terms) if (entry := self._terms.get(term))
                    for where, kept in entry.parts.items()}

    def put(self, key: Key, kept: Kept) -> None:
        size = kept.size
        if self.limit <= 0 or size > self.limit:
            return
        with self._change(key[0]) as entry:
            old = entry.parts.get((key[1], key[2]))
            entry.parts[(key[1], key[2])] = kept
            entry.size += size - (old.size if old is not None else 0)

    def touch(self, key: Key) -> None:
        with self._lock:
            if key[0] in self._terms:
                self._terms.move_to_end(key[0])

    def joined(self, term: str, signature: Any) -> Lists | None:
        """The term's parts as joined before, if joined from parts in these same states."""
        with self._lock:
            entry = self._terms.get(term)
            if entry is None or entry.joined is None or entry.joined[0] != signature:
                return None
            return entry.joined[1]

    def put_joined(self, term: str, signature: Any, lists: Lists) -> None:
        size = _size(*lists)
        if self.limit <= 0 or size > self.limit:
            return
        with self._change(term) as entry:
            entry.size += size - (entry.joined[2] if entry.joined is not None else 0)
            entry.joined = (signature, lists, size)

    @contextmanager
    def _change(self, term: str) -> Iterator[_Term]:
        """The term's entry to change (made if new, most recent now); then the cache is
        brought back within its limit, least recently read terms first."""
        with self._lock:
            entry = self._terms.pop(term, None) or _Term()
            self._bytes -= entry.size
            yield entry
            self._terms[term] = entry
            self._bytes += entry.size
            while self._bytes > self.limit and self._terms:
                self._bytes -= self._terms.popitem(last=False)[1].size
