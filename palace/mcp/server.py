"""The MCP server: the SDK's server over the table of tools (palace/mcp/tools.py),
each call serialised through one lock and preceded by a sync with hand edits, and its
start on stdio (``serve``, behind ``palace mcp``)."""

import inspect
import logging
import sys
import threading
import time
from typing import Any, Callable

from palace.errors import ConfigError, InvalidInputError, StorageError
from palace.store.layout import PALACE_SUBDIR
from palace.mcp.opening import Palace
from palace.settings import Settings

SERVER_NAME = "palace"
SYNC_INTERVAL_S = 2.0          # notice hand-edited files at most this often

log = logging.getLogger("palace.mcp")


class Calls:
    """Runs the tools' functions one at a time on the palace's manager, opened on demand."""

    def __init__(self, palace: Palace, sync_interval_s: float):
        self.palace = palace
        self.sync_interval_s = sync_interval_s
        self.lock = threading.Lock()  # the SDK runs synchronous tools on worker threads
        self.last_sync = time.monotonic()

    def call(self, fn: Callable[..., Any], kwargs: dict[str, Any]) -> Any:
        with self.lock:
            try:
                manager = self.palace.ready_for(fn.__name__)
                if time.monotonic() - self.last_sync >= self.sync_interval_s:
                    try:
                        manager.sync(full=None)  # files edited by hand or by git since last call
                    except StorageError as exc:  # a full or read-only disk: reads go on as indexed
                        log.warning("sync skipped: %s", exc)
                    self.last_sync = time.monotonic()
                return fn(manager, **kwargs)
            except Exception as exc:
                from palace.mcp.checks import tool_error

                raise tool_error(exc, fn.__name__) from exc

    def tool(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """``fn`` as the SDK sees a tool: its name, and its parameters less the manager
        (the first), which the SDK reads as the tool's schema."""
        def run(**kwargs: Any) -> Any:
            return self.call(fn, kwargs)

        signature = inspect.signature(fn)
        manager, *arguments = signature.parameters
        run.__name__ = run.__qualname__ = fn.__name__
        run.__doc__ = fn.__doc__
        run.__signature__ = signature.replace(  # type: ignore[attr-defined]
            parameters=[signature.parameters[name] for name in arguments])
        run.__annotations__ = {name: hint for name, hint in fn.__annotations__.items() if name != manager}
        return run


def build_server(palace: Any, *, sync_interval_s: float = SYNC_INTERVAL_S):
    """An MCP server whose tools act on ``palace`` (a ``Palace``, or an open manager)."""
    from mcp_types import ToolAnnotations

    # the tools and checks need pydantic, which comes with the SDK: imported here, after
    # serve_stdio has said how to install it
    from palace.mcp.checks import make_server_class
    from palace.mcp.tools import TOOLS

    if not isinstance(palace, Palace):
        palace = Palace(palace.settings, palace)
    server = make_server_class()(SERVER_NAME, instructions=palace.instructions(), log_level="WARNING",
                                 version=_version())
    calls = Calls(palace, sync_interval_s)
    for spec in TOOLS:
        server.add_tool(calls.tool(spec.fn), name=spec.fn.__name__, description=spec.description,
                        annotations=ToolAnnotations(**spec.annotations), structured_output=False)
    return server


def _version() -> str:
    from palace import __version__

    return __version__


# --------------------------------------------------------------------------- running

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
    """The MCP server's start-up, behind ``palace mcp [--workspace DIR]`` (the command line
    renders its errors). Raises PalaceError when it cannot serve."""
    config = Settings.from_env(workspace_dir=workspace) if workspace else Settings.from_env()
    if _stdin_is_terminal():
        print(f"palace mcp: serving MCP (JSON-RPC) on stdin/stdout for {config.workspace}; an "
              "agent's MCP client starts this command (see docs/mcp.md). Ctrl-C stops it.",
              file=sys.stderr)
    serve_stdio(config)
