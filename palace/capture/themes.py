"""Themes: named threads across sessions. A theme is one memory (type ``theme``, room
``themes``) that holds references to other memories, never copies of them."""

from __future__ import annotations

import re
import unicodedata
from typing import Any, Sequence

from palace.errors import InvalidInputError, MemoryNotFoundError
from palace.capture.recall import compact_view
from palace.capture.refine import stable_id
from palace.features.palace_api import Palace

THEME_ROOM = "themes"


def theme_id(name: str) -> str:
    return stable_id("theme", normalize_name(name))


def normalize_name(name: str) -> str:
    if not isinstance(name, str) or not name.strip():
        raise InvalidInputError("a theme needs a name, e.g. 'auth-migration' or '数据库迁移'")
    value = unicodedata.normalize("NFC", " ".join(name.split())).lower()
    if len(value) > 80 or re.search(r"[\x00-\x1f\x7f]", value):
        raise InvalidInputError("a theme name is at most 80 characters of text")
    return value


def _content(name: str, refs: list[str]) -> str:
    return f"Theme: {name}\n\nReferences ({len(refs)}): " + ", ".join(refs)


def tag(pm: Palace, name: str, ids: Sequence[str] = (), *, query: str | None = None,
        top_k: int = 10) -> dict[str, Any]:
    """Add memories to the theme ``name`` (created on first use): the given ids, or the
    best ``top_k`` hits of ``query``. Returns the theme id and what was added."""
    label = normalize_name(name)
    wanted = list(ids)
    if query:
        wanted += [r.memory.id for r in pm.search(query, top_k=top_k, record_access=False, include_weak=False)
                   if r.memory.type != "theme"]
    if not wanted:
        raise InvalidInputError("give memory ids to tag, or a query (--query) to find them")
    for memory_id in wanted:
        if pm.get(memory_id, record_access=False) is None:
            raise MemoryNotFoundError(memory_id, "nothing was tagged")
    tid = theme_id(label)
    theme = pm.get(tid, record_access=False)
    refs = list((theme.extra or {}).get("refs", [])) if theme else []
    added = [i for i in dict.fromkeys(wanted) if i not in refs and i != tid]
    refs += added
    if theme is None:
        pm.store(_content(label, refs), id=tid, summary=f"Theme: {label}", type="theme",
                 location=THEME_ROOM, tags=["theme"], importance=0.5, source="capture",
                 extra={"theme": label, "refs": refs})
    elif added:
        pm.update(tid, content=_content(label, refs), extra={"refs": refs})
    return {"theme": label, "id": tid, "added": added, "total": len(refs)}


def trace(pm: Palace, name: str) -> dict[str, Any]:
    """The theme's memories across sessions in time order (compact), missing ones listed."""
    label = normalize_name(name)
    theme = pm.get(theme_id(label), record_access=False)
    if theme is None:
        raise MemoryNotFoundError(theme_id(label), f"no theme named {label!r}; `palace theme list` shows them")
    items, missing = [], []
    for memory_id in (theme.extra or {}).get("refs", []):
        memory = pm.get(memory_id, record_access=False)
        if memory is None:
            missing.append(memory_id)
            continue
        items.append(memory)
    items.sort(key=lambda m: m.created_at.isoformat() if m.created_at else "")
    views = []
    for m in items:
        view = compact_view(m)
        view["session_id"] = (m.extra or {}).get("sessionId")
        views.append(view)
    return {"theme": label, "id": theme.id, "items": views, "missing": missing,
            "sessions": len({v["session_id"] for v in views if v["session_id"]})}


def list_themes(pm: Palace) -> list[dict[str, Any]]:
    themes = []
    for memory in pm.list(type="theme", location=THEME_ROOM, status="all"):
        refs = (memory.extra or {}).get("refs", [])
        themes.append({"theme": (memory.extra or {}).get("theme") or memory.summary,
                       "id": memory.id, "count": len(refs),
                       "updated": memory.updated_at.isoformat() if memory.updated_at else None})
    themes.sort(key=lambda t: t["theme"] or "")
    return themes
