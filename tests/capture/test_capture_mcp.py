"""The capture tools of ``palace mcp`` through the MCP SDK's own client: compact hits,
then the timeline around one, then several memories in full, and the open tasks."""

from __future__ import annotations

import pytest

pytest.importorskip("mcp", reason="pip install 'palace-memory[mcp]'")

from capture_helpers import CLAUDE_SESSION, OPENCLAW_SESSION, invoke_json  # noqa: E402
from mcp_helpers import run_session  # noqa: E402


def test_progressive_recall_over_captured_sessions(workspace):
    invoke_json("ingest", str(CLAUDE_SESSION), str(OPENCLAW_SESSION), "-w", str(workspace))

    async def scenario(client):
        hits = await client.ok("search_compact", query="watering schedule Sundays", top_k=5)
        assert hits["results"], hits
        first = hits["results"][0]
        assert set(first) >= {"id", "title", "date", "type"} and "content" not in first
        observation = next(h for h in hits["results"] if h["type"] == "observation")
        around = await client.ok("timeline", id=observation["id"], before=2, after=2)
        assert observation["id"] in [i["id"] for i in around["items"]] and around["total"] == 2
        ids = [i["id"] for i in around["items"]]
        full = await client.ok("get_memories", ids=ids + ["no-such-id"])
        assert [m["id"] for m in full["memories"]] == ids and full["missing"] == ["no-such-id"]
        assert all("content" in m for m in full["memories"])
        tasks = await client.ok("list_open_tasks")
        summaries = {t["summary"] for t in tasks["tasks"]}
        assert "Restart the garden-bot service so the new schedule loads" in summaries
        assert all(t["state"] == "todo" for t in tasks["tasks"])
        only_shop = await client.ok("list_open_tasks", project="shop-api")
        assert {t["summary"] for t in only_shop["tasks"]} == {"Add a test for orders without a currency"}
        error = await client.error("timeline", id="nope")
        assert "no memory with id 'nope'" in error
        return True

    assert run_session(workspace, scenario)
