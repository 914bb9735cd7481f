"""``palace mcp``: palace as an MCP server over stdio, on the official ``mcp`` SDK.

One ``MemoryPalaceManager`` per server process (settings from ``MEMORY_*``
variables, workspace from ``--workspace``). Tool calls are serialised through one
lock: the manager's SQLite connection is shared, and the SDK runs synchronous
tools on worker threads.

A workspace without a palace (a new one, or a mistyped ``--workspace``) still gets a
running server: its instructions and every tool but ``save_memory`` say where it
looked and how to create one, and ``save_memory`` creates it, as ``palace add`` does
(``Palace``). ``palace mcp`` and ``python -m palace.mcp_server`` are one entry point,
``serve``.

Nothing an agent sends can crash the server: palace errors, arguments that do
not match a tool's schema and unknown arguments all come back as tool results
with ``is_error`` set and a message that says what to do instead. Results carry
both a text block (JSON, or the rendered context for ``get_context``,
``bootstrap`` and ``get_summary``) and the same data as structured content.

See docs/mcp.md for client configuration and a scripted session.
"""

import functools
import json
import logging
import sys
import threading
import time
from pathlib import Path
from typing import Annotated, Any, Callable, Literal

from pydantic import Field, ValidationError

from palace import limits
from palace.errors import ConfigError, InvalidInputError, MemoryNotFoundError, PalaceError, StorageError, storage_error
from palace.responses import memory_view, search_response
from palace.store.layout import PALACE_SUBDIR, has_palace
from palace.settings import Settings
from palace.validation import validate_id

SERVER_NAME = "palace"
SYNC_INTERVAL_S = 2.0          # notice hand-edited files at most this often
MAX_RESULTS = limits.MAX_RESULTS  # palace/limits.py holds every limit

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
            self.manager = open_manager(self.settings)
            for note in self.manager.notes:
                print(f"palace mcp: {note}", file=sys.stderr)
        return self.manager

    def close(self) -> None:
        if self.manager is not None:
            self.manager.close()


class _OpenedPalace:
    """What the tools call ``pm``: the manager ``Palace.ready_for`` opened for this call."""

    def __init__(self, palace: Palace):
        self._palace = palace

    def __getattr__(self, name: str) -> Any:
        return getattr(self._palace.manager, name)


# --------------------------------------------------------------------------- views

def _result(data: dict[str, Any], text: str | None = None):
    """A tool result: readable text for the model, the same data as structured content."""
    from mcp_types import CallToolResult, TextContent

    if text is None:  # compact: the agent pays for every token of a result
        text = json.dumps(data, ensure_ascii=False, default=str)
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=data)


# --------------------------------------------------------------------------- errors

_NOT_FOUND_HINT = ("check the id (search_memory and list_memories show ids); a deleted memory "
                   "can be brought back with restore_memory")


def _tool_error(exc: BaseException, tool: str = "the tool"):
    from mcp.server.mcpserver.exceptions import ToolError

    # a disk fault that escaped as a raw OSError / sqlite3 error still says what it is
    exc = storage_error(exc, doing=tool, where="the palace") or exc
    if isinstance(exc, MemoryNotFoundError):
        message = str(exc)
        if "restore" not in message:
            message += f"; {_NOT_FOUND_HINT}"
        return ToolError(message)
    if isinstance(exc, PalaceError):
        return ToolError(str(exc))
    # A bug of ours, not the agent's: say so, keep serving.
    log.exception("palace tool crashed")
    return ToolError(f"internal error in palace ({type(exc).__name__}: {exc}); the server is still "
                     "running: retry with other arguments, or report this")


def _describe_schema(schema: dict[str, Any]) -> str:
    """``content (string, required), tags (array), …`` from a tool's input schema."""
    required = set(schema.get("required", ()))
    parts = []
    for name, spec in schema.get("properties", {}).items():
        options = [s for s in spec.get("anyOf", [spec]) if s.get("type") not in (None, "null")]
        kinds = [f"array of {s['items'].get('type', 'any')}s" if s.get("type") == "array" and "items" in s
                 else s.get("type") for s in options]
        enum = next((s.get("enum") for s in spec.get("anyOf", [spec]) if s.get("enum")), None)
        kind = "|".join(f'"{v}"' for v in enum) if enum else "/".join(kinds) or "any"
        parts.append(f"{name} ({kind}{', required' if name in required else ''})")
    return ", ".join(parts)


_JSON_TYPES: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
}


def _matches(value: Any, spec: dict[str, Any]) -> bool:
    options = spec.get("anyOf") or spec.get("oneOf") or [spec]
    for option in options:
        kind = option.get("type")
        if kind is None:
            return True  # no type to hold it to (an enum, a reference): pydantic decides
        kinds = kind if isinstance(kind, list) else [kind]
        if any(_JSON_TYPES.get(k, lambda v: True)(value) for k in kinds):
            items = option.get("items")
            if isinstance(value, list) and isinstance(items, dict):
                if not all(_matches(item, items) for item in value):
                    continue
            return True
    return False


def strict_type_problems(arguments: dict[str, Any], schema: dict[str, Any]) -> list[str]:
    """Arguments whose JSON type is not the schema's: pydantic would quietly turn
    ``"true"`` into True and ``5.0`` into 5; an agent that sends them has a bug it
    should hear about."""
    problems = []
    properties = schema.get("properties", {})
    for name, value in (arguments or {}).items():
        spec = properties.get(name)
        if spec is not None and not _matches(value, spec):
            given = repr(value)
            given = given if len(given) <= 60 else given[:57] + "..."
            problems.append(f"'{name}' has the wrong type (got {given} of type {type(value).__name__})")
    return problems


def describe_validation_error(tool: str, error: ValidationError, schema: dict[str, Any]) -> str:
    problems = []
    for item in error.errors():
        field = ".".join(str(part) for part in item["loc"]) or "arguments"
        if item["type"] == "missing":
            problems.append(f"'{field}' is required")
        else:
            given = repr(item.get("input"))
            given = given if len(given) <= 60 else given[:57] + "..."
            problems.append(f"'{field}': {item['msg']} (got {given})")
    return (f"invalid arguments for {tool}: {'; '.join(problems)}. "
            f"Expected arguments: {_describe_schema(schema)}")


def _make_server_class():
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    class PalaceMCPServer(MCPServer):
        """MCPServer whose argument errors tell the agent how to call the tool right."""

        async def call_tool(self, name: str, arguments: dict[str, Any], context=None):
            tool = self._tool_manager.get_tool(name)
            if tool is None:
                known = ", ".join(sorted(t.name for t in self._tool_manager.list_tools()))
                raise ToolError(f"unknown tool {name!r}; palace's tools are: {known}")
            schema = tool.parameters
            unknown = sorted(set(arguments or {}) - set(schema.get("properties", {})))
            if unknown:
                raise ToolError(f"unknown argument(s) for {name}: {', '.join(unknown)}. "
                                f"Expected arguments: {_describe_schema(schema)}")
            problems = strict_type_problems(arguments, schema)
            if problems:
                raise ToolError(f"invalid arguments for {name}: {'; '.join(problems)}. "
                                f"Expected arguments: {_describe_schema(schema)}")
            try:
                return await super().call_tool(name, arguments, context)
            except ToolError as exc:
                if isinstance(exc.__cause__, ValidationError):
                    raise ToolError(describe_validation_error(name, exc.__cause__, schema)) from None
                raise

    return PalaceMCPServer


# --------------------------------------------------------------------------- the tools

Id = Annotated[str, Field(description="Memory id, as returned by save_memory or search_memory.")]
Tags = Annotated[list[str] | None, Field(description='Tags, e.g. ["数据库", "decision"].')]
Now = Annotated[str | None, Field(
    description="For testing and replay only: pretend it is this ISO 8601 time (time words like "
                "'上周' are read relative to it). Leave out in normal use.")]


def build_server(palace: Any, *, sync_interval_s: float = SYNC_INTERVAL_S):
    """An MCP server whose tools act on ``palace`` (a ``Palace``, or an open manager)."""
    from mcp_types import ToolAnnotations

    from palace.features import context as ctx
    from palace.features import summary as period_summary

    if not isinstance(palace, Palace):
        palace = Palace(palace.settings, palace)
    pm: Any = _OpenedPalace(palace)
    server = _make_server_class()(SERVER_NAME, instructions=palace.instructions(), log_level="WARNING",
                                  version=_version())
    lock = threading.Lock()
    last_sync = [time.monotonic()]

    def guarded(fn: Callable) -> Callable:
        @functools.wraps(fn)
        def run(**kwargs: Any):
            with lock:
                try:
                    manager = palace.ready_for(fn.__name__)
                    if time.monotonic() - last_sync[0] >= sync_interval_s:
                        try:
                            manager.sync(full=None)  # files edited by hand or by git since last call
                        except StorageError as exc:  # a full or read-only disk: reads go on as indexed
                            log.warning("sync skipped: %s", exc)
                        last_sync[0] = time.monotonic()
                    return fn(**kwargs)
                except Exception as exc:
                    raise _tool_error(exc, fn.__name__) from exc
        return run

    read_only = ToolAnnotations(read_only_hint=True, open_world_hint=False)
    writes = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)

    def tool(description: str, annotations: ToolAnnotations):
        def register(fn: Callable) -> Callable:
            server.add_tool(guarded(fn), name=fn.__name__, description=description,
                            annotations=annotations, structured_output=False)
            return fn
        return register

    # ------------------------------------------------------------------ memories

    @tool("Save a memory (a fact, decision, preference, event, task or session summary) to "
          "long-term memory. Returns the stored memory with its id.", writes)
    def save_memory(
        content: Annotated[str, Field(description="The memory text (Markdown). One idea per memory.")],
        tags: Tags = None,
        importance: Annotated[float, Field(ge=0, le=1, description="0..1; 1 = never fades.")] = 0.5,
        location: Annotated[str, Field(description="Room (folder), e.g. 'general', 'people', "
                                                    "'projects/palace'.")] = "general",
        type: Annotated[str, Field(description="fact | decision | preference | event | task | "
                                                "session (a session summary) | …")] = "fact",
        summary: Annotated[str | None, Field(description="Optional short summary, used when "
                                                         "the whole text does not fit a context.")] = None,
        created_at: Annotated[str | None, Field(description="When it happened (ISO 8601), if not "
                                                            "now, e.g. 2026-03-18T10:00:00+08:00.")] = None,
        pinned: Annotated[bool, Field(description="Never fades or gets archived.")] = False,
    ):
        memory = pm.store(content, tags=tags or (), importance=importance, location=location,
                          type=type, source="mcp", summary=summary, created_at=created_at,
                          pinned=pinned)
        return _result(memory_view(memory))

    @tool("Search long-term memory. Time words in the query are understood and become a time "
          "filter ('上周讨论的数据库', 'what did we decide last Friday', '三天前'); a query that "
          "is only a time word lists that period. Best first, each with why it matched.", read_only)
    def search_memory(
        query: Annotated[str, Field(description="What to look for, in any language; may hold "
                                                "time words.")],
        top_k: Annotated[int, Field(ge=1, le=MAX_RESULTS, description="How many results.")] = 10,
        tags: Annotated[list[str] | None, Field(description="Only memories with all these tags.")] = None,
        location: Annotated[str | None, Field(description="Only this room (and rooms inside it).")] = None,
        type: Annotated[str | None, Field(description="Only this type, e.g. 'decision'.")] = None,
        include_archived: Annotated[bool, Field(description="Also search archived (faded) "
                                                            "memories.")] = False,
        include_weak: Annotated[bool, Field(description="Also return weak matches (listed after "
                                                        "the strong ones, each with confidence "
                                                        "'weak' and its reason); false = strong "
                                                        "results only, the evidence for the "
                                                        "query.")] = True,
        now: Now = None,
    ):
        results = pm.search(query, top_k=top_k, now=now, tags=tags, location=location, type=type,
                            include_archived=include_archived, include_weak=include_weak)
        return _result(search_response(results))

    @tool("Report which memories you actually used (from search_memory or get_context): they "
          "count as accessed and are reinforced against fading. Search itself reinforces only "
          "what MEMORY_REINFORCE says (by default the best result), never weak results.", writes)
    def record_access(
        ids: Annotated[list[str], Field(min_length=1, max_length=MAX_RESULTS,
                                        description="Ids of the memories you used.")],
        now: Now = None,
    ):
        known = [i for i in dict.fromkeys(ids) if pm.get(i, record_access=False) is not None]
        unknown = [i for i in dict.fromkeys(ids) if i not in known]
        pm.record_access(known, at=now, kind="used")
        return _result({"recorded": known, "unknown": unknown},
                       f"recorded {len(known)} as used" + (f"; unknown ids: {', '.join(unknown)}"
                                                            if unknown else ""))

    @tool("Get one memory in full by its id: whole content, summary, tags, dates, decay score "
          "and file path (search and list results shorten long content).", read_only)
    def get_memory(id: Id):
        memory = pm.get(id)
        if memory is None:
            hint = (f"it is in the trash: restore_memory(id={id!r}) brings it back"
                    if pm.in_trash(id) else "")
            raise MemoryNotFoundError(id, hint)
        return _result(memory_view(memory))

    @tool("Change a memory: give only the fields to change. Tags replace the old tags. "
          "Close a task by adding the tag 'done'.", writes)
    def update_memory(
        id: Id,
        content: Annotated[str | None, Field(description="New text.")] = None,
        summary: Annotated[str | None, Field(description="New summary.")] = None,
        tags: Annotated[list[str] | None, Field(description="New tags (replace the old ones).")] = None,
        importance: Annotated[float | None, Field(ge=0, le=1, description="0..1.")] = None,
        location: Annotated[str | None, Field(description="Move to this room.")] = None,
        type: Annotated[str | None, Field(description="New type.")] = None,
        pinned: Annotated[bool | None, Field(description="Pin (never fades) or unpin.")] = None,
        status: Annotated[Literal["active", "archived"] | None, Field(
            description="'archived' hides it from normal search; 'active' brings it back.")] = None,
    ):
        fields = {name: value for name, value in dict(
            content=content, summary=summary, tags=tags, importance=importance, location=location,
            type=type, pinned=pinned, status=status).items() if value is not None}
        if not fields:
            raise InvalidInputError("nothing to update: give at least one of content, summary, tags, "
                                    "importance, location, type, pinned, status")
        return _result(memory_view(pm.update(id, **fields)))

    @tool("Delete a memory: it moves to the trash and restore_memory can bring it back.",
          ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=False,
                          open_world_hint=False))
    def delete_memory(id: Id):
        memory = pm.delete(id)
        return _result({"deleted": memory.id, "in_trash": True,
                        "message": f"moved to the trash; restore_memory(id={memory.id!r}) brings it back"})

    @tool("Bring a memory back from the trash (after delete_memory) or from the archive.", writes)
    def restore_memory(id: Id):
        return _result(memory_view(pm.restore(id)))

    @tool("List memories, newest first, optionally by room, tags, type or status.", read_only)
    def list_memories(
        location: Annotated[str | None, Field(description="Only this room (and rooms inside it).")] = None,
        tags: Annotated[list[str] | None, Field(description="Only memories with all these tags.")] = None,
        type: Annotated[str | None, Field(description="Only this type.")] = None,
        status: Annotated[Literal["active", "archived", "deleted", "all"], Field(
            description="'deleted' lists the trash; 'all' = active and archived.")] = "active",
        limit: Annotated[int, Field(ge=1, le=MAX_RESULTS, description="At most this many.")] = 20,
    ):
        memories = pm.list(location=location, tags=tags, type=type, status=status, limit=limit)
        return _result({"count": len(memories),
                        "memories": [memory_view(m, preview=True) for m in memories]})

    # ------------------------------------------------------------------ context

    def context_result(result) -> Any:
        footer = (f"\n\n(~{result.tokens_used} of {result.max_tokens} tokens; "
                  f"{len(result.pieces)} memories")
        if result.omitted_ids:
            footer += f"; did not fit: {', '.join(result.omitted_ids)}"
        footer += ")"
        text = (result.text or "(no memories found)") + footer
        return _result(result.to_dict(), text)

    @tool("The memories most relevant to a query as ready-to-read text within a token budget: "
          "most relevant first, whole when they fit, else their summary or a marked excerpt, "
          "each labelled [id] room · date · type. Time words work as in search_memory.", read_only)
    def get_context(
        query: Annotated[str, Field(description="What you need to know about.")],
        max_tokens: Annotated[int, Field(ge=50, le=100_000, description="Token budget for the "
                                                                         "returned text.")] = 2000,
        tags: Annotated[list[str] | None, Field(description="Only memories with all these tags.")] = None,
        location: Annotated[str | None, Field(description="Only this room.")] = None,
        type: Annotated[str | None, Field(description="Only this type.")] = None,
        now: Now = None,
    ):
        return context_result(ctx.get_context(pm, query, max_tokens, now=now, tags=tags,
                                              location=location, type=type))

    @tool("Start-of-session context within a token budget: the user's essence (who they are, "
          "rules, preferences), the latest session summaries, open tasks and, given a query, "
          "the memories relevant to it. Call this first in a new session.", read_only)
    def bootstrap(
        query: Annotated[str | None, Field(description="The task at hand, to add relevant "
                                                       "memories (optional).")] = None,
        max_tokens: Annotated[int, Field(ge=50, le=100_000, description="Token budget.")] = 4000,
        now: Now = None,
    ):
        return context_result(ctx.bootstrap(pm, query, max_tokens, now=now))

    @tool("The user's persona, as bootstrap shows it: what palace knows about the user from their "
          "current facts (likes, dislikes, where they live and work, the tools they use for what) plus "
          "lines the user wrote in it. refresh=true first rebuilds the generated lines from the current "
          "facts (a superseded fact drops out; the user's own lines are kept).", writes)
    def get_persona(
        refresh: Annotated[bool, Field(description="Rebuild it from the current facts first.")] = False,
        max_tokens: Annotated[int, Field(ge=50, le=100_000, description="Token budget.")] = 4000,
    ):
        result = ctx.persona_context(pm, max_tokens, refresh=refresh)
        return _result(result.to_dict(), result.text or "\n".join(result.notes))

    @tool("What happened in a day, week (Monday to Sunday) or month: how many memories, main "
          "tags and topics, decisions, experiences, rooms that changed, with memory ids.", read_only)
    def get_summary(
        period: Annotated[Literal["day", "week", "month"], Field(description="Length of the period.")] = "day",
        date: Annotated[str | None, Field(description="A day inside the period, YYYY-MM-DD "
                                                      "(default: today).")] = None,
    ):
        summary = period_summary.get_summary(pm, period, date)
        return _result(summary.to_dict(), summary.render())

    # ------------------------------------------------------------------ experiences

    @tool("Record a lesson learned: what happened (the problem, the error) and what worked. "
          "Returns the experience memory with its id; later call verify_experience.", writes)
    def record_experience(
        what_happened: Annotated[str, Field(description="The situation or failure, e.g. "
                                                        "'deploy failed: port 5432 in use'.")],
        what_worked: Annotated[str, Field(description="What solved it.")],
        context: Annotated[str | None, Field(description="Where it applies (system, versions).")] = None,
        tags: Tags = None,
        location: Annotated[str, Field(description="Room.")] = "experiences",
        importance: Annotated[float, Field(ge=0, le=1, description="0..1.")] = 0.6,
    ):
        memory = pm.experiences.record(what_happened, what_worked, tags=tags or (), context=context,
                                       location=location, importance=importance)
        return _result(memory_view(memory))

    @tool("Report whether applying a recorded experience worked (effective=true) or not. "
          "Verified lessons rank higher in search_experiences.", writes)
    def verify_experience(
        id: Annotated[str, Field(description="Id of the experience.")],
        effective: Annotated[bool, Field(description="true if the lesson worked this time.")],
        note: Annotated[str | None, Field(description="What happened when you applied it.")] = None,
    ):
        stats = pm.experiences.verify(id, effective, note)
        return _result({"id": id, "stats": stats.to_dict()})

    @tool("Find lessons learned for a problem, best first by relevance and proven effectiveness.",
          read_only)
    def search_experiences(
        query: Annotated[str, Field(description="The problem at hand, e.g. an error message.")],
        top_k: Annotated[int, Field(ge=1, le=MAX_RESULTS, description="How many lessons.")] = 5,
        tags: Annotated[list[str] | None, Field(description="Only lessons with all these tags.")] = None,
        verified_only: Annotated[bool, Field(description="Only lessons verified to work "
                                                         "at least twice.")] = False,
    ):
        results = pm.experiences.search(query, top_k=top_k, tags=tags, verified_only=verified_only)
        return _result({"count": len(results), "results": [
            memory_view(r.memory, preview=True) | {"lesson": r.lesson, "score": round(r.score, 4),
                                                   "stats": r.stats.to_dict()}
            for r in results]})

    register_capture_tools(tool, pm, read_only)
    _graph_tools(pm, tool, read_only, writes)
    _task_tools(pm, tool, writes)
    return server


def register_capture_tools(tool: Callable, pm, read_only) -> None:
    """Progressive recall over captured sessions (palace/capture): compact hits first,
    then the timeline around one, then whole memories for the few worth reading."""
    from palace.capture import recall
    from palace.capture.tasks import open_tasks, task_state

    @tool("Search memory cheaply: compact hits (id, title, date, type, ~50 tokens each) "
          "instead of whole memories. Open the interesting ones with get_memories, or see "
          "what happened around one with timeline.", read_only)
    def search_compact(
        query: Annotated[str, Field(description="What to look for; may hold time words.")],
        top_k: Annotated[int, Field(ge=1, le=MAX_RESULTS, description="How many hits.")] = 10,
        type: Annotated[str | None, Field(description="Only this type, e.g. 'observation', "
                                                       "'session', 'task'.")] = None,
        location: Annotated[str | None, Field(description="Only this room (and rooms inside it).")] = None,
    ):
        return _result(recall.compact_search(pm, query, top_k=top_k, type=type, location=location))

    @tool("The observations around one memory of a captured session, in session order "
          "(for a session summary: its first ones), as compact items.", read_only)
    def timeline(
        id: Id,
        before: Annotated[int, Field(ge=0, le=50, description="Observations before it.")] = 3,
        after: Annotated[int, Field(ge=0, le=50, description="Observations after it.")] = 3,
    ):
        return _result(recall.timeline(pm, id, before=before, after=after))

    @tool("Get several memories in full by their ids (ids not found are listed in 'missing').",
          read_only)
    def get_memories(
        ids: Annotated[list[str], Field(min_length=1, max_length=MAX_RESULTS,
                                        description="Memory ids, e.g. from search_compact.")],
    ):
        data = recall.get_many(pm, ids)
        return _result({"memories": [memory_view(m) for m in data["memories"]],
                        "missing": data["missing"]})

    @tool("Open tasks that captured sessions left behind (next steps, unfinished to-dos): "
          "doing first, then blocked, then to do.", read_only)
    def list_open_tasks(
        project: Annotated[str | None, Field(description="Only this project (folder name).")] = None,
        limit: Annotated[int, Field(ge=1, le=MAX_RESULTS, description="At most this many.")] = 20,
    ):
        tasks = open_tasks(pm, project=project, limit=limit)
        return _result({"tasks": [memory_view(m, preview=True) | {"state": task_state(m)}
                                  for m in tasks]})


def _graph_tools(pm, tool: Callable, read_only: Any, writes: Any) -> None:
    """The entity graph's tools (docs/graph.md): recall, history, the review queue."""

    @tool("Follow the entity graph: memories linked to the people, places, projects or tools a "
          "query names (or to the given entity names), nearest first, each with its graph_path such as "
          "'张伟 —负责→ 星图 ←参与— 用户'. Use for 'who works on X with Y', 'what is related to Z'.",
          read_only)
    def recall_memory(
        query: Annotated[str | None, Field(description="Text naming known entities.")] = None,
        entities: Annotated[list[str] | None, Field(description="Entity names to start from.")] = None,
        depth: Annotated[int, Field(ge=1, le=3, description="Hops to follow (1..3).")] = 2,
        limit: Annotated[int, Field(ge=1, le=MAX_RESULTS, description="How many memories.")] = 20,
        include_superseded: Annotated[bool, Field(description="Also follow facts a later fact "
                                                              "retired.")] = False,
    ):
        if not query and not entities:
            raise InvalidInputError("give a query or a list of entities")
        results = pm.recall(entities or query, depth=depth, limit=limit, include_superseded=include_superseded)
        return _result(search_response(results))

    @tool("Every fact (relation) recorded about an entity, oldest first, with when each held "
          "(validFrom/validTo) and the memory stating it: how a fact changed over time.", read_only)
    def entity_history(
        name: Annotated[str, Field(description="The entity, e.g. '用户', 'Zhang Wei', '星图'.")],
    ):
        facts = pm.graph.history(name)
        return _result({"count": len(facts), "facts": [
            dict(r.to_frontmatter(), memory=r.memory_id, current=r.valid_to is None) for r in facts]})

    @tool("The review queue: pairs of facts where palace was unsure whether the new one replaces "
          "the old one. action=list shows them; accept (the old fact is superseded) or reject "
          "(both stand) one by its id.", writes)
    def review_facts(
        action: Annotated[Literal["list", "accept", "reject"], Field(description="list, accept or reject.")] = "list",
        id: Annotated[str | None, Field(description="The review item's id (accept, reject).")] = None,
    ):
        if id is not None:  # a path or an empty string is refused, not taken for "no such item"
            validate_id(id, "review item id")
            if action == "list":
                raise InvalidInputError("list takes no id; give action='accept' or 'reject' with an id")
        if action == "list":
            items = pm.graph.queue.items()
            return _result({"count": len(items), "items": [i.to_dict() for i in items]})
        if not id:
            raise InvalidInputError(f"{action} needs the review item's id")
        with pm.write_lock():
            item = pm.graph.resolve(id, accept=action == "accept", now=pm.now())
        return _result({"resolved": action, "item": item.to_dict()})


def _task_tools(pm, tool: Callable, writes: Any) -> None:
    from palace.features import tasks

    @tool("Tasks the user or agent must do: action=add (text) creates one in state todo; "
          "start, block, done (id) move it, and set (id, state) moves it to any allowed state, each "
          "move recorded with its time; list shows the open ones (or those in 'states'). Open tasks "
          "appear in bootstrap.", writes)
    def manage_task(
        action: Annotated[Literal["add", "start", "block", "done", "set", "list"], Field(
            description="add, start, block, done, set or list.")] = "list",
        text: Annotated[str | None, Field(description="The task (add).")] = None,
        id: Annotated[str | None, Field(description="The task's id (start, block, done, set).")] = None,
        state: Annotated[Literal["todo", "doing", "blocked", "done"] | None, Field(
            description="set: the state to move to.")] = None,
        note: Annotated[str | None, Field(description="Why (kept in the task's history).")] = None,
        states: Annotated[list[Literal["todo", "doing", "blocked", "done"]] | None, Field(
            description="list: only these states (default: the open ones).")] = None,
    ):
        if action == "list":
            found = tasks.list_tasks(pm, states=states)
            return _result({"count": len(found), "tasks": [
                memory_view(m, preview=True) | {"state": tasks.state_of(m)} for m in found]})
        if action == "add":
            if not text:
                raise InvalidInputError("add needs the task's text")
            return _result(memory_view(tasks.add_task(pm, text)))
        if not id:
            raise InvalidInputError(f"{action} needs the task's id")
        if action == "set" and state is None:
            raise InvalidInputError("set needs the state to move to (todo, doing, blocked, done)")
        wanted = state if action == "set" else {"start": "doing", "block": "blocked", "done": "done"}[action]
        assert wanted is not None
        return _result(memory_view(tasks.move_task(pm, id, wanted, note=note)))


def _version() -> str:
    from palace import __version__

    return __version__


# --------------------------------------------------------------------------- running

def open_manager(settings: Settings):
    """The one manager of this server process. Vectors: the sidecar when configured;
    otherwise a model loaded in the background (search is keyword-only meanwhile)."""
    from palace.embedders import make_embedder
    from palace.manager import MemoryPalaceManager

    try:
        embedder = make_embedder(settings, allow_inprocess=True)
    except ConfigError:
        raise
    except Exception as exc:  # a broken vector install must not stop the memory server
        log.warning("vectors unavailable (%s); keyword search only", exc)
        embedder = None
    if embedder is not None and hasattr(embedder, "start_loading"):
        embedder.start_loading()
    return MemoryPalaceManager(settings.workspace_dir, settings=settings, embedder=embedder)


def _log_on_one_line() -> None:
    """palace's log lines as ``palace mcp: …`` on stderr, one line each: the SDK's rich
    handler would wrap a warning over a dozen narrow lines of the host's MCP log."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("palace mcp: %(message)s"))
    logger = logging.getLogger("palace")
    logger.handlers[:] = [handler]
    logger.setLevel(logging.WARNING)
    logger.propagate = False


def serve_stdio(settings: Settings) -> None:
    """Serve MCP on stdin/stdout until the client closes them."""
    try:
        import mcp  # noqa: F401
    except ImportError:
        raise ConfigError("the MCP server needs the mcp SDK: pip install 'palace-memory[mcp]'") from None
    workspace = settings.workspace
    for path in (workspace, workspace / PALACE_SUBDIR):
        if path.exists() and not path.is_dir():
            raise InvalidInputError(f"{path} is not a folder: give --workspace (or MEMORY_WORKSPACE_DIR) "
                                    "the folder that holds memory/palace/")
    _log_on_one_line()
    palace = Palace(settings)
    if palace.exists():
        palace.ready_for("open")
    else:  # the host's log shows stderr; the client hears it in the instructions and each tool
        print(f"palace mcp: {palace.missing()}", file=sys.stderr)
    try:
        build_server(palace).run("stdio")
    finally:
        palace.close()


def _stdin_is_terminal() -> bool:
    try:
        return sys.stdin.isatty()
    except (AttributeError, ValueError):
        return False


def serve(workspace: str | None = None) -> None:
    """The MCP server's one start-up, behind both spellings: ``palace mcp [--workspace
    DIR]`` (the command line renders its errors) and ``python -m palace.mcp_server
    [--workspace DIR]`` (``main``). Raises PalaceError when it cannot serve."""
    config = Settings.from_env(workspace_dir=workspace) if workspace else Settings.from_env()
    if _stdin_is_terminal():
        print(f"palace mcp: serving MCP (JSON-RPC) on stdin/stdout for {config.workspace}; an "
              "agent's MCP client starts this command (see docs/mcp.md). Ctrl-C stops it.",
              file=sys.stderr)
    serve_stdio(config)


def main(argv: list[str] | None = None) -> int:
    """``python -m palace.mcp_server``: ``serve`` with the options of ``palace mcp``. Exit
    status as the command line's: 0 when the client closed the connection, 2 bad input,
    3 configuration, 4 other errors."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m palace.mcp_server",
                                     description="palace MCP server (stdio); the same as `palace mcp`")
    parser.add_argument("--workspace", "-w", help="workspace folder (default: MEMORY_WORKSPACE_DIR or .)")
    args = parser.parse_args(argv)
    try:
        serve(args.workspace)
    except PalaceError as exc:
        print(f"palace mcp: {exc}", file=sys.stderr)
        return 2 if isinstance(exc, InvalidInputError) else 3 if isinstance(exc, ConfigError) else 4
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
