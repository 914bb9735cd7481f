"""``palace serve``: the web viewer (palace/viewer/) over the group's workspace."""

from __future__ import annotations

import click

from palace.cli.app import check_workspace, settings, shared_options


@click.command("serve", short_help="Serve the web viewer on loopback.")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on; anything but loopback needs a token.")
@click.option("--port", default=8770, show_default=True, type=click.IntRange(0, 65535),
              help="Port (0 = any free port, printed at start).")
@click.option("--token", default=None,
              help="Require this token (login form, ?token= or Bearer header); prefer "
                   "MEMORY_VIEWER_TOKEN, which other users cannot see in the process list.")
@shared_options
def serve(host: str, port: int, token: str | None) -> None:
    """Serve the palace viewer: rooms, memories and their decay, search explained,
    trash, experiences and a live feed (docs/viewer.md)."""
    from palace.viewer.cli import run_viewer

    config = settings()
    check_workspace(config.workspace, must_exist=True)
    run_viewer(str(config.workspace), host, port, token or config.viewer_token)


COMMANDS = (serve,)
