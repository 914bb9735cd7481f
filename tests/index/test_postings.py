"""Keyword postings (palace/index/postings.py): BM25 stays right through stores, edits,
deletes, delta folding, bulk rebuilds, interrupted rebuilds and filters."""

from __future__ import annotations

import json
import math
import random
import sqlite3
from collections import Counter

import pytest

from palace.errors import IndexVersionError
from palace.index import Filters, postings
from palace.index import sync as sync_module
from palace.text.tokenize import stem, tokenize


def reference_bm25(pm, weighted: dict[str, float]) -> dict[int, float]:
    """BM25 as palace scores a query's own words (k1 1.2, b 0.75, Lucene's idf
    log(1 + (N − df + 0.5) / (df + 0.5)), which never reaches zero, and a literal match
    worth idf × (1 + the tf part): palace/index/postings.py), computed from scratch from
    the memories' text, without the postings tables."""
    docs = {}
    for row in pm.index.conn.execute("SELECT rid, content, summary, tags FROM memories"):
        text = " ".join([row[1], row[2] or "", " ".join(json.loads(row[3]))])
        docs[row[0]] = [stem(t) for t in tokenize(text)]
    n = len(docs)
    avgdl = sum(len(d) for d in docs.values()) / n
    scores: dict[int, float] = {}
    for term, weight in weighted.items():
        df = sum(term in d for d in docs.values())
        if not df:
            continue
        idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
        for rid, terms in docs.items():
            tf = Counter(terms)[term]
            if tf:
                part = tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * len(terms) / avgdl))
                scores[rid] = scores.get(rid, 0.0) + weight * idf * (1.0 + part)
    return scores


def palace_bm25(pm, weighted: dict[str, float]) -> dict[int, float]:
    groups = [(w, [t]) for t, w in weighted.items()]
    return pm.index.keyword_scores(groups, Filters(statuses=("active", "archived")), 10_000)


def assert_same(got: dict[int, float], want: dict[int, float]) -> None:
    assert set(got) == set(want)
    for rid, score in want.items():
        assert got[rid] == pytest.approx(score, rel=1e-9, abs=1e-12)


def test_stemming_folds_english_inflections_and_accents_only():
    assert stem("deploys") == stem("deployed") == stem("deploying")
    assert stem("café") == stem("cafe")
    assert stem("数据库") == "数据库"
    assert stem("2026") == "2026"
    assert stem("k8s") == "k8s"


def test_inflected_word_finds_memory(pm):
    memory = pm.store("We deployed the gateway twice", location="ops")
    pm.store("Nothing to see here", location="ops")
    assert [r.memory.id for r in pm.search("deploying")] == [memory.id]


WORDS = ["redis", "cache", "postgres", "deploy", "数据库", "缓存", "部署", "监控", "alert", "queue"]


def random_text(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 12)))


def test_scores_match_bm25_through_edits_deletes_and_folding(pm, monkeypatch):
    # fold deltas early and often, so every path (base, delta, fold) is exercised
    monkeypatch.setattr(postings, "MERGE_MIN", 2)
    rng = random.Random(7)
    ids = []
    for step in range(120):
        action = rng.random()
        if ids and action < 0.25:
            pm.update(rng.choice(ids), content=random_text(rng))
        elif ids and action < 0.35:
            pm.delete(ids.pop(rng.randrange(len(ids))))
        else:
            ids.append(pm.store(random_text(rng), location=rng.choice(["a", "b"])).id)
        if step % 20 == 19:
            query = {stem(w): 1.0 for w in rng.sample(WORDS, 3)}
            assert_same(palace_bm25(pm, query), reference_bm25(pm, query))
    weighted = {stem("redis"): 1.0, stem("缓存"): 0.6, stem("alert"): 0.35}
    incremental = palace_bm25(pm, weighted)
    assert_same(incremental, reference_bm25(pm, weighted))
    conn = pm.index.conn  # both halves were in play: packed bases and pending deltas
    assert conn.execute("SELECT COUNT(*) FROM postings WHERE n > 0").fetchone()[0] > 0
    assert conn.execute("SELECT COUNT(*) FROM posting_delta").fetchone()[0] > 0
    pm.index.finish_bulk()  # the same postings packed from scratch
    assert pm.index.conn.execute("SELECT COUNT(*) FROM posting_delta").fetchone()[0] == 0
    assert_same(palace_bm25(pm, weighted), incremental)


def test_a_bulk_sync_of_files_added_by_hand_packs_postings(make_pm, palace_root, monkeypatch):
    monkeypatch.setattr(sync_module, "SYNC_BATCH", 5)
    pm = make_pm()
    first = pm.store("redis cache warmup", location="ops")
    room = palace_root / "ops"
    for i in range(12):
        (room / f"hand-{i}.md").write_text(
            f"---\nid: hand-{i}\ncreatedAt: '2026-11-0{1 + i % 9}T10:00:00+08:00'\n---\n"
            f"redis note number {i} about the queue\n", encoding="utf-8")
    report = pm.sync()
    assert len(report.added) == 12
    assert not pm.index.postings_stale()
    hits = {r.memory.id for r in pm.search("redis", top_k=20)}
    assert hits == {first.id} | {f"hand-{i}" for i in range(12)}
    weighted = {"redi": 1.0, "queue": 0.5}
    assert_same(palace_bm25(pm, weighted), reference_bm25(pm, weighted))


def test_a_rebuild_that_died_half_way_is_finished_on_next_open(make_pm, workspace):
    pm = make_pm()
    kept = pm.store("PostgreSQL 作为主数据库", location="decisions")
    pm.index.begin_bulk()  # as a reindex does, then the process dies
    pm.index.conn.execute("DELETE FROM postings")
    pm.index.conn.execute("DELETE FROM posting_delta")
    pm.close()
    again = make_pm()
    assert not again.index.postings_stale()
    assert [r.memory.id for r in again.search("数据库")] == [kept.id]


def test_an_index_from_the_fts5_schema_is_rebuilt(make_pm, workspace):
    pm = make_pm()
    kept = pm.store("rate limiting on the gateway", location="ops")
    db = pm.index.path
    pm.close()
    db.unlink()
    conn = sqlite3.connect(db)  # what palace 0.1 left behind: schema 3 with FTS5
    conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    conn.execute("INSERT INTO meta VALUES ('schema_version', '3')")
    conn.execute("CREATE TABLE memories (rid INTEGER PRIMARY KEY, id TEXT)")
    conn.execute("CREATE VIRTUAL TABLE fts USING fts5(body, tokenize = 'porter unicode61')")
    conn.execute("INSERT INTO fts (rowid, body) VALUES (1, 'stale text')")
    conn.commit()
    conn.close()
    again = make_pm()
    assert [r.memory.id for r in again.search("limiting gateway")] == [kept.id]
    tables = {r[0] for r in again.index.conn.execute("SELECT name FROM sqlite_master")}
    assert "fts" not in tables and "postings" in tables


def test_a_selective_filter_still_finds_its_weaker_matches(pm):
    # many strong untagged matches, a few weak tagged ones: the best few candidates
    # all fail the filter, so the filter has to reach further down
    for i in range(120):
        pm.store(f"redis redis {i}", location="noise")
    wanted = {pm.store(f"a long note that mentions redis once among many other words {i}",
                       location="ops/cache", tags=["keep"]).id for i in range(3)}
    rid_to_id = dict(pm.index.conn.execute("SELECT rid, id FROM memories").fetchall())
    by_tag = pm.index.keyword_scores([(1.0, ["redis"])], Filters(tags=("keep",)), 2)
    assert len(by_tag) == 2 and {rid_to_id[r] for r in by_tag} <= wanted
    by_room = pm.index.keyword_scores([(1.0, ["redis"])], Filters(location="ops"), 5)
    assert {rid_to_id[r] for r in by_room} == wanted
    assert {r.memory.id for r in pm.search("redis", tags=["keep"])} == wanted


def test_best_passing_from_a_superset_is_the_exact_top_of_the_passing_rows():
    """``best_passing`` given every row id that may pass (a superset, as the Postgres
    tag index gives) picks what it picks given the exact passing set, and that is the
    ``limit`` best passing rows by score, whatever the filter's share."""
    import numpy as np

    rng = random.Random(29)
    for _ in range(200):
        n = rng.randint(1, 3000)
        rids = np.array(sorted(rng.sample(range(1, 10 * n), n)), dtype=np.int64)
        scores = np.array(rng.sample(range(1, 50 * n), n), dtype=np.float64) / 7.0  # distinct
        share = rng.choice([0.0, 0.001, 0.01, 0.1, 0.5, 1.0])
        passing = {int(r) for r in rids if rng.random() < share}
        extra = {int(r) for r in rids if rng.random() < 0.3} | {10 * n + 5}  # superset: more, and unscored
        limit = rng.randint(1, 60)
        best = sorted(passing, key=lambda r: -scores[np.searchsorted(rids, r)])[:limit]

        exact = np.array(sorted(passing), dtype=np.int64)
        superset = np.array(sorted(passing | extra), dtype=np.int64)
        picked = postings.best_passing(rids, scores, limit, passing.intersection, lambda s=superset: s)
        assert list(picked) == best
        assert picked == postings.best_passing(rids, scores, limit, passing.intersection, lambda e=exact: e)


def test_archived_memories_are_left_out_unless_asked_for(pm):
    for i in range(30):
        pm.store(f"kafka kafka {i}", location="noise")
    old = pm.store("kafka consumer lag runbook", location="ops")
    pm.update(old.id, status="archived")
    assert old.id not in {r.memory.id for r in pm.search("kafka consumer", top_k=50)}
    assert old.id in {r.memory.id for r in pm.search("kafka consumer", top_k=50, include_archived=True)}


def test_an_index_from_a_newer_palace_is_left_alone_with_a_clear_error(make_pm, cli):
    pm = make_pm()
    pm.store("rate limiting on the gateway", location="ops")
    pm.index.set_meta("schema_version", "99")  # as a later release would leave it
    pm.close()
    with pytest.raises(IndexVersionError, match="newer palace.*upgrade palace.*delete"):
        make_pm()
    result = cli("search", "gateway")
    assert result.rc != 0 and "newer palace" in result.stderr
    assert sqlite3.connect(pm.index.path).execute(
        "SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0] == "99"


def test_the_deletion_log_says_when_it_no_longer_reaches_back(pm, monkeypatch):
    from palace.index import database as index_module

    monkeypatch.setattr(index_module, "REMOVED_KEPT", 5)
    monkeypatch.setattr(index_module, "REMOVED_PRUNE_EVERY", 10)
    start = pm.index.versions()[1]
    ids = [pm.store(f"note {i}", location="notes").id for i in range(30)]
    middle = pm.index.versions()[1]
    rids = dict(pm.index.conn.execute("SELECT id, rid FROM memories").fetchall())
    for memory_id in ids[:3]:
        pm.delete(memory_id)
    assert sorted(pm.index.removed_since(middle)) == sorted(rids[i] for i in ids[:3])
    for memory_id in ids[3:25]:
        pm.delete(memory_id)
    assert pm.index.removed_since(start) is None  # pruned: a cache that old must reload
    latest = pm.index.versions()[1]
    pm.delete(ids[25])
    assert pm.index.removed_since(latest) == [rids[ids[25]]]
    pm.reindex()  # every row replaced at once, not logged one by one
    assert pm.index.removed_since(latest) is None


def test_a_multiword_expansion_needs_all_its_words(pm):
    from palace.search.query import expand

    class Expansion:  # what ConceptExpander.expand returns, reduced to what is read
        def __init__(self, term, weight):
            self.term, self.weight, self.source, self.relation = term, weight, "前端框架", "translation"

    kept, groups = expand(["前端框架"], [Expansion("front-end framework", 0.6), Expansion("前端", 0.6)])
    assert kept[0].needs_all and kept[0].terms == ("front", "end", "framework")
    redis = pm.store("We put a Redis cache in front of the search API", location="notes").id
    vue = pm.store("Comparing front-end frameworks: Vue 3 against React", location="notes").id
    rid_to_id = dict(pm.index.conn.execute("SELECT rid, id FROM memories").fetchall())
    scores = pm.index.keyword_scores(groups[1:], Filters(), 10)  # the expansions alone
    assert {rid_to_id[r] for r in scores} == {vue}
    # single words still match alone, as the user's own words do
    assert {rid_to_id[r] for r in pm.index.keyword_scores([(1.0, ["front"])], Filters(), 10)} == {redis, vue}


def test_search_for_a_chinese_concept_does_not_match_a_stray_english_word(pm):
    # 前端框架 expands to "front-end framework": "in front of" must not count
    pm.store("We put a Redis cache in front of the search API", location="notes")
    vue = pm.store("前端改用 Vue 3 + Vite", location="web").id
    results = pm.search("前端框架", now="2026-11-30T12:00:00+08:00")
    assert [r.memory.id for r in results] == [vue]


def test_a_query_of_thousands_of_distinct_words_still_answers(pm):
    # the longest query allowed, every word different: no SQL parameter limit is hit
    import random
    import string

    kept = pm.store("zebra crossing near the office", location="notes").id
    rng = random.Random(3)
    words = " ".join("".join(rng.choice(string.ascii_lowercase) for _ in range(4)) for _ in range(700))
    query = (words[:3900] + " zebra").strip()
    # (one word of 700 matches: far below the relevance floor, so asked for with include_weak)
    assert [r.memory.id for r in pm.search(query, include_weak=True)] == [kept]
