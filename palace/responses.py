"""The JSON shapes adapters hand to agents, built in one place so that the CLI
(``palace search --json``) and the MCP server answer with the same object.

Pure functions over models; nothing here opens a palace. Lower layers never
import this module; adapters (CLI, MCP) do.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any, Sequence

CONTENT_PREVIEW_CHARS = 800    # search and list results; a single memory comes whole


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def memory_view(memory: Any, *, preview: bool = False) -> dict[str, Any]:
    """A memory as an agent sees it. ``preview`` (search and list results) shortens
    long content and leaves out what only matters for one memory, to save tokens."""
    content = memory.content
    truncated = preview and len(content) > CONTENT_PREVIEW_CHARS
    view: dict[str, Any] = {
        "id": memory.id,
        "content": content[:CONTENT_PREVIEW_CHARS] + " …" if truncated else content,
    }
    if truncated:
        view["content_truncated"] = True
    if memory.summary or not preview:
        view["summary"] = memory.summary
    view.update({"tags": list(memory.tags), "location": memory.location, "type": memory.type,
                 "created_at": _iso(memory.created_at), "importance": memory.importance})
    if memory.status != "active" or not preview:
        view["status"] = memory.status
    if getattr(memory, "duplicate", False):
        view["duplicate"] = True
        view["note"] = "this content was already stored: the existing memory is returned (new tags merged)"
    if preview:
        return view
    view.update({"pinned": memory.pinned, "updated_at": _iso(memory.updated_at),
                 "source": memory.source, "decay_score": round(memory.decay_score, 4),
                 "access_count": memory.access_count,
                 "path": str(memory.path) if memory.path else None})
    if memory.extra:
        view["extra"] = json.loads(json.dumps(memory.extra, ensure_ascii=False, default=str))
    return view


def search_response(results: Sequence[Any], *, explain: bool = False) -> dict[str, Any]:
    """``{count, time_range, notes, results}`` for a list of SearchResult, best first.

    Each result is the memory's preview plus its ``path`` (the file, as a single
    memory gives it), ``score`` and ``why`` (one line); a memory reached through the
    entity graph also has ``graph_path``, the chain of facts that led there;
    ``explain`` adds the full explanation (every number behind the score). The
    notes and time range say why an answer is empty or thin ("nothing in that
    period", "vectors unavailable"); they are read from the result list itself
    when it carries them, else from the first result's explanation.
    """
    first = results[0].explanation if results else None
    notes = getattr(results, "notes", None)
    if notes is None:
        notes = first.notes if first else ()
    time_range = getattr(results, "time_range", None)
    if time_range is None and first is not None:
        time_range = first.time_range
    items = []
    for result in results:
        item = memory_view(result.memory, preview=True) | {
            "path": str(result.memory.path) if result.memory.path else None,
            "score": round(result.score, 4), "why": result.explanation.summary_line()}
        if result.explanation.superseded_by:  # a later memory retired this fact: say so
            item["superseded_by"] = result.explanation.superseded_by
        if result.explanation.replaces:  # joined as the current state of a retired result
            item["replaces"] = result.explanation.replaces
        if result.explanation.newer_on_topic:  # a newer memory on its topic ranks above it
            item["newer_on_topic"] = result.explanation.newer_on_topic
        graph_path = result.explanation.retrievers.get("graph", {}).get("path")
        if graph_path:  # recall's chain of facts; a search's graph hop has none
            item["graph_path"] = graph_path
        item["confidence"] = result.explanation.confidence  # strong: evidence; weak: listed after
        item["reason"] = result.explanation.reason
        if explain:
            item["explanation"] = result.explanation.to_dict()
        items.append(item)
    return {"count": len(items), "time_range": time_range, "notes": list(notes), "results": items}
