"""Open tasks: next steps and unfinished to-do items that sessions left behind
(memories of type ``task`` with a ``taskState`` of todo, doing, blocked or done)."""

from __future__ import annotations

from typing import Any

from ..errors import InvalidInputError, MemoryNotFoundError

TASK_STATES = ("todo", "doing", "blocked", "done")
_ORDER = {"doing": 0, "blocked": 1, "todo": 2}


def task_state(memory: Any) -> str:
    state = (memory.extra or {}).get("taskState")
    if state in TASK_STATES:
        return state
    return "done" if "done" in memory.tags else "todo"   # tasks saved by hand: closed by tag


def open_tasks(pm: Any, *, project: str | None = None, limit: int | None = None) -> list[Any]:
    """Tasks not done, doing first, then blocked, then to do; newest first within each."""
    tasks = [m for m in pm.list(type="task") if task_state(m) != "done"]
    if project:
        tasks = [m for m in tasks if (m.extra or {}).get("project") == project]
    tasks.sort(key=lambda m: m.created_at.isoformat() if m.created_at else "", reverse=True)
    tasks.sort(key=lambda m: _ORDER.get(task_state(m), 3))
    return tasks[:limit] if limit else tasks


def set_task_state(pm: Any, memory_id: str, state: str) -> Any:
    if state not in TASK_STATES:
        raise InvalidInputError(f"task state must be one of {', '.join(TASK_STATES)}, got {state!r}")
    memory = pm.get(memory_id, record_access=False)
    if memory is None:
        raise MemoryNotFoundError(memory_id)
    if memory.type != "task":
        raise InvalidInputError(f"memory {memory_id!r} is a {memory.type}, not a task")
    return pm.update(memory_id, extra={"taskState": state})
