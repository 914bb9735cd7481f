"""``palace agent add|list|remove``: making, listing and dropping agent roles on one
database (what they are and how they bind: roles.py)."""

from __future__ import annotations

import re
import secrets
from typing import Any

from palace.errors import ConfigError, InvalidInputError
from palace.backends.postgres.database import _redacted
from palace.backends.postgres.roles import FUNCTIONS, READ_ONLY, SCOPED, SEQUENCES, WRITABLE, Agent, _checked, add_statements, default_role, policy_name
from palace.backends.postgres.schema import migrate


def _connect(url: str) -> Any:
    import psycopg

    try:
        conn = psycopg.connect(url, autocommit=True, connect_timeout=10)
    except psycopg.OperationalError as exc:
        raise ConfigError(f"cannot reach the PostgreSQL server at {_redacted(url)}: {str(exc).strip()}") from None
    migrate(conn)
    return conn


def add_agent(url: str, agent_id: str, *, user_id: str | None = None, role: str | None = None,
              password: str | None = None, generate_password: bool = True,
              execute: bool = True) -> tuple[Agent, list[str]]:
    """Make a login role for ``agent_id`` bound to its scopes. Returns the agent (with the
    password, shown once) and the SQL run (or, ``execute=False``, to run)."""
    import psycopg

    _checked(agent_id, "agent id")
    if user_id is not None:
        _checked(user_id, "user id")
    with _connect(url) as conn:
        database = conn.execute("SELECT current_database()").fetchone()[0]
        name = role or default_role(database, agent_id)
        if not re.match(r"^[a-z_][a-z0-9_]{0,62}$", name):
            raise InvalidInputError(f"role name {name!r}: lower-case letters, digits and '_' (at most 63)")
        if password is None and generate_password:
            password = secrets.token_urlsafe(24)
        agent = Agent(name, agent_id, user_id, password)
        statements = add_statements(conn, agent)
        shown = [s.as_string(conn) for s in statements]
        if not execute:
            return agent, shown
        try:
            with conn.transaction():
                for statement in statements:
                    conn.execute(statement)
        except psycopg.errors.DuplicateObject:
            raise InvalidInputError(f"role {name!r} exists already; `palace agent remove {agent_id}` "
                                    "first, or pick another --role") from None
        except psycopg.errors.InsufficientPrivilege as exc:
            raise ConfigError(f"this role may not create agent roles ({str(exc).strip()}): connect as the "
                              "database owner with CREATEROLE, or have an administrator run the SQL of "
                              "`palace agent add --sql`") from None
    return agent, [s if "PASSWORD" not in s else s.split(" PASSWORD ")[0] + " PASSWORD '…'" for s in shown]


def list_agents(url: str) -> list[Agent]:
    with _connect(url) as conn:
        rows = conn.execute("SELECT role_name, agent_id, user_id FROM palace_agents ORDER BY agent_id").fetchall()
    return [Agent(*row) for row in rows]


def remove_agent(url: str, agent_id: str) -> list[Agent]:
    """Drop the roles of ``agent_id`` (their policies and grants first). Its memories stay."""
    from psycopg import sql

    with _connect(url) as conn, conn.transaction():
        rows = conn.execute("DELETE FROM palace_agents WHERE agent_id = %s RETURNING role_name, agent_id, "
                            "user_id", (agent_id,)).fetchall()
        for row in rows:
            role = sql.Identifier(row[0])
            for table in SCOPED:
                conn.execute(sql.SQL("DROP POLICY IF EXISTS {} ON {}").format(
                    sql.Identifier(policy_name(row[0])), sql.Identifier(table)))
            # what add granted, taken back (DROP OWNED needs the role's own privileges)
            database = conn.execute("SELECT current_database()").fetchone()[0]
            schema = conn.execute("SELECT current_schema()").fetchone()[0]
            conn.execute(sql.SQL("REVOKE ALL ON {} FROM {}").format(
                sql.SQL(", ").join(map(sql.Identifier, (*WRITABLE, *READ_ONLY))), role))
            conn.execute(sql.SQL("REVOKE ALL ON SEQUENCE {} FROM {}").format(
                sql.SQL(", ").join(map(sql.Identifier, SEQUENCES)), role))
            for function in FUNCTIONS:
                conn.execute(sql.SQL("REVOKE ALL ON FUNCTION {} FROM {}").format(sql.SQL(function), role))
            conn.execute(sql.SQL("REVOKE ALL ON SCHEMA {} FROM {}").format(sql.Identifier(schema), role))
            conn.execute(sql.SQL("REVOKE ALL ON DATABASE {} FROM {}").format(sql.Identifier(database), role))
            conn.execute(sql.SQL("DROP ROLE IF EXISTS {}").format(role))
    if not rows:
        raise InvalidInputError(f"no agent {agent_id!r} has a role here; `palace agent list` shows them")
    return [Agent(*row) for row in rows]


class AgentRoles:
    """``palace agent add|list|remove`` over one database (``MEMORY_DATABASE_URL``)."""

    def __init__(self, url: str):
        self.url = url

    def add(self, agent_id: str, **options: Any) -> tuple[Agent, list[str]]:
        return add_agent(self.url, agent_id, **options)

    def agents(self) -> list[Agent]:
        return list_agents(self.url)

    def remove(self, agent_id: str) -> list[Agent]:
        return remove_agent(self.url, agent_id)
