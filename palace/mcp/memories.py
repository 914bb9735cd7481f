"""The tools over single memories: save, get, update, delete, restore, list, and
reporting which ones the agent used. Each takes the open manager first."""

from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import Field

from palace.errors import InvalidInputError, MemoryNotFoundError
from palace.mcp.params import MAX_RESULTS, Id, Now, Tags
from palace.mcp.results import result
from palace.responses import memory_view

if TYPE_CHECKING:
    from palace.manager import MemoryPalaceManager


def save_memory(
    pm: "MemoryPalaceManager",
    content: Annotated[str, Field(description="The memory text (Markdown). One idea per memory.")],
    tags: Tags = None,
    importance: Annotated[float, Field(ge=0, le=1, description="0..1; 1 = never fades.")] = 0.5,
    location: Annotated[str, Field(description="Room (folder), e.g. 'general', 'people', "
                                                "'projects/palace'.")] = "general",
    type: Annotated[str, Field(description="fact | decision | preference | event | task | "
                                            "session (a session summary) | …")] = "fact",
    summary: Annotated[str | None, Field(description="Optional short summary, used when "
                                                     "the whole text does not fit a context.")] = None,
    created_at: Annotated[str | None, Field(description="When it happened (ISO 8601), if not "
                                                        "now, e.g. 2026-03-18T10:00:00+08:00.")] = None,
    pinned: Annotated[bool, Field(description="Never fades or gets archived.")] = False,
):
    memory = pm.store(content, tags=tags or (), importance=importance, location=location,
                      type=type, source="mcp", summary=summary, created_at=created_at,
                      pinned=pinned)
    return result(memory_view(memory))


def record_access(
    pm: "MemoryPalaceManager",
    ids: Annotated[list[str], Field(min_length=1, max_length=MAX_RESULTS,
                                    description="Ids of the memories you used.")],
    now: Now = None,
):
    known = [i for i in dict.fromkeys(ids) if pm.get(i, record_access=False) is not None]
    unknown = [i for i in dict.fromkeys(ids) if i not in known]
    pm.record_access(known, at=now, kind="used")
    return result({"recorded": known, "unknown": unknown},
                  f"recorded {len(known)} as used" + (f"; unknown ids: {', '.join(unknown)}"
                                                      if unknown else ""))


def get_memory(pm: "MemoryPalaceManager", id: Id):
    memory = pm.get(id)
    if memory is None:
        hint = (f"it is in the trash: restore_memory(id={id!r}) brings it back"
                if pm.in_trash(id) else "")
        raise MemoryNotFoundError(id, hint)
    return result(memory_view(memory))


def update_memory(
    pm: "MemoryPalaceManager",
    id: Id,
    content: Annotated[str | None, Field(description="New text.")] = None,
    summary: Annotated[str | None, Field(description="New summary.")] = None,
    tags: Annotated[list[str] | None, Field(description="New tags (replace the old ones).")] = None,
    importance: Annotated[float | None, Field(ge=0, le=1, description="0..1.")] = None,
    location: Annotated[str | None, Field(description="Move to this room.")] = None,
    type: Annotated[str | None, Field(description="New type.")] = None,
    pinned: Annotated[bool | None, Field(description="Pin (never fades) or unpin.")] = None,
    status: Annotated[Literal["active", "archived"] | None, Field(
        description="'archived' hides it from normal search; 'active' brings it back.")] = None,
):
    fields = {name: value for name, value in dict(
        content=content, summary=summary, tags=tags, importance=importance, location=location,
        type=type, pinned=pinned, status=status).items() if value is not None}
    if not fields:
        raise InvalidInputError("nothing to update: give at least one of content, summary, tags, "
                                "importance, location, type, pinned, status")
    return result(memory_view(pm.update(id, **fields)))


def delete_memory(pm: "MemoryPalaceManager", id: Id):
    memory = pm.delete(id)
    return result({"deleted": memory.id, "in_trash": True,
                   "message": f"moved to the trash; restore_memory(id={memory.id!r}) brings it back"})


def restore_memory(pm: "MemoryPalaceManager", id: Id):
    return result(memory_view(pm.restore(id)))


def list_memories(
    pm: "MemoryPalaceManager",
    location: Annotated[str | None, Field(description="Only this room (and rooms inside it).")] = None,
    tags: Annotated[list[str] | None, Field(description="Only memories with all these tags.")] = None,
    type: Annotated[str | None, Field(description="Only this type.")] = None,
    status: Annotated[Literal["active", "archived", "deleted", "all"], Field(
        description="'deleted' lists the trash; 'all' = active and archived.")] = "active",
    limit: Annotated[int, Field(ge=1, le=MAX_RESULTS, description="At most this many.")] = 20,
):
    memories = pm.list(location=location, tags=tags, type=type, status=status, limit=limit)
    return result({"count": len(memories),
                   "memories": [memory_view(m, preview=True) for m in memories]})
