"""Driving ``palace mcp`` as a real stdio subprocess with the MCP SDK's own client:
shared by the MCP tests and every test that talks to the server (capture, backends,
reliability)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, Awaitable, Callable

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from cli_helpers import invoke

TOOLS = {"save_memory", "search_memory", "get_memory", "update_memory", "delete_memory",
         "restore_memory", "list_memories", "get_context", "get_summary", "bootstrap",
         "record_experience", "verify_experience", "search_experiences", "recall_memory",
         "entity_history", "review_facts", "manage_task", "record_access", "get_persona"}


TOOLS |= {"search_compact", "timeline", "get_memories", "list_open_tasks"}  # palace/capture


SESSION_TIMEOUT_S = 60


def server_env() -> dict[str, str]:
    """This test's MEMORY_* settings (the SDK passes only a few safe variables through, so
    they are given explicitly), and PYTHONPATH when set (the code under test, not another
    checkout's)."""
    env = {name: value for name, value in os.environ.items()
           if name.startswith("MEMORY_") or name == "PYTHONPATH"}
    env["MEMORY_VECTOR_ENABLED"] = "false"
    return env


def server_parameters(workspace: Path) -> StdioServerParameters:
    """``palace mcp --workspace WS``."""
    env = server_env()
    script = Path(sys.executable).with_name("palace")
    if script.exists():
        command, args = str(script), ["mcp"]
    else:  # not installed as a script: the same entry point through the interpreter
        command, args = sys.executable, ["-c", "import sys; from palace.cli import main; sys.exit(main())", "mcp"]
    return StdioServerParameters(command=command, args=[*args, "--workspace", str(workspace)], env=env,
                                 cwd=str(workspace.parent))


def run_session(workspace: Path, scenario: Callable[["Client"], Awaitable[Any]], *, init: bool = True,
                parameters: StdioServerParameters | None = None) -> Any:
    workspace.parent.mkdir(parents=True, exist_ok=True)
    if init and not (workspace / "memory" / "palace").is_dir():
        assert invoke("init", "--workspace", str(workspace)).rc == 0
    log_path = workspace.parent / "server-stderr.log"

    async def main() -> Any:
        with anyio.fail_after(SESSION_TIMEOUT_S), open(log_path, "w") as errlog:
            async with stdio_client(parameters or server_parameters(workspace), errlog=errlog) as (read, write):
                async with ClientSession(read, write) as session:
                    client = Client(session)
                    client.initialized = await session.initialize()
                    return await scenario(client)

    try:
        return anyio.run(main)
    except BaseException:
        print("server stderr:\n" + log_path.read_text(errors="replace")[-4000:])
        raise


class Client:
    """``await client.ok(tool, **args)`` → structured result; ``client.error(...)`` → message."""

    def __init__(self, session: ClientSession):
        self.session = session
        self.initialized: Any = None  # the server's InitializeResult (its instructions)

    async def call(self, tool: str, **arguments: Any):
        return await self.session.call_tool(tool, arguments)

    async def ok(self, tool: str, **arguments: Any) -> dict[str, Any]:
        result = await self.call(tool, **arguments)
        assert not result.is_error, f"{tool}({arguments}) failed: {result.content[0].text}"
        return result.structured_content

    async def text(self, tool: str, **arguments: Any) -> str:
        result = await self.call(tool, **arguments)
        assert not result.is_error, result.content[0].text
        return result.content[0].text

    async def error(self, tool: str, **arguments: Any) -> str:
        result = await self.call(tool, **arguments)
        assert result.is_error, f"{tool}({arguments}) should have failed: {result.content[0].text[:300]}"
        return result.content[0].text
