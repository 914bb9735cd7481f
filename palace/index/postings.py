"""Keyword postings: BM25 over our own inverted index, scored with numpy.

SQLite's FTS5 ranks every document that matches any query word before it can
sort them; with 100k memories a few common words match 30k documents and one
ranked query costs 10-40 ms. Here each term keeps its postings (memory row id,
term frequency, document length) as three packed arrays in one row, so a query
reads a few blobs and scores all their documents in one vectorised pass
(~1 ms at 100k memories).

Writes go to a small per-term delta (one row per term and memory; tf = 0 marks a
removal) that queries overlay on the packed base; a term's delta is folded into
its base once it grows past an eighth of it (``MERGE_SHARE``) or past ``MERGE_CAP``
rows, so writes stay cheap and reads stay fast. A bulk load (``palace reindex``,
thousands of new files) leaves postings alone and packs every term once at the end
(``rebuild``).

Scores are Okapi BM25 (k1 = 1.2, b = 0.75) with Lucene's idf, which stays positive for
a word most memories hold, and literal matches ranked above concept expansions
(``bm25_scores``).
"""

from __future__ import annotations

import sqlite3
from array import array
from collections import defaultdict
from itertools import count
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, NamedTuple, Sequence

from palace.text.tokenize import stem, tokenize

if TYPE_CHECKING:
    import numpy as np

Lists = tuple["np.ndarray", "np.ndarray", "np.ndarray"]  # one term's (rids, tfs, dls), by rid

K1 = 1.2
B = 0.75
# both backends fold a term's delta into its base once it holds more than MERGE_MIN rows
# and more than an eighth of its base, or more than MERGE_CAP rows (every query overlays
# the delta: a common word's grew to 2,000 rows at 100k, ~2 ms a word to overlay)
MERGE_MIN = 64
MERGE_SHARE = 8
MERGE_CAP = 1000


def merge_threshold(base: int) -> int:
    """The most delta rows a base of ``base`` rows keeps before its fold is due."""
    return max(MERGE_MIN, min(base // MERGE_SHARE, MERGE_CAP))


def merge_is_due(pending: int, base: int) -> bool:
    return pending > merge_threshold(base)

SCHEMA = """
CREATE TABLE IF NOT EXISTS postings (
    term TEXT PRIMARY KEY, n INTEGER NOT NULL, pending INTEGER NOT NULL,
    rids BLOB NOT NULL, tfs BLOB NOT NULL, dls BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS posting_delta (
    term TEXT NOT NULL, rid INTEGER NOT NULL, tf INTEGER NOT NULL, dl INTEGER NOT NULL,
    PRIMARY KEY (term, rid)
) WITHOUT ROWID;
"""


def memory_terms(content: str, summary: str | None, tags: Sequence[str]) -> list[str]:
    """A memory's indexed terms, in order, repeats kept: its text, summary and tags,
    tokenized and stemmed (the same for both backends)."""
    return list(map(stem, tokenize(" ".join([content, summary or "", " ".join(tags)]))))


# ---------------------------------------------------------------------- writes


def add_doc(conn: sqlite3.Connection, rid: int, tfs: Mapping[str, int], length: int,
            old_terms: Iterable[str] = ()) -> list[str]:
    """Record a memory's terms (replacing its old ones); returns the terms touched."""
    removed = [t for t in dict.fromkeys(old_terms) if t not in tfs]
    rows = [(t, rid, 0, 0) for t in removed]
    rows += [(t, rid, min(int(tf), 65535), int(length)) for t, tf in tfs.items()]
    conn.executemany("INSERT OR REPLACE INTO posting_delta VALUES (?, ?, ?, ?)", rows)
    touched = [r[0] for r in rows]
    conn.executemany(
        "INSERT INTO postings VALUES (?, 0, 1, x'', x'', x'') "
        "ON CONFLICT(term) DO UPDATE SET pending = pending + 1", [(t,) for t in touched])
    return touched


def remove_doc(conn: sqlite3.Connection, rid: int, terms: Iterable[str]) -> list[str]:
    return add_doc(conn, rid, {}, 0, old_terms=terms)


def merge_due(conn: sqlite3.Connection, terms: Sequence[str]) -> None:
    """Fold the delta of every term in ``terms`` that has outgrown its share."""
    due = []
    for start in range(0, len(terms), 500):
        chunk = list(terms[start:start + 500])
        due += [t for t, n, pending in conn.execute(
            f"SELECT term, n, pending FROM postings WHERE term IN ({','.join('?' * len(chunk))})", chunk)
            if merge_is_due(pending, n)]
    for term in due:
        merge_term(conn, term)


def merge_term(conn: sqlite3.Connection, term: str) -> None:
    import numpy as np

    rids, tfs, dls = read_lists(conn, {term: None})[term]
    if len(rids) == 0:
        conn.execute("DELETE FROM postings WHERE term = ?", (term,))
    else:
        order = np.argsort(rids, kind="stable")
        conn.execute("UPDATE postings SET n = ?, pending = 0, rids = ?, tfs = ?, dls = ? WHERE term = ?",
                     (len(rids), rids[order].astype(np.int64).tobytes(),
                      tfs[order].astype(np.int32).tobytes(), dls[order].astype(np.int32).tobytes(),
                      term))
    conn.execute("DELETE FROM posting_delta WHERE term = ?", (term,))


def clear(conn: sqlite3.Connection) -> None:
    conn.execute("DELETE FROM postings")
    conn.execute("DELETE FROM posting_delta")


def rebuild(conn: sqlite3.Connection, docs: Iterable[tuple[int, str]]) -> None:
    """Pack every term's postings from scratch from (rid, space-joined terms), given
    in ascending rid order.

    Each occurrence becomes one number (term id × rid span + rid offset) in a flat typed
    array; one sort then groups them by term, rids ascending, and counts the repeats
    (the term frequencies): no Python work per posting, and ~8 bytes per occurrence."""
    import numpy as np

    clear(conn)
    # term ids in order of first occurrence: the rows are written in that order
    term_ids: dict[str, int] = defaultdict(count().__next__)
    occurrences, doc_rids, lengths = array("q"), array("q"), array("q")
    for rid, terms in docs:
        tokens = terms.split()
        occurrences.extend(map(term_ids.__getitem__, tokens))
        doc_rids.append(rid)
        lengths.append(len(tokens))
    if not term_ids:
        return
    rids_of_docs = np.frombuffer(doc_rids, dtype=np.int64)
    doc_lengths = np.frombuffer(lengths, dtype=np.int64)
    low = int(rids_of_docs.min())
    span = int(rids_of_docs.max()) - low + 1
    keys = np.frombuffer(occurrences, dtype=np.int64)  # in place from here: one copy in memory
    keys *= span
    keys += np.repeat(rids_of_docs - low, doc_lengths)
    keys.sort()
    first = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1])))
    tf_counts = np.diff(np.append(first, len(keys)))
    terms_col, rids = np.divmod(keys[first], span)
    del keys, occurrences
    length_of = np.zeros(span, dtype=np.int32)
    length_of[rids_of_docs - low] = doc_lengths
    dls = length_of[rids]
    rids += low
    tfs = np.minimum(tf_counts, 65535).astype(np.int32)
    bounds = np.searchsorted(terms_col, np.arange(len(term_ids) + 1))

    def rows():
        for i, name in enumerate(term_ids):
            a, b = bounds[i], bounds[i + 1]
            yield (name, int(b - a), rids[a:b].tobytes(), tfs[a:b].tobytes(), dls[a:b].tobytes())

    conn.executemany("INSERT INTO postings VALUES (?, ?, 0, ?, ?, ?)", rows())


# ---------------------------------------------------------------------- reads


def list_sizes(conn: sqlite3.Connection, terms: Sequence[str]) -> dict[str, int]:
    """term → at most how many memories hold it (its packed count and its unfolded
    changes), without reading its list; a term not there is held by none."""
    sizes: dict[str, int] = {}
    for start in range(0, len(terms), 500):
        chunk = list(terms[start:start + 500])
        sizes.update(conn.execute(
            f"SELECT term, n + pending FROM postings WHERE term IN ({','.join('?' * len(chunk))})", chunk))
    return sizes


def read_lists(conn: sqlite3.Connection, terms: Mapping[str, object]) -> dict[str, tuple["np.ndarray", ...]]:
    """term → (rids, tfs, dls): the packed base overlaid with the delta."""
    import numpy as np

    names = list(terms)
    out: dict[str, tuple[np.ndarray, ...]] = {
        t: (np.zeros(0, np.int64), np.zeros(0, np.int32), np.zeros(0, np.int32)) for t in names}
    if not names:
        return out
    delta: dict[str, list[tuple[int, int, int]]] = {}
    packed = []
    for start in range(0, len(names), 500):  # older SQLite builds allow 999 parameters
        chunk = names[start:start + 500]
        marks = ",".join("?" * len(chunk))
        for term, rid, tf, dl in conn.execute(
                f"SELECT term, rid, tf, dl FROM posting_delta WHERE term IN ({marks}) ORDER BY term, rid", chunk):
            delta.setdefault(term, []).append((rid, tf, dl))
        packed += conn.execute(f"SELECT term, rids, tfs, dls FROM postings WHERE term IN ({marks})",
                               chunk).fetchall()
    for term, rids_b, tfs_b, dls_b in packed:
        base: Lists = (np.frombuffer(rids_b, dtype=np.int64), np.frombuffer(tfs_b, dtype=np.int32),
                       np.frombuffer(dls_b, dtype=np.int32))
        changes = delta.get(term)
        if changes:
            columns = np.array(changes, dtype=np.int64).T
            base = overlay(base, (columns[0], columns[1].astype(np.int32), columns[2].astype(np.int32)))
        out[term] = base
    return out


def overlay(base: Lists, changes: Lists) -> Lists:
    """``base`` (rids, tfs, dls) with each changed row id replaced by its delta row (tf 0:
    removed), rids ascending. Both are sorted by rid: the changed rows are found by binary
    search, and the two sorted runs merge in one stable sort (linear for two runs)."""
    import numpy as np

    rids, tfs, dls = base
    changed, ctfs, cdls = changes
    if len(changed) == 0:
        return base
    at = np.searchsorted(rids, changed)
    inside = at < len(rids)
    keep = np.ones(len(rids), dtype=bool)
    keep[at[inside][rids[at[inside]] == changed[inside]]] = False
    added = ctfs > 0
    merged = (np.concatenate([rids[keep], changed[added]]), np.concatenate([tfs[keep], ctfs[added]]),
              np.concatenate([dls[keep], cdls[added]]))
    order = np.argsort(merged[0], kind="stable")
    return merged[0][order], merged[1][order], merged[2][order]


@dataclass(frozen=True)
class Postings:
    """What the index knows of some terms: per stem, (rids, tfs, doc lengths) with rids
    ascending, and the collection they count against (memories, total length)."""

    docs: int
    total_length: int
    lists: Mapping[str, tuple["np.ndarray", ...]]

    def df(self, term: str) -> int:
        listed = self.lists.get(term)
        return 0 if listed is None else len(listed[0])

    def holding(self, terms: Iterable[str], rids: "np.ndarray") -> dict[str, "np.ndarray"]:
        """Per term, a boolean mask over ``rids``: which of those memories hold it."""
        import numpy as np

        def holders(listed: "np.ndarray") -> "np.ndarray":
            # the lists are ascending: a binary search per candidate, not a sort of the list
            at = np.minimum(np.searchsorted(listed, rids), len(listed) - 1)
            return listed[at] == rids

        return {t: holders(self.lists[t][0]) if self.df(t) else np.zeros(len(rids), dtype=bool)
                for t in terms}


class Unit(NamedTuple):
    """One scored part of a query: its weight, the stems a memory must all hold, the
    stems scored, and for a concept expansion the query word (stem) it stands for."""

    weight: float
    required: tuple[str, ...]
    scored: tuple[str, ...]
    source: str | None = None


def idf(df: int, docs: int) -> float:
    """Lucene's BM25 idf, log(1 + (N − df + ½)/(df + ½)): always positive, so a word in
    most memories still counts (the old floor at zero ranked a literal match last)."""
    docs = max(int(docs), 0)
    df = min(max(int(df), 0), docs)
    return math.log(1.0 + (docs - df + 0.5) / (df + 0.5))


# A memory holding a query word scores idf × (LITERAL_BASE + the BM25 tf part); one
# holding only a concept expansion of it scores at most weight × idf (the expansion's
# own idf, never above the word's, times its tf part over its ceiling K1 + 1). So a
# memory containing the user's word always outranks one that matched only through an
# expansion of that same word (issue 24), whatever the lengths and counts.
LITERAL_BASE = 1.0


def bm25_scores(postings: Mapping[str, tuple["np.ndarray", ...]], units: Sequence[Unit], *,
                docs: int, total_length: int) -> tuple["np.ndarray", "np.ndarray"]:
    """(rids, scores) of every memory matching any unit, from postings already read:
    term → (rids, tfs, doc lengths), rids ascending and unique. A unit's scored terms
    count only in a memory holding all its required ones. Shared by both backends and
    the dialogue turns, so all rank alike."""
    import numpy as np

    avgdl = total_length / docs if docs else 1.0
    term_idf = {term: idf(len(lists[0]), docs) for term, lists in postings.items() if len(lists[0])}
    tf_part: dict[str, "np.ndarray"] = {}
    for term in term_idf:
        _rids, tfs, dls = postings[term]
        tf = tfs.astype(np.float64)
        tf_part[term] = tf * (K1 + 1) / (tf + K1 * (1 - B + B * dls / avgdl))
    top = max((int(postings[t][0][-1]) for t in term_idf), default=-1)
    total = sum(len(postings[t][0]) for t in term_idf)
    dense = top < 4 * total + 1_000_000  # accumulate into arrays over every row id: fastest for usual rids
    sums = np.zeros(top + 1 if dense else 0, dtype=np.float64)
    held = np.zeros(top + 1 if dense else 0, dtype=bool)
    all_rids, all_parts = [], []
    for unit in units:
        if unit.weight == 0 or any(term not in term_idf for term in unit.required):
            continue
        common = None
        if tuple(unit.required) != tuple(unit.scored) or len(unit.required) > 1:
            for term in unit.required:
                rids = postings[term][0]
                common = rids if common is None else np.intersect1d(common, rids, assume_unique=True)
        for term in unit.scored:
            if term not in term_idf:
                continue
            rids, part = postings[term][0], tf_part[term]
            if unit.source is None:
                part = term_idf[term] * (LITERAL_BASE + part)
            else:
                ceiling = term_idf.get(unit.source, term_idf[term])
                part = min(term_idf[term], ceiling) * part / (K1 + 1)
            if common is not None:
                keep = np.isin(rids, common, assume_unique=True)
                rids, part = rids[keep], part[keep]
            if dense:  # a term's rids are unique: one add per row, in the units' order
                sums[rids] += unit.weight * part
                held[rids] = True
            else:
                all_rids.append(rids)
                all_parts.append(unit.weight * part)
    if dense:
        hit = np.flatnonzero(held)
        return hit.astype(np.int64), sums[hit]
    if not all_rids:
        return np.zeros(0, np.int64), np.zeros(0, np.float64)
    unique, inverse = np.unique(np.concatenate(all_rids), return_inverse=True)
    return unique, np.bincount(inverse, weights=np.concatenate(all_parts))


def query_units(groups: Sequence[tuple[float, Sequence[Any]]]) -> list[Unit]:
    """A search's weighted groups as BM25 units: an item is a term (an own word at weight
    1.0), or (terms required together, terms scored[, the own word it expands])."""
    units: list[Unit] = []
    for weight, items in groups:
        for item in items:
            if isinstance(item, str):
                required, scored, source = (item,), (item,), None
            else:
                required, scored, source = (*item, None)[:3]
            units.append(Unit(weight, tuple(stem(t) for t in required if t),
                              tuple(dict.fromkeys(stem(t) for t in scored if t)),
                              stem(source) if source else None))
    return [u for u in units if u.required and u.scored]


def needed_terms(units: Sequence[Unit]) -> list[str]:
    """Every stem the units read postings for (sources included: their idf caps)."""
    wanted = {t: None for u in units for t in (*u.required, *u.scored, *((u.source,) if u.source else ()))}
    return list(wanted)


def best_first(rids: Any, scores: Any, k: int) -> Any:
    """Indices of the ``k`` best-scored rows, best first, ties by row id; every row tied
    with the k-th is kept, so which rows make the cut never depends on the order they
    came in (a full scoring and a pruned one pick alike)."""
    import numpy as np

    if k < len(scores):
        kth = np.partition(scores, len(scores) - k)[len(scores) - k]
        head = np.flatnonzero(scores >= kth)
    else:
        head = np.arange(len(scores))
    return head[np.lexsort((rids[head], -scores[head]))]


def best_passing(rids: Any, scores: Any, limit: int, passing: Callable[[list[int]], set[int]],
                 passing_all: Callable[[], Any]) -> dict[int, float]:
    """The ``limit`` best-scored rows that pass a filter (ties by row id): the best few
    usually do, so check them first, then widen; a selective filter takes the row ids
    that may pass (``passing_all``: every passing one, perhaps more) and checks the best
    of those exactly, in growing slices. Both backends use this, step for step."""
    import numpy as np

    if len(rids) == 0:
        return {}
    for k in (limit * 3, limit * 40):
        head = best_first(rids, scores, k)
        kept = passing(rids[head].tolist())
        picked = [i for i in head.tolist() if int(rids[i]) in kept][:limit]
        if len(picked) == limit or k >= len(rids):
            return {int(rids[i]): float(scores[i]) for i in picked}
    candidates = np.flatnonzero(np.isin(rids, passing_all()))
    ordered = candidates[np.lexsort((rids[candidates], -scores[candidates]))]
    picked = []
    start, step = 0, limit * 3
    while len(picked) < limit and start < len(ordered):
        chunk = ordered[start:start + step]
        kept = passing(rids[chunk].tolist())
        picked += [i for i in chunk.tolist() if int(rids[i]) in kept]
        start, step = start + step, step * 8
    return {int(rids[i]): float(scores[i]) for i in picked[:limit]}
