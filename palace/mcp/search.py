"""The tools that find memories: the full search, and the progressive recall over
captured sessions (palace/capture): compact hits first, then the timeline around one,
then whole memories for the few worth reading. Each takes the open manager first."""

from typing import TYPE_CHECKING, Annotated

from pydantic import Field

from palace.capture import recall
from palace.mcp.params import MAX_RESULTS, Id, Now
from palace.mcp.results import result
from palace.responses import memory_view, search_response

if TYPE_CHECKING:
    from palace.manager import MemoryPalaceManager


def search_memory(
    pm: "MemoryPalaceManager",
    query: Annotated[str, Field(description="What to look for, in any language; may hold "
                                            "time words.")],
    top_k: Annotated[int, Field(ge=1, le=MAX_RESULTS, description="How many results.")] = 10,
    tags: Annotated[list[str] | None, Field(description="Only memories with all these tags.")] = None,
    location: Annotated[str | None, Field(description="Only this room (and rooms inside it).")] = None,
    type: Annotated[str | None, Field(description="Only this type, e.g. 'decision'.")] = None,
    include_archived: Annotated[bool, Field(description="Also search archived (faded) "
                                                        "memories.")] = False,
    include_weak: Annotated[bool, Field(description="Also return weak matches (listed after "
                                                    "the strong ones, each with confidence "
                                                    "'weak' and its reason); false = strong "
                                                    "results only, the evidence for the "
                                                    "query.")] = True,
    now: Now = None,
):
    results = pm.search(query, top_k=top_k, now=now, tags=tags, location=location, type=type,
                        include_archived=include_archived, include_weak=include_weak)
    return result(search_response(results))


def search_compact(
    pm: "MemoryPalaceManager",
    query: Annotated[str, Field(description="What to look for; may hold time words.")],
    top_k: Annotated[int, Field(ge=1, le=MAX_RESULTS, description="How many hits.")] = 10,
    type: Annotated[str | None, Field(description="Only this type, e.g. 'observation', "
                                                   "'session', 'task'.")] = None,
    location: Annotated[str | None, Field(description="Only this room (and rooms inside it).")] = None,
):
    return result(recall.compact_search(pm, query, top_k=top_k, type=type, location=location))


def timeline(
    pm: "MemoryPalaceManager",
    id: Id,
    before: Annotated[int, Field(ge=0, le=50, description="Observations before it.")] = 3,
    after: Annotated[int, Field(ge=0, le=50, description="Observations after it.")] = 3,
):
    return result(recall.timeline(pm, id, before=before, after=after))


def get_memories(
    pm: "MemoryPalaceManager",
    ids: Annotated[list[str], Field(min_length=1, max_length=MAX_RESULTS,
                                    description="Memory ids, e.g. from search_compact.")],
):
    data = recall.get_many(pm, ids)
    return result({"memories": [memory_view(m) for m in data["memories"]],
                   "missing": data["missing"]})
