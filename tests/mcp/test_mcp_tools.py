"""The MCP tools as plain functions of an open manager (palace/mcp/), and the server
that lists them: the same table, in its order, with the manager left out of every schema.
The SDK's own client over stdio is in test_mcp.py."""

from __future__ import annotations

import anyio
import pytest

pytest.importorskip("mcp", reason="pip install 'palace-memory[mcp]'")

from palace.errors import InvalidInputError, MemoryNotFoundError  # noqa: E402
from palace.mcp import graph, memories, search, tasks  # noqa: E402
from palace.mcp.server import build_server  # noqa: E402
from palace.mcp.tools import TOOLS  # noqa: E402


def test_a_tool_is_a_plain_function_of_the_manager(pm):
    saved = memories.save_memory(pm, "the gateway rate limit is 100 rps", tags=["gateway"]).structured_content
    found = search.search_memory(pm, "gateway rate limit").structured_content
    assert [r["id"] for r in found["results"]] == [saved["id"]]
    memories.delete_memory(pm, saved["id"])
    with pytest.raises(MemoryNotFoundError, match="restore_memory"):
        memories.get_memory(pm, saved["id"])
    with pytest.raises(InvalidInputError, match="give a query or a list of entities"):
        graph.recall_memory(pm)
    added = tasks.manage_task(pm, action="add", text="rotate the gateway keys").structured_content
    assert [t["id"] for t in tasks.manage_task(pm).structured_content["tasks"]] == [added["id"]]
    tasks.manage_task(pm, action="done", id=added["id"])
    assert tasks.manage_task(pm).structured_content["count"] == 0  # list shows the open ones


def test_the_server_lists_the_table_in_order_without_the_manager(pm):
    listed = anyio.run(build_server(pm).list_tools)
    assert [tool.name for tool in listed] == [spec.fn.__name__ for spec in TOOLS]
    assert len(listed) == 23
    for tool, spec in zip(listed, TOOLS):
        assert tool.description == spec.description
        assert "pm" not in tool.input_schema["properties"], tool.name
        assert tool.input_schema["title"] == f"{tool.name}Arguments"
