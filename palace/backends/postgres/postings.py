"""Keyword postings in Postgres that many writers keep at once, read as packed arrays.

The layout is the local one (``palace.index.postings``): per term a packed base
(row ids, term frequencies, document lengths as three byte strings) plus a small
delta of recent changes (one row per term and memory, tf = 0 marks a removal) that
readers overlay on the base. Here both are kept per scope, so row-level security
hides another agent's terms as it hides its memories, and BM25's collection
figures (memories, total length) are summed from per-scope counters.

Who writes what, and why nothing needs a global lock:

- A trigger on ``memories`` (migration 5) writes the delta rows and the counters in
  the memory's own transaction. Delta rows are keyed by (term, scope, rid): two
  writers of different memories never touch the same row. The counters are spread
  over ``SHARDS`` rows per scope (the backend's pid picks one), so concurrent
  writers rarely wait on one another's counter row.
- Folding a term's delta into its base (``fold_term``) runs when a reader finds the
  delta of a term it read has outgrown its share, and when a writer's recent terms
  have (``fold_due``), per term under a transaction advisory lock on that term; it
  deletes exactly the delta rows it folded (by ``seq``), so a delta row a writer
  rewrites meanwhile gets a new ``seq`` and survives to override the base.
- Readers take one REPEATABLE READ snapshot for base, delta and counters.

The packed arrays are big-endian (``int8send``/``int4send``), so a full rebuild
(``rebuild``: migrations, bulk import, ``palace reindex``) runs inside the server in
one set-based statement, and Python folds write the same format.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING, Any, Iterable, Iterator

if TYPE_CHECKING:
    import numpy as np

MERGE_MIN = 64  # as locally: a term's delta is folded once it holds more rows than this
MERGE_SHARE = 8  # ... and more than an eighth of its base
MERGE_CAP = 1000  # ... or more than this many rows (readers overlay the delta on every query)
FOLD_EVERY = 50  # a client checks the terms it touched for folding after this many writes
FOLD_LOCK = 0x70A1AC3  # namespace of the per-term fold locks (pg_advisory_xact_lock(ns, hash))

RID, TF = ">i8", ">i4"  # the packed arrays' element types (big-endian: what int8send writes)



def _empty() -> tuple["np.ndarray", "np.ndarray", "np.ndarray"]:
    import numpy as np

    return np.zeros(0, np.int64), np.zeros(0, np.int32), np.zeros(0, np.int32)


def _unpack(rids: bytes, tfs: bytes, dls: bytes) -> tuple["np.ndarray", "np.ndarray", "np.ndarray"]:
    import numpy as np

    return (np.frombuffer(rids, RID).astype(np.int64), np.frombuffer(tfs, TF).astype(np.int32),
            np.frombuffer(dls, TF).astype(np.int32))


def _overlay(base: tuple["np.ndarray", ...], changes: tuple["np.ndarray", ...]) -> tuple["np.ndarray", ...]:
    """``base`` with each changed row id replaced by its delta row (tf 0: removed)."""
    import numpy as np

    rids, tfs, dls = base
    changed, ctfs, cdls = changes
    if len(changed) == 0:
        return base
    keep = ~np.isin(rids, changed)
    added = ctfs > 0
    return (np.concatenate([rids[keep], changed[added]]), np.concatenate([tfs[keep], ctfs[added]]),
            np.concatenate([dls[keep], cdls[added]]))


def _due(pending: int, base: int) -> bool:
    return pending > max(MERGE_MIN, min(base // MERGE_SHARE, MERGE_CAP))


PACKED = ("string_agg(int8send(rid), ''::bytea ORDER BY rid) AS rids, "
          "string_agg(int4send(tf), ''::bytea ORDER BY rid) AS tfs, "
          "string_agg(int4send(dl), ''::bytea ORDER BY rid) AS dls")


def read_postings(conn: Any, terms: Iterable[str], due: list[tuple[str, str]] | None = None
                  ) -> tuple[dict[str, tuple["np.ndarray", ...]], int, int]:
    """(term → (rids, tfs, dls) sorted by rid, memories, total length) over the scopes
    this connection may see, from one snapshot. The (term, scope) pairs whose delta
    has outgrown its share are added to ``due`` (the caller folds them afterwards)."""
    import numpy as np

    names = list(dict.fromkeys(terms))
    per_scope: dict[tuple[str, str], tuple[np.ndarray, ...]] = {}
    delta: dict[tuple[str, str], tuple[np.ndarray, ...]] = {}
    # one statement, so one snapshot (and one round trip): counters, bases, deltas; the
    # delta is packed by the server too (a common term's delta is thousands of rows)
    rows = conn.execute(
        "SELECT 0 AS part, NULL AS term, NULL AS scope, NULL::bytea AS rids, NULL::bytea AS tfs, "
        "NULL::bytea AS dls, COALESCE(SUM(docs), 0) AS docs, COALESCE(SUM(length), 0) AS length "
        "FROM collection_stats "
        "UNION ALL SELECT 1, term, scope, rids, tfs, dls, NULL, NULL FROM term_postings WHERE term = ANY(%(t)s) "
        f"UNION ALL SELECT 2, term, scope, {PACKED}, NULL, NULL FROM posting_delta WHERE term = ANY(%(t)s) "
        "GROUP BY term, scope", {"t": names}, binary=True).fetchall()  # binary: bytea as is, not hex
    stats = rows[0] if rows and rows[0]["part"] == 0 else next(r for r in rows if r["part"] == 0)
    for row in rows:
        if row["part"]:
            target = per_scope if row["part"] == 1 else delta
            target[(row["term"], row["scope"])] = _unpack(row["rids"], row["tfs"], row["dls"])
    gathered: dict[str, list[tuple[np.ndarray, ...]]] = {}
    for key in set(per_scope) | set(delta):  # overlay per scope: a moved memory's old scope has a tombstone
        base = per_scope.get(key, _empty())
        changes = delta.get(key, _empty())
        if due is not None and _due(len(changes[0]), len(base[0])):
            due.append(key)
        gathered.setdefault(key[0], []).append(_overlay(base, changes))
    out: dict[str, tuple[np.ndarray, ...]] = {t: _empty() for t in names}
    for term, parts in gathered.items():
        if len(parts) == 1:
            rids, tfs, dls = parts[0]
        else:
            rids, tfs, dls = (np.concatenate([p[i] for p in parts]) for i in range(3))
        if len(rids) > 1 and not bool(np.all(rids[1:] > rids[:-1])):  # a packed base alone is sorted
            order = np.argsort(rids, kind="stable")
            rids, tfs, dls = rids[order], tfs[order], dls[order]
        out[term] = (rids, tfs, dls)
    return out, int(stats["docs"]), int(stats["length"])


class RidSet(AbstractSet[int]):
    """The row ids holding a term, as a read-only set over their sorted array: a common
    term is held by tens of thousands of memories, and a Python set of them would cost
    more than the whole search (``term_holders``' callers ask only ``len`` and ``in``)."""

    def __init__(self, rids: "np.ndarray"):
        self._rids = rids

    def __len__(self) -> int:
        return len(self._rids)

    def __contains__(self, rid: object) -> bool:
        import numpy as np

        if not isinstance(rid, (int, np.integer)):
            return False
        at = int(np.searchsorted(self._rids, rid))
        return at < len(self._rids) and int(self._rids[at]) == rid

    def __iter__(self) -> Iterator[int]:
        return iter(self._rids.tolist())


# ---------------------------------------------------------------------- folding


def fold_term(conn: Any, term: str, scope: str, *, force: bool = False) -> bool:
    """Fold ``term``'s delta in ``scope`` into its packed base (its own transaction),
    unless another client folded it meanwhile (then its delta is no longer due)."""
    import numpy as np

    with conn.transaction():
        if not conn.execute("SELECT pg_try_advisory_xact_lock(%s, hashtext(%s)) AS got",
                            (FOLD_LOCK, f"{scope}\x1f{term}")).fetchone()["got"]:
            return False  # someone is folding it right now: their fold serves us too
        row = conn.execute("SELECT rids, tfs, dls FROM term_postings WHERE term = %s AND scope = %s",
                           (term, scope)).fetchone()
        changes = conn.execute(f"SELECT {PACKED}, array_agg(seq) AS seqs FROM posting_delta WHERE term = %s "
                               "AND scope = %s", (term, scope)).fetchone()
        if not changes["seqs"]:
            return False  # folded meanwhile by another client
        if not force and not _due(len(changes["seqs"]), len(row["rids"]) // 8 if row else 0):
            return False  # folded meanwhile: what is left is not due yet
        base = _unpack(row["rids"], row["tfs"], row["dls"]) if row else _empty()
        rids, tfs, dls = _overlay(base, _unpack(changes["rids"], changes["tfs"], changes["dls"]))
        order = np.argsort(rids, kind="stable")
        if len(rids) == 0:
            conn.execute("DELETE FROM term_postings WHERE term = %s AND scope = %s", (term, scope))
        else:
            conn.execute(
                "INSERT INTO term_postings VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (term, scope) DO UPDATE "
                "SET n = EXCLUDED.n, rids = EXCLUDED.rids, tfs = EXCLUDED.tfs, dls = EXCLUDED.dls",
                (term, scope, len(rids), rids[order].astype(RID).tobytes(), tfs[order].astype(TF).tobytes(),
                 dls[order].astype(TF).tobytes()))
        # exactly the rows folded: one rewritten since has a new seq and stays (it is newer),
        # one committed since by a writer was not read and stays too
        conn.execute("DELETE FROM posting_delta WHERE term = %s AND scope = %s AND seq = ANY(%s)",
                     (term, scope, changes["seqs"]))
    return True


def fold_read(conn: Any, due: list[tuple[str, str]], most: int = 4) -> None:
    """Fold (a few of) the deltas a read found overgrown (``read_postings(due=...)``)."""
    for term, scope in due[:most]:
        fold_term(conn, term, scope)


def fold_due(conn: Any, touched: Iterable[tuple[str, str]]) -> int:
    """Fold the delta of each touched (term, scope) that has outgrown its share."""
    keys = list(dict.fromkeys(touched))
    if not keys:
        return 0
    due = conn.execute(
        "SELECT d.term, d.scope FROM posting_delta d JOIN unnest(%s::text[], %s::text[]) AS k(term, scope) "
        "ON d.term = k.term AND d.scope = k.scope LEFT JOIN term_postings p ON p.term = d.term "
        "AND p.scope = d.scope GROUP BY d.term, d.scope, p.n "
        "HAVING COUNT(*) > GREATEST(%s::int, LEAST(COALESCE(p.n, 0) / %s::int, %s::int))",
        ([k[0] for k in keys], [k[1] for k in keys], MERGE_MIN, MERGE_SHARE, MERGE_CAP)).fetchall()
    for row in due:
        fold_term(conn, row["term"], row["scope"])
    return len(due)


# ---------------------------------------------------------------------- rebuilding

REBUILD_SQL = """
INSERT INTO term_postings (term, scope, n, rids, tfs, dls)
SELECT t.term, m.scope, COUNT(*),
       string_agg(int8send(m.rid), ''::bytea ORDER BY m.rid),
       string_agg(int4send(t.tf), ''::bytea ORDER BY m.rid),
       string_agg(int4send(m.doc_len), ''::bytea ORDER BY m.rid)
FROM memories m CROSS JOIN LATERAL palace_memory_terms(m.terms) t
GROUP BY t.term, m.scope
"""


def rebuild(conn: Any) -> None:
    """Pack every visible scope's postings and counters afresh from the memory rows
    (in the caller's transaction). Row security keeps it to the scopes this client
    may see, and every memory it may see is in one of them, so nothing is missed."""
    # the write counters only grow (readers take their sum for a version): keep the sum
    writes = conn.execute("SELECT COALESCE(SUM(writes), 0) AS n FROM collection_stats").fetchone()["n"]
    conn.execute("DELETE FROM posting_delta")
    conn.execute("DELETE FROM term_postings")
    conn.execute("DELETE FROM collection_stats")
    conn.execute(REBUILD_SQL)
    conn.execute("INSERT INTO collection_stats (scope, shard, docs, length, writes) "
                 "SELECT scope, 0, COUNT(*), COALESCE(SUM(doc_len), 0), 0 FROM memories GROUP BY scope")
    conn.execute("INSERT INTO collection_stats AS c (scope, shard, docs, length, writes) VALUES "
                 "('team', 0, 0, 0, %s) ON CONFLICT (scope, shard) DO UPDATE SET writes = %s",
                 (writes + 1, writes + 1))


def text_version(conn: Any) -> tuple[int, int]:
    """(writes, memories) over the visible scopes: changes whenever a memory's text does
    (the trigger bumps ``writes``), so a completeness check can be remembered until it moves."""
    row = conn.execute("SELECT COALESCE(SUM(writes), 0) AS w, COALESCE(SUM(docs), 0) AS d "
                       "FROM collection_stats").fetchone()
    return int(row["w"]), int(row["d"])

