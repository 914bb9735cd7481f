"""Keyword postings in Postgres that many writers keep at once, read as packed arrays.

The layout is the local one (``palace.index.postings``): per term a packed base
(row ids, term frequencies, document lengths as three byte strings) plus a small
delta of recent changes (one row per term and memory, tf = 0 marks a removal) that
readers overlay on the base. Here both are kept per scope, so row-level security
hides another agent's terms as it hides its memories, and BM25's collection
figures (memories, total length) are summed from per-scope counters.

Who writes what, and why nothing needs a global lock:

- A trigger on ``memories`` (migration 3) writes the delta rows and the counters in
  the memory's own transaction. Delta rows are keyed by (term, scope, rid): two
  writers of different memories never touch the same row. The counters are spread
  over ``SHARDS`` rows per scope (the backend's pid picks one), so concurrent
  writers rarely wait on one another's counter row.
- Folding a term's delta into its base (``fold_due``) runs now and then, per term
  under a transaction advisory lock on that term; it deletes only the delta rows it
  folded (``seq`` at most the largest it read), so a delta row a writer changes
  meanwhile gets a new ``seq`` and survives to override the base, as it must.
- Readers take one REPEATABLE READ snapshot for base, delta and counters.

The packed arrays are big-endian (``int8send``/``int4send``), so a full rebuild
(``rebuild``: migrations, bulk import, ``palace reindex``) runs inside the server in
one set-based statement, and Python folds write the same format.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable

if TYPE_CHECKING:
    import numpy as np

MERGE_MIN = 64  # as locally: a term's delta is folded once it holds more rows than this
MERGE_SHARE = 8  # ... and more than an eighth of its base
MERGE_CAP = 1000  # ... or more than this many rows (readers overlay the delta on every query)
FOLD_EVERY = 200  # a client checks the terms it touched for folding after this many writes
FOLD_LOCK = 0x70A1AC3  # namespace of the per-term fold locks (pg_advisory_xact_lock(ns, hash))

RID, TF = ">i8", ">i4"  # the packed arrays' element types (big-endian: what int8send writes)



def _empty() -> tuple["np.ndarray", "np.ndarray", "np.ndarray"]:
    import numpy as np

    return np.zeros(0, np.int64), np.zeros(0, np.int32), np.zeros(0, np.int32)


def _unpack(rids: bytes, tfs: bytes, dls: bytes) -> tuple["np.ndarray", "np.ndarray", "np.ndarray"]:
    import numpy as np

    return (np.frombuffer(rids, RID).astype(np.int64), np.frombuffer(tfs, TF).astype(np.int32),
            np.frombuffer(dls, TF).astype(np.int32))


def _overlay(base: tuple["np.ndarray", ...], changes: list[tuple[int, int, int]]) -> tuple["np.ndarray", ...]:
    """``base`` with each changed row id replaced by its delta row (tf 0: removed)."""
    import numpy as np

    if not changes:
        return base
    rids, tfs, dls = base
    changed = np.fromiter((c[0] for c in changes), dtype=np.int64, count=len(changes))
    keep = ~np.isin(rids, changed)
    added = [c for c in changes if c[1] > 0]
    return (np.concatenate([rids[keep], np.array([a[0] for a in added], np.int64)]),
            np.concatenate([tfs[keep], np.array([a[1] for a in added], np.int32)]),
            np.concatenate([dls[keep], np.array([a[2] for a in added], np.int32)]))


def read_postings(conn: Any, terms: Iterable[str]) -> tuple[dict[str, tuple["np.ndarray", ...]], int, int]:
    """(term → (rids, tfs, dls) sorted by rid, memories, total length) over the scopes
    this connection may see, from one snapshot."""
    import numpy as np

    names = list(dict.fromkeys(terms))
    per_scope: dict[tuple[str, str], tuple[np.ndarray, ...]] = {}
    delta: dict[tuple[str, str], list[tuple[int, int, int]]] = {}
    from psycopg.pq import TransactionStatus

    outside = conn.info.transaction_status == TransactionStatus.IDLE
    with conn.transaction():
        if outside:  # inside a caller's transaction, its snapshot rules
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        stats = conn.execute("SELECT COALESCE(SUM(docs), 0) AS docs, COALESCE(SUM(length), 0) AS length "
                             "FROM collection_stats").fetchone()
        if names:
            for row in conn.execute("SELECT term, scope, rids, tfs, dls FROM term_postings "
                                    "WHERE term = ANY(%s)", (names,)):
                per_scope[(row["term"], row["scope"])] = _unpack(row["rids"], row["tfs"], row["dls"])
            for row in conn.execute("SELECT term, scope, rid, tf, dl FROM posting_delta WHERE term = ANY(%s)",
                                    (names,)):
                delta.setdefault((row["term"], row["scope"]), []).append((row["rid"], row["tf"], row["dl"]))
    gathered: dict[str, list[tuple[np.ndarray, ...]]] = {}
    for key in set(per_scope) | set(delta):  # overlay per scope: a moved memory's old scope has a tombstone
        gathered.setdefault(key[0], []).append(_overlay(per_scope.get(key, _empty()), delta.get(key, [])))
    out: dict[str, tuple[np.ndarray, ...]] = {t: _empty() for t in names}
    for term, parts in gathered.items():
        rids = np.concatenate([p[0] for p in parts])
        order = np.argsort(rids, kind="stable")
        out[term] = (rids[order], np.concatenate([p[1] for p in parts])[order],
                     np.concatenate([p[2] for p in parts])[order])
    return out, int(stats["docs"]), int(stats["length"])


# ---------------------------------------------------------------------- folding


def fold_term(conn: Any, term: str, scope: str) -> None:
    """Fold ``term``'s delta in ``scope`` into its packed base (its own transaction)."""
    import numpy as np

    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (FOLD_LOCK, f"{scope}\x1f{term}"))
        row = conn.execute("SELECT rids, tfs, dls FROM term_postings WHERE term = %s AND scope = %s",
                           (term, scope)).fetchone()
        changes = conn.execute("SELECT rid, tf, dl, seq FROM posting_delta WHERE term = %s AND scope = %s",
                               (term, scope)).fetchall()
        if not changes:
            return
        base = _unpack(row["rids"], row["tfs"], row["dls"]) if row else _empty()
        rids, tfs, dls = _overlay(base, [(c["rid"], c["tf"], c["dl"]) for c in changes])
        order = np.argsort(rids, kind="stable")
        if len(rids) == 0:
            conn.execute("DELETE FROM term_postings WHERE term = %s AND scope = %s", (term, scope))
        else:
            conn.execute(
                "INSERT INTO term_postings VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (term, scope) DO UPDATE "
                "SET n = EXCLUDED.n, rids = EXCLUDED.rids, tfs = EXCLUDED.tfs, dls = EXCLUDED.dls",
                (term, scope, len(rids), rids[order].astype(RID).tobytes(), tfs[order].astype(TF).tobytes(),
                 dls[order].astype(TF).tobytes()))
        conn.execute("DELETE FROM posting_delta WHERE term = %s AND scope = %s AND seq <= %s",
                     (term, scope, max(c["seq"] for c in changes)))


def fold_due(conn: Any, touched: Iterable[tuple[str, str]]) -> int:
    """Fold the delta of each touched (term, scope) that has outgrown its share."""
    keys = list(dict.fromkeys(touched))
    if not keys:
        return 0
    due = conn.execute(
        "SELECT d.term, d.scope FROM posting_delta d JOIN unnest(%s::text[], %s::text[]) AS k(term, scope) "
        "ON d.term = k.term AND d.scope = k.scope LEFT JOIN term_postings p ON p.term = d.term "
        "AND p.scope = d.scope GROUP BY d.term, d.scope, p.n "
        "HAVING COUNT(*) > GREATEST(%s, LEAST(COALESCE(p.n, 0) / %s, %s))",
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
    conn.execute("DELETE FROM posting_delta")
    conn.execute("DELETE FROM term_postings")
    conn.execute("DELETE FROM collection_stats")
    conn.execute(REBUILD_SQL)
    conn.execute("INSERT INTO collection_stats (scope, shard, docs, length) "
                 "SELECT scope, 0, COUNT(*), COALESCE(SUM(doc_len), 0) FROM memories GROUP BY scope")

