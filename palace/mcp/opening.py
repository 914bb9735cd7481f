"""The MCP server's palace: opened at start when the workspace holds one, else by the
first ``save_memory``, and the manager that opening gives the server process."""

import logging
import sys
from pathlib import Path
from typing import Any

from palace.errors import ConfigError
from palace.store.layout import PALACE_SUBDIR, has_palace
from palace.settings import Settings

INSTRUCTIONS = """\
palace is your long-term memory: Markdown memories in rooms (folders), found again by
keyword, meaning and time words ("上周", "last Friday", "三天前").
- At the start of a session call `bootstrap` (optionally with the task at hand as query):
  it returns the user's essence, recent session summaries, open tasks and relevant memories.
- Save durable facts, decisions, preferences and events with `save_memory` (one idea each).
- Before answering from memory, use `get_context` (budgeted text) or `search_memory`.
- At the end of a session save a summary with `save_memory(type="session", ...)`; open work
  as `save_memory(type="task", ...)`, closed by `update_memory(id, tags=[..., "done"])`.
- Lessons learned ("when X fails with Y, do Z"): `record_experience`, then
  `verify_experience` once you know whether the lesson worked.
Every memory has an id: cite it, and fetch the whole text with `get_memory`.
"""

log = logging.getLogger("palace.mcp")
CREATES_PALACE = {"save_memory"}  # as on the command line, where only `palace add` (and init) create one


class Palace:
    """The server's palace: opened at start when the workspace holds one, else by the
    first ``save_memory``; until then ``missing()`` says what to do."""

    def __init__(self, settings: Settings, manager: Any = None):
        self.settings = settings
        self.manager = manager

    @property
    def root(self) -> Path:
        return self.settings.workspace / PALACE_SUBDIR

    def exists(self) -> bool:
        return self.manager is not None or has_palace(self.settings)

    def missing(self) -> str:
        workspace = self.settings.workspace
        return (f"no palace in {workspace} yet (no {self.root}). save_memory creates it with the first "
                f"memory, as `palace add` does (or run `palace init --workspace {workspace}`). If "
                f"{workspace} is not the folder you meant, fix --workspace (or MEMORY_WORKSPACE_DIR) in "
                "this MCP server's entry of the client's configuration and restart it")

    def instructions(self) -> str:
        if self.exists():
            return INSTRUCTIONS
        return INSTRUCTIONS + f"\nNOTE: {self.missing()}.\n"

    def ready_for(self, tool: str):
        """The manager a tool call works on; opened (and so created) on demand."""
        if self.manager is None:
            if not self.exists() and tool not in CREATES_PALACE:
                raise ConfigError(self.missing())
            from palace.manager.opening import open_manager

            # the one manager of this server process: vectors from the sidecar when
            # configured, else a model loaded in the background (keyword-only meanwhile)
            self.manager = open_manager(self.settings, inprocess_vectors=True)
            for note in self.manager.notes:
                print(f"palace mcp: {note}", file=sys.stderr)
        return self.manager

    def close(self) -> None:
        if self.manager is not None:
            self.manager.close()



