"""Open tasks: next steps and unfinished to-do items that sessions left behind, and
tasks saved by hand (memories of type ``task``), in the order bootstrap shows them.
When a task is open is one rule, ``palace.tasks.state_of``, shared with ``palace
task``; archived and trashed tasks are not open."""

from __future__ import annotations

from typing import Any

from ..errors import InvalidInputError, MemoryNotFoundError
from ..tasks import CLOSED_STATUSES as TASK_CLOSED_STATUSES
from ..tasks import DONE_TAGS as TASK_DONE_TAGS
from ..tasks import STATE_KEY as TASK_STATE_KEY
from ..tasks import STATES as TASK_STATES
from ..tasks import STATUS_KEY as TASK_STATUS_KEY
from ..tasks import TASK_TYPE, is_open_task
from ..tasks import state_of as task_state

__all__ = ["TASK_CLOSED_STATUSES", "TASK_DONE_TAGS", "TASK_STATE_KEY", "TASK_STATES", "TASK_STATUS_KEY",
           "TASK_TYPE", "is_open_task", "open_tasks", "set_task_state", "task_state"]
_ORDER = {"doing": 0, "blocked": 1, "todo": 2}


def open_tasks(pm: Any, *, project: str | None = None, limit: int | None = None,
               now: Any = None) -> list[Any]:
    """Tasks not done: doing first, then blocked, then to do; within each the pinned and
    more important first, then the newest."""
    tasks = [m for m in pm.list(type=TASK_TYPE, now=now) if is_open_task(m)]
    if project:
        tasks = [m for m in tasks if (m.extra or {}).get("project") == project]
    tasks.sort(key=lambda m: m.created_at.isoformat() if m.created_at else "", reverse=True)
    tasks.sort(key=lambda m: (_ORDER.get(task_state(m), 3), -(1.0 if m.pinned else m.importance)))
    return tasks[:limit] if limit else tasks


def set_task_state(pm: Any, memory_id: str, state: str) -> Any:
    if state not in TASK_STATES:
        raise InvalidInputError(f"task state must be one of {', '.join(TASK_STATES)}, got {state!r}")
    memory = pm.get(memory_id, record_access=False)
    if memory is None:
        raise MemoryNotFoundError(memory_id)
    if memory.type != TASK_TYPE:
        raise InvalidInputError(f"memory {memory_id!r} is a {memory.type}, not a task")
    return pm.update(memory_id, extra={TASK_STATE_KEY: state})
