"""Keyword postings in Postgres that many writers keep at once, read as packed arrays.

The layout is the local one (``palace.index.postings``): per term a packed base
(row ids, term frequencies, document lengths as three byte strings) plus a small
delta of recent changes (one row per term and memory, tf = 0 marks a removal) that
readers overlay on the base. Here both are kept per scope, so row-level security
hides another agent's terms as it hides its memories, and BM25's collection
figures (memories, total length) are summed from per-scope counters.

A base is kept in parts by row id (``PART_BITS``: 65,536 row ids a part), each with
its own version, delta share and fold. New memories take new row ids, so a store's
delta rows land in the newest part, and folding them rewrites that part only: with
one base per term, a fold of a word a quarter of 1M memories hold rewrote 262k
postings, and at 16 writers such folds were most of what stores cost. A reader
joins a term's parts in row-id order (parts of one scope never overlap).

Who writes what, and why nothing needs a global lock:

- A trigger on ``memories`` (migration 5) writes the delta rows and the counters in
  the memory's own transaction. Delta rows are keyed by (term, scope, rid): two
  writers of different memories never touch the same row. The counters are spread
  over ``SHARDS`` rows per scope (the backend's pid picks one), so concurrent
  writers rarely wait on one another's counter row.
- Folding a term's delta into its base (``fold_term``) runs when a reader finds the
  delta of a term it read has outgrown its share, and when a writer's recent terms
  have (``fold_due``), per base part under a transaction advisory lock on it; it
  deletes exactly the delta rows it folded (by ``seq``), so a delta row a writer
  rewrites meanwhile gets a new ``seq`` and survives to override the base.
- Readers take one REPEATABLE READ snapshot for base, delta and counters.

The packed arrays are big-endian (``int8send``/``int4send``), so a full rebuild
(``rebuild``: migrations, bulk import, ``palace reindex``) runs inside the server in
one set-based statement, and Python folds write the same format.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING, Any, Iterable, Iterator, NamedTuple

from palace.backends.postgres.cache import Key, Kept, ListCache, State
from palace.index import postings as folding  # the fold rule, declared once for both backends
from palace.index.postings import Lists, merge_is_due, merge_threshold, overlay

if TYPE_CHECKING:
    import numpy as np

FOLD_EVERY = 50  # a client checks the terms it touched for folding after this many writes
FOLD_LOCK = 0x70A1AC3  # namespace of the per-part fold locks (pg_advisory_xact_lock(ns, hash))

RID, TF = ">i8", ">i4"  # the packed arrays' element types (big-endian: what int8send writes)
PART_BITS = 16  # a base part holds the row ids sharing rid >> PART_BITS (65,536 row ids)
PART = f"(rid >> {PART_BITS})::int"  # a posting's part, in SQL (tables with a rid column)


def part_of(rid: int) -> int:
    return rid >> PART_BITS


def _empty() -> tuple["np.ndarray", "np.ndarray", "np.ndarray"]:
    import numpy as np

    return np.zeros(0, np.int64), np.zeros(0, np.int32), np.zeros(0, np.int32)


def _unpack(rids: bytes, tfs: bytes, dls: bytes) -> tuple["np.ndarray", "np.ndarray", "np.ndarray"]:
    import numpy as np

    return (np.frombuffer(rids, RID).astype(np.int64), np.frombuffer(tfs, TF).astype(np.int32),
            np.frombuffer(dls, TF).astype(np.int32))


PACKED = ("string_agg(int8send(rid), ''::bytea ORDER BY rid) AS rids, "
          "string_agg(int4send(tf), ''::bytea ORDER BY rid) AS tfs, "
          "string_agg(int4send(dl), ''::bytea ORDER BY rid) AS dls")


# One statement, so one snapshot and one round trip: the counters; per (term, scope, part)
# its state (base version, delta rows, the sum of their seqs) and base size (for folding),
# the base's bytes where the caller's kept version differs, and the delta's (packed by the
# server: a common term's delta is thousands of rows) where anything differs.
READ_SQL = f"""
WITH k AS (SELECT * FROM unnest(%(kt)s::text[], %(ks)s::text[], %(kp)s::int[], %(kv)s::bigint[], %(kr)s::bigint[],
                               %(kq)s::bigint[]) AS k(term, scope, part, version, delta_rows, delta_seqs)),
p AS (SELECT term, scope, part, n, version, rids, tfs, dls FROM term_postings WHERE term = ANY(%(t)s)),
d AS (SELECT term, scope, {PART} AS part, COUNT(*) AS delta_rows, SUM(seq)::bigint AS delta_seqs, {PACKED}
      FROM posting_delta WHERE term = ANY(%(t)s) GROUP BY term, scope, {PART}),
s AS (SELECT COALESCE(p.term, d.term) AS term, COALESCE(p.scope, d.scope) AS scope,
             COALESCE(p.part, d.part) AS part, p.n,
             COALESCE(p.version, -1) AS version, COALESCE(d.delta_rows, 0) AS delta_rows,
             COALESCE(d.delta_seqs, -1) AS delta_seqs, p.rids, p.tfs, p.dls, d.rids AS drids, d.tfs AS dtfs,
             d.dls AS ddls
      FROM p FULL JOIN d ON d.term = p.term AND d.scope = p.scope AND d.part = p.part)
SELECT 0 AS kind, NULL AS term, NULL AS scope, NULL::int AS part, NULL::int AS n, NULL::bigint AS version,
       NULL::bigint AS delta_rows, NULL::bigint AS delta_seqs, NULL::bytea AS rids, NULL::bytea AS tfs,
       NULL::bytea AS dls, NULL::bytea AS drids, NULL::bytea AS dtfs, NULL::bytea AS ddls,
       COALESCE(SUM(docs), 0) AS docs, COALESCE(SUM(length), 0) AS length
FROM collection_stats
UNION ALL
SELECT 1, s.term, s.scope, s.part, s.n, s.version, s.delta_rows, s.delta_seqs,
       CASE WHEN k.version = s.version THEN NULL ELSE s.rids END,
       CASE WHEN k.version = s.version THEN NULL ELSE s.tfs END,
       CASE WHEN k.version = s.version THEN NULL ELSE s.dls END,
       CASE WHEN (k.version, k.delta_rows, k.delta_seqs) = (s.version, s.delta_rows, s.delta_seqs) THEN NULL
            ELSE s.drids END,
       CASE WHEN (k.version, k.delta_rows, k.delta_seqs) = (s.version, s.delta_rows, s.delta_seqs) THEN NULL
            ELSE s.dtfs END,
       CASE WHEN (k.version, k.delta_rows, k.delta_seqs) = (s.version, s.delta_rows, s.delta_seqs) THEN NULL
            ELSE s.ddls END,
       NULL, NULL
FROM s LEFT JOIN k ON k.term = s.term AND k.scope = s.scope AND k.part = s.part
"""


class Due(NamedTuple):
    """A (term, scope, part) whose delta has outgrown its share, and the version of its
    base part when that was seen (-1: no base): a fold finding another version knows
    someone folded it meanwhile, without counting the delta again."""

    term: str
    scope: str
    part: int
    version: int


def read_postings(conn: Any, terms: Iterable[str], due: list[Due] | None = None,
                  cache: ListCache | None = None) -> tuple[dict[str, Lists], int, int]:
    """(term → (rids, tfs, dls) sorted by rid, memories, total length) over the scopes
    this connection may see, from one snapshot; what ``cache`` keeps unchanged is not
    sent again. The (term, scope, part) keys whose delta has outgrown its share are
    added to ``due`` (the caller folds them afterwards)."""
    names = list(dict.fromkeys(terms))
    held = cache.held(names) if cache is not None else {}
    keys = list(held)
    rows = conn.execute(READ_SQL, {
        "t": names, "kt": [k[0] for k in keys], "ks": [k[1] for k in keys], "kp": [k[2] for k in keys],
        "kv": [held[k].state.version for k in keys], "kr": [held[k].state.delta_rows for k in keys],
        "kq": [held[k].state.delta_seqs for k in keys]}, binary=True).fetchall()  # binary: bytea as is
    stats = next(r for r in rows if r["kind"] == 0)
    gathered: dict[str, list[tuple[tuple[str, int], State, Lists]]] = {}
    for row in rows:
        if not row["kind"]:
            continue
        key = (row["term"], row["scope"], row["part"])
        state, lists = _lists_of(row, held.get(key), key, cache)
        if due is not None and merge_is_due(row["delta_rows"], row["n"] or 0):
            due.append(Due(*key, row["version"]))
        gathered.setdefault(key[0], []).append(((key[1], key[2]), state, lists))
    out: dict[str, Lists] = {t: _empty() for t in names}
    for term, parts in gathered.items():
        out[term] = _joined(term, parts, cache)
    return out, int(stats["docs"]), int(stats["length"])


def _joined(term: str, parts: list[tuple[tuple[str, int], State, Lists]], cache: ListCache | None) -> Lists:
    """A term's lists over its parts (and scopes), sorted by rid: what the cache joined
    for the same part states when nothing changed (joining a common word's sixteen parts
    at 1M copies megabytes)."""
    import numpy as np

    if len(parts) == 1:
        return parts[0][2]
    parts.sort(key=lambda p: (p[0][1], p[0][0]))  # by part: row-id order within a scope
    signature = tuple((where, state) for where, state, _ in parts)
    kept = cache.joined(term, signature) if cache is not None else None
    if kept is not None:
        return kept
    rids, tfs, dls = (np.concatenate([p[2][i] for p in parts]) for i in range(3))
    if len({where[0] for where, _, _ in parts}) > 1:  # scopes' row ids interleave (each holds its own)
        order = np.argsort(rids, kind="stable")
        rids, tfs, dls = rids[order], tfs[order], dls[order]
    if cache is not None:
        cache.put_joined(term, signature, (rids, tfs, dls))
    return rids, tfs, dls


def _lists_of(row: dict[str, Any], kept: Kept | None, key: Key,
              cache: ListCache | None) -> tuple[State, Lists]:
    """One (term, scope, part) list from its row, with its state: what was kept where the
    server sent nothing."""
    state = State(row["version"], row["delta_rows"], row["delta_seqs"])
    if kept is not None and kept.state == state:
        if cache is not None:
            cache.touch(key)
        return state, kept.lists
    if row["rids"] is not None:
        base = _unpack(row["rids"], row["tfs"], row["dls"])
    elif state.version == -1:
        base = _empty()
    else:
        assert kept is not None and kept.state.version == state.version  # the server sent none: ours is current
        base = kept.base
    changes = _unpack(row["drids"], row["dtfs"], row["ddls"]) if row["drids"] is not None else _empty()
    lists = overlay(base, changes)
    if cache is not None:
        cache.put(key, Kept(state, base, lists))
    return state, lists


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


# Per (term, scope, part): its base part's size and version, its scope's write count, and
# its delta's size, counted no further than MERGE_CAP + 1 rows (past that a delta is due
# whatever its base). A delta grows by at most one row a write of its scope, so a base
# whose scope has not been written past its ``horizon`` (set by an earlier check, any
# client's) cannot be due yet: its delta is not counted (pending NULL). All from one
# statement's snapshot: the counters and the delta rows a write adds commit together.
PENDING_SQL = f"""
WITH w AS (SELECT scope, SUM(writes)::bigint AS writes FROM collection_stats GROUP BY scope)
SELECT k.term, k.scope, k.part, COALESCE(p.n, 0) AS n, COALESCE(p.version, -1) AS version,
       COALESCE(w.writes, 0) AS writes, p.n IS NOT NULL AS based,
       CASE WHEN COALESCE(w.writes, 0) <= COALESCE(p.horizon, -1) THEN NULL ELSE
           (SELECT COUNT(*) FROM (SELECT 1 FROM posting_delta d WHERE d.term = k.term AND d.scope = k.scope
                                  AND d.rid >= k.part::bigint << {PART_BITS}
                                  AND d.rid < (k.part::bigint + 1) << {PART_BITS}
                                  LIMIT %(most)s) AS x) END AS pending
FROM unnest(%(terms)s::text[], %(scopes)s::text[], %(parts)s::int[]) AS k(term, scope, part)
LEFT JOIN term_postings p ON p.term = k.term AND p.scope = k.scope AND p.part = k.part
LEFT JOIN w ON w.scope = k.scope
"""

# What a check learnt, kept on the base part for every client: only on the version it
# counted against (a fold since wrote another, perhaps smaller, with a smaller share).
# Rows another statement holds (a fold, another check) are skipped, not waited for: a
# horizon left unset costs a count.
HORIZON_SQL = """
WITH v AS (SELECT * FROM unnest(%s::text[], %s::text[], %s::int[], %s::bigint[], %s::bigint[])
           AS v(term, scope, part, version, horizon)),
free AS (SELECT t.term, t.scope, t.part, v.horizon FROM term_postings t
         JOIN v ON v.term = t.term AND v.scope = t.scope AND v.part = t.part
         WHERE t.version = v.version AND (t.horizon IS NULL OR t.horizon < v.horizon) FOR UPDATE OF t SKIP LOCKED)
UPDATE term_postings t SET horizon = free.horizon FROM free
WHERE t.term = free.term AND t.scope = free.scope AND t.part = free.part
"""


def pending_rows(conn: Any, keys: list[Key]) -> list[dict[str, Any]]:
    """``PENDING_SQL``'s rows for ``keys`` (pending None: not counted, cannot be due yet)."""
    return list(conn.execute(PENDING_SQL, {"terms": [k[0] for k in keys], "scopes": [k[1] for k in keys],
                                           "parts": [k[2] for k in keys], "most": folding.MERGE_CAP + 1}).fetchall())


def _due(conn: Any, keys: list[Key]) -> list[Due]:
    """The (term, scope, part) keys whose delta has outgrown its share; each base part
    counted and not due gets a horizon: the write count before which it cannot be."""
    due, learnt = [], []
    for r in pending_rows(conn, keys):
        if r["pending"] is None:
            continue
        if merge_is_due(r["pending"], r["n"]):
            due.append(Due(r["term"], r["scope"], r["part"], r["version"]))
        elif r["based"]:  # due only once pending > threshold, and each write adds a row at most
            learnt.append((r["term"], r["scope"], r["part"], r["version"],
                           r["writes"] + merge_threshold(r["n"]) - r["pending"]))
    if learnt:
        conn.execute(HORIZON_SQL, [list(column) for column in zip(*learnt)])
    return due


# A fold's read, under its lock and in one statement (one snapshot, one round trip): the
# base part's version, and, only if it is the version the fold was found due against
# (``seen``; NULL: any), the part's lists and its delta's rows packed, with their seqs. Of
# many writers who found a part due at once, all but the first find a new version and
# read no lists for nothing.
FOLD_READ_SQL = f"""
WITH b AS (SELECT version, rids, tfs, dls FROM term_postings
           WHERE term = %(term)s AND scope = %(scope)s AND part = %(part)s),
v AS (SELECT COALESCE((SELECT version FROM b), -1) AS version),
go AS (SELECT version FROM v WHERE %(seen)s::bigint IS NULL OR version = %(seen)s::bigint),
d AS (SELECT {PACKED}, array_agg(seq) AS seqs FROM posting_delta
      WHERE EXISTS (SELECT 1 FROM go) AND term = %(term)s AND scope = %(scope)s
        AND rid >= %(part)s::bigint << {PART_BITS} AND rid < (%(part)s::bigint + 1) << {PART_BITS})
SELECT v.version, EXISTS (SELECT 1 FROM go) AS current, b.rids, b.tfs, b.dls,
       d.rids AS drids, d.tfs AS dtfs, d.dls AS ddls, d.seqs
FROM v LEFT JOIN b ON EXISTS (SELECT 1 FROM go) CROSS JOIN d
"""

# A fold's write, one statement: exactly the delta rows folded leave (one rewritten since
# has a new seq and stays, being newer; one committed since was not read and stays too),
# and the part gets its new lists and a new version (a reader's kept copy is stale), or
# goes where nothing is left in it.
FOLD_GONE = "gone AS (DELETE FROM posting_delta WHERE term = %(term)s AND scope = %(scope)s AND seq = ANY(%(seqs)s))"
FOLD_WRITE_SQL = f"""
WITH {FOLD_GONE}
INSERT INTO term_postings (term, scope, part, n, rids, tfs, dls)
VALUES (%(term)s, %(scope)s, %(part)s, %(n)s, %(rids)s, %(tfs)s, %(dls)s)
ON CONFLICT (term, scope, part) DO UPDATE SET n = EXCLUDED.n, rids = EXCLUDED.rids, tfs = EXCLUDED.tfs,
    dls = EXCLUDED.dls, version = nextval('posting_delta_seq'), horizon = NULL
"""
FOLD_EMPTIED_SQL = f"""
WITH {FOLD_GONE}
DELETE FROM term_postings WHERE term = %(term)s AND scope = %(scope)s AND part = %(part)s
"""


def fold_term(conn: Any, term: str, scope: str, part: int, *, seen: int | None = None) -> bool:
    """Fold ``term``'s delta in ``scope`` and ``part`` into that packed base part (its own
    transaction: a lock, a read, a write). ``seen``: the part's version when its delta
    was found due (``Due``); if a fold has written another since, its delta is no longer
    due and nothing is done. None: fold whatever the delta holds."""
    import numpy as np

    key = {"term": term, "scope": scope, "part": part}
    with conn.transaction():
        if not conn.execute("SELECT pg_try_advisory_xact_lock(%s, hashtext(%s)) AS got",
                            (FOLD_LOCK, f"{scope}\x1f{term}\x1f{part}")).fetchone()["got"]:
            return False  # someone is folding it right now: their fold serves us too
        # a statement of its own after the lock: its snapshot holds every fold committed before
        row = conn.execute(FOLD_READ_SQL, {**key, "seen": seen}, binary=True).fetchone()
        if not row["current"] or not row["seqs"]:
            return False  # folded by another since it was found due, or nothing to fold
        base = _unpack(row["rids"], row["tfs"], row["dls"]) if row["rids"] is not None else _empty()
        rids, tfs, dls = overlay(base, _unpack(row["drids"], row["dtfs"], row["ddls"]))
        order = np.argsort(rids, kind="stable")
        if len(rids) == 0:
            conn.execute(FOLD_EMPTIED_SQL, {**key, "seqs": row["seqs"]})
        else:
            conn.execute(FOLD_WRITE_SQL, {**key, "seqs": row["seqs"], "n": len(rids),
                                          "rids": rids[order].astype(RID).tobytes(),
                                          "tfs": tfs[order].astype(TF).tobytes(),
                                          "dls": dls[order].astype(TF).tobytes()})
    return True


def fold_read(conn: Any, due: list[Due], most: int = 4) -> None:
    """Fold (a few of) the deltas a read found overgrown (``read_postings(due=...)``)."""
    for term, scope, part, version in due[:most]:
        fold_term(conn, term, scope, part, seen=version)


def fold_due(conn: Any, touched: Iterable[Key]) -> int:
    """Fold the delta of each touched (term, scope, part) that has outgrown its share."""
    keys = list(dict.fromkeys(touched))
    due = _due(conn, keys) if keys else []
    for term, scope, part, version in due:
        fold_term(conn, term, scope, part, seen=version)
    return len(due)


def delta_keys(conn: Any) -> list[Key]:
    """Every (term, scope, part) with delta rows (what a fold of everything visits)."""
    return [(r["term"], r["scope"], r["part"]) for r in
            conn.execute(f"SELECT DISTINCT term, scope, {PART} AS part FROM posting_delta").fetchall()]


# ---------------------------------------------------------------------- rebuilding

REBUILD_SQL = f"""
INSERT INTO term_postings (term, scope, part, n, rids, tfs, dls)
SELECT t.term, m.scope, (m.rid >> {PART_BITS})::int, COUNT(*),
       string_agg(int8send(m.rid), ''::bytea ORDER BY m.rid),
       string_agg(int4send(t.tf), ''::bytea ORDER BY m.rid),
       string_agg(int4send(m.doc_len), ''::bytea ORDER BY m.rid)
FROM memories m CROSS JOIN LATERAL palace_memory_terms(m.terms) t
GROUP BY t.term, m.scope, m.rid >> {PART_BITS}
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

