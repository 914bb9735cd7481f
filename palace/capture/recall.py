"""Progressive recall: compact hits first, the timeline around one, whole memories
only for what the agent opens. An agent spends tokens on what it chooses to read."""

from __future__ import annotations

from typing import Any, Sequence

from palace.errors import InvalidInputError, MemoryNotFoundError
from palace.text.tokens import estimate_tokens, truncate_to_tokens
from palace.features.palace_api import Palace

COMPACT_TOKENS = 50


def _title(memory: Any) -> str:
    if memory.summary:
        return memory.summary.split("\n", 1)[0]
    return memory.content.strip().split("\n", 1)[0]


def _clip_tokens(text: str, budget: int) -> str:
    clipped = truncate_to_tokens(text, budget)
    return clipped if clipped == text else clipped + " …"


def compact_view(memory: Any, *, score: float | None = None, budget: int = COMPACT_TOKENS) -> dict[str, Any]:
    """id, title, date, type and room of a memory in about ``budget`` tokens."""
    title = " ".join(_title(memory).split())
    date = memory.created_at.date().isoformat() if memory.created_at else None
    fixed = f"{memory.id} {date or ''} {memory.type} "
    view: dict[str, Any] = {"id": memory.id, "title": _clip_tokens(title, max(8, budget - estimate_tokens(fixed))),
                            "date": date, "type": memory.type, "location": memory.location}
    if score is not None:
        view["score"] = round(float(score), 4)
    session = (memory.extra or {}).get("session")
    if session and session != memory.id:
        view["session"] = session
    return view


def compact_search(pm: Palace, query: str, *, top_k: int = 10, budget: int = COMPACT_TOKENS,
                   **filters: Any) -> dict[str, Any]:
    """``pm.search`` as compact hits; the same notes and time range as a full search.
    Compact hits do not count as accessed: the agent has not read them yet."""
    results = pm.search(query, top_k=top_k, record_access=False, **filters)
    hits = [compact_view(r.memory, score=r.score, budget=budget) for r in results]
    first = results[0].explanation if results else None
    notes = getattr(results, "notes", None) or (first.notes if first else ())
    time_range = getattr(results, "time_range", None) or (first.time_range if first else None)
    if time_range is not None and not isinstance(time_range, dict):
        time_range = getattr(time_range, "to_dict", lambda: {"text": str(time_range)})()
    return {"count": len(hits), "results": hits, "notes": list(notes), "time_range": time_range}


def _session_members(pm: Palace, anchor: Any) -> list[Any]:
    extra = anchor.extra or {}
    session = extra.get("sessionId")
    if not session:
        raise InvalidInputError(
            f"memory {anchor.id!r} belongs to no captured session (it has no sessionId); "
            "timeline works on observations and session summaries")
    members = [m for m in pm.list(location=anchor.location, type="observation", status="all")
               if (m.extra or {}).get("sessionId") == session]
    members.sort(key=lambda m: ((m.extra or {}).get("turnIndex", 0),
                                m.created_at.isoformat() if m.created_at else ""))
    return members


def timeline(pm: Palace, memory_id: str, *, before: int = 3, after: int = 3) -> dict[str, Any]:
    """The observations around ``memory_id`` in session order (for a session summary:
    its first ones), as compact items; ``anchor`` marks the one asked about."""
    if before < 0 or after < 0:
        raise InvalidInputError("before and after must be >= 0")
    anchor = pm.get(memory_id, record_access=False)
    if anchor is None:
        raise MemoryNotFoundError(memory_id)
    members = _session_members(pm, anchor)
    ids = [m.id for m in members]
    if anchor.type == "observation" and anchor.id in ids:
        at = ids.index(anchor.id)
        window = members[max(0, at - before): at + after + 1]
    else:
        window = members[: before + after + 1]
    items = []
    for m in window:
        view = compact_view(m)
        view["turn"] = (m.extra or {}).get("turnIndex")
        if m.id == anchor.id:
            view["anchor"] = True
        items.append(view)
    extra = anchor.extra or {}
    return {"session": extra.get("session") if anchor.type != "session" else anchor.id,
            "session_id": extra.get("sessionId"), "anchor": anchor.id, "total": len(members),
            "items": items}


def get_many(pm: Palace, ids: Sequence[str]) -> dict[str, Any]:
    """Several memories in full; ids not found are listed, not fatal."""
    found, missing = [], []
    for memory_id in ids:
        memory = pm.get(memory_id)
        if memory is None:
            missing.append(memory_id)
        else:
            found.append(memory)
    return {"memories": found, "missing": missing}
