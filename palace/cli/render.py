"""Text for people: tables and memory pages. Pure functions from data to str."""

from __future__ import annotations

import unicodedata
from datetime import datetime
from typing import Any, Sequence


def short(text: str, width: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def date(value: datetime | None) -> str:
    return value.strftime("%Y-%m-%d %H:%M") if value else "-"


def plural(count: int, noun: str, many: str | None = None) -> str:
    """``1 session``, ``2 sessions`` (``many``: an irregular plural, ``memories``)."""
    return f"{count} {noun if count == 1 else many or noun + 's'}"


def period(start: str | None, end: str | None) -> str:
    """A time range, end exclusive; an open end is said, not shown as None."""
    if start and end:
        return f"[{start}, {end})"
    return f"from {start} on" if start else f"before {end}"


def _width(text: str) -> int:  # CJK characters take two columns in a terminal
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    cells = [[str(c) for c in row] for row in rows]
    widths = [max([_width(h)] + [_width(r[i]) for r in cells]) for i, h in enumerate(headers)]

    def line(values: Sequence[str]) -> str:
        return "  ".join(v + " " * (w - _width(v)) for v, w in zip(values, widths)).rstrip()

    return "\n".join([line(headers), "  ".join("-" * w for w in widths), *map(line, cells)])


def memory_page(memory: Any, database: str | None = None) -> str:
    """One memory as ``palace get`` shows it; ``database``: where it is stored when that
    is a database (Postgres), not the Markdown file the local backend keeps."""
    lines = [
        f"id:         {memory.id}",
        f"location:   {memory.location}",
        f"type:       {memory.type}    status: {memory.status}    source: {memory.source}",
        f"tags:       {', '.join(memory.tags) or '-'}",
        f"importance: {memory.importance}    decay: {memory.decay_score:.3f}"
        f"{'    pinned' if memory.pinned else ''}    accesses: {memory.access_count}",
        f"created:    {memory.created_at.isoformat() if memory.created_at else '-'}",
        f"updated:    {memory.updated_at.isoformat() if memory.updated_at else '-'}",
    ]
    if database:
        lines.append(f"stored in:  {database}")
    elif memory.path:
        lines.append(f"file:       {memory.path}")
    lines += ["", memory.content]
    if memory.summary:
        lines += ["", "## Summary", "", memory.summary]
    return "\n".join(lines)


def memory_rows(memories: Sequence[Any]) -> str:
    if not memories:
        return "(no memories)"
    return table(["id", "created", "room", "type", "tags", "decay", "content"],
                 [[m.id, date(m.created_at), m.location, m.type, ",".join(m.tags)[:24],
                   f"{m.decay_score:.2f}", short(m.content, 50)] for m in memories])
