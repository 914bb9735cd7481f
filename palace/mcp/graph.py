"""The entity graph's tools (docs/graph.md): recall, history, the review queue. Each
takes the open manager first."""

from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import Field

from palace.errors import InvalidInputError
from palace.mcp.params import MAX_RESULTS
from palace.mcp.results import result
from palace.responses import search_response
from palace.validation import validate_id

if TYPE_CHECKING:
    from palace.manager import MemoryPalaceManager


def recall_memory(
    pm: "MemoryPalaceManager",
    query: Annotated[str | None, Field(description="Text naming known entities.")] = None,
    entities: Annotated[list[str] | None, Field(description="Entity names to start from.")] = None,
    depth: Annotated[int, Field(ge=1, le=3, description="Hops to follow (1..3).")] = 2,
    limit: Annotated[int, Field(ge=1, le=MAX_RESULTS, description="How many memories.")] = 20,
    include_superseded: Annotated[bool, Field(description="Also follow facts a later fact "
                                                          "retired.")] = False,
):
    start = entities or query
    if not start:
        raise InvalidInputError("give a query or a list of entities")
    results = pm.recall(start, depth=depth, limit=limit, include_superseded=include_superseded)
    return result(search_response(results))


def entity_history(
    pm: "MemoryPalaceManager",
    name: Annotated[str, Field(description="The entity, e.g. '用户', 'Zhang Wei', '星图'.")],
):
    facts = pm.graph.history(name)
    return result({"count": len(facts), "facts": [
        dict(r.to_frontmatter(), memory=r.memory_id, current=r.valid_to is None) for r in facts]})


def review_facts(
    pm: "MemoryPalaceManager",
    action: Annotated[Literal["list", "accept", "reject"], Field(description="list, accept or reject.")] = "list",
    id: Annotated[str | None, Field(description="The review item's id (accept, reject).")] = None,
):
    if id is not None:  # a path or an empty string is refused, not taken for "no such item"
        validate_id(id, "review item id")
        if action == "list":
            raise InvalidInputError("list takes no id; give action='accept' or 'reject' with an id")
    if action == "list":
        items = pm.graph.queue.items()
        return result({"count": len(items), "items": [i.to_dict() for i in items]})
    if not id:
        raise InvalidInputError(f"{action} needs the review item's id")
    with pm.write_lock():
        item = pm.graph.resolve(id, accept=action == "accept", now=pm.now())
    return result({"resolved": action, "item": item.to_dict()})
