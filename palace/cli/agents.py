"""``palace agent add|list|remove``: one database role per agent (Postgres), so that the
database itself keeps each agent to its scopes, even against raw SQL (docs/backends.md)."""

from __future__ import annotations

import click

from palace.cli import render
from palace.cli.app import PalaceGroup, Reply, open_manager, shared_options


@click.group("agent", cls=PalaceGroup, short_help="Per-agent database roles (Postgres): add, list, remove.")
@shared_options
def agent() -> None:
    """Login roles bound to one agent's scopes (team, agent:<id>, user:<id>). Run as the
    database owner with CREATEROLE (or print the SQL for an administrator with --sql)."""


@agent.command("add")
@click.argument("agent_id")
@click.option("--user", "user_id", help="The person it acts for: it also sees user:<USER> memories.")
@click.option("--role", help="The role's name (default: <database>_agent_<id>).")
@click.option("--no-password", is_flag=True, help="No password (the server authenticates otherwise: "
                                                  "certificates, peer).")
@click.option("--sql", "print_sql", is_flag=True, help="Print the SQL instead of running it.")
@shared_options
def agent_add(agent_id, user_id, role, no_password, print_sql) -> Reply:
    """Make a login role for AGENT_ID; its password is printed once."""
    with open_manager(create=True) as pm:
        made, statements = pm.agent_roles().add(agent_id, user_id=user_id, role=role,
                                                generate_password=not no_password, execute=not print_sql)
    data = made.to_dict() | ({"sql": statements} if print_sql else {})
    if print_sql:
        return Reply(data, lambda: ";\n".join(statements) + ";")

    def human() -> str:
        lines = [f"made role {made.role} for agent {made.agent_id}: sees {', '.join(made.scopes())}"]
        if made.password:
            lines.append(f"password (shown once): {made.password}")
        lines.append(f"the agent connects with MEMORY_DATABASE_URL=postgresql://{made.role}:…@<host>/<db> "
                     f"and MEMORY_AGENT_ID={made.agent_id}")
        return "\n".join(lines)
    return Reply(data, human)


@agent.command("list")
@shared_options
def agent_list() -> Reply:
    """Agents with a role of their own."""
    with open_manager(create=True) as pm:
        agents = [a.to_dict() for a in pm.agent_roles().agents()]
    return Reply(agents, lambda: render.table(["agent", "user", "role"], [
        [a["agent_id"], a["user_id"] or "-", a["role"]] for a in agents]) if agents else "(no agent roles)")


@agent.command("remove")
@click.argument("agent_id")
@shared_options
def agent_remove(agent_id) -> Reply:
    """Drop AGENT_ID's role (its grants and policies); its memories stay."""
    with open_manager(create=True) as pm:
        gone = [a.to_dict() for a in pm.agent_roles().remove(agent_id)]
    return Reply(gone, lambda: "dropped " + ", ".join(a["role"] for a in gone))


COMMANDS = (agent,)
