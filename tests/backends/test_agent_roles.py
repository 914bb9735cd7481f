"""One database role per agent: the database keeps each agent to its scopes even when the
client bypasses palace and runs its own SQL under its role (palace agent add)."""

from __future__ import annotations

import json

import psycopg
import pytest
from cli_helpers import BAD_CONFIG, cli_on

from palace.errors import ConfigError
from palace.manager import MemoryPalaceManager
from palace.settings import Settings

pytest_plugins = ["conftest_postgres"]


@pytest.fixture
def owner_url(postgres_server, postgres_url) -> str:
    """The palace's owner (the test database's role), allowed to make roles."""
    owner = postgres_url.rsplit("/", 1)[1]
    with psycopg.connect(postgres_server.url, autocommit=True) as admin:
        admin.execute(f'ALTER ROLE "{owner}" CREATEROLE')
    return postgres_url


@pytest.fixture
def owner_cli(owner_url, monkeypatch, workspace):
    monkeypatch.setenv("MEMORY_BACKEND", "postgres")
    monkeypatch.setenv("MEMORY_DATABASE_URL", owner_url)
    return cli_on(workspace)


def role_url(owner_url: str, made: dict) -> str:
    host = owner_url.split("@", 1)[1]
    return f"postgresql://{made['role']}:{made['password']}@{host}"


@pytest.fixture
def palace_as(tmp_path):
    opened: list[MemoryPalaceManager] = []

    def open_as(url: str, agent: str | None = None, *, scope: str = "team", user: str | None = None):
        pm = MemoryPalaceManager(settings=Settings.from_env(
            backend="postgres", database_url=url, agent_id=agent, user_id=user, scope=scope,
            workspace_dir=str(tmp_path / f"ws-{agent}-{len(opened)}")))
        opened.append(pm)
        return pm

    yield open_as
    for pm in opened:
        pm.close()


def test_an_agents_own_role_cannot_read_or_change_another_agents_rows_by_raw_sql(owner_cli, owner_url, palace_as):
    alice_role = owner_cli("agent", "add", "alice", "--json").json()
    bob_role = owner_cli("agent", "add", "bob", "--user", "zhang", "--json").json()
    assert alice_role["scopes"] == ["team", "agent:alice"] and alice_role["password"]
    assert bob_role["scopes"] == ["team", "agent:bob", "user:zhang"]

    # bob writes through palace under his own role: a private memory with a graph
    bob = palace_as(role_url(owner_url, bob_role))  # no MEMORY_AGENT_ID: the role says who
    secret = bob.store("bob's zebra plan", extra={"scope": "agent:bob",
        "entities": [{"name": "Zebra", "aliases": ["ZB"]}],
        "relations": [{"subject": "Bob", "predicate": "owns", "object": "Zebra"}]})
    bob.store("zhang's private preference: green tea", extra={"scope": "user:zhang"})
    team = bob.store("team note: standup at ten")
    assert [r.object for r in bob.graph.history("Bob")] == ["Zebra"]

    # alice, on her role, bypasses palace and forges bob's identity: the database says no
    with psycopg.connect(role_url(owner_url, alice_role), autocommit=True) as raw:
        raw.execute("SELECT set_config('app.agent_id', 'bob', false), set_config('app.user_id', 'zhang', false)")
        assert [r[0] for r in raw.execute("SELECT id FROM memories")] == [team.id]
        assert raw.execute("SELECT count(*) FROM trash").fetchone()[0] == 0
        for table in ("entities", "entity_aliases", "relations", "review_items"):
            assert raw.execute(f"SELECT count(*) FROM {table}").fetchone()[0] == 0, table
        for table in ("term_postings", "posting_delta"):   # bob's words stay his
            assert raw.execute(f"SELECT count(*) FROM {table} WHERE term = 'zebra'").fetchone()[0] == 0
        assert raw.execute("SELECT count(*) FROM collection_stats WHERE scope = 'agent:bob'").fetchone()[0] == 0
        assert raw.execute("SELECT count(*) FROM memory_tags").fetchone()[0] == 0
        assert raw.execute("UPDATE memories SET content = 'x' WHERE id = %s", (secret.id,)).rowcount == 0
        assert raw.execute("DELETE FROM memories WHERE id = %s", (secret.id,)).rowcount == 0
        secret_rid = bob.index.row_by_id(secret.id).rid
        assert raw.execute("DELETE FROM posting_delta WHERE rid = %s", (secret_rid,)).rowcount == 0
        assert raw.execute("DELETE FROM term_postings WHERE scope = 'agent:bob'").rowcount == 0
        assert raw.execute("DELETE FROM entities WHERE rid = %s", (secret_rid,)).rowcount == 0
        with pytest.raises(psycopg.errors.InsufficientPrivilege):  # nor write into bob's scope
            raw.execute("UPDATE memories SET scope = 'agent:bob' WHERE id = %s", (team.id,))
        for ddl in ("ALTER TABLE memories DISABLE ROW LEVEL SECURITY",
                    "DROP POLICY memories_scoped ON memories",
                    f"SET ROLE \"{owner_url.rsplit('/', 1)[1]}\"",
                    "DELETE FROM palace_agents"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                raw.execute(ddl)
        assert [r[0] for r in raw.execute("SELECT agent_id FROM palace_agents")] == ["alice"]
    assert bob.get(secret.id, record_access=False).content == "bob's zebra plan"

    # and through palace, alice's role sees team + her own, whatever she claims
    alice = palace_as(role_url(owner_url, alice_role), scope="agent:alice")
    mine = alice.store("alice's own note")
    assert {m.id for m in alice.list()} == {team.id, mine.id}
    assert alice.search("zebra", record_access=False) == [] and alice.graph.history("Bob") == []
    with pytest.raises(ConfigError, match="belongs to agent 'alice'"):
        palace_as(role_url(owner_url, alice_role), agent="bob")


def test_an_agent_role_does_everything_palace_does_in_its_scopes(owner_cli, owner_url, palace_as):
    made = owner_cli("agent", "add", "carol", "--json").json()
    carol = palace_as(role_url(owner_url, made), agent="carol", scope="agent:carol")
    old = carol.store("我住在北京", created_at="2024-01-01")
    new = carol.store("我搬到杭州了", created_at="2025-03-01")
    assert carol.get(old.id, record_access=False).extra["supersededBy"] == new.id
    carol.record_access([new.id])
    assert len(carol.access_times([new.id])[new.id]) == 1
    carol.delete(new.id)
    assert carol.restore(new.id).id == new.id
    report = carol.reindex()
    assert report.errors == [] and {m.id for m in carol.list()} == {old.id, new.id}
    black = carol.store("I use black")
    carol.store("I use ruff")
    [item] = carol.graph.queue.items()
    carol.graph.resolve(item.id, accept=True, now=carol.now())
    assert "supersededBy" in carol.get(black.id, record_access=False).extra


def test_agent_list_remove_and_sql(owner_cli, owner_url):
    made = owner_cli("agent", "add", "dave", "--json").json()
    listed = owner_cli("agent", "list", "--json").json()
    assert [(a["agent_id"], a["role"]) for a in listed] == [("dave", made["role"])]
    printed = owner_cli("agent", "add", "erin", "--sql").stdout
    assert "CREATE ROLE" in printed and "AS RESTRICTIVE" in printed and "'agent:erin'" in printed
    assert [a["agent_id"] for a in owner_cli("agent", "list", "--json").json()] == ["dave"]  # only printed
    assert owner_cli("agent", "remove", "dave", "--json").json()[0]["role"] == made["role"]
    with pytest.raises(psycopg.OperationalError):
        psycopg.connect(role_url(owner_url, made), connect_timeout=5).close()
    assert owner_cli("agent", "list").stdout.strip() == "(no agent roles)"
    again = owner_cli("agent", "add", "dave", "--json").json()  # the name is free again
    assert again["role"] == made["role"]
    assert owner_cli("agent", "add", "dave").rc != 0


def test_roles_need_the_postgres_backend(workspace):
    result = cli_on(workspace)("agent", "add", "alice")
    assert result.rc == BAD_CONFIG and "MEMORY_BACKEND=postgres" in result.stderr
    assert json.loads(cli_on(workspace)("config", "--json").stdout) is not None


def test_an_owner_without_createrole_gets_the_sql_to_hand_on(postgres_url, monkeypatch, workspace):
    monkeypatch.setenv("MEMORY_BACKEND", "postgres")
    monkeypatch.setenv("MEMORY_DATABASE_URL", postgres_url)
    cli = cli_on(workspace)
    refused = cli("agent", "add", "alice")
    assert refused.rc == BAD_CONFIG and "palace agent add --sql" in refused.stderr
    assert cli("agent", "list", "--json").json() == []  # nothing half made
    assert "CREATE ROLE" in cli("agent", "add", "alice", "--sql").stdout


def test_an_agent_role_searches_vectors_exactly_until_the_owner_makes_the_ann_index(
        owner_cli, owner_url, palace_as, monkeypatch):
    from palace.backends.postgres import vectors

    made = owner_cli("agent", "add", "alice", "--json").json()
    alice = palace_as(role_url(owner_url, made), scope="agent:alice")
    mine = alice.store("alice's vector note")
    digest = alice.index.row_by_id(mine.id).content_hash
    with psycopg.connect(owner_url, autocommit=True) as raw:
        raw.execute("INSERT INTO vectors VALUES ('m', %s, 0, '[1,0,0]')", (digest,))
        raw.execute("INSERT INTO vectors VALUES ('m', 'someone-elses-hash', 0, '[1,0,0]')")
    monkeypatch.setattr(vectors, "HNSW_ABOVE", 0)  # "many" vectors: the ANN path
    rid = alice.index.row_by_id(mine.id).rid
    as_agent = vectors.PgVectors(alice.index.palace, None)
    assert as_agent.scores("m", [1, 0, 0], allowed=None, limit=5) == {rid: pytest.approx(1.0)}
    with psycopg.connect(role_url(owner_url, made)) as raw:  # not its index to make, nor others' vectors to see
        assert raw.execute("SELECT count(*) FROM pg_indexes WHERE indexname LIKE 'vectors_hnsw_%'").fetchone()[0] == 0
        raw.execute("SELECT set_config('app.agent_id', 'alice', false)")
        assert raw.execute("SELECT count(*) FROM vectors").fetchone()[0] == 1


def test_refreshing_binds_every_agent_role_again(owner_cli, owner_url):
    """What a later migration does after adding a scoped table: grants and policies again."""
    from palace.backends.postgres.roles import policy_name, refresh_policies

    made = owner_cli("agent", "add", "alice", "--json").json()
    with psycopg.connect(owner_url, autocommit=True) as owner:
        owner.execute(f'DROP POLICY "{policy_name(made["role"])}" ON entities')
        owner.execute(f'REVOKE ALL ON relations FROM "{made["role"]}"')
        refresh_policies(owner)
        policies = {r[0] for r in owner.execute("SELECT tablename FROM pg_policies WHERE policyname = %s",
                                                (policy_name(made["role"]),))}
        assert {"entities", "relations", "memories", "term_postings", "posting_delta", "vectors"} <= policies
    with psycopg.connect(role_url(owner_url, made)) as raw:
        assert raw.execute("SELECT count(*) FROM relations").fetchone()[0] == 0  # granted again
    assert len(policy_name("r" * 63)) <= 63 and policy_name("r" * 63) != policy_name("r" * 62 + "s")


def test_an_agents_role_captures_into_its_own_spool_and_cannot_read_anothers(owner_cli, owner_url, palace_as):
    from palace.capture.service import capture_payloads

    alice_role = owner_cli("agent", "add", "alice", "--json").json()
    bob_role = owner_cli("agent", "add", "bob", "--json").json()
    bob = palace_as(role_url(owner_url, bob_role), scope="agent:bob")
    answer = capture_payloads(bob, "palace", [
        {"v": 1, "kind": "user_prompt", "session": "s-1", "text": "bob's turn about the quokka budget",
         "meta": {"sessionKey": "k-1"}},
        {"v": 1, "kind": "tool_call", "session": "s-1", "tool": {"name": "Bash", "input": {"command": "budget --quokka"}}},
        {"v": 1, "kind": "user_prompt", "session": "s-1", "text": "and the wombat one"}])
    assert answer["errors"] == [] and answer["observations"], answer  # the first turn ended, the second waits
    with psycopg.connect(role_url(owner_url, alice_role), autocommit=True) as raw:
        raw.execute("SELECT set_config('app.agent_id', 'bob', false)")   # a forged identity
        assert raw.execute("SELECT count(*) FROM capture_spools").fetchone()[0] == 0
        assert raw.execute("SELECT count(*) FROM capture_session_keys").fetchone()[0] == 0
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            raw.execute("INSERT INTO capture_spools (scope, session) VALUES ('agent:bob', 's-1')")
    with psycopg.connect(role_url(owner_url, bob_role), autocommit=True) as raw:
        raw.execute("SELECT set_config('app.agent_id', 'bob', false)")
        [(events,)] = raw.execute("SELECT events FROM capture_spools WHERE session = 's-1'").fetchall()
        assert "wombat" in events


def test_an_agents_role_prunes_orphaned_vectors_but_never_anothers(owner_cli, owner_url, palace_as):
    """Under its own role (restrictive policies: it cannot even see bob's vectors) alice's
    reindex still prunes the true orphans of every scope, through the owner's function,
    and leaves bob's private vectors alone; she cannot use the function to read anything."""
    alice_role = owner_cli("agent", "add", "alice", "--json").json()
    bob_role = owner_cli("agent", "add", "bob", "--json").json()
    alice = palace_as(role_url(owner_url, alice_role), scope="agent:alice")
    bob = palace_as(role_url(owner_url, bob_role), scope="agent:bob")
    bobs = bob.store("bob's private plan: the lighthouse key is under the blue stone")
    hers = alice.store("alice's note: buy more coffee filters")
    with psycopg.connect(owner_url, autocommit=True) as owner:
        def vector(content_hash):
            owner.execute("INSERT INTO vectors VALUES ('m', %s, 0, '[1,0,0]')", (content_hash,))

        kept = {pm.index.row_by_id(m.id).content_hash for pm, m in ((bob, bobs), (alice, hers))}
        for content_hash in (*kept, "a-text-no-memory-has"):
            vector(content_hash)
        alice.reindex()
        assert {r[0] for r in owner.execute("SELECT content_hash FROM vectors")} == kept
    with psycopg.connect(role_url(owner_url, alice_role), autocommit=True) as raw:
        raw.execute("SELECT set_config('app.agent_id', 'bob', false)")          # forged: still hers only
        assert raw.execute("SELECT count(*) FROM vectors").fetchone()[0] == 0
        raw.execute("SELECT set_config('app.agent_id', 'alice', false)")
        assert raw.execute("SELECT count(*) FROM vectors").fetchone()[0] == 1   # her own only
        assert raw.execute("SELECT palace_orphan_vectors(false)").fetchone()[0] == 0
        raw.execute("SELECT set_config('palace.every_scope', 'on', false)")    # the owner's switch: not hers
        assert [r[0] for r in raw.execute("SELECT id FROM memories")] == [hers.id]


def test_a_database_from_before_the_shared_capture_prune_and_decisions_upgrades_on_start(
        owner_url, palace_as, monkeypatch):
    """A palace made at schema 5, with an agent role, opened by this palace: migrations 6-8
    run on start, and the old agent role is granted the new tables and function."""
    from palace.backends.postgres import schema
    from palace.capture.service import capture_payloads

    from palace.backends.postgres import roles
    from palace.backends.postgres.agents import add_agent

    full = list(schema.MIGRATIONS)
    with monkeypatch.context() as old:   # the palace as the previous release made it
        scoped = {t: c for t, c in roles.SCOPED.items()
                  if t not in ("capture_spools", "capture_session_keys", "graph_decisions")}
        old.setattr(schema, "MIGRATIONS", full[:5])
        old.setattr(roles, "SCOPED", scoped)
        old.setattr(roles, "WRITABLE", (*scoped, "accesses"))
        old.setattr(roles, "FUNCTIONS", ())
        old.setattr(roles, "SEQUENCES", tuple(s for s in roles.SEQUENCES if s != "graph_decisions_seq_seq"))
        alice_role = add_agent(owner_url, "alice")[0].to_dict()
    with psycopg.connect(owner_url, autocommit=True) as raw:
        assert raw.execute("SELECT value FROM palace_meta WHERE key = 'schema_version'").fetchone()[0] == "5"
        assert raw.execute("SELECT to_regclass('capture_spools')").fetchone()[0] is None

    owner = palace_as(owner_url)   # the owner opens it first, as after any upgrade
    with psycopg.connect(owner_url, autocommit=True) as raw:
        assert raw.execute("SELECT value FROM palace_meta WHERE key = 'schema_version'").fetchone()[0] == str(len(full))
    alice = palace_as(role_url(owner_url, alice_role), scope="agent:alice")
    answer = capture_payloads(alice, "palace", [
        {"v": 1, "kind": "user_prompt", "session": "s", "text": "alice checks the upgraded palace"},
        {"v": 1, "kind": "tool_call", "session": "s", "tool": {"name": "Bash", "input": {"command": "palace stats"}}},
        {"v": 1, "kind": "turn_end", "session": "s"}])
    assert answer["errors"] == [] and len(answer["observations"]) == 1
    alice.reindex()                                     # prunes through the owner's function
    alice.store("I use black")
    alice.store("I use ruff")
    [item] = alice.graph.queue.items()
    alice.graph.resolve(item.id, accept=False, now=alice.now())
    assert [d.decision for d in owner.graph.decisions.entries()] == []       # alice's private pair
    assert [d.decision for d in alice.graph.decisions.entries()] == ["rejected"]
    # the new migrations are idempotent: run again over themselves, they change nothing
    with psycopg.connect(owner_url, autocommit=True) as raw:
        raw.execute("UPDATE palace_meta SET value = '5' WHERE key = 'schema_version'")
    palace_as(owner_url)
    assert [d.decision for d in alice.graph.decisions.entries()] == ["rejected"]
    assert alice.index.orphan_vector_count() == 0
    again = capture_payloads(alice, "palace", [{"v": 1, "kind": "user_prompt", "session": "s", "text": "still here"}])
    assert again["errors"] == []
