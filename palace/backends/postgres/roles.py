"""One database role per agent: scopes the database enforces even against raw SQL.

The shared application role declares who it is (``app.agent_id`` / ``app.user_id``) and
the policies of migration 2 believe it; a client that runs its own SQL on that role can
declare another agent. For agents that do not trust each other, each gets its own login
role (``palace agent add <id>``): on every scoped table a RESTRICTIVE policy for that role
alone limits it to ``team``, ``agent:<id>`` and (with ``--user``) ``user:<user>``, whatever
it declares. Restrictive policies are AND-ed with the shared ones, so the role still needs
``MEMORY_AGENT_ID=<id>`` to see its own memories, and can never see more.

Tables without a scope column are bound through the memory they belong to (tags,
vectors; accesses already are); keyword postings carry their memory's scope. The registry ``palace_agents`` (migration 4)
lets ``refresh_policies`` re-create every agent's policies after a later migration adds
a scoped table. Creating roles needs a role with CREATEROLE (the database owner, given
it, or an administrator running the SQL ``palace agent add --sql`` prints).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from palace.errors import ConfigError, InvalidInputError

MIGRATION = """
CREATE TABLE palace_agents (
    role_name TEXT PRIMARY KEY, agent_id TEXT NOT NULL, user_id TEXT
);
-- an agent's role reads its own entry (who it is), the owner all of them (not FORCEd)
ALTER TABLE palace_agents ENABLE ROW LEVEL SECURITY;
CREATE POLICY palace_agents_own ON palace_agents FOR SELECT USING (role_name = current_user);
-- rows bound through their memory get row-level security too: open to all (the shared
-- role's view is unchanged), narrowed per agent role by refresh_policies
ALTER TABLE memory_tags ENABLE ROW LEVEL SECURITY;
ALTER TABLE memory_tags FORCE ROW LEVEL SECURITY;
CREATE POLICY memory_tags_open ON memory_tags USING (true) WITH CHECK (true);
ALTER TABLE postings ENABLE ROW LEVEL SECURITY;
ALTER TABLE postings FORCE ROW LEVEL SECURITY;
CREATE POLICY postings_open ON postings USING (true) WITH CHECK (true);
ALTER TABLE vectors ENABLE ROW LEVEL SECURITY;
ALTER TABLE vectors FORCE ROW LEVEL SECURITY;
CREATE POLICY vectors_open ON vectors USING (true) WITH CHECK (true);
"""

# table -> the condition (over the role's scopes, %(scopes)s) its rows must meet
SCOPED: dict[str, str] = {
    "memories": "scope = ANY({scopes})",
    "trash": "scope = ANY({scopes})",
    "entities": "scope = ANY({scopes})",
    "entity_aliases": "scope = ANY({scopes})",
    "relations": "scope = ANY({scopes})",
    "review_items": "old_scope = ANY({scopes}) AND new_scope = ANY({scopes})",
    "graph_decisions": "old_scope = ANY({scopes}) AND new_scope = ANY({scopes})",  # migration 8
    "memory_tags": "EXISTS (SELECT 1 FROM memories m WHERE m.rid = memory_tags.rid)",
    # keyword postings and BM25 counters carry their memory's scope (migration 5)
    "term_postings": "scope = ANY({scopes})",
    "posting_delta": "scope = ANY({scopes})",
    "collection_stats": "scope = ANY({scopes})",
    # live capture's spools and sessionKey map (migration 6)
    "capture_spools": "scope = ANY({scopes})",
    "capture_session_keys": "scope = ANY({scopes})",
    "vectors": "EXISTS (SELECT 1 FROM memories m WHERE m.content_hash = vectors.content_hash)",
}
# written by an agent too; accesses need no policy of their own: migration 2's already
# binds them to the memories (and trash) the role may see
WRITABLE = (*SCOPED, "accesses")
READ_ONLY = ("palace_meta", "palace_agents")
# the owner's functions an agent may call (migration 7: prune orphaned vectors, or count them)
FUNCTIONS = ("palace_orphan_vectors(BOOLEAN)",)
SEQUENCES = ("memories_rid_seq", "relations_seq_seq", "review_items_seq_seq", "posting_delta_seq",
             "graph_decisions_seq_seq")
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$")  # as MEMORY_AGENT_ID allows


@dataclass(frozen=True)
class Agent:
    role: str
    agent_id: str
    user_id: str | None
    password: str | None = None  # only when just made

    def scopes(self) -> list[str]:
        return ["team", f"agent:{self.agent_id}", *([f"user:{self.user_id}"] if self.user_id else [])]

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"role": self.role, "agent_id": self.agent_id, "user_id": self.user_id,
                                "scopes": self.scopes()}
        if self.password is not None:
            data["password"] = self.password
        return data


def default_role(database: str, agent_id: str) -> str:
    """Roles are the server's, not the database's: the name says which palace."""
    return re.sub(r"[^a-z0-9_]", "_", f"{database}_agent_{agent_id}".lower())[:63]


def _checked(value: str, what: str) -> str:
    if not _ID.match(value or ""):
        raise InvalidInputError(f"{what} {value!r}: use letters, digits and _.@- (at most 64)")
    return value


def policy_name(role: str) -> str:
    """The name of ``role``'s policy on each table (63 bytes at most, distinct per role)."""
    name = f"only_{role}"
    if len(name) <= 63:
        return name
    import hashlib

    return f"only_{role[:45]}_{hashlib.blake2b(role.encode(), digest_size=6).hexdigest()}"


def _policy_statements(conn: Any, agent: Agent) -> list[Any]:
    from psycopg import sql

    scopes = sql.SQL("ARRAY[{}]::text[]").format(sql.SQL(", ").join(sql.Literal(s) for s in agent.scopes()))
    out = []
    for table, condition in SCOPED.items():
        name = sql.Identifier(policy_name(agent.role))
        out.append(sql.SQL("DROP POLICY IF EXISTS {} ON {}").format(name, sql.Identifier(table)))
        check = sql.SQL(condition).format(scopes=scopes)
        out.append(sql.SQL("CREATE POLICY {} ON {} AS RESTRICTIVE TO {} USING ({}) WITH CHECK ({})").format(
            name, sql.Identifier(table), sql.Identifier(agent.role), check, check))
    return out


def add_statements(conn: Any, agent: Agent) -> list[Any]:
    """What makes ``agent``'s role, in order (run by the owner with CREATEROLE)."""
    from psycopg import sql

    role = sql.Identifier(agent.role)
    database = conn.execute("SELECT current_database()").fetchone()[0]
    login = sql.SQL("CREATE ROLE {} LOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE").format(role)
    if agent.password is not None:
        login = sql.SQL("{} PASSWORD {}").format(login, sql.Literal(agent.password))
    return [
        login,
        sql.SQL("GRANT CONNECT ON DATABASE {} TO {}").format(sql.Identifier(database), role),
        *_grant_statements(conn, agent),
        sql.SQL("INSERT INTO palace_agents VALUES ({}, {}, {})").format(
            sql.Literal(agent.role), sql.Literal(agent.agent_id), sql.Literal(agent.user_id)),
        *_policy_statements(conn, agent),
    ]


def _grant_statements(conn: Any, agent: Agent) -> list[Any]:
    """The tables and sequences an agent's role works on (granting again changes nothing)."""
    from psycopg import sql

    role = sql.Identifier(agent.role)
    schema = conn.execute("SELECT current_schema()").fetchone()[0]
    tables = sql.SQL(", ").join(sql.Identifier(t) for t in WRITABLE)
    return [
        sql.SQL("GRANT USAGE ON SCHEMA {} TO {}").format(sql.Identifier(schema), role),
        sql.SQL("GRANT SELECT ON {} TO {}").format(sql.SQL(", ").join(map(sql.Identifier, READ_ONLY)), role),
        sql.SQL("GRANT SELECT, INSERT, UPDATE, DELETE ON {} TO {}").format(tables, role),
        sql.SQL("GRANT USAGE ON SEQUENCE {} TO {}").format(
            sql.SQL(", ").join(map(sql.Identifier, SEQUENCES)), role),
        *[sql.SQL("GRANT EXECUTE ON FUNCTION {} TO {}").format(sql.SQL(f), role) for f in FUNCTIONS],
    ]


def refresh_policies(conn: Any) -> None:
    """Every registered agent's grants and policies again: a migration that adds a table
    lists it in SCOPED (and WRITABLE), and every agent role is bound to it as well."""
    if conn.execute("SELECT to_regclass('palace_agents')").fetchone()[0] is None:
        return
    for row in conn.execute("SELECT role_name, agent_id, user_id FROM palace_agents").fetchall():
        for statement in [*_grant_statements(conn, Agent(*row)), *_policy_statements(conn, Agent(*row))]:
            conn.execute(statement)


def bound_identity(conn: Any, agent_id: str | None, user_id: str | None) -> tuple[str | None, str | None]:
    """Who a client is, given its settings and the role it connected as: an agent's role
    is that agent (its settings may leave the ids out, not name someone else)."""
    if conn.execute("SELECT to_regclass('palace_agents')").fetchone()[0] is None:
        return agent_id, user_id
    row = conn.execute("SELECT agent_id, user_id FROM palace_agents WHERE role_name = current_user").fetchone()
    if row is None:
        return agent_id, user_id
    if agent_id not in (None, row[0]) or (user_id is not None and user_id != row[1]):
        raise ConfigError(f"this database role belongs to agent {row[0]!r}"
                          f"{f' (user {row[1]!r})' if row[1] else ''}; MEMORY_AGENT_ID / MEMORY_USER_ID "
                          f"say {agent_id!r} / {user_id!r}: unset them or connect with that agent's role")
    return row[0], row[1]

