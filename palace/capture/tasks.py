"""Open tasks: next steps and unfinished to-do items that sessions left behind, and
tasks saved by hand (memories of type ``task``). The one rule of when a task is
open, shared by ``palace tasks``, MCP ``list_open_tasks`` and the bootstrap
(palace/context.py): ``taskState`` (todo, doing, blocked, done) when capture or
``palace tasks set`` wrote one; otherwise closed by a done tag (``done``,
``cancelled``, ``已完成`` …) or ``taskStatus: done|cancelled|closed``. Archived and
trashed tasks are not open."""

from __future__ import annotations

from typing import Any

from ..errors import InvalidInputError, MemoryNotFoundError

TASK_TYPE = "task"
TASK_STATES = ("todo", "doing", "blocked", "done")
TASK_STATE_KEY = "taskState"
TASK_DONE_TAGS = frozenset({"done", "cancelled", "canceled", "已完成", "已取消"})
TASK_STATUS_KEY = "taskStatus"
TASK_CLOSED_STATUSES = frozenset({"done", "cancelled", "canceled", "closed"})
_ORDER = {"doing": 0, "blocked": 1, "todo": 2}


def task_state(memory: Any) -> str:
    extra = memory.extra or {}
    state = extra.get(TASK_STATE_KEY)
    if state in TASK_STATES:
        return state
    # tasks saved by hand: closed by a tag or a taskStatus
    if TASK_DONE_TAGS.intersection(tag.lower() for tag in memory.tags):
        return "done"
    if str(extra.get(TASK_STATUS_KEY, "")).strip().lower() in TASK_CLOSED_STATUSES:
        return "done"
    return "todo"


def is_open_task(memory: Any) -> bool:
    return memory.type == TASK_TYPE and memory.status == "active" and task_state(memory) != "done"


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
