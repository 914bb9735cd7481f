"""``palace task``: tasks with states and recorded history, one group and one vocabulary
for the tasks added by hand and those session capture left behind.

    palace task [--project P]              the open tasks (doing, blocked, to do)
    palace task list [--state S…] [--project P]
    palace task add TEXT [--tag T…] [--project P]
    palace task start|block|done ID [--note WHY]
    palace task set ID STATE [--note WHY]  any allowed move (todo, doing, blocked, done)

``palace tasks …`` is the same group under its older name (capture's docs, hooks and
scripts use ``palace tasks`` and ``palace tasks set ID done``).
"""

from __future__ import annotations

import copy
from typing import Any

import click

from palace.features import tasks as task_rules
from palace.cli import render
from palace.cli.app import PalaceGroup, Reply, open_manager, shared_options

NOW = click.option("--now", help="Pretend it is this ISO time.")
NOTE = click.option("--note", help="Why (kept in the task's history).")
PROJECT = click.option("--project", default=None, help="Only this project's tasks (frontmatter `project`).")


def task_view(memory: Any) -> dict[str, Any]:
    """A task for --json: the memory, its state, its one-line text and project."""
    return dict(memory.to_dict(), state=task_rules.state_of(memory),
                task=memory.summary or memory.content.split("\n")[0],
                project=(memory.extra or {}).get("project"),
                created=memory.created_at.date().isoformat() if memory.created_at else None)


def _listing(found: list[Any], empty: str) -> Reply:
    views = [task_view(m) for m in found]
    rows = [[v["id"], v["state"], render.short(v["task"], 60), v["project"] or "-"] for v in views]
    return Reply({"tasks": views}, lambda: render.table(["id", "state", "task", "project"], rows)
                 if rows else empty)


@click.group("task", cls=PalaceGroup, invoke_without_command=True,
             short_help="Tasks: list, add, start, block, done, set.")
@PROJECT
@shared_options
@click.pass_context
def task(ctx: click.Context, project: str | None) -> Reply | None:
    """Tasks as memories (type task) with a state: todo, doing, blocked, done. Every move
    is recorded in the task's taskHistory. Without a sub-command: the open tasks."""
    if ctx.invoked_subcommand is not None:
        return None
    with open_manager() as pm:
        found = task_rules.list_tasks(pm, project=project)
    return _listing(found, "(no open tasks)")


@task.command("list")
@click.option("--state", "-s", "states", multiple=True, type=click.Choice(task_rules.STATES),
              help="Only these states (repeatable; default: the open ones).")
@PROJECT
@shared_options
def list_(states, project) -> Reply:
    """Tasks: doing, then blocked, then to do (then done), the most important first."""
    with open_manager() as pm:
        found = task_rules.list_tasks(pm, states=states or None, project=project)
    return _listing(found, "(no tasks)")


@task.command("add")
@click.argument("text")
@click.option("--tag", "-t", "tags", multiple=True, help="A tag (repeatable).")
@click.option("--importance", "-i", type=float, default=0.6, show_default=True, help="0..1.")
@click.option("--project", default=None, help="The project it belongs to (frontmatter `project`).")
@NOW
@shared_options
def add(text, tags, importance, project, now) -> Reply:
    """Add a task (state todo)."""
    with open_manager() as pm:
        memory = task_rules.add_task(pm, text, tags=tags, importance=importance, now=now, project=project)
    return Reply(task_view(memory), lambda: f"added task {memory.id}")


def _moved(task_id: str, state: str, note: str | None, now: str | None) -> Reply:
    with open_manager() as pm:
        memory = task_rules.move_task(pm, task_id, state, note=note, now=now)
    return Reply(task_view(memory), lambda: f"task {memory.id} is {state}")


def _mover(name: str, state: str, help_text: str):
    @task.command(name, help=help_text)
    @click.argument("task_id", metavar="ID")
    @NOTE
    @NOW
    @shared_options
    def move(task_id, note, now) -> Reply:
        return _moved(task_id, state, note, now)

    return move


start = _mover("start", "doing", "Start working on a task (doing).")
block = _mover("block", "blocked", "Mark a task blocked.")
done = _mover("done", "done", "Mark a task done (final).")


@task.command("set")
@click.argument("task_id", metavar="ID")
@click.argument("state", metavar="STATE", type=click.Choice(task_rules.STATES))
@NOTE
@NOW
@shared_options
def set_(task_id, state, note, now) -> Reply:
    """Move a task to STATE (todo, doing, blocked, done), by the same rules and history
    as start/block/done."""
    return _moved(task_id, state, note, now)


# The older spelling, kept working: the same group and sub-commands under another name.
tasks = copy.copy(task)
tasks.name = "tasks"
tasks.short_help = "The same as `palace task` (its older name)."

COMMANDS = (task,)
