"""``palace task add | start | block | done | list``: tasks with states and history."""

from __future__ import annotations

import click

from .. import tasks as task_rules
from . import render
from .app import PalaceGroup, Reply, open_manager, shared_options

NOW = click.option("--now", help="Pretend it is this ISO time.")
NOTE = click.option("--note", help="Why (kept in the task's history).")


@click.group("task", cls=PalaceGroup, short_help="Tasks: add, start, block, done, list.")
@shared_options
def task() -> None:
    """Tasks as memories (type task) with a state: todo, doing, blocked, done."""


@task.command("add")
@click.argument("text")
@click.option("--tag", "-t", "tags", multiple=True, help="A tag (repeatable).")
@click.option("--importance", "-i", type=float, default=0.6, show_default=True, help="0..1.")
@NOW
@shared_options
def add(text, tags, importance, now) -> Reply:
    """Add a task (state todo)."""
    with open_manager() as pm:
        memory = task_rules.add_task(pm, text, tags=tags, importance=importance, now=now)
    return Reply(memory.to_dict(), lambda: f"added task {memory.id}")


def _mover(name: str, state: str, help_text: str):
    @task.command(name, help=help_text)
    @click.argument("task_id", metavar="ID")
    @NOTE
    @NOW
    @shared_options
    def move(task_id, note, now) -> Reply:
        with open_manager() as pm:
            memory = task_rules.move_task(pm, task_id, state, note=note, now=now)
        return Reply(memory.to_dict(), lambda: f"task {memory.id} is {state}")

    return move


start = _mover("start", "doing", "Start working on a task (doing).")
block = _mover("block", "blocked", "Mark a task blocked.")
done = _mover("done", "done", "Mark a task done.")


@task.command("list")
@click.option("--state", "-s", "states", multiple=True, type=click.Choice(task_rules.STATES),
              help="Only these states (repeatable; default: the open ones).")
@shared_options
def list_(states) -> Reply:
    """Tasks, most important first."""
    with open_manager() as pm:
        found = task_rules.list_tasks(pm, states=states or None)
    rows = [[m.id, task_rules.state_of(m), render.short(m.content, 60)] for m in found]
    return Reply([dict(m.to_dict(), state=task_rules.state_of(m)) for m in found],
                 lambda: render.table(["id", "state", "task"], rows) if rows else "(no tasks)")


COMMANDS = (task,)
