"""Scopes on the shared Postgres palace: private memories stay private, by every API,
enforced by the database's row-level security (the test role is not a superuser)."""

from __future__ import annotations

import psycopg
import pytest

from palace.errors import InvalidInputError, MemoryNotFoundError
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
