"""Stage 4b, successors: a retired fact that a search finds brings the fact that replaced it.

A fact that changes is often written down again in other words ("I live in Berlin",
later "I moved to Paris"): the question ("where do I live") finds the stale memory,
which carries ``supersededBy``, and not the current one, which shares none of its
words. So each retired candidate's successor joins the candidates:

- the successor is the memory its ``supersededBy`` names, followed to the one nothing
  retired (at most SUCCESSOR_HOPS links); a chain that loops, breaks (a deleted
  memory) or runs longer brings nothing: there is no current state to show;
- it takes the stale one's relevance (or keeps its own, if higher), so it ranks where
  the stale one would have, had it not been retired: it is the current state of what
  was found (the ranking puts retired facts after every current one);
- it must pass the request's filters (status, tags, location, type, period); one they
  exclude does not join;
- its explanation names the memory it replaces (retriever ``successor``), and the judge
  gives it the stale one's strength (``judge.Successor``), so injection takes it.

Not for a time-only listing, nor a query naming a period (it asks for then, not for
the latest; as ``newer``).
"""

from __future__ import annotations

from typing import Any, Mapping

from palace.index import Filters
from palace.search.ranking import superseded_by
from palace.search.retrievers import Candidates, Scores
from palace.index.rows import IndexRow

SUCCESSOR_HOPS = 8  # supersededBy links followed at most (0 turns the stage off, to measure it)


def current_of(index: Any, row: IndexRow, hops: int) -> IndexRow | None:
    """The row that ends ``row``'s chain of ``supersededBy`` links (nothing retired it),
    or None when the chain loops, breaks or is longer than ``hops``."""
    seen = {row.id}
    later = superseded_by(row)
    for _ in range(hops):
        if later is None or later in seen:
            return None
        row = index.row_by_id(later)
        if row is None:
            return None
        seen.add(later)
        later = superseded_by(row)
        if later is None:
            return row
    return None


def join(index: Any, relevance: Scores, rows: Mapping[int, IndexRow], candidates: Candidates,
         filters: Filters, *, skip: bool) -> tuple[Scores, dict[int, Any]]:
    """``relevance`` and ``rows`` with the current successor of every retired candidate
    that passes ``filters``; each recorded in ``candidates`` (``found["successor"]``: the
    relevance it took; ``replaces``: successor row id → the stale row id that brought it)."""
    if skip or SUCCESSOR_HOPS <= 0:
        return relevance, dict(rows)
    best: dict[int, tuple[float, int, Any]] = {}  # successor row id → (relevance, stale row id, row)
    for rid, row in rows.items():
        if rid not in relevance or superseded_by(row) is None:
            continue
        current = current_of(index, row, SUCCESSOR_HOPS)
        if current is not None and (current.rid not in best or relevance[rid] > best[current.rid][0]):
            best[current.rid] = (relevance[rid], rid, current)
    joined, out_rows = dict(relevance), dict(rows)
    for rid in index.passing(list(best), filters) if best else ():
        score, stale, row = best[rid]
        joined[rid] = max(joined.get(rid, 0.0), score)
        out_rows.setdefault(rid, row)
        candidates.found.setdefault("successor", {})[rid] = score
        candidates.replaces[rid] = stale
    return joined, out_rows
