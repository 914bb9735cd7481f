"""Tasks as memories: ``type: task`` with a ``taskState`` (todo, doing, blocked, done)
and every transition recorded in ``taskHistory`` in the frontmatter.

The transition rule is a pure function (``next_state``); the feature functions use only
the manager's public API. ``taskState`` is the key session capture writes too
(palace/capture/tasks.py uses ``state_of`` and ``is_open_task`` from here).
"""

from __future__ import annotations

from typing import Any, Sequence

from palace.errors import InvalidInputError
from palace.models import Memory
from palace.features.palace_api import Palace

TASK_TYPE = "task"
STATE_KEY = "taskState"
HISTORY_KEY = "taskHistory"
STATES = ("todo", "doing", "blocked", "done")
# state -> the states it may move to (done is final; reopen by hand in the file)
TRANSITIONS: dict[str, tuple[str, ...]] = {
    "todo": ("doing", "blocked", "done"),
    "doing": ("todo", "blocked", "done"),
    "blocked": ("todo", "doing", "done"),
    "done": (),
}


# tasks saved by hand before taskState: closed by a done tag or an older taskStatus key
DONE_TAGS = frozenset({"done", "cancelled", "canceled", "已完成", "已取消"})
STATUS_KEY = "taskStatus"
CLOSED_STATUSES = frozenset({"done", "cancelled", "canceled", "closed"})


def state_of(memory: Any) -> str:
    """The one rule for a task's state (``palace task``, ``palace tasks``, bootstrap, MCP):
    ``taskState`` when it holds a known state; else done by a done tag or a closed
    ``taskStatus``; else todo."""
    extra = memory.extra or {}
    value = str(extra.get(STATE_KEY) or "").strip().lower()
    if value in STATES:
        return value
    if DONE_TAGS.intersection(tag.lower() for tag in memory.tags):
        return "done"
    if str(extra.get(STATUS_KEY, "")).strip().lower() in CLOSED_STATUSES:
        return "done"
    return "todo"


def is_open_task(memory: Any) -> bool:
    return memory.type == TASK_TYPE and memory.status == "active" and state_of(memory) != "done"


def next_state(current: str, wanted: str) -> str:
    """``wanted`` if a task in ``current`` may move there; a clear error otherwise."""
    if wanted not in STATES:
        raise InvalidInputError(f"unknown task state {wanted!r}; states: {', '.join(STATES)}")
    if wanted == current:
        raise InvalidInputError(f"the task is already {current}")
    if wanted not in TRANSITIONS[current]:
        raise InvalidInputError(f"a {current} task cannot become {wanted}")
    return wanted


def add_task(pm: Palace, text: str, *, tags: Sequence[str] = (), importance: float = 0.6,
             location: str = "tasks", now: Any = None, project: str | None = None) -> Memory:
    when = pm.now(now)
    extra: dict[str, Any] = {STATE_KEY: "todo", HISTORY_KEY: [{"state": "todo", "at": when.isoformat()}]}
    if project:
        extra["project"] = str(project)
    return pm.store(text, type=TASK_TYPE, tags=tags, importance=importance, location=location,
                    created_at=when, extra=extra)


def move_task(pm: Palace, task_id: str, wanted: str, *, note: str | None = None, now: Any = None) -> Memory:
    with pm.write_lock():
        memory = pm.get(task_id, record_access=False)
        if memory is None:
            raise pm.not_found(task_id)
        if memory.type != TASK_TYPE:
            raise InvalidInputError(f"memory {task_id!r} is a {memory.type}, not a task")
        state = next_state(state_of(memory), wanted)
        step: dict[str, Any] = {"state": state, "at": pm.now(now).isoformat()}
        if note:
            step["note"] = note
        history = list(memory.extra.get(HISTORY_KEY) or [])
        return pm.update(task_id, extra={STATE_KEY: state, HISTORY_KEY: [*history, step]})


OPEN_STATES = ("doing", "blocked", "todo")
_ORDER = {"doing": 0, "blocked": 1, "todo": 2, "done": 3}


def list_tasks(pm: Palace, *, states: Sequence[str] | None = None, project: str | None = None,
               limit: int | None = None, now: Any = None) -> list[Memory]:
    """Tasks in ``states`` (default: the open ones), in the order bootstrap shows them:
    doing, then blocked, then to do (then done); within a state the pinned and more
    important first, then the newest. ``project``: only tasks whose frontmatter
    ``project`` is that (capture records the session's project)."""
    wanted = set(states or OPEN_STATES)
    unknown = wanted - set(STATES)
    if unknown:
        raise InvalidInputError(f"unknown task state {sorted(unknown)[0]!r}; states: {', '.join(STATES)}")
    tasks = [m for m in pm.list(type=TASK_TYPE, now=now) if m.status == "active" and state_of(m) in wanted]
    if project:
        tasks = [m for m in tasks if (m.extra or {}).get("project") == project]
    tasks.sort(key=lambda m: m.created_at.isoformat() if m.created_at else "", reverse=True)
    tasks.sort(key=lambda m: (_ORDER[state_of(m)], -(1.0 if m.pinned else m.importance)))
    return tasks[:limit] if limit else tasks
