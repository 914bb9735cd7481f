"""Short forms of the fuzzers (the long ones: ``python scripts/fuzz.py``): the frontmatter
reader, ids, locations, dates, queries, every MCP tool's arguments through the real SDK
client, and the sidecar's request bodies over HTTP. Zero crashes that are not palace's
own errors, zero escapes from the workspace, zero hangs."""

from __future__ import annotations

import os
from datetime import timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fuzz_targets as ft
from palace.store.files import FileStorage

EXAMPLES = int(os.environ.get("PALACE_FUZZ_EXAMPLES", "60"))
FAST = settings(max_examples=EXAMPLES, deadline=timedelta(seconds=5),
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


@pytest.fixture
def storage(tmp_path):
    store = FileStorage(tmp_path / "ws", ft.TZ)
    store.ensure()
    return store


@FAST
@given(text=ft.frontmatter_texts)
def test_fuzz_frontmatter_reader(text, tmp_path):
    ft.check_frontmatter(text, tmp_path)


@FAST
@given(text=ft.frontmatter_texts)
def test_fuzz_frontmatter_files(text, storage):
    ft.check_frontmatter_file(text, storage)


@FAST
@given(value=ft.ids)
def test_fuzz_ids(value, storage):
    ft.check_id(value, storage)


@FAST
@given(value=ft.locations)
def test_fuzz_locations(value, storage, tmp_path):
    ft.check_location(value, storage)
    assert ft.files_outside(tmp_path, {storage.workspace}) == []


@FAST
@given(value=ft.times)
def test_fuzz_dates(value):
    ft.check_time(value)


def test_fuzz_queries(make_pm):
    pm = make_pm()
    pm.store("上周 deploy 的 PostgreSQL 服务", tags=["运维"])
    pm.store("我们决定用 PostgreSQL 作为主数据库")

    @FAST
    @given(query=ft.queries, top_k=st.one_of(st.integers(-5, 2000), st.just(10), ft.json_scalars))
    def run(query, top_k):
        ft.check_query(pm, query, top_k)

    run()
    assert len(pm.list()) == 2


pytest.importorskip("mcp")


def test_fuzz_every_mcp_tool(workspace, tmp_path):
    import anyio
    from hypothesis import given as given_
    from mcp_helpers import run_session

    examples = max(8, EXAMPLES // 4)

    def fuzz_tool(tool):
        @settings(max_examples=examples, deadline=None, database=None,
                  suppress_health_check=list(HealthCheck))
        @given_(arguments=ft.mcp_arguments(tool.input_schema))
        def run(arguments):
            async def call():
                with anyio.fail_after(30):  # a hang is a failure
                    return await client_box[0].call(tool.name, **arguments)
            ft.check_mcp_result(tool.name, arguments, anyio.from_thread.run(call))
        return run

    client_box = []

    async def scenario(client):
        client_box.append(client)
        tools = (await client.session.list_tools()).tools
        await client.ok("save_memory", content="我们决定用 PostgreSQL 作为主数据库", tags=["数据库"])
        for tool in tools:
            await anyio.to_thread.run_sync(fuzz_tool(tool))
        return [tool.name for tool in tools]

    names = run_session(workspace, scenario)
    assert len(names) >= 13 and ft.CASES["mcp"] >= 4 * len(names)
    assert ft.files_outside(tmp_path, {workspace, tmp_path / "cwd", tmp_path / "server-stderr.log"}) == []
