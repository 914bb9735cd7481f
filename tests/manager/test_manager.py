"""MemoryPalaceManager as agents use it: the public API, keyword search (Chinese,
English, mixed), filters, ranking, explanations, accesses, decay and stats."""

from __future__ import annotations

import sqlite3
from datetime import datetime, timedelta, timezone

import pytest

from palace.models import Memory, SearchResult

CST = timezone(timedelta(hours=8))
NOW = datetime(2026, 11, 30, 12, 0, tzinfo=CST)


def ids(results):
    return [r.memory.id for r in results]


def test_public_api_is_importable_from_the_package(workspace):
    from palace import MemoryPalaceManager

    with MemoryPalaceManager(workspace) as pm:
        m = pm.store("hello from the public API")
        assert isinstance(m, Memory)
        assert pm.get(m.id).content == "hello from the public API"


def test_workspace_comes_from_memory_workspace_dir(monkeypatch, tmp_path):
    from palace.manager import MemoryPalaceManager

    monkeypatch.setenv("MEMORY_WORKSPACE_DIR", str(tmp_path / "from-env"))
    with MemoryPalaceManager() as pm:
        m = pm.store("env workspace")
    assert m.path == tmp_path / "from-env" / "memory" / "palace" / "general" / f"{m.id}.md"


# --------------------------------------------------------------------------- keyword search

@pytest.fixture
def corpus(pm):
    pm.store("数据库迁移方案已经确定，下个迭代执行", id="zh-db")
    pm.store("我们的部署流程需要两个人审批", id="zh-deploy")
    pm.store("The team deployed the new build to staging", id="en-deploy")
    pm.store("Kafka 集群的 PostgreSQL 连接池配置", id="mixed")
    pm.store("午饭吃了拉面，味道不错", id="noise")
    return pm


@pytest.mark.parametrize("query, expected", [
    ("数据", "zh-db"),
    ("迁移", "zh-db"),
    ("部署", "zh-deploy"),
    ("审批", "zh-deploy"),
    ("拉面", "noise"),
])
def test_chinese_two_character_words_are_found_inside_longer_text(corpus, query, expected):
    results = corpus.search(query)
    assert ids(results)[0] == expected
    assert query in results[0].explanation.matched_terms


@pytest.mark.parametrize("query", ["deploys", "deploying", "deployed", "Deploy", "DEPLOYS"])
def test_english_inflections_are_stemmed(corpus, query):
    results = corpus.search(query)
    assert "en-deploy" in ids(results)
    hit = next(r for r in results if r.memory.id == "en-deploy")
    assert hit.explanation.matched_terms == (query.lower(),)
    assert "bm25" in hit.explanation.retrievers


def test_mixed_chinese_and_english_query(corpus):
    results = corpus.search("PostgreSQL 连接池")
    assert ids(results)[0] == "mixed"
    assert {"postgresql", "连接池"} <= set(results[0].explanation.matched_terms)
    assert ids(corpus.search("postgresql"))[0] == "mixed"
    assert ids(corpus.search("ｋａｆｋａ"))[0] == "mixed"  # full-width query folds too


def test_english_word_written_against_chinese_is_found(pm):
    pm.store("我们决定用PostgreSQL作为主数据库", id="glued")
    pm.store("缓存用Redis实现", id="glued2")
    assert ids(pm.search("PostgreSQL"))[:1] == ["glued"]
    assert ids(pm.search("redis"))[:1] == ["glued2"]


def test_no_match_is_an_empty_list_and_odd_syntax_does_not_crash(corpus):
    assert corpus.search("zzyzx") == []
    assert corpus.search("the of and") == []
    for query in ['foo" OR bar*', "NEAR(a b)", "a AND OR NOT", "-(deploy)", "^col:x", "数据库'; DROP TABLE fts;--"]:
        assert isinstance(corpus.search(query), list)
    assert corpus.index.count() == 5


def test_summary_and_tags_are_searchable(pm):
    pm.store("body without the word", summary="mentions zeppelin", id="by-summary")
    pm.store("another body", tags=["hindenburg"], id="by-tag")
    assert ids(pm.search("zeppelin")) == ["by-summary"]
    assert ids(pm.search("hindenburg")) == ["by-tag"]


# --------------------------------------------------------------------------- filters

@pytest.fixture
def filtered(pm):
    def add(memory_id, **kw):
        return pm.store(f"quarterly rollout checklist {memory_id}", id=memory_id, **kw)

    add("a", tags=["ops", "urgent"], location="projects", created_at="2026-03-01T09:00:00+08:00")
    add("b", tags=["ops"], location="projects/palace", type="decision",
        created_at="2026-03-10T09:00:00+08:00")
    add("c", tags=["urgent"], location="projects2", created_at="2026-03-16T00:00:00+08:00")
    add("d", location="general", created_at="2026-03-20T09:00:00+08:00")
    add("e", tags=["ops", "urgent"], location="projects/palace/deep")
    pm.update("e", status="archived")
    return pm


def test_tag_filter_requires_every_given_tag(filtered):
    assert sorted(ids(filtered.search("rollout", tags=["ops"]))) == ["a", "b"]
    assert sorted(ids(filtered.search("rollout", tags=["ops", "urgent"]))) == ["a"]
    assert sorted(ids(filtered.search("rollout", tags=["urgent", "ops"], include_archived=True))) == ["a", "e"]
    assert filtered.search("rollout", tags=["ops", "nonexistent"]) == []


def test_location_filter_includes_sub_rooms_but_not_look_alike_rooms(filtered):
    assert sorted(ids(filtered.search("rollout", location="projects"))) == ["a", "b"]
    assert sorted(ids(filtered.search("rollout", location="projects", include_archived=True))) == ["a", "b", "e"]
    assert ids(filtered.search("rollout", location="projects/palace")) == ["b"]
    assert ids(filtered.search("rollout", location="projects2")) == ["c"]
    assert filtered.search("rollout", location="proj") == []


def test_type_filter(filtered):
    assert ids(filtered.search("rollout", type="decision")) == ["b"]
    assert filtered.search("rollout", type="preference") == []


def test_archived_only_with_include_archived(filtered):
    assert "e" not in ids(filtered.search("rollout"))
    results = filtered.search("rollout", include_archived=True)
    assert "e" in ids(results)
    assert next(r for r in results if r.memory.id == "e").memory.status == "archived"


def test_explicit_start_and_end_with_end_exclusive(filtered):
    got = filtered.search("rollout", start="2026-03-01T09:00:00+08:00", end="2026-03-16T00:00:00+08:00")
    assert sorted(ids(got)) == ["a", "b"]
    assert sorted(ids(filtered.search("rollout", start="2026-03-16T00:00:00+08:00",
                                      end="2026-04-01T00:00:00+08:00"))) == ["c", "d"]
    assert sorted(ids(filtered.search("rollout", start=datetime(2026, 3, 10, 9, 0, tzinfo=CST)))) == [
        "b", "c", "d"]
    assert sorted(ids(filtered.search("rollout", end="2026-03-10T09:00:00+08:00"))) == ["a"]
    info = got[0].explanation.time_range
    assert info["start"].startswith("2026-03-01T09:00:00") and info["end"].startswith("2026-03-16T00:00:00")


def test_filters_combine(filtered):
    got = filtered.search("rollout", tags=["ops"], location="projects", type="decision",
                          start="2026-03-05T00:00:00+08:00")
    assert ids(got) == ["b"]
    assert got[0].explanation.filters["tags"] == ["ops"]
    assert got[0].explanation.filters["location"] == "projects"


def test_list_and_search_agree_on_room_filters(filtered):
    assert sorted(m.id for m in filtered.list(location="projects")) == sorted(
        ids(filtered.search("rollout", location="projects")))


# --------------------------------------------------------------------------- ranking and explanations

def test_top_k_and_best_first(pm):
    for i in range(12):
        pm.store(" ".join(["gizmo"] * (i + 1)) + f" filler text number {i}", id=f"g{i:02d}")
    results = pm.search("gizmo", top_k=5)
    assert len(results) == 5
    scores = [r.score for r in results]
    assert scores == sorted(scores, reverse=True)
    assert len(pm.search("gizmo", top_k=1)) == 1
    assert len(pm.search("gizmo")) == 10  # the default
    assert len(pm.search("gizmo", top_k=100)) == 12


def test_more_of_the_query_matched_ranks_higher(pm):
    pm.store("grafana dashboards for the kafka cluster", id="both")
    pm.store("grafana alert rules", id="one")
    results = pm.search("grafana kafka")
    assert ids(results) == ["both", "one"]
    assert results[0].score > results[1].score
    assert set(results[0].explanation.matched_terms) == {"grafana", "kafka"}
    assert results[1].explanation.matched_terms == ("grafana",)


def test_importance_breaks_ties_between_equally_relevant_memories(pm):
    pm.store("identical text about flamingo", importance=0.1, id="low")
    pm.store("identical text about flamingo", importance=0.9, id="high")
    results = pm.search("flamingo")
    assert ids(results) == ["high", "low"]
    assert results[0].explanation.relevance == results[1].explanation.relevance
    assert results[0].explanation.importance == 0.9


def test_every_result_has_a_score_and_an_explanation(corpus):
    results = corpus.search("部署 deploys")
    assert results
    for r in results:
        assert isinstance(r, SearchResult)
        assert 0.0 < r.score <= 1.0
        e = r.explanation
        assert 0.0 <= e.relevance <= 1.0
        assert e.weights["relevance"] > 0
        assert e.retrievers["bm25"]["rank"] >= 1
        assert e.matched_terms or e.matched_expansions
        assert e.decay == pytest.approx(r.memory.decay_score, abs=1e-3)
        assert e.summary_line()
        d = r.to_dict()
        assert d["memory"]["id"] == r.memory.id and d["score"] == r.score
        assert "bm25" in d["explanation"]["retrievers"]
    assert sorted(r.explanation.retrievers["bm25"]["rank"] for r in results) == list(
        range(1, len(results) + 1))


def test_keyword_only_search_says_no_vector_retriever(corpus):
    for r in corpus.search("部署"):
        assert "vector" not in r.explanation.retrievers


# --------------------------------------------------------------------------- accesses and decay

def test_search_results_count_as_accessed_at_now(pm):
    m = pm.store("penguin facts", created_at="2026-11-01T00:00:00+08:00")
    other = pm.store("unrelated walrus", created_at="2026-11-01T00:00:00+08:00")
    pm.search("penguin", now=NOW)
    pm.search("penguin", now=NOW + timedelta(days=2))
    got = pm.get(m.id, record_access=False)
    assert got.access_count == 2
    assert got.last_accessed_at == NOW + timedelta(days=2)
    assert pm.get(other.id, record_access=False).access_count == 0
    pm.search("penguin", now=NOW + timedelta(days=3), record_access=False)
    assert pm.get(m.id, record_access=False).access_count == 2


def test_get_counts_as_an_access(pm):
    m = pm.store("otter facts", created_at="2026-11-01T00:00:00+08:00")
    pm.get(m.id, now=NOW)
    assert pm.get(m.id, record_access=False).access_count == 1


def test_decay_archives_unused_memories_and_they_stay_findable(pm):
    keep = pm.store("pinned tapir note", pinned=True, created_at="2026-01-01T00:00:00+08:00")
    fade = pm.store("forgotten tapir note", importance=0.0, created_at="2026-01-01T00:00:00+08:00")
    far = datetime(2030, 1, 1, tzinfo=CST)
    dry = pm.run_decay(now=far, dry_run=True)
    assert dry.archived == [fade.id]
    assert pm.get(fade.id, record_access=False).status == "active"
    report = pm.run_decay(now=far)
    assert report.archived == [fade.id]
    assert report.pinned == 1
    assert pm.storage.read(fade.path).status == "archived"
    assert ids(pm.search("tapir", now=far)) == [keep.id]
    assert sorted(ids(pm.search("tapir", now=far, include_archived=True))) == sorted([keep.id, fade.id])
    assert pm.restore(fade.id).status == "active"


def test_decay_score_is_lower_far_in_the_future(pm):
    m = pm.store("a note that fades", importance=0.2)
    soon = pm.get(m.id, record_access=False, now=datetime.now(CST) + timedelta(days=1)).decay_score
    later = pm.get(m.id, record_access=False, now=datetime.now(CST) + timedelta(days=90)).decay_score
    assert 0.0 <= later < soon <= 1.0


# --------------------------------------------------------------------------- stats and update via search

def test_stats_count_what_is_there(pm, palace_root):
    pm.store("one", location="a")
    pm.store("two", location="a/b", type="decision")
    archived = pm.store("three", location="c")
    pm.update(archived.id, status="archived")
    pm.delete(pm.store("four").id)
    (palace_root / "c" / "broken.md").write_text("---\nid: [\n---\n")
    pm.sync()
    stats = pm.stats()
    assert stats["total"] == 3
    assert stats["by_status"] == {"active": 2, "archived": 1}
    assert stats["by_location"] == {"a": 1, "a/b": 1, "c": 1}
    assert stats["by_type"] == {"fact": 2, "decision": 1}
    assert stats["trash"] == 1
    assert stats["problems"] == 1
    assert stats["palace"] == str(palace_root)


def test_update_is_reflected_in_search_at_once(pm):
    m = pm.store("the wombat lives in the garden")
    pm.update(m.id, content="the capybara lives in the garden")
    assert pm.search("wombat") == []
    assert ids(pm.search("capybara")) == [m.id]
    pm.update(m.id, tags=["rodent"])
    assert ids(pm.search("capybara", tags=["rodent"])) == [m.id]


def test_manager_is_a_context_manager(workspace):
    from palace.manager import MemoryPalaceManager

    with MemoryPalaceManager(workspace) as pm:
        pm.store("ctx")
    with pytest.raises(sqlite3.ProgrammingError, match="closed"):
        pm.index.conn.execute("SELECT 1")


def test_an_expansion_is_named_only_when_the_memory_holds_it_through_its_own_words(pm):
    """"via 终端用户" on a memory that holds only 用户, the query's own word, misled a user:
    the expansion is named when the memory holds a word of it the query did not say."""
    pm.store("用户偏好：回答用中文，代码注释用英文。", id="prefs")
    pm.store("周五晚上把 v2.3 部署到生产环境。", id="deploy")
    prefs = {r.memory.id: r for r in pm.search("用户喜欢什么语言")}["prefs"].explanation
    assert "用户" in prefs.matched_terms
    assert all("用户" not in e["term"] or e["term"] == "用户" for e in prefs.matched_expansions), \
        prefs.matched_expansions
    deploy = {r.memory.id: r for r in pm.search("上线")}["deploy"].explanation
    assert "部署" in [e["term"] for e in deploy.matched_expansions]  # a related word, really held
