"""The adapters on either backend, and scopes through each of them.

The viewer's pages and forms over real HTTP on a local palace and on a real embedded
PostgreSQL; then, on Postgres, who a client is (MEMORY_AGENT_ID / MEMORY_USER_ID /
MEMORY_SCOPE for the CLI and for ``palace mcp``, driven by the MCP SDK's own client):
no adapter lets one agent read or change another agent's private memory.
(The sidecar's tokens: tests/sidecar/test_sidecar_scopes.py; the manager: tests/backends/test_scopes.py.)
"""

from __future__ import annotations

import json
import re

import pytest
from cli_helpers import NOT_FOUND, cli_on
from mcp_helpers import Client, run_session

from palace.errors import MemoryNotFoundError

pytest_plugins = ["conftest_postgres"]


def csrf_of(html: str) -> str:
    return re.search(r'name="csrf" content="([0-9a-f]+)"', html).group(1)


def test_the_viewer_serves_every_page_and_form_on_either_backend(backend, make_pm):
    from palace.viewer import create_viewer_app
    from starlette.testclient import TestClient

    pm = make_pm()
    assert pm.backend == backend
    memory = pm.store("我们决定用 PostgreSQL 作为团队的共享记忆库", tags=["db"], location="projects/palace",
                      extra={"relations": [{"subject": "团队", "predicate": "uses", "object": "PostgreSQL"}]})
    other = pm.store("Deploying the release broke the login page", location="ops")
    url = "http://127.0.0.1:8770"  # the app in process: the rules of a real server's Host
    with TestClient(create_viewer_app(pm, feed_poll_s=0.2), base_url=url, follow_redirects=False) as client:
        home = client.get("/")
        assert home.status_code == 200 and memory.id in home.text and other.id in home.text
        assert "projects" in client.get("/", params={"room": "projects"}).text
        shown = client.get(f"/memories/{memory.id}")
        assert shown.status_code == 200 and "共享记忆库" in shown.text and "PostgreSQL" in shown.text
        found = client.get("/search", params={"q": "共享记忆"})
        assert found.status_code == 200 and memory.id in found.text and other.id not in found.text
        for path in ("/trash", "/experiences", "/feed"):
            assert client.get(path).status_code == 200, path
        for chart in ("/charts/decay.svg", "/charts/rooms.svg"):
            answer = client.get(chart)
            assert answer.status_code == 200 and answer.text.lstrip().startswith("<svg"), chart
        csrf = csrf_of(home.text)
        edited = client.post(f"/memories/{memory.id}/edit", data={"csrf": csrf, "tags": "db, shared"},
                             headers={"Origin": url})
        assert edited.status_code == 303
        assert pm.get(memory.id, record_access=False).tags == ("db", "shared")
        deleted = client.post(f"/memories/{other.id}/delete", data={"csrf": csrf}, headers={"Origin": url})
        assert deleted.status_code == 303 and pm.get(other.id, record_access=False) is None
        assert other.id in client.get("/trash").text
        assert client.post(f"/memories/{other.id}/restore", data={"csrf": csrf},
                           headers={"Origin": url}).status_code == 303
        assert pm.get(other.id, record_access=False) is not None
        assert client.get("/memories/0123456789abcdef").status_code == 404


@pytest.fixture
def on_postgres(postgres_url, monkeypatch) -> str:
    monkeypatch.setenv("MEMORY_BACKEND", "postgres")
    monkeypatch.setenv("MEMORY_DATABASE_URL", postgres_url)
    return postgres_url


def as_agent(monkeypatch, agent: str, scope: str = "team") -> None:
    monkeypatch.setenv("MEMORY_AGENT_ID", agent)
    monkeypatch.setenv("MEMORY_SCOPE", scope)


def test_the_cli_keeps_each_agent_to_its_scopes(on_postgres, monkeypatch, workspace):
    cli = cli_on(workspace)
    as_agent(monkeypatch, "alice", "agent:alice")
    secret = cli("add", "alice's private plan: vault code 4711", "--json").json()["id"]
    as_agent(monkeypatch, "bob")
    team = cli("add", "team note: the vault opens on Friday", "--json").json()["id"]
    assert cli("get", secret).rc == NOT_FOUND
    assert secret not in cli("search", "vault code 4711", "--json").stdout
    assert [m["id"] for m in cli("list", "--json").json()] == [team]
    assert cli("update", secret, "--content", "overwritten").rc == NOT_FOUND
    assert cli("delete", secret).rc == NOT_FOUND
    assert secret not in cli("export", str(workspace.parent / "bob-export"), "--json").stdout
    assert "4711" not in json.dumps(cli("bootstrap", "vault", "--json").json())
    as_agent(monkeypatch, "alice", "agent:alice")
    assert cli("get", secret, "--json").json()["content"].endswith("4711")


def test_the_cli_names_the_database_not_a_file_on_postgres(on_postgres, workspace):
    """On Postgres the database is the store of record: `add` and `init` used to print a
    Markdown path that does not exist there."""
    cli = cli_on(workspace)
    ready = cli("init").stdout
    stored = cli("add", "周五晚上把 v2.3 部署到生产环境").stdout
    again = cli("add", "周五晚上把 v2.3 部署到生产环境").stdout
    shown = cli("get", stored.split()[1]).stdout
    for text in (ready, stored, again, shown):
        assert "database " in text and ".md" not in text and "@" not in text, text
    assert not list(workspace.rglob("*.md"))


def test_a_palace_on_postgres_writes_nothing_into_the_workspace(on_postgres, workspace):
    cli = cli_on(workspace)
    before = sorted(workspace.rglob("*"))
    cli("add", "周五晚上把 v2.3 部署到生产环境")
    assert cli("search", "数据库 部署").rc == 0  # concepts expand the query: their cache once went to a local folder
    assert sorted(workspace.rglob("*")) == before


def test_stats_on_postgres_names_the_database_without_its_password(postgres_url, monkeypatch, workspace):
    from urllib.parse import urlsplit

    url = urlsplit(postgres_url)
    user = url.username
    with_password = url._replace(netloc=f"{user}:s3cret-pw@{url.hostname}:{url.port}").geturl()
    monkeypatch.setenv("MEMORY_BACKEND", "postgres")
    monkeypatch.setenv("MEMORY_DATABASE_URL", with_password)
    cli = cli_on(workspace)
    cli("add", "a note")
    expected = f"postgresql://{user}@{url.hostname}:{url.port}{url.path}"
    shown = cli("stats")
    assert shown.rc == 0 and shown.stdout.splitlines()[0] == f"database: {expected}", shown
    assert "s3cret-pw" not in shown.stdout and str(workspace) not in shown.stdout
    assert cli("stats", "--json").json()["database_url"] == expected


def test_an_mcp_server_serves_only_its_agents_scopes(on_postgres, monkeypatch, workspace):
    ids: dict[str, str] = {}

    async def alice(client: Client):
        saved = await client.ok("save_memory", content="我住在北京。alice's private plan: [[Vault]] code 4711")
        ids["secret"] = saved["id"]
        assert (await client.ok("entity_history", name="我"))["count"] == 1

    async def bob(client: Client):
        secret = ids["secret"]
        ids["team"] = (await client.ok("save_memory", content="team note: the vault opens on Friday"))["id"]
        assert "no memory" in (await client.error("get_memory", id=secret)).lower()
        # weak matches too: everything bob's search can reach, and alice's secret is not in it
        found = await client.ok("search_memory", query="vault code 4711", include_weak=True)
        assert [r["id"] for r in found["results"]] == [ids["team"]]
        assert secret not in json.dumps(await client.ok("list_memories", limit=50))
        fetched = await client.ok("get_memories", ids=[secret])
        assert fetched["memories"] == [] and "4711" not in json.dumps(fetched)
        assert (await client.ok("entity_history", name="我"))["count"] == 0
        assert (await client.ok("recall_memory", entities=["Vault"], depth=2))["results"] == []
        context = await client.ok("get_context", query="vault code", max_tokens=300)
        assert "4711" not in context["text"]
        await client.error("update_memory", id=secret, content="overwritten")
        await client.error("delete_memory", id=secret)
        await client.error("restore_memory", id=secret)

    as_agent(monkeypatch, "alice", "agent:alice")
    run_session(workspace, alice)
    as_agent(monkeypatch, "bob")
    run_session(workspace, bob)

    async def alice_again(client: Client):
        kept = await client.ok("get_memory", id=ids["secret"])
        assert kept["content"].endswith("4711")
        assert (await client.ok("entity_history", name="我"))["count"] == 1

    as_agent(monkeypatch, "alice", "agent:alice")
    run_session(workspace, alice_again)


def test_the_manager_says_not_found_for_another_agents_memory(on_postgres, monkeypatch, make_pm):
    as_agent(monkeypatch, "alice", "agent:alice")
    secret = make_pm().store("private")
    as_agent(monkeypatch, "bob")
    bob = make_pm()
    with pytest.raises(MemoryNotFoundError):
        bob.update(secret.id, content="x")
