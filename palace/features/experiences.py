"""Experiences: lessons learned ("when X fails with Y, do Z") that earn trust by use.

An experience is an ordinary Markdown memory of type ``experience`` (room
``experiences`` by default) whose content reads::

    What happened: the deploy failed with "port 5432 already in use"

    What worked: stop the old postgres container before `compose up`

    Context: staging, docker compose v2

Trust is counted from two sources that live in different places on purpose:

* **Verifications** are deliberate acts ("this lesson worked / did not work"), so
  each one is written into the file's frontmatter as an entry of the
  ``verifications`` list (``at``, ``effective``, ``note``). A person can read and
  edit them, and they survive any index rebuild because the file is the truth.
* **Usage** (being returned by an experience search) happens on every query, so it
  must never rewrite the file: it is one ``kind="experience"`` line in the access
  journal, counted back from the index. The journal survives ``reindex``.

Effectiveness, the trust score in [0, 1]::

    effectiveness = clamp(0.3 × worked − 0.1 × failed + 0.1 × usage, 0, 1)

where ``worked``/``failed`` are the verifications that said it worked / did not,
and ``usage`` counts the experience searches that returned the lesson, at most
one per hour (a burst of identical queries is one use, as for decay). With no
failures this is the rule ``min(1, verifiedCount × 0.3 + usageCount × 0.1)``.
A lesson counts as *verified* after 2 or more positive verifications.

Experience search ranks by::

    score = 0.7 × memory_score + 0.3 × effectiveness

where ``memory_score`` is the ordinary search score of the memory (relevance,
importance and decay mixed by MEMORY_SEARCH_WEIGHTS), so relevance
dominates and trust breaks near-ties and lifts proven lessons. See
docs/experiences.md.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, List  # List: these classes have list() methods

from palace.decay import collapse_bursts
from palace.errors import InvalidInputError
from palace.features.palace_api import Palace
from palace.models import Memory
from palace.validation import validate_id



EXPERIENCE_TYPE = "experience"
DEFAULT_LOCATION = "experiences"
USAGE_KIND = "experience"        # journal kind of "returned by an experience search"
VERIFY_KIND = "experience-verify"  # journal kind of a verification (reinforces decay only)
VERIFICATIONS_KEY = "verifications"

WORKED_POINTS = 0.3
FAILED_POINTS = 0.1
USAGE_POINTS = 0.1
VERIFIED_AFTER = 2
EFFECTIVENESS_WEIGHT = 0.3
MAX_NOTE_CHARS = 2000

_LABELS = {"what happened": "what_happened", "what worked": "what_worked", "context": "context"}
_LABEL_LINE = re.compile(r"^(what happened|what worked|context)\s*:\s?(.*)$", re.IGNORECASE)


@dataclass(frozen=True)
class ExperienceStats:
    verified_count: int   # verifications that said it worked
    failed_count: int     # verifications that said it did not
    usage_count: int      # experience searches that returned it (one per hour at most)
    effectiveness: float  # clamp(0.3 × verified − 0.1 × failed + 0.1 × usage, 0, 1)
    verified: bool        # verified_count >= 2
    last_verified_at: datetime | None = None  # the latest verification, either way

    def to_dict(self) -> dict[str, Any]:
        return {"verified_count": self.verified_count, "failed_count": self.failed_count,
                "usage_count": self.usage_count, "effectiveness": round(self.effectiveness, 4),
                "verified": self.verified,
                "last_verified_at": self.last_verified_at.isoformat() if self.last_verified_at else None}


@dataclass(frozen=True)
class ExperienceResult:
    memory: Memory
    score: float
    stats: ExperienceStats
    # How the score was made: memory_score (None for list), effectiveness, weights,
    # and the underlying memory search explanation when there was a query.
    explanation: dict[str, Any] = field(default_factory=dict)

    @property
    def lesson(self) -> dict[str, str | None]:
        return parse_experience(self.memory.content)

    def to_dict(self) -> dict[str, Any]:
        explanation = dict(self.explanation)
        if explanation.get("search") is not None and hasattr(explanation["search"], "to_dict"):
            explanation["search"] = explanation["search"].to_dict()
        return {"memory": self.memory.to_dict(), "lesson": self.lesson, "score": round(self.score, 6),
                "stats": self.stats.to_dict(), "explanation": explanation}


def effectiveness_score(verified_count: int, failed_count: int, usage_count: int) -> float:
    """clamp(0.3 × worked − 0.1 × failed + 0.1 × usage, 0, 1)."""
    raw = WORKED_POINTS * verified_count - FAILED_POINTS * failed_count + USAGE_POINTS * usage_count
    # rounding keeps 3 × 0.1 from printing as 0.30000000000000004
    return round(min(1.0, max(0.0, raw)), 10)


def experience_score(memory_score: float, effectiveness: float) -> float:
    return (1.0 - EFFECTIVENESS_WEIGHT) * memory_score + EFFECTIVENESS_WEIGHT * effectiveness


def format_experience(what_happened: str, what_worked: str, context: str | None = None) -> str:
    parts = [f"What happened: {what_happened.strip()}", f"What worked: {what_worked.strip()}"]
    if context and context.strip():
        parts.append(f"Context: {context.strip()}")
    return "\n\n".join(parts)


def parse_experience(content: str) -> dict[str, str | None]:
    """The labelled parts of an experience's content; a hand-written lesson without
    labels comes back whole as ``what_happened``."""
    parts: dict[str, list[str]] = {}
    current: str | None = None
    for line in content.splitlines():
        match = _LABEL_LINE.match(line.strip())
        if match:
            current = _LABELS[match.group(1).lower()]
            parts[current] = [match.group(2)]
        elif current is not None:
            parts[current].append(line)
    if not parts:
        return {"what_happened": content.strip() or None, "what_worked": None, "context": None}
    return {key: ("\n".join(parts[key]).strip() or None) if key in parts else None
            for key in _LABELS.values()}


def read_verifications(extra: dict[str, Any]) -> List[dict[str, Any]]:
    """The well-formed entries of the ``verifications`` frontmatter list.

    The list may have been edited by hand: entries that are not a mapping with a
    boolean-like ``effective`` are ignored rather than failing a search.
    """
    raw = extra.get(VERIFICATIONS_KEY)
    if not isinstance(raw, list):
        return []
    entries = []
    for item in raw:
        if not isinstance(item, dict):
            continue
        effective = _as_bool(item.get("effective"))
        if effective is None:
            continue
        entries.append({"at": item.get("at"), "effective": effective, "note": item.get("note")})
    return entries


def _as_bool(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in {"true", "yes", "worked", "1"}:
        return True
    if isinstance(value, str) and value.strip().lower() in {"false", "no", "failed", "0"}:
        return False
    return None


def _as_time(value: Any) -> datetime | None:
    if isinstance(value, datetime):
        return value
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value)
        except ValueError:
            return None
    return None


def _text(value: Any, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidInputError(f"{what} must be non-empty text")
    return value


class ExperienceManager:
    """Record, verify and find lessons; ``pm.experiences`` builds one per manager."""

    def __init__(self, manager: Palace):
        self.pm = manager

    # ------------------------------------------------------------------ writing

    def record(self, what_happened: str, what_worked: str, *, tags: Sequence[str] = (),
               context: str | None = None, location: str = DEFAULT_LOCATION,
               importance: float = 0.6, created_at: Any = None, source: str = "manual") -> Memory:
        """Store a lesson as a memory of type ``experience``."""
        if context is not None and not isinstance(context, str):
            raise InvalidInputError("context must be text")
        content = format_experience(_text(what_happened, "what_happened"),
                                    _text(what_worked, "what_worked"), context)
        return self.pm.store(content, tags=tags, importance=importance, location=location,
                             type=EXPERIENCE_TYPE, source=source, created_at=created_at)

    def verify(self, id: str, effective: bool, note: str | None = None, *,
               now: Any = None) -> ExperienceStats:
        """Record that applying the lesson worked (``effective=True``, +0.3) or not (−0.1).

        A verification is a deliberate act, so it is written into the file (the
        ``verifications`` frontmatter list). It also counts as an access, keeping
        a lesson that is being tried from fading.
        """
        validate_id(id)
        if not isinstance(effective, bool):
            raise InvalidInputError("effective must be True (it worked) or False (it did not)")
        if note is not None:
            if not isinstance(note, str):
                raise InvalidInputError("note must be text")
            if len(note) > MAX_NOTE_CHARS:
                raise InvalidInputError(f"note is {len(note)} characters; keep it under {MAX_NOTE_CHARS}")
        when = self.pm.now(now)
        entry: dict[str, Any] = {"at": when.isoformat(), "effective": effective}
        if note and note.strip():
            entry["note"] = note.strip()
        # Read and rewrite under the palace's (re-entrant) write lock: two agents
        # verifying at once must not drop each other's entry.
        with self.pm.write_lock():
            memory = self._experience(id)
            raw = memory.extra.get(VERIFICATIONS_KEY)
            # keep whatever a person wrote there, even entries this code cannot read
            history = list(raw) if isinstance(raw, list) else []
            self.pm.update(id, extra={VERIFICATIONS_KEY: [*history, entry]})
        self.pm.record_access([id], at=when, kind=VERIFY_KIND)
        return self.stats(id)

    # ------------------------------------------------------------------ reading

    def stats(self, id: str) -> ExperienceStats:
        validate_id(id)
        memory = self._experience(id)
        return self._stats_for([memory])[memory.id]

    def search(self, query: str, *, top_k: int = 5, now: Any = None,
               tags: Sequence[str] | None = None, verified_only: bool = False) -> List[ExperienceResult]:
        """Lessons for ``query``, best first by 0.7 × memory score + 0.3 × effectiveness.

        Each strong lesson returned counts as one use (+0.1 effectiveness, at most once
        an hour), journalled at ``now`` without touching its file; weak ones come after
        the strong ones and count nothing.
        """
        if not isinstance(top_k, int) or isinstance(top_k, bool) or not 1 <= top_k <= 1000:
            raise InvalidInputError(f"top_k must be an integer from 1 to 1000, got {top_k!r}")
        when = self.pm.now(now)
        # A wider pool than top_k, so that trust can lift a lesson from below the cut
        # and verified_only still has enough to choose from.
        pool = min(1000, max(50, top_k * 10))
        found = self.pm.search(query, top_k=pool, now=when, tags=tags, type=EXPERIENCE_TYPE,
                               record_access=False)
        stats = self._stats_for([r.memory for r in found])
        results = []
        for hit in found:
            lesson_stats = stats[hit.memory.id]
            if verified_only and not lesson_stats.verified:
                continue
            results.append(ExperienceResult(
                memory=hit.memory, score=experience_score(hit.score, lesson_stats.effectiveness),
                stats=lesson_stats,
                explanation={"memory_score": hit.score, "effectiveness": lesson_stats.effectiveness,
                             "weights": {"memory_score": 1.0 - EFFECTIVENESS_WEIGHT,
                                         "effectiveness": EFFECTIVENESS_WEIGHT},
                             "search": hit.explanation}))
        # strong lessons first (weak ones share little with the query), then by score
        results.sort(key=lambda r: (r.explanation["search"].confidence != "strong", -r.score,
                                    -r.stats.effectiveness))
        results = results[:top_k]
        used = [r.memory.id for r in results if r.explanation["search"].confidence == "strong"]
        if used:  # a weak lesson was shown, not used: it earns nothing
            self.pm.record_access(used, at=when, kind=USAGE_KIND)
        return results

    def list(self, *, verified_only: bool = False, now: Any = None) -> List[ExperienceResult]:
        """Active lessons, most effective first (newest first among equals)."""
        memories = self.pm.list(type=EXPERIENCE_TYPE, status="active", now=now)
        stats = self._stats_for(memories)
        results = [ExperienceResult(memory=m, score=stats[m.id].effectiveness, stats=stats[m.id],
                                    explanation={"memory_score": None,
                                                 "effectiveness": stats[m.id].effectiveness})
                   for m in memories if stats[m.id].verified or not verified_only]
        # pm.list is newest first and sort is stable, so ties stay newest first
        results.sort(key=lambda r: -r.stats.effectiveness)
        return results

    # ------------------------------------------------------------------ helpers

    def _experience(self, id: str) -> Memory:
        memory = self.pm.get(id, record_access=False)
        if memory is None:
            raise self.pm.not_found(id)
        if memory.type != EXPERIENCE_TYPE:
            raise InvalidInputError(f"memory {id!r} is a {memory.type}, not an experience")
        return memory

    def _stats_for(self, memories: Iterable[Memory]) -> dict[str, ExperienceStats]:
        memories = list(memories)
        times = self.pm.access_times([m.id for m in memories], kinds=[USAGE_KIND])
        stats = {}
        for memory in memories:
            created_ts = memory.created_at.timestamp() if memory.created_at else float("-inf")
            # uses before creation belong to an earlier memory with a reused id
            usage = len(collapse_bursts([ts for ts in times.get(memory.id, []) if ts >= created_ts]))
            entries = read_verifications(memory.extra)
            worked = sum(1 for e in entries if e["effective"])
            failed = len(entries) - worked
            stamps = [t for t in (_as_time(e["at"]) for e in entries) if t]
            stats[memory.id] = ExperienceStats(
                verified_count=worked, failed_count=failed, usage_count=usage,
                effectiveness=effectiveness_score(worked, failed, usage),
                verified=worked >= VERIFIED_AFTER,
                last_verified_at=max(stamps, key=lambda t: t.timestamp()) if stamps else None)
        return stats
