"""What happened in a day, a week or a month — counted, not written by an LLM.

``get_summary(pm, "week", "2026-11-25")`` gathers the memories created or
changed in that period (weeks start on Monday, days and months follow the
palace's time zone) and reports: how many, the main tags, the main topics (the
terms that appear in the most memories), the decisions and experiences, the
rooms that changed, and the ids of every memory, so each line can be followed
up with ``get_memory``. The same palace and period always give the same summary.
"""

from __future__ import annotations

import calendar
from collections import Counter
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, tzinfo
from typing import Any, Iterable, Sequence

from palace.errors import InvalidInputError
from palace.models import Memory
from palace.text.tokenize import tokenize
from palace.text.words import SUMMARY_STOPWORDS
from palace.validation import check_day
from palace.features.palace_api import Palace

PERIODS = ("day", "week", "month")
DECISION_TYPE = "decision"
EXPERIENCE_TYPE = "experience"
TOP_TAGS = 10
TOP_TOPICS = 12
MEMORIES_LISTED_IN_TEXT = 50
LINE_CHARS = 90
TOPIC_POOL = 400



@dataclass(frozen=True)
class MemoryLine:
    """One memory as a summary lists it."""

    id: str
    date: str
    location: str
    type: str
    text: str       # summary, else the first line of the content, shortened

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "date": self.date, "location": self.location, "type": self.type,
                "text": self.text}

    def render(self) -> str:
        return f"- [{self.id}] {self.date} {self.location}: {self.text}"


@dataclass(frozen=True)
class RoomChange:
    room: str
    created: int
    updated: int
    deleted: int

    def to_dict(self) -> dict[str, Any]:
        return {"room": self.room, "created": self.created, "updated": self.updated,
                "deleted": self.deleted}


@dataclass(frozen=True)
class PeriodSummary:
    period: str
    label: str                      # 2026-11-30 | 2026-W48 | 2026-11
    start: datetime                 # inclusive
    end: datetime                   # exclusive
    created_ids: tuple[str, ...]    # created in the period
    updated_ids: tuple[str, ...]    # created before, changed in the period
    deleted_ids: tuple[str, ...]    # moved to the trash in the period
    tags: tuple[tuple[str, int], ...]
    topics: tuple[tuple[str, int], ...]
    decisions: tuple[MemoryLine, ...]
    experiences: tuple[MemoryLine, ...]
    rooms: tuple[RoomChange, ...]
    memories: tuple[MemoryLine, ...]  # created or updated, newest first

    @property
    def memory_ids(self) -> list[str]:
        return [line.id for line in self.memories]

    @property
    def count(self) -> int:
        return len(self.memories)

    def to_dict(self) -> dict[str, Any]:
        return {
            "period": self.period, "label": self.label,
            "start": self.start.isoformat(), "end": self.end.isoformat(),
            "count": self.count, "created": len(self.created_ids), "updated": len(self.updated_ids),
            "deleted": len(self.deleted_ids),
            "tags": [{"tag": t, "count": n} for t, n in self.tags],
            "topics": [{"term": t, "count": n} for t, n in self.topics],
            "decisions": [d.to_dict() for d in self.decisions],
            "experiences": [e.to_dict() for e in self.experiences],
            "rooms": [r.to_dict() for r in self.rooms],
            "memory_ids": self.memory_ids, "deleted_ids": list(self.deleted_ids),
            "memories": [m.to_dict() for m in self.memories],
            "text": self.render(),
        }

    def render(self) -> str:
        last_day = (self.end - timedelta(days=1)).strftime("%Y-%m-%d")
        heading = f"# {self.period.capitalize()} {self.label}"
        if self.period != "day":  # a day's label is its date already
            heading += f" ({self.start.strftime('%Y-%m-%d')} – {last_day})"
        lines = [heading, ""]
        if not self.memories and not self.deleted_ids:
            lines.append("No memories were created or changed in this period.")
            return "\n".join(lines)
        noun = "memory" if self.count == 1 else "memories"
        counts = f"{self.count} {noun}: {len(self.created_ids)} new, {len(self.updated_ids)} updated"
        if self.deleted_ids:
            counts += f"; {len(self.deleted_ids)} moved to the trash"
        lines.append(counts + ".")
        if self.tags:
            lines.append("Tags: " + ", ".join(f"{t} ({n})" for t, n in self.tags))
        if self.topics:
            lines.append("Topics: " + ", ".join(f"{t} ({n})" for t, n in self.topics))
        for title, entries in (("Decisions", self.decisions), ("Experiences", self.experiences)):
            if entries:
                lines += ["", f"## {title}"] + [entry.render() for entry in entries]
        if self.rooms:
            lines += ["", "## Rooms changed"]
            for room in self.rooms:
                parts = [f"{n} {what}" for n, what in ((room.created, "new"), (room.updated, "updated"),
                                                       (room.deleted, "trashed")) if n]
                lines.append(f"- {room.room}: {', '.join(parts)}")
        if self.memories:
            lines += ["", "## Memories"]
            lines += [m.render() for m in self.memories[:MEMORIES_LISTED_IN_TEXT]]
            if self.count > MEMORIES_LISTED_IN_TEXT:
                lines.append(f"- … and {self.count - MEMORIES_LISTED_IN_TEXT} more (see memory_ids)")
        return "\n".join(lines)


# --------------------------------------------------------------------------- pure parts

def parse_day(value: Any, *, today: date) -> date:
    """``None`` (today), a ``date``/``datetime``, or ``YYYY-MM-DD``."""
    if value is None:
        return today
    if isinstance(value, datetime):
        return check_day(value.date())
    if isinstance(value, date):
        return check_day(value)
    if isinstance(value, str):
        try:
            day = date.fromisoformat(value.strip()[:10])
        except ValueError:
            _no_such_day(value.strip()[:10])
        else:
            return check_day(day)
    raise InvalidInputError(f"date must look like 2026-11-30 (YYYY-MM-DD), got {value!r}")


def _no_such_day(text: str) -> None:
    """Refuse a well-formed date that names no day (2026-02-30, 2026-13-01): "must look
    like YYYY-MM-DD" would tell the reader to write what they already wrote."""
    parts = text.split("-")
    if len(parts) != 3 or [len(p) for p in parts] != [4, 2, 2] or not all(p.isdigit() for p in parts):
        return
    year, month, _ = (int(p) for p in parts)
    reason = (f"{calendar.month_name[month]} {year} has {calendar.monthrange(year, month)[1]} days"
              if 1 <= month <= 12 else "months go from 01 to 12")
    raise InvalidInputError(f"there is no day {text}: it does not exist ({reason}); give a real date, "
                            "YYYY-MM-DD")


def period_bounds(period: str, day: date, tz: tzinfo) -> tuple[datetime, datetime, str]:
    """[start, end) of the day, Monday-based week or month holding ``day``, and its label."""
    if period == "day":
        first, last_exclusive = day, day + timedelta(days=1)
        label = day.isoformat()
    elif period == "week":
        first = day - timedelta(days=day.weekday())  # Monday
        last_exclusive = first + timedelta(days=7)
        iso_year, iso_week, _ = first.isocalendar()
        label = f"{iso_year}-W{iso_week:02d}"
    elif period == "month":
        first = day.replace(day=1)
        last_exclusive = first + timedelta(days=calendar.monthrange(day.year, day.month)[1])
        label = f"{day.year}-{day.month:02d}"
    else:
        raise InvalidInputError(f"period must be one of {', '.join(PERIODS)}, got {period!r}")
    return (datetime.combine(first, time(), tzinfo=tz),
            datetime.combine(last_exclusive, time(), tzinfo=tz), label)


def _short_text(memory: Memory) -> str:
    text = memory.summary or memory.content
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    first = first.lstrip("#").strip()
    return first if len(first) <= LINE_CHARS else first[: LINE_CHARS - 1] + "…"


def memory_line(memory: Memory, tz: tzinfo) -> MemoryLine:
    when = memory.created_at.astimezone(tz).strftime("%Y-%m-%d") if memory.created_at else ""
    return MemoryLine(id=memory.id, date=when, location=memory.location, type=memory.type,
                      text=_short_text(memory))


def top_topics(texts: Iterable[str], limit: int = TOP_TOPICS) -> list[tuple[str, int]]:
    """Terms found in the most texts (each text counts once per term).

    Ties go to the term used more often overall, then alphabetically. Single
    characters, numbers and summary stopwords are dropped, and so is a term that
    is part of a longer top term found at least as often (jieba's search mode
    yields 数据 and 据库 beside 数据库; only 数据库 says something).
    """
    document_freq: Counter[str] = Counter()
    total_freq: Counter[str] = Counter()
    for text in texts:
        terms = [t for t in tokenize(text)
                 if len(t) > 1 and not t.isdigit() and t not in SUMMARY_STOPWORDS]
        total_freq.update(terms)
        document_freq.update(set(terms))
    # Only the head of the ranking can make the top list; comparing every pair of
    # a month's thousands of terms would be quadratic for nothing.
    ranked = sorted(document_freq, key=lambda t: (-document_freq[t], -total_freq[t], t))[:TOPIC_POOL]
    kept: list[str] = []
    for term in ranked:
        if any(len(other) > len(term) and term in other
               and document_freq[other] >= document_freq[term] for other in ranked):
            continue
        kept.append(term)
        if len(kept) == limit:
            break
    return [(term, document_freq[term]) for term in kept]


def summarize_memories(period: str, label: str, start: datetime, end: datetime,
                       memories: Sequence[Memory], trashed: Sequence[tuple[Memory, datetime | None]],
                       tz: tzinfo) -> PeriodSummary:
    """The summary of ``memories`` for [start, end); pure (no palace needed)."""
    def inside(moment: datetime | None) -> bool:
        return moment is not None and start <= moment < end

    created = [m for m in memories if inside(m.created_at)]
    updated = [m for m in memories if not inside(m.created_at) and inside(m.updated_at)]
    deleted = [m for m, when in trashed if inside(when)]
    touched = sorted(created + updated, key=lambda m: (m.created_at, m.id), reverse=True)

    tag_counts = Counter(tag for m in touched for tag in m.tags)
    tags = sorted(tag_counts.items(), key=lambda kv: (-kv[1], kv[0]))[:TOP_TAGS]
    topics = top_topics(" ".join(filter(None, [m.content, m.summary])) for m in touched)

    rooms: dict[str, list[int]] = {}
    for group, memories_in_group in enumerate((created, updated, deleted)):
        for memory in memories_in_group:
            rooms.setdefault(memory.location, [0, 0, 0])[group] += 1
    room_changes = [RoomChange(room, *counts) for room, counts in
                    sorted(rooms.items(), key=lambda kv: (-sum(kv[1]), kv[0]))]

    def lines_of(kind: str) -> tuple[MemoryLine, ...]:
        chosen = sorted((m for m in touched if m.type == kind), key=lambda m: (m.created_at, m.id))
        return tuple(memory_line(m, tz) for m in chosen)

    return PeriodSummary(
        period=period, label=label, start=start, end=end,
        created_ids=tuple(m.id for m in created), updated_ids=tuple(m.id for m in updated),
        deleted_ids=tuple(m.id for m in deleted), tags=tuple(tags), topics=tuple(topics),
        decisions=lines_of(DECISION_TYPE), experiences=lines_of(EXPERIENCE_TYPE),
        rooms=tuple(room_changes), memories=tuple(memory_line(m, tz) for m in touched))


# --------------------------------------------------------------------------- against a palace

def get_summary(pm: Palace, period: str = "day", date: Any = None, *, now: Any = None) -> PeriodSummary:
    """Summary of the ``period`` ("day", "week" from Monday, "month") holding ``date``
    (default: today in the palace's time zone, or the day of ``now``)."""
    if period not in PERIODS:
        raise InvalidInputError(f"period must be one of {', '.join(PERIODS)}, got {period!r}")
    when = pm.now(now)
    day = parse_day(date, today=when.astimezone(pm.tz).date())
    start, end, label = period_bounds(period, day, pm.tz)
    memories = pm.list(status="all")
    trashed = [(m, pm.trashed_at(m)) for m in pm.list_trash()]
    return summarize_memories(period, label, start, end, memories, trashed, pm.tz)
