"""The same behaviour on both backends: local files + SQLite, and PostgreSQL.

``pm`` here is parametrised: each test runs once on a local palace and once on a
fresh Postgres database (a real embedded PostgreSQL 18 server, see conftest_postgres).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from palace.errors import ConfigError, InvalidInputError, MemoryNotFoundError
from palace.index import Filters
from palace.manager import MemoryPalaceManager

pytest_plugins = ["conftest_postgres"]

TZ = ZoneInfo("Asia/Shanghai")
NOW = datetime(2026, 3, 10, 12, 0, tzinfo=TZ)


@pytest.fixture
def pm(backend, make_pm) -> MemoryPalaceManager:
    pm = make_pm()
    assert pm.backend == backend
    return pm


CORPUS = [
    ("我们决定用 PostgreSQL 作为团队的共享记忆库", ["db"], "projects/palace", 0.7),
    ("The deployment runs on Kubernetes clusters in two regions", ["ops"], "ops", 0.5),
    ("Deploying the new release broke the login page", ["ops", "incident"], "ops", 0.6),
    ("周五下午和张三讨论了向量检索的召回率", ["meeting"], "projects/palace", 0.5),
    ("Coffee beans from Yunnan taste of chocolate", [], "general", 0.3),
]


def fill(pm: MemoryPalaceManager) -> list[str]:
    ids = []
    for days, (text, tags, room, importance) in enumerate(CORPUS):
        ids.append(pm.store(text, tags=tags, location=room, importance=importance,
                            created_at=NOW - timedelta(days=days * 3)).id)
    return ids


def test_store_get_update_and_unknown_frontmatter_round_trip(pm):
    stored = pm.store("记得带伞", tags=["生活"], location="life/daily", importance=0.8,
                      extra={"mood": "rainy", "refs": ["a", "b"]})
    got = pm.get(stored.id)
    assert got is not None
    assert (got.content, got.tags, got.location, got.importance) == ("记得带伞", ("生活",), "life/daily", 0.8)
    # (tags become extracted graph entities, on either backend: MEMORY_GRAPH_EXTRACT)
    assert {k: v for k, v in got.extra.items() if k != "entities"} == {"mood": "rainy", "refs": ["a", "b"]}
    updated = pm.update(stored.id, content="记得带雨伞", location="life")
    assert (updated.content, updated.location, updated.extra["mood"]) == ("记得带雨伞", "life", "rainy")
    assert pm.get(stored.id).content == "记得带雨伞"
    assert [m.id for m in pm.list()] == [stored.id]


def test_explicit_id_twice_is_refused(pm):
    pm.store("one", id="fixed-id")
    with pytest.raises(InvalidInputError):
        pm.store("two", id="fixed-id")


def test_a_fresh_id_already_taken_is_drawn_again(pm, monkeypatch):
    """A store's random id is checked in the same look as its copy check; one that is
    taken (by a live memory) is drawn again, and the memory holding it is untouched."""
    from palace.manager import writer

    held = pm.store("the memory holding the id", id="0123456789abcdef")
    draws, real = iter(["0123456789abcdef", "fedcba9876543210"]), writer.secrets.token_hex
    monkeypatch.setattr(writer.secrets, "token_hex", lambda n=None: next(draws, None) or real(n))
    fresh = pm.store("another text entirely")
    assert fresh.id == "fedcba9876543210"
    assert pm.get(held.id, record_access=False).content == "the memory holding the id"
    assert sorted(m.id for m in pm.list(limit=None)) == ["0123456789abcdef", "fedcba9876543210"]


def test_delete_goes_to_trash_and_restore_brings_it_back(pm):
    memory = pm.store("a thing to forget", tags=["x"])
    pm.delete(memory.id)
    assert pm.get(memory.id) is None
    assert pm.in_trash(memory.id)
    assert [m.id for m in pm.list_trash()] == [memory.id]
    assert pm.search("forget", record_access=False) == []
    with pytest.raises(MemoryNotFoundError):
        pm.update(memory.id, content="nope")
    restored = pm.restore(memory.id)
    assert restored.status == "active" and restored.content == "a thing to forget"
    assert not pm.in_trash(memory.id)
    assert [r.memory.id for r in pm.search("forget", record_access=False)] == [memory.id]
    pm.delete(memory.id)
    assert pm.empty_trash() == [memory.id]
    assert pm.list_trash() == []


def test_list_filters_by_room_tag_and_is_newest_first(pm):
    ids = fill(pm)
    assert [m.id for m in pm.list()] == ids
    assert [m.id for m in pm.list(location="ops")] == [ids[1], ids[2]]
    assert [m.id for m in pm.list(location="projects")] == [ids[0], ids[3]]
    assert [m.id for m in pm.list(tags=["ops", "incident"])] == [ids[2]]
    assert [m.id for m in pm.list_page(offset=1, limit=2)] == ids[1:3]
    assert pm.room_counts()["ops"] == {"active": 2}
    assert pm.count() == 5


def test_keyword_search_chinese_and_english_stemmed(pm):
    ids = fill(pm)
    assert pm.search("共享记忆", now=NOW, record_access=False)[0].memory.id == ids[0]
    deploy = [r.memory.id for r in pm.search("deploy", now=NOW, record_access=False)]
    assert set(deploy) == {ids[1], ids[2]}
    assert [r.memory.id for r in pm.search("deploy", tags=["incident"], now=NOW,
                                           record_access=False)] == [ids[2]]


def test_time_words_and_explicit_ranges(pm):
    ids = fill(pm)
    within = pm.search("", start=NOW - timedelta(days=4), end=NOW + timedelta(days=1), now=NOW,
                       record_access=False)
    assert {r.memory.id for r in within} == {ids[0], ids[1]}


def test_accesses_and_decay_archive_then_restore(pm):
    keep = pm.store("used every week", created_at=NOW - timedelta(days=200), importance=0.3)
    drop = pm.store("never looked at again", created_at=NOW - timedelta(days=200), importance=0.3)
    for weeks in range(1, 28):
        pm.record_access([keep.id], at=NOW - timedelta(days=200) + timedelta(weeks=weeks))
    assert len(pm.access_times([keep.id])[keep.id]) == 27
    report = pm.run_decay(now=NOW)
    assert report.archived == [drop.id]
    assert [m.id for m in pm.list()] == [keep.id]
    assert pm.list(status="archived")[0].id == drop.id
    assert pm.search("looked", now=NOW, record_access=False) == []
    assert [r.memory.id for r in pm.search("looked", now=NOW, include_archived=True,
                                           record_access=False)] == [drop.id]
    assert pm.restore(drop.id, now=NOW).status == "active"


def test_both_backends_rank_alike(postgres_url, make_pm, tmp_path, monkeypatch):
    """Same memories, same queries: the same ids in the same order, the same scores."""
    texts = [f"{word} note {i} about {topic}" for i, (word, topic) in enumerate(
        (w, t) for w in ("deploy", "release", "login", "数据库", "向量") for t in ("cats", "记忆", "ops"))]
    queries = ["deploy ops", "数据库 记忆", "login cats", "向量 note", "release"]

    def results(pm):
        for i, text in enumerate(texts):
            pm.store(text, id=f"m{i:02d}", created_at=NOW - timedelta(hours=i), importance=0.5)
        return [[(r.memory.id, round(r.score, 6)) for r in pm.search(q, now=NOW, record_access=False)]
                for q in queries]

    local = results(make_pm(tmp_path / "local"))
    monkeypatch.setenv("MEMORY_BACKEND", "postgres")
    monkeypatch.setenv("MEMORY_DATABASE_URL", postgres_url)
    remote = results(make_pm(tmp_path / "pg"))
    assert all(local), local
    assert remote == local


def test_unreachable_server_is_a_clear_config_error(make_pm, monkeypatch, postgres_server):
    monkeypatch.setenv("MEMORY_BACKEND", "postgres")
    monkeypatch.setenv("MEMORY_DATABASE_URL", "postgresql://palace:secret@127.0.0.1:1/palace")
    with pytest.raises(ConfigError, match="cannot reach the PostgreSQL server") as caught:
        make_pm()
    assert "secret" not in str(caught.value)


def test_postgres_without_a_url_is_a_config_error(make_pm, monkeypatch):
    monkeypatch.setenv("MEMORY_BACKEND", "postgres")
    with pytest.raises(ConfigError, match="MEMORY_DATABASE_URL"):
        make_pm()


def test_reindex_keeps_every_memory_and_its_search(pm):
    ids = fill(pm)
    before = [(r.memory.id, round(r.score, 6)) for r in pm.search("deploy", now=NOW, record_access=False)]
    report = pm.reindex()
    assert report.errors == []
    assert [m.id for m in pm.list()] == ids
    assert [(r.memory.id, round(r.score, 6)) for r in pm.search("deploy", now=NOW,
                                                                record_access=False)] == before


def test_the_cli_works_on_either_backend(backend, cli):
    added = cli("add", "the CLI stores this on any backend", "--tag", "cli", "--json").json()
    found = cli("search", "stores backend", "--json").json()
    assert added["id"] in str(found)
    assert cli("delete", added["id"], "--json").rc == 0
    assert cli("restore", added["id"], "--json").rc == 0


def test_a_database_without_pgvector_is_a_clear_config_error(make_pm, monkeypatch, postgres_server):
    import psycopg

    name = "nov_" + __import__("uuid").uuid4().hex[:10]
    with psycopg.connect(postgres_server.url, autocommit=True) as admin:
        admin.execute(f'CREATE ROLE "{name}" LOGIN')
        admin.execute(f'CREATE DATABASE "{name}" OWNER "{name}"')
    try:
        monkeypatch.setenv("MEMORY_BACKEND", "postgres")
        monkeypatch.setenv("MEMORY_DATABASE_URL", f"postgresql://{name}@127.0.0.1:{postgres_server.port}/{name}")
        with pytest.raises(ConfigError, match="CREATE EXTENSION vector"):
            make_pm()
    finally:
        postgres_server.drop_database(name)


def test_a_database_from_a_newer_palace_is_refused(make_pm, monkeypatch, postgres_url):
    import psycopg

    monkeypatch.setenv("MEMORY_BACKEND", "postgres")
    monkeypatch.setenv("MEMORY_DATABASE_URL", postgres_url)
    make_pm().store("made by this palace")
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute("UPDATE palace_meta SET value = '99' WHERE key = 'schema_version'")
    with pytest.raises(ConfigError, match="newer palace"):
        make_pm()


def test_tag_tree_counts_on_either_backend(pm):
    pm.store("搜索排序的改进", tags=["project/palace/search"])
    pm.store("部署脚本", tags=["project/palace"])
    (project,) = pm.tag_tree()
    palace_node = project["children"][0]
    assert (project["tag"], project["count"], project["total"]) == ("project", 0, 2)
    assert (palace_node["tag"], palace_node["count"], palace_node["total"]) == ("project/palace", 1, 2)
    assert [c["tag"] for c in palace_node["children"]] == ["project/palace/search"]


def test_a_tag_filter_matches_its_descendants_on_either_backend(pm):
    search = pm.store("搜索排序的改进", tags=["project/palace/search"])
    parent = pm.store("部署脚本", tags=["project/palace"])
    pm.store("别的项目", tags=["project/palace_old"])  # '_' is no wildcard here
    assert {m.id for m in pm.list(tags=["project/palace"])} == {search.id, parent.id}
    assert [m.id for m in pm.list(tags=["project/palace/search"])] == [search.id]


def test_a_selective_tag_filter_reaches_its_weak_matches_and_only_those_passing(pm):
    """Strong untagged matches fill the top, so the filter reaches past them (Postgres
    takes the tag's memories from the tag index and checks status and room itself):
    a tagged memory that is archived or in another room is never returned."""
    for i in range(150):
        pm.store(f"redis redis redis {i}", location="noise", created_at=NOW)
    wanted = [pm.store(f"a long note that mentions redis once among many other words {i}",
                       location="ops/cache", tags=["keep/cache"], created_at=NOW).id for i in range(3)]
    elsewhere = pm.store("redis redis in another room", location="projects", tags=["keep"], created_at=NOW).id
    archived = pm.store("redis redis archived", location="ops", tags=["keep"], created_at=NOW)
    pm.update(archived.id, status="archived")
    def ids(rids):
        return {row.id for row in pm.index.rows_by_rid(list(rids)).values()}

    # a pool of 2 checks the best 6, then 80, of 155 matches: then the filter's own rows
    assert ids(pm.index.keyword_scores([(1.0, ["redis"])], Filters(tags=("keep",), location="ops"), 2)) < set(wanted)
    assert ids(pm.index.keyword_scores([(1.0, ["redis"])], Filters(tags=("keep",), location="ops"), 5)) == set(wanted)
    assert ids(pm.index.keyword_scores([(1.0, ["redis"])], Filters(tags=("keep",)), 5)) == {*wanted, elsewhere}
    found = {r.memory.id for r in pm.search("redis", tags=["keep"], location="ops", now=NOW, record_access=False)}
    assert found == set(wanted)


GRAPH_CORPUS = [
    ("项目分工", {"relations": [{"subject": "张伟", "predicate": "负责", "object": "星图"}],
              "entities": [{"name": "星图", "type": "project", "aliases": ["Xingtu"]}]}),
    ("我的项目", {"relations": [{"subject": "用户", "predicate": "参与", "object": "星图"}]}),
    ("周会记录：[[星图]] 和 [[Zeta]] 进度顺利", {}),
    ("Notes on [[alpha]] and [[Alpha]] and [[Beta]]", {"entities": ["beta"]}),
    ("More on [[alpha]]", {}),  # one key, two spellings: the name shown is the same on both
]


def test_both_backends_keep_the_same_graph(postgres_url, make_pm, tmp_path, monkeypatch):
    """Same memories: the same entities in the same order, the same facts, the same recall."""
    def graph_of(pm):
        for i, (text, extra) in enumerate(GRAPH_CORPUS):
            pm.store(text, id=f"g{i}", extra=extra, created_at=NOW - timedelta(hours=i))
        return (pm.graph.entities(), [r.to_frontmatter() for r in pm.graph.history("星图")],
                pm.graph.keys_for(["Xingtu"]), pm.graph.entities_in("张伟和星图"),
                [(r.memory.id, r.explanation.retrievers["graph"]["path"])
                 for r in pm.recall(["张伟"], depth=2, now=NOW)])

    local = graph_of(make_pm(tmp_path / "local"))
    monkeypatch.setenv("MEMORY_BACKEND", "postgres")
    monkeypatch.setenv("MEMORY_DATABASE_URL", postgres_url)
    remote = graph_of(make_pm(tmp_path / "pg"))
    assert len(local[0]) >= 6 and local[1] and local[4], local
    assert remote == local


def test_reindex_rebuilds_a_lost_graph_on_postgres(postgres_url, make_pm, monkeypatch):
    import psycopg

    monkeypatch.setenv("MEMORY_BACKEND", "postgres")
    monkeypatch.setenv("MEMORY_DATABASE_URL", postgres_url)
    pm = make_pm()
    memory = pm.store("项目分工", extra={"relations": [{"subject": "张伟", "predicate": "负责", "object": "星图"}]})
    with psycopg.connect(postgres_url, autocommit=True) as raw:  # as a database from before migration 3
        for table in ("entities", "entity_aliases", "relations"):
            raw.execute(f"DELETE FROM {table}")
    assert pm.graph.history("张伟") == []
    pm.reindex()
    assert [(r.object, r.memory_id) for r in pm.graph.history("张伟")] == [("星图", memory.id)]


def test_storing_the_same_text_again_merges_into_the_first_copy(pm):
    first = pm.store("Deploy the  Release on Friday", tags=["ops"])
    again = pm.store("deploy the release on friday", tags=["release"])
    assert again.duplicate and again.id == first.id and set(again.tags) == {"ops", "release"}
    other = pm.store("deploy the release on monday")
    assert not other.duplicate and pm.count() == 2


def test_a_retired_fact_found_brings_its_successor_on_both_backends(backend, make_pm, monkeypatch):
    """The successor stage reads supersededBy and the request's filters through the
    backend contract (row_by_id, passing): the same answer on SQLite and on Postgres."""
    monkeypatch.setenv("MEMORY_VECTOR_ENABLED", "false")
    pm = make_pm()
    berlin = pm.store("I live in Berlin", created_at=NOW - timedelta(days=120))
    paris = pm.store("I moved to Paris last month", created_at=NOW - timedelta(days=60))
    results = pm.search("where do I live", now=NOW, record_access=False)
    assert [r.memory.id for r in results] == [paris.id, berlin.id]
    assert results[0].explanation.replaces == berlin.id
    assert results[1].explanation.superseded_by == paris.id


def test_both_indexes_return_the_same_typed_row(pm):
    """row_by_id, rows_by_rid, list_rows and content_candidates give one IndexRow shape,
    typed alike on SQLite and on Postgres, so search and decay read either by attribute."""
    from palace.index import Filters
    from palace.index.rows import IndexRow

    memory = pm.store("The heron nests by the lake", tags=["birds"], importance=0.8, created_at=NOW)
    row = pm.index.row_by_id(memory.id)
    assert type(row) is IndexRow
    assert (row.id, row.content, row.tags, row.importance, row.pinned, row.status) == \
        (memory.id, "The heron nests by the lake", '["birds"]', 0.8, 0, "active")
    assert row.created_ts == NOW.timestamp() and isinstance(row.rid, int)
    assert pm.index.rows_by_rid([row.rid]) == {row.rid: row}
    assert pm.index.list_rows(Filters(statuses=("active",))) == [row]
    assert pm.index.content_candidates("the heron nests by the lake", probe_terms=8) == [row]


def test_both_indexes_return_the_same_typed_graph_rows(pm):
    """The entity graph's lookups give one NamedTuple shape each, with the same values on
    SQLite and on Postgres, so palace.graph reads either by attribute."""
    from palace.graph import entity_key
    from palace.index.rows import EdgeRow, EntitySummaryRow, MentionRow, RelationRow

    since = NOW - timedelta(days=30)
    memory = pm.store("Alice moved to Berlin", created_at=NOW, extra={
        "entities": [{"name": "Alice", "type": "person"}],
        "relations": [{"subject": "Alice", "predicate": "lives_in", "object": "Berlin",
                       "validFrom": since.isoformat(), "for": "work"}]})
    rid, alice, berlin = pm.index.row_by_id(memory.id).rid, entity_key("Alice"), entity_key("Berlin")
    edge = (rid, memory.id, alice, "lives_in", berlin, "Alice", "Berlin")
    relations = pm.index.relations_touching([berlin])
    assert relations == [(*edge, since.timestamp(), None, "work", 0, "active")]
    mentions = pm.index.entity_mentions([alice])
    assert mentions == pm.index.entity_mentions_of(alice, limit=5) == [(alice, rid, memory.id, "Alice")]
    summary = pm.index.entity_summary()
    assert summary == [(alice, "Alice", "person", 1), (berlin, "Berlin", None, 1)]
    edges = pm.index.graph_edges([alice], now_ts=NOW.timestamp(), per_key=5)
    assert edges == [edge]
    for rows, shape in ((relations, RelationRow), (mentions, MentionRow), (summary, EntitySummaryRow),
                        (edges, EdgeRow)):
        assert all(type(row) is shape for row in rows), rows
    # typed alike too (a Decimal count or a bool flag would compare equal above)
    assert [type(v) for v in relations[0]] == [int, *[str] * 6, float, type(None), str, int, str]
    assert [type(v) for v in mentions[0]] == [str, int, str, str]
    assert [type(v) for v in summary[0]] == [str, str, str, int]


def test_facts_stored_out_of_date_order_leave_one_current_address(pm):
    """Addresses stated with their dates, stored in a shuffled order (an import, a
    backdated store): each ends where the next one in time begins, whatever order they
    arrived in, and only the latest is current."""
    import random

    days = [f"2024-01-{d:02d}" for d in range(1, 13)]
    arrival = list(enumerate(days))
    random.Random(29).shuffle(arrival)
    for i, day in arrival:
        pm.store(f"Ann lives in City{i}", created_at=day,
                 extra={"relations": [{"subject": "Ann", "predicate": "lives_in", "object": f"City{i}"}]})
    facts = sorted((r.valid_from, r.valid_to, r.object) for r in pm.graph.history("Ann") if r.predicate == "lives_in")
    assert [f[2] for f in facts] == [f"City{i}" for i in range(12)]
    assert [f[1] for f in facts[:-1]] == [f[0] for f in facts[1:]]   # each ends where the next begins
    assert facts[-1][1] is None                                       # the latest alone is current
    stored = {m.content: m for m in pm.list(limit=None)}
    assert stored["Ann lives in City11"].extra.get("supersededBy") is None
    assert stored["Ann lives in City0"].extra.get("supersededBy")
