"""The entity graph through the manager: derived on store and sync, supersession with
history and review, recall along paths, entity merges. ``pm`` runs each test on both
backends (real files + SQLite, and a real embedded PostgreSQL: conftest_postgres)."""

from __future__ import annotations

import pytest
import yaml
from backend_helpers import stored_markdown

from palace.features.context import bootstrap, get_context
from palace.settings import Settings
from palace.store.files import FileStorage

pytest_plugins = ["conftest_postgres"]


@pytest.fixture
def pm(backend, make_pm):
    pm = make_pm()
    assert pm.backend == backend
    return pm


def test_a_hand_edited_relation_changes_the_graph_after_sync(make_pm):
    pm = make_pm()  # local only: a person edits the file
    memory = pm.store("张伟的近况", extra={"relations": [{"subject": "张伟", "predicate": "lives_in", "object": "北京"}]})
    assert [r.object for r in pm.graph.history("张伟")] == ["北京"]
    text = memory.path.read_text("utf-8").replace("\"object\": \"北京\"", "\"object\": \"深圳湾\"")
    memory.path.write_text(text, "utf-8")
    pm.sync()
    assert [r.object for r in pm.graph.history("張偉")] == ["深圳湾"]   # traditional spelling finds it too
    memory.path.unlink()
    pm.sync()
    assert pm.graph.history("张伟") == []


def test_moving_retires_the_old_address_with_history(pm):
    old = pm.store("我住在北京", created_at="2024-01-01")
    new = pm.store("我搬到杭州了", created_at="2025-03-01")
    stale = pm.get(old.id, record_access=False)
    assert stale.extra["supersededBy"] == new.id
    front = yaml.safe_load(stored_markdown(pm, old.id).split("---")[1])
    assert front["relations"][0]["validTo"].startswith("2025-03-01")    # closed in the file itself
    history = pm.graph.history("我")
    assert [(r.object, r.valid_to is None) for r in history] == [("北京", False), ("杭州", True)]
    results = pm.search("住在 北京 杭州", record_access=False)
    assert [r.memory.id for r in results] == [new.id, old.id]
    assert results[1].explanation.superseded_by == new.id and results[0].explanation.superseded_by is None


def test_context_and_bootstrap_leave_superseded_facts_out_unless_asked(pm):
    old = pm.store("我住在北京", created_at="2024-01-01")
    new = pm.store("我搬到杭州了", created_at="2025-03-01")
    assert get_context(pm, "北京 杭州").ids == [new.id]
    assert set(get_context(pm, "北京 杭州", include_superseded=True).ids) == {new.id, old.id}
    assert old.id not in bootstrap(pm, "北京 杭州").ids


def test_coexisting_facts_are_left_alone(pm):
    tea = pm.store("I like tea")
    pm.store("I like coffee")
    pm.store("I work at Acme")
    assert "supersededBy" not in pm.get(tea.id, record_access=False).extra
    assert pm.graph.queue.items() == []


def test_an_uncertain_match_goes_to_review_and_accepting_supersedes(pm):
    black = pm.store("I use black")
    ruff = pm.store("I use ruff")
    [item] = pm.graph.queue.items()
    assert (item.old_memory, item.new_memory) == (black.id, ruff.id)
    assert "supersededBy" not in pm.get(black.id, record_access=False).extra   # nothing silent
    pm.graph.resolve(item.id, accept=True, now=pm.now())
    assert pm.get(black.id, record_access=False).extra["supersededBy"] == ruff.id
    assert pm.graph.queue.items() == []


def test_a_pair_is_asked_about_once_whichever_memory_is_taken_as_newer(pm):
    same_second = "2026-03-01T10:00:00+08:00"   # an import orders memories of one second by id
    black = pm.store("I use black", created_at=same_second)
    pm.store("I use ruff", created_at=same_second)
    [item] = pm.graph.queue.items()
    assert pm.graph.after_store(pm.get(black.id, record_access=False), pm.now()).queued == []   # black as the newer
    assert pm.graph.queue.items() == [item]
    pm.graph.resolve(item.id, accept=False, now=pm.now())
    assert pm.graph.after_store(pm.get(black.id, record_access=False), pm.now()).queued == []   # ... and decided
    assert pm.graph.queue.items() == []


def test_rejecting_a_review_keeps_both(pm):
    pm.store("I use black")
    pm.store("I use ruff")
    [item] = pm.graph.queue.items()
    pm.graph.resolve(item.id, accept=False, now=pm.now())
    assert all("supersededBy" not in m.extra for m in pm.list())


def test_recall_follows_relations_and_links_with_the_path(pm):
    lead = pm.store(
        "项目分工", extra={"relations": [{"subject": "张伟", "predicate": "负责", "object": "星图"}]})
    mine = pm.store("我的项目", extra={"relations": [{"subject": "用户", "predicate": "参与", "object": "星图"}]})
    note = pm.store("周会记录：[[星图]] 进度顺利")
    unrelated = pm.store("别的事情")
    results = pm.recall(["张伟"], depth=2)
    by_id = {r.memory.id: r for r in results}
    assert lead.id in by_id and note.id in by_id and mine.id in by_id and unrelated.id not in by_id
    assert by_id[mine.id].explanation.retrievers["graph"]["path"] == "张伟 —负责→ 星图 ←参与— 用户"
    near = {r.memory.id: r.explanation.retrievers["graph"] for r in pm.recall(["张伟"], depth=1)}
    assert near[mine.id]["path"] == "张伟 —负责→ 星图" and near[mine.id]["hops"] == 1  # it names 星图
    assert {r.memory.id for r in pm.recall("谁和张伟一起做项目", depth=2)} >= {mine.id}


def test_entity_merge_rewrites_the_files(pm):
    a = pm.store("notes", extra={"relations": [{"subject": "ZW", "predicate": "works_at", "object": "Acme"}]})
    pm.graph.merge("ZW", "Zhang Wei", [a.id])
    memory = pm.get(a.id, record_access=False)
    assert memory.extra["relations"][0]["subject"] == "Zhang Wei"
    assert {"name": "Zhang Wei", "aliases": ["ZW"]} in memory.extra["entities"]
    assert [r.object for r in pm.graph.history("ZW")] == ["Acme"]    # the alias still finds it
    pm.reindex()
    assert [r.object for r in pm.graph.history("zw")] == ["Acme"]    # and it lives in the file


def test_extraction_is_marked_and_can_be_switched_off(make_pm, workspace):
    pm = make_pm(settings=Settings.from_env({}, vector_enabled=False, graph_extract=False))
    plain = pm.store("我住在北京")
    assert "relations" not in plain.extra
    pm.close()
    pm = make_pm()
    found = pm.store("我住在上海")  # (the same text again would be the stored duplicate)
    assert found.extra["relations"][0]["extracted"] is True
    assert FileStorage(workspace, pm.tz).read(found.path).extra["relations"][0]["object"] == "上海"


def test_search_finds_memories_linked_to_a_named_entity(pm):
    linked = pm.store("周会：进度顺利", extra={"entities": ["星图"]})
    pm.store("别的项目的周会")
    results = pm.search("星图", record_access=False)
    assert results[0].memory.id == linked.id
    assert "graph" in results[0].explanation.retrievers
    assert pm.search("星图", tags=["other"], record_access=False) == []   # filters still apply


def test_a_tag_matches_its_descendants_and_the_tree_counts_them(pm):
    deep = pm.store("检索排序", tags=["project/palace/search"])
    mid = pm.store("palace 总览", tags=["project/palace"])
    pm.store("别的", tags=["project/palacex"])   # a sibling whose name only starts the same
    assert {m.id for m in pm.list(tags=["project/palace"])} == {deep.id, mid.id}
    assert {r.memory.id for r in pm.search("检索 总览", tags=["project/palace"], record_access=False)} <= {deep.id, mid.id}
    [project] = pm.tag_tree()
    palace = next(n for n in project["children"] if n["name"] == "palace")
    assert (project["total"], palace["total"], palace["count"]) == (3, 2, 1)
    assert palace["children"][0]["tag"] == "project/palace/search"


def test_a_hub_entity_is_walked_within_caps_and_says_so(pm):
    from palace.graph.service import EDGES_PER_ENTITY, TRUNCATED_NOTE

    for i in range(EDGES_PER_ENTITY + 6):
        pm.store(f"standup {i}", extra={"relations": [{"subject": "Redis", "predicate": "used_by",
                                                       "object": f"service{i}"}]})
    results = pm.recall(["Redis"], depth=2, limit=200)
    assert len(results) == EDGES_PER_ENTITY + 6           # every memory names Redis: all are found
    followed = [r for r in results if "—used_by→" in r.explanation.notes[0]]
    assert len(followed) == EDGES_PER_ENTITY              # the newest relations were walked, no more
    assert {r.memory.content for r in followed} == {f"standup {i}" for i in range(6, EDGES_PER_ENTITY + 6)}
    assert all(TRUNCATED_NOTE in r.explanation.notes for r in results)
    small = pm.recall(["service3"], depth=1)                  # a small entity: nothing capped
    assert small and all(TRUNCATED_NOTE not in r.explanation.notes for r in small)


def test_a_tag_named_in_the_query_ranks_its_descendants_too(pm):
    other = pm.store("ranking tweaks for bm25 in the billing app", tags=["project/billing"], created_at="2025-01-02")
    deep = pm.store("ranking tweaks for bm25", tags=["project/palace/search"], created_at="2025-01-01")
    pm.store("ranking tweaks for bm25 elsewhere", tags=["project/palacex"], created_at="2025-01-03")
    words = pm.search("ranking tweaks bm25", record_access=False)
    assert words[0].memory.id != deep.id                    # the words alone do not prefer it
    for query in ("project/palace ranking tweaks", "#project/palace ranking tweaks", "Project/Palace ranking"):
        results = pm.search(query, record_access=False)
        assert results[0].memory.id == deep.id, query
        assert "tag" in results[0].explanation.retrievers
        assert all("tag" not in r.explanation.retrievers for r in results if r.memory.id != deep.id)
    # a memory the words miss is still found by its tag (one below the one named)
    tagged_only = pm.store("周会纪要", tags=["project/palace/search/meetings"])
    assert tagged_only.id in {r.memory.id for r in pm.search("project/palace", record_access=False)}
    # a memory sharing only the word "project" ranks below every memory under the tag
    ranked = [r.memory.id for r in pm.search("#project/palace", record_access=False)]
    assert ranked.index(other.id) > max(ranked.index(deep.id), ranked.index(tagged_only.id))


def test_withdrawing_a_memory_drops_only_the_review_items_it_asked(pm):
    black = pm.store("I use black")
    ruff = pm.store("I use ruff")
    yapf = pm.store("I use yapf")
    asked = {m.id: [i for i in pm.graph.queue.items() if i.new_memory == m.id] for m in (black, ruff, yapf)}
    assert asked[ruff.id] and asked[yapf.id] and not asked[black.id]
    # the queue answers per memory (a store asks it every time: not the whole queue)
    assert {m: pm.graph.queue.items_from(m) for m in asked} == asked
    pm.graph.withdraw(ruff.id, still_stated=[])  # ruff's fact is no longer stated
    assert pm.graph.queue.items_from(ruff.id) == []
    assert pm.graph.queue.items() == asked[yapf.id]


def test_a_review_item_id_already_taken_is_drawn_again(pm, monkeypatch):
    import secrets
    import sys

    black, ruff, yapf = (pm.store(f"note about {tool}") for tool in ("black", "ruff", "yapf"))
    real = secrets.token_hex
    draws = iter(["aaaaaaaa", "aaaaaaaa", "bbbbbbbb"])  # the second item first meets the first's id

    def token_hex(n=None):  # the queue's draws only (temporary file names draw too)
        return next(draws) if sys._getframe(1).f_code.co_name == "add" else real(n)

    monkeypatch.setattr(secrets, "token_hex", token_hex)
    fact = {"subject": "I", "predicate": "use", "object": "black"}
    for new in (ruff, yapf):
        pm.graph.queue.add(old_memory=black.id, new_memory=new.id, old_relation=fact,
                           new_relation={**fact, "object": new.id}, reason="test", created_at="2026-01-01")
    assert [(i.id, i.new_memory) for i in pm.graph.queue.items()] == [("aaaaaaaa", ruff.id), ("bbbbbbbb", yapf.id)]


def test_a_fact_stated_under_an_alias_retires_the_old_one(pm):
    # Ally is declared another name of Alice: "Ally moved to Oslo" is where Alice lives now
    # (it left both addresses current: the rule compared the two names' keys literally)
    pm.store("Alice's address", created_at="2024-01-01",
             extra={"relations": [{"subject": "Alice", "predicate": "lives_in", "object": "Berlin"}]})
    pm.store("Alice goes by Ally", extra={"entities": [{"name": "Alice", "aliases": ["Ally"]}]})
    new = pm.store("Ally's new flat", created_at="2025-06-01",
                   extra={"relations": [{"subject": "Ally", "predicate": "lives_in", "object": "Oslo"}]})
    history = {r.object: r.valid_to for r in pm.graph.history("Alice")}
    assert history["Berlin"] is not None and history["Oslo"] is None
    old = next(m for m in pm.list() if m.content == "Alice's address")
    assert old.extra["supersededBy"] == new.id
