"""``palace mcp`` as a real stdio subprocess, driven by the MCP SDK's own client."""

from __future__ import annotations

import json
import sys
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

pytest.importorskip("mcp", reason="pip install 'palace-memory[mcp]'")

import anyio  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402

from cli_helpers import invoke  # noqa: E402
from conftest import TIMEZONE  # noqa: E402
from mcp_helpers import TOOLS, Client, run_session, server_env, server_parameters  # noqa: E402

pytest_plugins = ["conftest_postgres"]  # ``backend``: a test on both backends


def test_tools_are_listed_with_descriptions_and_schemas(workspace):
    async def scenario(client: Client):
        return (await client.session.list_tools()).tools

    tools = {tool.name: tool for tool in run_session(workspace, scenario)}
    assert set(tools) == TOOLS
    for tool in tools.values():
        assert len(tool.description) > 30, tool.name
        assert tool.input_schema["type"] == "object" and "properties" in tool.input_schema
        for name, spec in tool.input_schema["properties"].items():
            assert spec.get("description"), f"{tool.name}.{name} has no description"
    assert tools["save_memory"].input_schema["required"] == ["content"]
    assert tools["search_memory"].input_schema["properties"]["top_k"]["maximum"] == 100
    assert "testing" in tools["search_memory"].input_schema["properties"]["now"]["description"]
    assert tools["get_summary"].input_schema["properties"]["period"]["enum"] == ["day", "week", "month"]
    assert tools["delete_memory"].annotations.destructive_hint is True
    assert tools["search_memory"].annotations.read_only_hint is True


def test_save_search_context_update_delete_restore(backend, workspace):
    async def scenario(client: Client):
        saved = await client.ok("save_memory", content="我们决定用 PostgreSQL 作为主数据库，因为需要 JSONB。",
                                tags=["数据库", "decision"], type="decision", location="projects/palace")
        memory_id = saved["id"]
        assert saved["location"] == "projects/palace" and saved["source"] == "mcp"
        await client.ok("save_memory", content="周末去爬山。", location="life")

        found = await client.ok("search_memory", query="数据库", top_k=5)
        assert [r["id"] for r in found["results"]] == [memory_id]
        assert found["results"][0]["why"]

        context = await client.ok("get_context", query="PostgreSQL 数据库", max_tokens=200)
        assert 0 < context["tokens_used"] <= 200
        assert context["text"].startswith(f"[{memory_id}] projects/palace · ")
        context_text = await client.text("get_context", query="PostgreSQL", max_tokens=200)
        assert "tokens" in context_text and memory_id in context_text

        updated = await client.ok("update_memory", id=memory_id, tags=["数据库", "decision", "postgres"],
                                  importance=0.9)
        assert updated["tags"][-1] == "postgres" and updated["importance"] == 0.9

        listed = await client.ok("list_memories", location="projects", limit=10)
        assert [m["id"] for m in listed["memories"]] == [memory_id]

        deleted = await client.ok("delete_memory", id=memory_id)
        assert deleted["deleted"] == memory_id and "restore_memory" in deleted["message"]
        missing = await client.error("get_memory", id=memory_id)
        assert "trash" in missing and "restore_memory" in missing
        assert (await client.ok("search_memory", query="数据库"))["count"] == 0
        trash = await client.ok("list_memories", status="deleted")
        assert [m["id"] for m in trash["memories"]] == [memory_id]

        restored = await client.ok("restore_memory", id=memory_id)
        assert restored["status"] == "active"
        assert (await client.ok("get_memory", id=memory_id))["content"].startswith("我们决定用 PostgreSQL")

        summary = await client.ok("get_summary", period="week")
        assert memory_id in summary["memory_ids"] and summary["decisions"][0]["id"] == memory_id
        boot = await client.ok("bootstrap", query="PostgreSQL", max_tokens=500)
        assert boot["tokens_used"] <= 500 and memory_id in [p["id"] for p in boot["pieces"]]

    run_session(workspace, scenario)
    files = list((workspace / "memory" / "palace" / "projects" / "palace").glob("*.md"))
    assert bool(files) == (backend == "local")  # in Postgres the database is the store


def test_time_words_with_the_server_clock_and_with_now(workspace, monkeypatch):
    # strict: only the period (and what was noted just after it); the default, soft,
    # ranks the period first — tested through the API in tests/search/test_time_search.py
    monkeypatch.setenv("MEMORY_TIME_FILTER", "strict")
    last_week = datetime.now(ZoneInfo(TIMEZONE)) - timedelta(days=7)

    async def scenario(client: Client):
        old = await client.ok("save_memory", content="讨论了数据库选型：PostgreSQL 还是 MySQL。",
                              created_at=last_week.isoformat())
        today = await client.ok("save_memory", content="今天又聊了数据库选型。")
        found = await client.ok("search_memory", query="上周讨论的数据库选型")
        # last week's memory first; one written since may follow (noted late), never lead
        assert [r["id"] for r in found["results"]][0] == old["id"]
        assert {r["id"] for r in found["results"]} <= {old["id"], today["id"]}
        assert found["time_range"]["text"] == "上周"

        replay = await client.ok("save_memory", content="三月的数据库选型会议。",
                                 created_at="2026-03-10T10:00:00+08:00")
        found = await client.ok("search_memory", query="上周的数据库选型", now="2026-03-18T12:00:00+08:00")
        assert [r["id"] for r in found["results"]] == [replay["id"]]
        assert found["time_range"]["start"].startswith("2026-03-09")

    run_session(workspace, scenario)


def test_bad_arguments_are_tool_errors_and_the_server_lives_on(workspace):
    async def scenario(client: Client):
        missing = await client.error("save_memory", tags=["x"])
        assert "'content' is required" in missing and "Expected arguments: content (string, required)" in missing
        wrong = await client.error("save_memory", content="x", importance="very")
        assert "'importance'" in wrong and "number" in wrong
        out_of_range = await client.error("save_memory", content="x", importance=3)
        assert "less than or equal to 1" in out_of_range
        not_text = await client.error("save_memory", content=["a", "b"])
        assert "'content'" in not_text and "string" in not_text
        unknown_arg = await client.error("save_memory", content="x", colour="blue")
        assert "unknown argument(s) for save_memory: colour" in unknown_arg

        traversal = await client.error("get_memory", id="../../etc/passwd")
        assert "invalid memory id" in traversal and "no '/'" in traversal
        traversal = await client.error("delete_memory", id="../.palace/index")
        assert "invalid memory id" in traversal
        room = await client.error("save_memory", content="x", location="../outside")
        assert "invalid location" in room
        nowhere = await client.error("get_memory", id="nope")
        assert "no memory with id 'nope'" in nowhere and "search_memory" in nowhere

        bad_time = await client.error("save_memory", content="x", created_at="last tuesday")
        assert "ISO 8601" in bad_time
        assert "max_tokens" in await client.error("get_context", query="x", max_tokens=10)
        assert "'period'" in await client.error("get_summary", period="year")
        assert "YYYY-MM-DD" in await client.error("get_summary", date="30/11/2026")
        assert "nothing to update" in await client.error("update_memory", id="nope")
        assert "empty" in await client.error("search_memory", query="   ")
        assert "unknown tool 'remember'" in await client.error("remember", content="x")

        # still serving, and nothing half-written
        saved = await client.ok("save_memory", content="still alive")
        assert (await client.ok("list_memories"))["count"] == 1
        return saved

    run_session(workspace, scenario)
    assert not (workspace.parent / "outside").exists()


def test_experiences_over_mcp(workspace):
    async def scenario(client: Client):
        lesson = await client.ok("record_experience", what_happened="deploy failed: port 5432 already in use",
                                 what_worked="stop the old postgres container before compose up",
                                 tags=["deploy"])
        assert lesson["type"] == "experience" and lesson["location"] == "experiences"
        for _ in range(2):
            verified = await client.ok("verify_experience", id=lesson["id"], effective=True, note="worked")
        assert verified["stats"]["verified"] is True and verified["stats"]["verified_count"] == 2
        found = await client.ok("search_experiences", query="port 5432 already in use", verified_only=True)
        assert found["results"][0]["id"] == lesson["id"]
        assert found["results"][0]["lesson"]["what_worked"].startswith("stop the old postgres")
        fact = await client.ok("save_memory", content="not a lesson")
        assert "not an experience" in await client.error("verify_experience", id=fact["id"], effective=True)
        assert "'effective' is required" in await client.error("verify_experience", id=lesson["id"])

    run_session(workspace, scenario)


def test_graph_over_mcp(backend, workspace):
    async def scenario(client: Client):
        old = await client.ok("save_memory", content="我住在北京", created_at="2024-01-01T09:00:00+08:00")
        new = await client.ok("save_memory", content="我搬到杭州了", created_at="2025-03-01T09:00:00+08:00")
        found = await client.ok("search_memory", query="住在 北京 杭州")
        assert [r["id"] for r in found["results"]] == [new["id"], old["id"]]
        assert found["results"][1]["superseded_by"] == new["id"] and "superseded_by" not in found["results"][0]
        history = await client.ok("entity_history", name="我")
        assert [(f["object"], f["current"]) for f in history["facts"]] == [("北京", False), ("杭州", True)]
        await client.ok("save_memory", content="I use black")
        await client.ok("save_memory", content="I use ruff")
        queue = await client.ok("review_facts")
        assert queue["count"] == 1
        done = await client.ok("review_facts", action="reject", id=queue["items"][0]["id"])
        assert done["resolved"] == "reject" and (await client.ok("review_facts"))["count"] == 0
        assert "needs the review item's id" in await client.error("review_facts", action="accept")
        reached = await client.ok("recall_memory", entities=["杭州"], depth=1)
        assert reached["results"][0]["id"] == new["id"] and "杭州" in reached["results"][0]["graph_path"]
        assert reached["results"][0]["path"].endswith(f"{new['id']}.md")  # the file, as get_memory gives it
        task = await client.ok("manage_task", action="add", text="写文档")
        await client.ok("manage_task", action="start", id=task["id"])
        listed = await client.ok("manage_task")
        assert [(t["id"], t["state"]) for t in listed["tasks"]] == [(task["id"], "doing")]
        assert "not a task" in await client.error("manage_task", action="done", id=old["id"])
        await client.ok("manage_task", action="set", id=task["id"], state="blocked", note="等评审")
        assert [t["state"] for t in (await client.ok("manage_task"))["tasks"]] == ["blocked"]
        assert "needs the state" in await client.error("manage_task", action="set", id=task["id"])

    run_session(workspace, scenario)


def test_record_access_reinforces_what_the_agent_used(workspace):
    async def scenario(client: Client):
        used = (await client.ok("save_memory", content="The staging cluster runs Kubernetes 1.31."))["id"]
        recorded = await client.ok("record_access", ids=[used, "no-such-memory"])
        assert recorded == {"recorded": [used], "unknown": ["no-such-memory"]}
        return used

    used = run_session(workspace, scenario)
    lines = (workspace / "memory" / "palace" / ".journal" / "access.jsonl").read_text().splitlines()
    entries = [json.loads(line) for line in lines]
    assert [e["ids"] for e in entries if e["kind"] == "used"] == [[used]]
    assert not any("no-such-memory" in e["ids"] for e in entries)


def test_what_opening_repaired_reaches_the_hosts_log(workspace):
    # a damaged index is moved aside and rebuilt from the files; an MCP host shows the
    # server's stderr in its log, the only place such a note can go before any tool call
    assert invoke("add", "the gateway rate limit is 100 rps", "--workspace", str(workspace)).rc == 0
    index = workspace / "memory" / "palace" / ".palace" / "index.sqlite3"
    index.write_bytes(b"this is not a database" * 100)

    async def scenario(client: Client):
        return await client.ok("search_memory", query="gateway rate limit")

    found = run_session(workspace, scenario)
    assert [r["content"] for r in found["results"]] == ["the gateway rate limit is 100 rps"]
    log = (workspace.parent / "server-stderr.log").read_text()
    assert "palace mcp: the index was damaged" in log and "rebuilt from the files" in log


# --------------------------------------------------------------------------- no palace yet

def module_form(workspace: Path) -> StdioServerParameters:
    """``python -m palace mcp --workspace WS``, the other spelling of ``palace mcp``."""
    return StdioServerParameters(command=sys.executable, args=["-m", "palace", "mcp", "--workspace",
                                                               str(workspace)], env=server_env(),
                                 cwd=str(workspace.parent))


@pytest.mark.parametrize("form", ["palace mcp", "python -m palace mcp"])
def test_a_folder_without_a_palace_gets_a_server_that_says_how_to_create_one(tmp_path, form):
    workspace = tmp_path / "new-ws"

    async def scenario(client: Client):
        instructions = client.initialized.instructions
        errors = {tool: await client.error(tool, **arguments) for tool, arguments in (
            ("search_memory", {"query": "database"}), ("bootstrap", {}), ("list_memories", {}),
            ("get_memory", {"id": "abc"}), ("record_experience", {"what_happened": "x", "what_worked": "y"}))}
        created_before = (workspace / "memory" / "palace").exists()
        saved = await client.ok("save_memory", content="We chose PostgreSQL for its JSONB.", type="decision")
        found = await client.ok("search_memory", query="PostgreSQL JSONB")
        return instructions, errors, created_before, saved, found

    parameters = server_parameters(workspace) if form == "palace mcp" else module_form(workspace)
    instructions, errors, created_before, saved, found = run_session(workspace, scenario, init=False,
                                                                     parameters=parameters)
    assert f"no palace in {workspace} yet" in instructions and "save_memory creates it" in instructions
    for tool, message in errors.items():
        assert f"no palace in {workspace} yet" in message, (tool, message)
        assert "save_memory creates it" in message and f"palace init --workspace {workspace}" in message
        assert "fix --workspace" in message
    assert not created_before, "nothing is created until a memory is saved"
    assert (workspace / "memory" / "palace").is_dir()
    assert [r["id"] for r in found["results"]] == [saved["id"]]
    log = (tmp_path / "server-stderr.log").read_text()
    assert f"palace mcp: no palace in {workspace} yet" in log  # the host's log says it too


def test_the_mcp_entry_install_writes_starts_the_server(tmp_path):
    from palace.integrations.install import install_claude_code

    workspace = tmp_path / "ws"
    assert invoke("add", "the gateway rate limit is 100 rps", "--workspace", str(workspace)).rc == 0
    install_claude_code(tmp_path / "home", workspace=str(workspace), python=sys.executable, uninstall=False)
    entry = json.loads((tmp_path / "home" / ".claude.json").read_text())["mcpServers"]["palace"]
    parameters = StdioServerParameters(command=entry["command"], args=entry["args"],
                                       env={**server_env(), **entry["env"]}, cwd=str(tmp_path))

    async def scenario(client: Client):
        return await client.ok("search_memory", query="gateway rate limit")

    found = run_session(workspace, scenario, parameters=parameters)
    assert [r["content"] for r in found["results"]] == ["the gateway rate limit is 100 rps"]


def test_without_vector_settings_the_missing_model_is_said_once_on_one_line(workspace, tmp_path):
    """No MEMORY_VECTOR_* settings: the default model is not there (an empty Hugging Face
    cache, offline). The server's log says why on one line, once; search results carry
    only a short flag, not the whole explanation."""
    env = {k: v for k, v in server_env().items() if not k.startswith("MEMORY_VECTOR_")}
    env |= {"HF_HOME": str(tmp_path / "empty-hf-cache"), "HF_HUB_OFFLINE": "1"}
    parameters = server_parameters(workspace)
    parameters.env = env
    log_path = workspace.parent / "server-stderr.log"

    async def scenario(client: Client):
        with anyio.fail_after(30):  # the model loads in the background from the start
            while "vectors" not in log_path.read_text():
                await anyio.sleep(0.1)
        await client.ok("save_memory", content="the deploy runs on fridays")
        notes = [note for _ in range(3)
                 for note in (await client.ok("search_memory", query="deploy"))["notes"]]
        assert notes and all(len(note) <= 120 and "Hugging Face" not in note for note in notes), notes

    run_session(workspace, scenario, parameters=parameters)
    lines = [line for line in log_path.read_text().splitlines() if line.strip()]
    said = [line for line in lines if "vector" in line or "Hugging Face" in line or "HF_" in line]
    assert len(said) == 1 and said[0].startswith("palace mcp: vectors unavailable"), lines
    assert "MEMORY_VECTOR_MODEL" in said[0]  # the one line still says how to fix it
