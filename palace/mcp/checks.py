"""What the server says when a call goes wrong: palace errors and crashes as tool
errors that say what to do, and arguments checked against the tool's schema before
pydantic would quietly coerce them. The SDK is imported only when a server is built."""

import logging
from typing import Any, Callable

from pydantic import ValidationError

from palace.errors import MemoryNotFoundError, PalaceError, storage_error

log = logging.getLogger("palace.mcp")


# --------------------------------------------------------------------------- errors

_NOT_FOUND_HINT = ("check the id (search_memory and list_memories show ids); a deleted memory "
                   "can be brought back with restore_memory")


def tool_error(exc: BaseException, tool: str = "the tool"):
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


def make_server_class():
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
