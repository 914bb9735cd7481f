"""Scopes on the shared Postgres palace: private memories stay private, by every API,
enforced by the database's row-level security (the test role is not a superuser)."""

from __future__ import annotations

import psycopg
import pytest

from palace.errors import EntityNotFoundError, InvalidInputError, MemoryNotFoundError, ReviewItemNotFoundError
from palace.manager import MemoryPalaceManager
from palace.settings import Settings

pytest_plugins = ["conftest_postgres"]


@pytest.fixture
def client(postgres_url, tmp_path):
    opened = []

    def open_as(agent: str | None, *, scope: str = "team", user: str | None = None) -> MemoryPalaceManager:
        settings = Settings.from_env(backend="postgres", database_url=postgres_url, agent_id=agent,
                                     user_id=user, scope=scope, workspace_dir=str(tmp_path / f"ws-{agent}"))
        pm = MemoryPalaceManager(settings=settings)
        opened.append(pm)
        return pm

    yield open_as
    for pm in opened:
        pm.close()


def test_another_agent_cannot_see_or_change_a_private_memory(client, tmp_path):
    alice = client("alice", scope="agent:alice")
    bob = client("bob")
    secret = alice.store("alice's private plan: the launch code is 4711", tags=["plan"], location="plans")
    shared = bob.store("team note: the launch is on Friday", tags=["plan"], location="plans")
    assert secret.extra["scope"] == "agent:alice" and "scope" not in shared.extra

    # alice sees both, bob only the team one: read APIs
    assert {m.id for m in alice.list()} == {secret.id, shared.id}
    assert [m.id for m in bob.list()] == [shared.id]
    assert [m.id for m in bob.list_page(limit=10)] == [shared.id]
    assert bob.get(secret.id) is None
    assert [r.memory.id for r in bob.search("launch", record_access=False)] == [shared.id]
    assert [r.memory.id for r in bob.search("4711", record_access=False)] == []
    assert [r.memory.id for r in alice.search("4711", record_access=False)] == [secret.id]
    assert bob.count() == 1 and bob.room_counts() == {"plans": {"active": 1}}
    assert bob.stats()["total"] == 1
    bob.record_access([secret.id])
    assert bob.access_times([secret.id]) == {secret.id: []}
    assert alice.access_times([secret.id]) == {secret.id: []}  # bob could not record on it

    # write APIs: not found for bob, nothing changed for alice
    with pytest.raises(MemoryNotFoundError):
        bob.update(secret.id, content="overwritten")
    with pytest.raises(MemoryNotFoundError):
        bob.delete(secret.id)
    with pytest.raises(InvalidInputError):
        bob.store("squatting on alice's id", id=secret.id)
    with pytest.raises(InvalidInputError):  # nor write into alice's scope
        bob.store("forged", extra={"scope": "agent:alice"})
    assert alice.get(secret.id).content == secret.content

    # trash: alice's trashed memory is hers alone
    alice.delete(secret.id)
    assert bob.list_trash() == [] and not bob.in_trash(secret.id)
    with pytest.raises(MemoryNotFoundError):
        bob.restore(secret.id)
    assert bob.empty_trash() == []
    assert [m.id for m in alice.list_trash()] == [secret.id]
    alice.restore(secret.id)

    # an export by bob holds only what bob may see
    report = bob.export_tree(tmp_path / "bob-export")
    assert report.written == [shared.id] and report.trashed == 0


def test_the_database_itself_hides_rows_not_only_palace(client, postgres_url):
    alice = client("alice", scope="agent:alice")
    secret = alice.store("private")
    with psycopg.connect(postgres_url) as raw:  # the same role, declaring another agent
        raw.execute("SELECT set_config('app.agent_id', 'bob', false)")
        assert raw.execute("SELECT count(*) FROM memories").fetchone()[0] == 0
        assert raw.execute("UPDATE memories SET content = 'x' WHERE id = %s", (secret.id,)).rowcount == 0
        assert raw.execute("DELETE FROM memories WHERE id = %s", (secret.id,)).rowcount == 0
        raw.execute("SELECT set_config('app.agent_id', '', false)")  # no agent: team only
        assert raw.execute("SELECT count(*) FROM memories").fetchone()[0] == 0
    assert alice.get(secret.id).content == "private"


def test_user_scope_is_shared_by_that_users_agents_only(client):
    writer = client("a1", scope="user:zhang", user="zhang")
    same_user = client("a2", user="zhang")
    other = client("a3", user="li")
    memory = writer.store("张三的私人偏好：咖啡不加糖")
    assert same_user.get(memory.id).content == memory.content
    assert other.get(memory.id) is None


def test_another_agents_private_entities_and_relations_stay_hidden(client, postgres_url):
    alice = client("alice", scope="agent:alice")
    bob = client("bob")
    secret = alice.store("私人：我住在北京", created_at="2024-01-01", extra={
        "entities": [{"name": "星图", "type": "project", "aliases": ["Xingtu"]}],
        "relations": [{"subject": "张伟", "predicate": "负责", "object": "星图"}]})
    team = bob.store("团队周会：讨论发布", extra={"entities": ["发布"]})

    # the graph API: bob learns nothing of alice's entities, aliases or relations
    assert [r.object for r in alice.graph.history("张伟")] == ["星图"]
    assert bob.graph.history("张伟") == []
    assert bob.graph.keys_for(["Xingtu"]) == ["xingtu"]  # the alias is alice's alone
    assert {e["name"] for e in bob.graph.entities()} == {"发布"}
    assert {"星图", "发布"} <= {e["name"] for e in alice.graph.entities()}
    assert bob.recall(["张伟"], depth=2) == [] and bob.graph.entities_in("星图 张伟") == []
    assert [r.memory.id for r in bob.search("星图", record_access=False)] == []
    assert secret.id in {r.memory.id for r in alice.recall(["Xingtu"], depth=1)}
    # bob's merge cannot reach into alice's memory
    with pytest.raises(EntityNotFoundError):  # to bob, no memory names it
        bob.graph.merge("星图", "Starmap")
    assert alice.get(secret.id, record_access=False).extra["relations"][0]["object"] == "星图"

    # supersession only ever closes facts the writer can see: bob moving is not alice moving
    bob.store("我搬到杭州了", created_at="2025-03-01")
    assert "supersededBy" not in alice.get(secret.id, record_access=False).extra
    assert team.id in {m.id for m in alice.list()}

    # and the database hides the rows themselves, whatever the query
    with psycopg.connect(postgres_url) as raw:
        raw.execute("SELECT set_config('app.agent_id', 'bob', false)")
        for table in ("entities", "entity_aliases", "relations"):
            names = {row[0] for row in raw.execute(f"SELECT scope FROM {table}")}
            assert "agent:alice" not in names, table
        assert raw.execute("SELECT count(*) FROM relations WHERE subject = '张伟'").fetchone()[0] == 0


def test_review_items_are_seen_only_by_who_sees_both_memories(client):
    alice = client("alice", scope="agent:alice")
    bob = client("bob")
    carol = client("carol")
    black = alice.store("I use black")
    ruff = alice.store("I use ruff")
    [item] = alice.graph.queue.items()
    assert (item.old_memory, item.new_memory) == (black.id, ruff.id)
    assert bob.graph.queue.items() == []
    with pytest.raises(ReviewItemNotFoundError, match="no open review item"):
        bob.graph.resolve(item.id, accept=True, now=bob.now())
    # a team pair is everyone's to review, from any client of the database
    old = bob.store("I use vim")
    new = bob.store("I use emacs")
    assert [(i.old_memory, i.new_memory) for i in carol.graph.queue.items()] == [(old.id, new.id)]
    assert len(alice.graph.queue.items()) == 2
    carol.graph.resolve(carol.graph.queue.items()[0].id, accept=True, now=carol.now())
    assert bob.get(old.id, record_access=False).extra["supersededBy"] == new.id


def test_a_reindex_by_one_agent_keeps_another_agents_vectors(client, postgres_url):
    alice = client("alice", scope="agent:alice")
    bob = client("bob")
    secret = alice.store("alice's private note")
    digest = alice.index.row_by_id(secret.id).content_hash
    with psycopg.connect(postgres_url, autocommit=True) as raw:
        raw.execute("INSERT INTO vectors VALUES ('test-model', %s, 0, '[1,0,0]')", (digest,))
    assert bob.reindex().errors == []  # bob sees no memory for that vector: not his to judge
    with psycopg.connect(postgres_url) as raw:
        assert raw.execute("SELECT count(*) FROM vectors WHERE content_hash = %s", (digest,)).fetchone()[0] == 1
