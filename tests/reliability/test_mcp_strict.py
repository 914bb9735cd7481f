"""MCP arguments are taken as their schema says, with no silent coercion."""

from __future__ import annotations

import pytest

pytest.importorskip("mcp")

from mcp_helpers import Client, run_session  # noqa: E402


LOOSE = [
    ("save_memory", {"content": "x", "pinned": "true"}),
    ("save_memory", {"content": "x", "importance": "0.5"}),
    ("save_memory", {"content": "x", "tags": "a,b"}),
    ("search_memory", {"query": "x", "top_k": 5.0}),
    ("search_memory", {"query": "x", "top_k": "5"}),
    ("search_memory", {"query": "x", "top_k": True}),
    ("list_memories", {"limit": 2.0}),
    ("update_memory", {"id": "a", "pinned": 1}),
    ("get_context", {"query": "x", "max_tokens": 500.0}),
]


@pytest.mark.parametrize("tool, arguments", LOOSE)
def test_loosely_typed_arguments_are_refused(tool, arguments, workspace):
    async def scenario(client: Client):
        message = await client.error(tool, **arguments)
        listed = await client.ok("list_memories")
        return message, listed

    message, listed = run_session(workspace, scenario)
    assert "invalid arguments" in message
    assert listed["count"] == 0  # nothing was saved by a refused call


def test_exact_types_still_work(workspace):
    async def scenario(client: Client):
        saved = await client.ok("save_memory", content="PostgreSQL 主库", pinned=True, importance=1)
        found = await client.ok("search_memory", query="PostgreSQL", top_k=5)
        return saved, found

    saved, found = run_session(workspace, scenario)
    assert saved["pinned"] is True and saved["importance"] == 1.0
    assert found["results"][0]["id"] == saved["id"]
