"""``palace mcp`` (MCP over stdio) and ``palace sidecar`` (the embedding sidecar).

The sidecar's options and start-up live here once: ``palace sidecar`` and
``python scripts/vector-service.py`` (the documented entry point) are the same
server with the same options. The HTTP app itself stays in ``vector_service``,
imported only when the server starts, so the rest of the CLI never needs fastapi.
"""

from __future__ import annotations

import os
import sys
from typing import Any, Callable
from urllib.parse import urlsplit

import click

from palace.errors import ConfigError
from palace.store.layout import has_palace
from palace.settings import Settings
from palace.cli.app import shared_options, state

DEFAULT_PORT = 8765


# --------------------------------------------------------------------------- mcp

@click.command("mcp", short_help="Run the MCP server on stdio (for agents).")
@shared_options
def mcp() -> None:
    """Run the MCP server on stdio (for Claude Code, OpenClaw and other agents). On a
    folder without a palace it starts all the same and tells the client how to create
    one; its save_memory creates it. `python -m palace mcp` is the same command."""
    from palace.mcp.server import serve

    serve(state().workspace)


# --------------------------------------------------------------------------- sidecar

def sidecar_options(fn: Callable) -> Callable:
    """The sidecar's own options (the workspace comes from --workspace)."""
    options = [
        click.option("--host", default="127.0.0.1", show_default=True,
                     help="Address to listen on (any but loopback needs "
                          "MEMORY_VECTOR_SERVICE_TOKEN)."),
        click.option("--port", type=int, help="Port (default: the one in "
                     f"MEMORY_VECTOR_SERVICE_URL, else {DEFAULT_PORT})."),
        click.option("--model", help="Embedding model (overrides MEMORY_VECTOR_MODEL)."),
        click.option("--threads", type=int, help="CPU threads for the model (sets OMP_NUM_THREADS; "
                     "1 is often fastest on a busy 2-core machine)."),
        click.option("--viewer", is_flag=True,
                     help="Also serve the palace viewer at /viewer/ (needs a workspace)."),
        click.option("--log-level", default="info", show_default=True,
                     type=click.Choice(["critical", "error", "warning", "info", "debug"])),
    ]
    for option in reversed(options):
        fn = option(fn)
    return fn


def port_from_url(url: str | None) -> int | None:
    if not url:
        return None
    try:
        return urlsplit(url).port
    except ValueError:
        return None


def serve_sidecar(config: Settings, *, workspace: str | None, host: str, port: int | None,
                  threads: int | None, log_level: str, viewer: bool = False) -> None:
    """Check the address, build the app over ``workspace`` (None: embeddings only), serve.
    Raises ConfigError when it must not or cannot start."""
    if threads:
        os.environ["OMP_NUM_THREADS"] = str(threads)  # read when torch/BLAS load
    try:
        import uvicorn

        from vector_service.app import create_app
    except ImportError as exc:
        raise ConfigError(f"the sidecar needs {exc.name or 'fastapi and uvicorn'}: "
                          "pip install 'palace-memory[server]'") from None
    from palace.network import check_bind_address

    check_bind_address(host, config.vector_service_token or config.sidecar_tokens, serving="listen",
                       how_to_set_token="MEMORY_VECTOR_SERVICE_TOKEN, which clients send as a Bearer "
                                        "token, or a tokens file in MEMORY_SIDECAR_TOKENS")
    if workspace is None and (config.sources.get("workspace_dir") in ("env", "argument")
                              or has_palace(config)):
        # as every command: the given workspace, else the current folder when it holds a
        # palace (a folder without one stays embeddings only: nothing is created there)
        workspace = config.workspace_dir
    app = create_app(config, workspace)
    if viewer:
        if workspace is None:
            raise ConfigError("--viewer needs a workspace: give --workspace (or MEMORY_WORKSPACE_DIR)")
        from vector_service.app import mount_viewer

        mount_viewer(app, config, workspace)
    uvicorn.run(app, host=host, port=port or port_from_url(config.vector_service_url) or DEFAULT_PORT,
                log_level=log_level)


@click.command("sidecar", short_help="Serve the embedding sidecar over HTTP.")
@sidecar_options
@shared_options
def sidecar(host: str, port: int | None, model: str | None, threads: int | None,
            viewer: bool, log_level: str) -> None:
    """Serve the embedding sidecar (as python scripts/vector-service.py): health,
    embeddings and OpenClaw's search/index/remove over the workspace given by
    --workspace or MEMORY_WORKSPACE_DIR, else over the current folder's palace when it
    holds one (else embeddings only)."""
    overrides: dict[str, Any] = {"vector_model": model}
    if state().workspace:
        overrides["workspace_dir"] = state().workspace
    serve_sidecar(Settings.from_env(**overrides), workspace=None, host=host, port=port,
                  threads=threads, log_level=log_level, viewer=viewer)


def vector_service_script(argv: list[str] | None = None) -> int:
    """``python scripts/vector-service.py``: the sidecar command on its own, with
    ``--workspace`` (default: MEMORY_WORKSPACE_DIR if set, else the current folder's
    palace when it holds one, else embeddings only)."""

    @click.command(help="Serve palace's embedding sidecar (vector_service.app) with uvicorn. "
                        "Settings come from MEMORY_* variables; the flags override them.")
    @click.option("--workspace", metavar="DIR",
                  help="Serve /search, /index, /remove over this palace workspace (default: "
                       "MEMORY_WORKSPACE_DIR if set, else the current folder when it holds a "
                       "palace, else embeddings only).")
    @sidecar_options
    def run(workspace, host, port, model, threads, viewer, log_level) -> None:
        serve_sidecar(Settings.from_env(vector_model=model), workspace=workspace, host=host,
                      port=port, threads=threads, log_level=log_level, viewer=viewer)

    try:
        run.main(argv, prog_name="vector-service.py", standalone_mode=False)
    except ConfigError as exc:
        print(f"vector-service: {exc}", file=sys.stderr)
        return 2
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except click.Abort:
        return 1
    return 0


COMMANDS = (mcp, sidecar)
