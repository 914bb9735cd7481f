"""``palace serve``: the viewer on loopback (click command; the main group registers COMMANDS)."""

from __future__ import annotations

import click

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8770


@click.command("serve")
@click.option("--workspace", "-w", envvar="MEMORY_WORKSPACE_DIR", default=".", show_default=True,
              type=click.Path(file_okay=False), help="Workspace folder (memories in <workspace>/memory/palace/).")
@click.option("--host", default=DEFAULT_HOST, show_default=True,
              help="Address to listen on; anything but loopback needs --token.")
@click.option("--port", default=DEFAULT_PORT, show_default=True, type=click.IntRange(0, 65535),
              help="Port (0 = any free port, printed at start).")
@click.option("--token", envvar="MEMORY_VIEWER_TOKEN", default=None, show_envvar=True,
              help="Require this token (login form, ?token= or Bearer header); prefer the "
                   "environment variable, which other users cannot see in the process list.")
def serve(workspace: str, host: str, port: int, token: str | None) -> None:
    """Serve the palace viewer: rooms, memories and their decay, search explained, trash, live feed."""
    run_viewer(workspace, host, port, token)


def run_viewer(workspace: str, host: str, port: int, token: str | None) -> None:
    """Check the address, build the viewer over ``workspace`` and serve it until stopped
    (shared by this command and ``palace serve``)."""
    from palace.errors import PalaceError
    from palace.network import check_bind_address

    try:
        check_bind_address(host, token, serving="serve the viewer",
                           how_to_set_token="--token or MEMORY_VIEWER_TOKEN")
    except PalaceError as exc:
        raise click.UsageError(str(exc)) from None
    try:
        import uvicorn

        from palace.viewer.app import create_viewer_app
    except ImportError as exc:
        raise click.ClickException(
            f"the viewer needs the server extra ({exc.name} is missing): pip install 'palace-memory[viewer]'") from None
    try:
        app = create_viewer_app(workspace, token)
    except PalaceError as exc:
        raise click.ClickException(str(exc)) from None
    config = uvicorn.Config(app, host=host, port=port, log_level="warning",
                            # the live feed holds a connection open; don't wait on it to stop
                            timeout_graceful_shutdown=2)
    server = uvicorn.Server(config)
    _announce_when_started(server, host, token)
    server.run()


def _announce_when_started(server, host: str, token: str | None) -> None:
    """Print the address once the socket is bound (with --port 0 only then is the port known)."""
    original = server.startup

    async def startup(sockets=None):
        await original(sockets=sockets)
        for listener in getattr(server, "servers", []):
            for sock in listener.sockets:
                bound_host, bound_port = sock.getsockname()[:2]
                shown = f"[{bound_host}]" if ":" in bound_host else bound_host
                hint = " (log in with your token)" if token else ""
                click.echo(f"palace viewer on http://{shown}:{bound_port}/{hint}", err=False)
                return

    server.startup = startup


COMMANDS = [serve]
