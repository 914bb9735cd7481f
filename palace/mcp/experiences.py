"""The tools over lessons learned: record one, report whether it worked, find them
for a problem. Each takes the open manager first."""

from typing import TYPE_CHECKING, Annotated

from pydantic import Field

from palace.mcp.params import MAX_RESULTS, Tags
from palace.mcp.results import result
from palace.responses import memory_view

if TYPE_CHECKING:
    from palace.manager import MemoryPalaceManager


def record_experience(
    pm: "MemoryPalaceManager",
    what_happened: Annotated[str, Field(description="The situation or failure, e.g. "
                                                    "'deploy failed: port 5432 in use'.")],
    what_worked: Annotated[str, Field(description="What solved it.")],
    context: Annotated[str | None, Field(description="Where it applies (system, versions).")] = None,
    tags: Tags = None,
    location: Annotated[str, Field(description="Room.")] = "experiences",
    importance: Annotated[float, Field(ge=0, le=1, description="0..1.")] = 0.6,
):
    memory = pm.experiences.record(what_happened, what_worked, tags=tags or (), context=context,
                                   location=location, importance=importance)
    return result(memory_view(memory))


def verify_experience(
    pm: "MemoryPalaceManager",
    id: Annotated[str, Field(description="Id of the experience.")],
    effective: Annotated[bool, Field(description="true if the lesson worked this time.")],
    note: Annotated[str | None, Field(description="What happened when you applied it.")] = None,
):
    stats = pm.experiences.verify(id, effective, note)
    return result({"id": id, "stats": stats.to_dict()})


def search_experiences(
    pm: "MemoryPalaceManager",
    query: Annotated[str, Field(description="The problem at hand, e.g. an error message.")],
    top_k: Annotated[int, Field(ge=1, le=MAX_RESULTS, description="How many lessons.")] = 5,
    tags: Annotated[list[str] | None, Field(description="Only lessons with all these tags.")] = None,
    verified_only: Annotated[bool, Field(description="Only lessons verified to work "
                                                     "at least twice.")] = False,
):
    results = pm.experiences.search(query, top_k=top_k, tags=tags, verified_only=verified_only)
    return result({"count": len(results), "results": [
        memory_view(r.memory, preview=True) | {"lesson": r.lesson, "score": round(r.score, 4),
                                               "stats": r.stats.to_dict()}
        for r in results]})
