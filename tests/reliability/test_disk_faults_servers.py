"""A full disk and a read-only palace through the servers: ``palace mcp`` driven by the MCP
SDK's client answers a tool error that says the disk is full / the palace is read-only
(reads still answer); the sidecar (a real uvicorn subprocess) answers 507 ``disk_full`` /
503 ``read_only`` with the message."""

from __future__ import annotations

import httpx
import pytest
from disk_helpers import freeze, mounted_tmpfs, palace_paths
from vector_helpers import start_sidecar

from palace import MemoryPalaceManager

pytest.importorskip("mcp")

from mcp_helpers import Client, run_session  # noqa: E402

pytest_plugins = ["conftest_vectors"]


@pytest.fixture
def small_disk(tmp_path):
    yield from mounted_tmpfs(tmp_path)


def test_mcp_writes_on_a_full_disk_are_tool_errors_that_say_so(small_disk):
    workspace = small_disk.path  # the session's log lives beside it, off the full disk

    async def scenario(client: Client):
        saved = await client.ok("save_memory", content="我们决定用 PostgreSQL 作为主数据库。")
        small_disk.fill(leave=0)
        errors = [await client.error("save_memory", content="新的记忆 " * 300),
                  await client.error("update_memory", id=saved["id"], content="改过 " * 300),
                  await client.error("delete_memory", id=saved["id"])]
        found = await client.ok("search_memory", query="PostgreSQL")
        return saved, errors, found

    saved, errors, found = run_session(workspace, scenario)
    for message in errors:
        assert "full" in message and "free some space" in message and "internal error" not in message, message
    assert [r["id"] for r in found["results"]] == [saved["id"]]
    small_disk.empty()
    with MemoryPalaceManager(workspace) as pm:
        assert [m.id for m in pm.list()] == [saved["id"]]


def test_mcp_writes_on_a_read_only_palace_are_tool_errors_that_say_so(workspace):
    with MemoryPalaceManager(workspace) as pm:
        kept = pm.store("我们决定用 PostgreSQL 作为主数据库。").id
    paths = palace_paths(workspace)
    freeze(paths, True)
    try:
        async def scenario(client: Client):
            return ([await client.error("save_memory", content="新的记忆"),
                     await client.error("delete_memory", id=kept)],
                    await client.ok("search_memory", query="PostgreSQL"))

        errors, found = run_session(workspace, scenario)
    finally:
        freeze(paths, False)
    for message in errors:
        assert "read-only" in message and "writable" in message and "internal error" not in message, message
    assert [r["id"] for r in found["results"]] == [kept]


def test_sidecar_answers_507_on_a_full_disk_and_503_on_a_read_only_palace(small_disk, tmp_path, minilm_path):
    workspace = small_disk.path / "ws"
    with MemoryPalaceManager(workspace) as pm:
        kept = pm.store("We decided to use PostgreSQL as the main database.").id
    sidecar = start_sidecar(tmp_path, minilm_path, "--workspace", str(workspace))
    client = httpx.Client(trust_env=False, timeout=60.0)
    try:
        sidecar.wait_until_ready()
        assert client.get(f"{sidecar.url}/memories/{kept}").status_code == 200
        small_disk.fill(leave=0)
        full = client.post(f"{sidecar.url}/memories", json={"content": "a new memory " * 300})
        small_disk.empty()
        paths = palace_paths(workspace)
        freeze(paths, True)
        try:
            frozen = client.post(f"{sidecar.url}/memories", json={"content": "another memory"})
            read = client.get(f"{sidecar.url}/memories/{kept}")
        finally:
            freeze(paths, False)
    finally:
        client.close()
        sidecar.stop()
    assert (full.status_code, full.json()["error"]) == (507, "disk_full"), full.text
    assert "free some space" in full.json()["message"]
    assert (frozen.status_code, frozen.json()["error"]) == (503, "read_only"), frozen.text
    assert "writable" in frozen.json()["message"]
    assert read.status_code == 200
