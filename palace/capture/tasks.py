"""Open tasks: next steps and unfinished to-do items that sessions left behind, and
tasks saved by hand (memories of type ``task``), in the order bootstrap shows them.
When a task is open is one rule, ``palace.features.tasks.state_of``, shared with ``palace
task``; archived and trashed tasks are not open."""

from __future__ import annotations

from typing import Any

from palace.errors import InvalidInputError
from palace.features.tasks import CLOSED_STATUSES as TASK_CLOSED_STATUSES
from palace.features.tasks import DONE_TAGS as TASK_DONE_TAGS
from palace.features.tasks import STATE_KEY as TASK_STATE_KEY
from palace.features.tasks import STATES as TASK_STATES
from palace.features.tasks import STATUS_KEY as TASK_STATUS_KEY
from palace.features.tasks import TASK_TYPE, is_open_task, list_tasks, move_task
from palace.features.tasks import state_of as task_state
from palace.features.palace_api import Palace

__all__ = ["TASK_CLOSED_STATUSES", "TASK_DONE_TAGS", "TASK_STATE_KEY", "TASK_STATES", "TASK_STATUS_KEY",
           "TASK_TYPE", "is_open_task", "open_tasks", "set_task_state", "task_state"]


def open_tasks(pm: Palace, *, project: str | None = None, limit: int | None = None,
               now: Any = None) -> list[Any]:
    """Tasks not done: doing first, then blocked, then to do; within each the pinned and
    more important first, then the newest (``palace.features.tasks.list_tasks``)."""
    return list_tasks(pm, project=project, limit=limit, now=now)


def set_task_state(pm: Palace, memory_id: str, state: str) -> Any:
    """Move a task to ``state`` by the one rule (``palace.features.tasks.move_task``: allowed
    moves only, each recorded in ``taskHistory``)."""
    if state not in TASK_STATES:
        raise InvalidInputError(f"task state must be one of {', '.join(TASK_STATES)}, got {state!r}")
    return move_task(pm, memory_id, state)
