"""The tools over tasks: the ones the user or agent manages (palace/features/tasks.py), and the
open ones captured sessions left behind (palace/capture/tasks.py). Each takes the open
manager first."""

from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import Field

from palace.features import tasks
from palace.capture.tasks import open_tasks, task_state
from palace.errors import InvalidInputError
from palace.mcp.params import MAX_RESULTS
from palace.mcp.results import result
from palace.responses import memory_view

if TYPE_CHECKING:
    from palace.manager import MemoryPalaceManager

MOVES = {"start": "doing", "block": "blocked", "done": "done"}  # manage_task's actions -> states


def manage_task(
    pm: "MemoryPalaceManager",
    action: Annotated[Literal["add", "start", "block", "done", "set", "list"], Field(
        description="add, start, block, done, set or list.")] = "list",
    text: Annotated[str | None, Field(description="The task (add).")] = None,
    id: Annotated[str | None, Field(description="The task's id (start, block, done, set).")] = None,
    state: Annotated[Literal["todo", "doing", "blocked", "done"] | None, Field(
        description="set: the state to move to.")] = None,
    note: Annotated[str | None, Field(description="Why (kept in the task's history).")] = None,
    states: Annotated[list[Literal["todo", "doing", "blocked", "done"]] | None, Field(
        description="list: only these states (default: the open ones).")] = None,
):
    if action == "list":
        found = tasks.list_tasks(pm, states=states)
        return result({"count": len(found), "tasks": [
            memory_view(m, preview=True) | {"state": tasks.state_of(m)} for m in found]})
    if action == "add":
        if not text:
            raise InvalidInputError("add needs the task's text")
        return result(memory_view(tasks.add_task(pm, text)))
    if not id:
        raise InvalidInputError(f"{action} needs the task's id")
    if action == "set" and state is None:
        raise InvalidInputError("set needs the state to move to (todo, doing, blocked, done)")
    wanted = state if action == "set" else MOVES[action]
    assert wanted is not None
    return result(memory_view(tasks.move_task(pm, id, wanted, note=note)))


def list_open_tasks(
    pm: "MemoryPalaceManager",
    project: Annotated[str | None, Field(description="Only this project (folder name).")] = None,
    limit: Annotated[int, Field(ge=1, le=MAX_RESULTS, description="At most this many.")] = 20,
):
    found = open_tasks(pm, project=project, limit=limit)
    return result({"tasks": [memory_view(m, preview=True) | {"state": task_state(m)}
                             for m in found]})
