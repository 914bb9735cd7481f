"""What an agent should know right now, packed into a token budget.

``get_context`` turns a query into the most useful memories that fit in
``max_tokens``: most relevant first, each memory whole if it fits, else its
summary, else a truncated excerpt marked as such. Every piece is labelled with
its id, room and date so the agent can cite it and fetch the rest
(``get_memory``).

``bootstrap`` is what an agent loads at the start of a session: the essence
(who the user is, standing rules, preferences), the latest session summaries,
the open tasks and, given a query, the memories relevant to it.

Conventions (also in docs/mcp.md):

- **Essence**: one pinned memory with id ``essence`` in room ``essence``, type
  ``essence``, importance 1. Set it with ``set_essence`` / ``palace essence
  --set``; at most ``MEMORY_ESSENCE_MAX_BYTES`` (15 KB) of UTF-8.
- **Session summary**: a memory of type ``session``, or any memory tagged
  ``session-summary`` — what happened in one working session, written by the
  agent at its end. Newest first.
- **Task**: a memory of type ``task``. It is open until it is done: its
  ``taskState`` (written by capture and ``palace task``) is todo, doing or
  blocked; without one, it is not tagged ``done`` (or ``cancelled``) and its
  frontmatter has no ``taskStatus: done`` (or ``cancelled``/``closed``). Archived
  and trashed tasks are not open. The rule lives in palace/features/tasks.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Sequence

from palace.capture import tasks as task_rules
from palace.capture.tasks import TASK_CLOSED_STATUSES, TASK_DONE_TAGS, TASK_STATUS_KEY, TASK_TYPE, is_open_task
from palace.errors import EssenceTooLargeError, InvalidInputError
from palace.models import Memory
from palace.text.tokens import estimate_tokens, truncate_to_tokens
from palace.validation import validate_query
from palace.features.palace_api import Palace

ESSENCE_ID = "essence"
ESSENCE_LOCATION = "essence"
ESSENCE_TYPE = "essence"
SESSION_TYPE = "session"
SESSION_TAG = "session-summary"

DEFAULT_CONTEXT_TOKENS = 2000
DEFAULT_BOOTSTRAP_TOKENS = 4000
MAX_BUDGET_TOKENS = 200_000
# An excerpt shorter than this says too little to be worth its header.
MIN_EXCERPT_TOKENS = 24
PIECE_SEPARATOR = "\n\n"
EXCERPT_MARK = " …"

FORM_FULL, FORM_SUMMARY, FORM_EXCERPT = "full", "summary", "excerpt"


@dataclass(frozen=True)
class ContextPiece:
    """One memory as it appears in the context: whole, its summary, or an excerpt."""

    id: str
    location: str
    date: str                 # YYYY-MM-DD of created_at, in the palace's time zone
    type: str
    form: str                 # "full" | "summary" | "excerpt"
    text: str                 # header line + body, exactly as rendered
    tokens: int               # estimate for ``text`` (plus its separator)
    section: str = "relevant"  # bootstrap: "essence" | "session" | "task" | "relevant"
    score: float | None = None
    full_tokens: int = 0      # what the whole memory would have cost

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "location": self.location, "date": self.date, "type": self.type,
                "form": self.form, "section": self.section, "tokens": self.tokens,
                "full_tokens": self.full_tokens, "score": self.score, "text": self.text}


@dataclass(frozen=True)
class ContextResult:
    max_tokens: int
    tokens_used: int
    pieces: tuple[ContextPiece, ...]
    text: str
    query: str | None = None
    # Memories that were candidates but did not fit at all: fetch them by id if needed.
    omitted_ids: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    time_range: dict[str, Any] | None = None

    @property
    def ids(self) -> list[str]:
        return [piece.id for piece in self.pieces]

    def to_dict(self) -> dict[str, Any]:
        return {"query": self.query, "max_tokens": self.max_tokens, "tokens_used": self.tokens_used,
                "text": self.text, "pieces": [p.to_dict() for p in self.pieces],
                "omitted_ids": list(self.omitted_ids), "notes": list(self.notes),
                "time_range": self.time_range}


# --------------------------------------------------------------------------- pure packing

def _validate_budget(max_tokens: object) -> int:
    if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) \
            or not 1 <= max_tokens <= MAX_BUDGET_TOKENS:
        raise InvalidInputError(
            f"max_tokens must be an integer from 1 to {MAX_BUDGET_TOKENS}, got {max_tokens!r}")
    return max_tokens


def piece_header(memory: Memory, form: str, *, full_tokens: int = 0, shown_tokens: int = 0) -> str:
    """``[id] room · date · type`` (a task's with its state: ``task (doing)``) plus, when
    not whole, what is shown and how to get the rest."""
    date = memory.created_at.strftime("%Y-%m-%d") if memory.created_at else "undated"
    kind = f"{memory.type} ({task_rules.task_state(memory)})" if memory.type == TASK_TYPE else memory.type
    header = f"[{memory.id}] {memory.location} · {date} · {kind}"
    if form == FORM_SUMMARY:
        header += f" · summary (full text: get_memory {memory.id})"
    elif form == FORM_EXCERPT:
        header += (f" · excerpt, ~{shown_tokens} of ~{full_tokens} tokens "
                   f"(full text: get_memory {memory.id})")
    return header


def fit_memory(memory: Memory, budget: int, *, section: str = "relevant",
               score: float | None = None, excerpt_budget: int | None = None) -> ContextPiece | None:
    """The richest form of ``memory`` that fits ``budget`` tokens, or None.

    Whole content if it fits; else the summary; else the start of the summary
    (or of the content when there is no summary) cut to the budget (and to at
    most ``excerpt_budget`` tokens of text) and marked as an excerpt — unless so
    little would fit that it is not worth showing.
    """
    separator_cost = estimate_tokens(PIECE_SEPARATOR)
    line_cost = estimate_tokens("\n")
    full_tokens = estimate_tokens(memory.content)

    def piece(form: str, body: str, shown: int = 0) -> ContextPiece:
        header = piece_header(memory, form, full_tokens=full_tokens, shown_tokens=shown)
        text = f"{header}\n{body}"
        return ContextPiece(id=memory.id, location=memory.location,
                            date=memory.created_at.strftime("%Y-%m-%d") if memory.created_at else "",
                            type=memory.type, form=form, text=text,
                            # counted in parts: each part's count is cached (a memory's text
                            # is counted once), and the sum bounds the whole from above
                            tokens=estimate_tokens(header) + line_cost + estimate_tokens(body)
                            + separator_cost, section=section,
                            score=score, full_tokens=full_tokens)

    whole = piece(FORM_FULL, memory.content)
    if whole.tokens <= budget:
        return whole
    if memory.summary:
        summary = piece(FORM_SUMMARY, memory.summary)
        if summary.tokens <= budget:
            return summary
    source = memory.summary or memory.content
    # Header cost with a generous count, so the real piece is never over.
    overhead = piece(FORM_EXCERPT, EXCERPT_MARK, shown=full_tokens).tokens
    room = budget - overhead
    if excerpt_budget is not None:
        room = min(room, excerpt_budget)
    if room < MIN_EXCERPT_TOKENS:
        return None
    excerpt = truncate_to_tokens(source, room)
    if not excerpt:
        return None
    result = piece(FORM_EXCERPT, excerpt + EXCERPT_MARK, shown=estimate_tokens(excerpt))
    return result if result.tokens <= budget else None


class _Packer:
    """Fills a budget piece by piece; sections get a heading when they start."""

    def __init__(self, max_tokens: int):
        self.max_tokens = max_tokens
        self.blocks: list[str] = []
        self.pieces: list[ContextPiece] = []
        self.used = 0
        self.omitted: list[str] = []
        self.memories: dict[str, Memory] = {}

    @property
    def remaining(self) -> int:
        return self.max_tokens - self.used

    def add_heading(self, heading: str) -> bool:
        cost = estimate_tokens(heading + PIECE_SEPARATOR)
        if cost + MIN_EXCERPT_TOKENS > self.remaining:
            return False
        self.blocks.append(heading)
        self.used += cost
        return True

    def add(self, memory: Memory, *, section: str, score: float | None = None,
            limit: int | None = None, excerpt_limit: int | None = None) -> ContextPiece | None:
        budget = self.remaining if limit is None else min(limit, self.remaining)
        piece = fit_memory(memory, budget, section=section, score=score, excerpt_budget=excerpt_limit)
        if piece is None:
            self.omitted.append(memory.id)
            return None
        self.pieces.append(piece)
        self.blocks.append(piece.text)
        self.memories[memory.id] = memory
        self.used += piece.tokens
        return piece

    def grow_excerpts(self, section: str) -> None:
        """Give budget left at the end to the excerpts of ``section``, best first."""
        for i, piece in enumerate(self.pieces):
            if piece.section != section or piece.form != FORM_EXCERPT or self.remaining <= 0:
                continue
            grown = fit_memory(self.memories[piece.id], piece.tokens + self.remaining,
                               section=section, score=piece.score)
            if grown is not None and grown.tokens > piece.tokens:
                self.blocks[self.blocks.index(piece.text)] = grown.text
                self.pieces[i] = grown
                self.used += grown.tokens - piece.tokens

    def drop_empty_heading(self) -> None:
        """A heading with nothing under it is noise; give its tokens back."""
        if self.blocks and (not self.pieces or self.blocks[-1] != self.pieces[-1].text):
            self.used -= estimate_tokens(self.blocks.pop() + PIECE_SEPARATOR)

    def text(self) -> str:
        return PIECE_SEPARATOR.join(self.blocks)

    def finish(self, **fields: Any) -> ContextResult:
        text = self.text()
        # The per-piece estimates are upper bounds for the joined text; this is the
        # belt to those braces (tiktoken is not strictly additive).
        while self.pieces and estimate_tokens(text) > self.max_tokens:
            dropped = self.pieces.pop()
            self.blocks.remove(dropped.text)
            self.omitted.append(dropped.id)
            text = self.text()
        return ContextResult(max_tokens=self.max_tokens, tokens_used=estimate_tokens(text),
                             pieces=tuple(self.pieces), text=text,
                             omitted_ids=tuple(dict.fromkeys(self.omitted)), **fields)


# --------------------------------------------------------------------------- against a palace

def _pack_relevant(pm: Palace, packer: _Packer, query: str, *, when: datetime, top_k: int,
                   exclude: set[str], tags: Sequence[str] | None, location: str | None,
                   type: str | None, include_archived: bool,
                   include_superseded: bool = False) -> tuple[tuple[str, ...], dict | None]:
    # record_access=False: only what makes it into the context counts as used.
    # injection is precision first: strong results only, so an unrelated prompt gets nothing
    results = pm.search(query, top_k=top_k, now=when, tags=tags, location=location, type=type,
                        include_archived=include_archived, record_access=False, include_weak=False,
                        injection=True)
    # the response's own notes, so a context with nothing relevant says why
    notes, time_range = tuple(results.notes), results.time_range
    for result in results:
        if result.memory.id in exclude:
            continue
        if result.explanation.superseded_by and not include_superseded:
            continue  # a later memory retired this fact: the agent should not act on it
        if packer.remaining < MIN_EXCERPT_TOKENS:
            packer.omitted.append(result.memory.id)
            continue
        # An excerpt may take a third of the budget at first, so a long memory
        # without a summary does not crowd out the next ones; what is left at
        # the end goes back to the excerpts.
        packer.add(result.memory, section="relevant", score=result.score,
                   excerpt_limit=max(MIN_EXCERPT_TOKENS * 2, packer.max_tokens // 3))
    packer.grow_excerpts("relevant")
    return notes, time_range


def get_context(pm: Palace, query: str, max_tokens: int = DEFAULT_CONTEXT_TOKENS, *, now: Any = None,
                top_k: int = 20, tags: Sequence[str] | None = None, location: str | None = None,
                type: str | None = None, include_archived: bool = False,
                include_superseded: bool = False) -> ContextResult:
    """The most relevant memories for ``query`` that fit in ``max_tokens``.

    Time words in the query work as in search ("上周的部署问题"). The memories
    returned count as accessed (kind ``context``) at ``now``. Superseded facts
    (``supersededBy`` in their frontmatter) are left out unless ``include_superseded``.
    """
    max_tokens = _validate_budget(max_tokens)
    validate_query(query)
    when = pm.now(now)
    packer = _Packer(max_tokens)
    notes, time_range = _pack_relevant(pm, packer, query, when=when, top_k=top_k, exclude=set(),
                                       tags=tags, location=location, type=type,
                                       include_archived=include_archived,
                                       include_superseded=include_superseded)
    result = packer.finish(query=query, notes=notes, time_range=time_range)
    pm.record_access(result.ids, at=when, kind="context")
    return result


# --------------------------------------------------------------------------- essence

def get_essence(pm: Palace) -> Memory | None:
    """The essence memory, or None when none was set (or it is in the trash)."""
    memory = pm.get(ESSENCE_ID, record_access=False)
    if memory is None or memory.status != "active":
        return None
    return memory


def set_essence(pm: Palace, text: str) -> Memory:
    """Create or replace the essence: who the user is, standing rules, preferences.

    Raises ``EssenceTooLargeError`` over ``settings.essence_max_bytes``: the essence
    is loaded into every session, so it must stay small.
    """
    if not isinstance(text, str):
        raise InvalidInputError(f"essence must be text, got {type(text).__name__}")
    cap = pm.settings.essence_max_bytes
    size = len(text.strip().encode("utf-8"))
    if size > cap:
        raise EssenceTooLargeError(
            f"essence is {size} bytes, over the {cap}-byte cap (MEMORY_ESSENCE_MAX_BYTES): keep "
            "only who the user is, standing rules and preferences there, and store details as "
            "ordinary memories (they are found by search when relevant)")
    fields: dict[str, Any] = dict(content=text, location=ESSENCE_LOCATION, type=ESSENCE_TYPE, pinned=True,
                  importance=1.0, status="active")
    if pm.get(ESSENCE_ID, record_access=False) is not None:
        return pm.update(ESSENCE_ID, **fields)
    if pm.in_trash(ESSENCE_ID):
        pm.restore(ESSENCE_ID)
        return pm.update(ESSENCE_ID, **fields)
    del fields["status"]
    return pm.store(id=ESSENCE_ID, tags=("essence",), source="essence", **fields)


# --------------------------------------------------------------------------- conventions

def is_session_summary(memory: Memory) -> bool:
    return memory.type == SESSION_TYPE or SESSION_TAG in memory.tags


def recent_session_summaries(pm: Palace, limit: int, *, now: Any = None) -> list[Memory]:
    """Newest first; ``type: session`` and ``session-summary``-tagged memories alike."""
    found = {m.id: m for m in pm.list(type=SESSION_TYPE, limit=limit, now=now)}
    found.update({m.id: m for m in pm.list(tags=[SESSION_TAG], limit=limit, now=now)})
    ordered = sorted(found.values(), key=lambda m: m.created_at.timestamp() if m.created_at else 0.0, reverse=True)
    return ordered[:limit]


def open_tasks(pm: Palace, limit: int, *, now: Any = None) -> list[Memory]:
    """Doing, then blocked, then to do; within each the most important, then newest."""
    return task_rules.open_tasks(pm, limit=limit, now=now) if limit > 0 else []


# --------------------------------------------------------------------------- bootstrap

# With a query, the fixed sections leave this share of the budget to it.
SESSIONS_SHARE_WITH_QUERY = 0.30
TASKS_SHARE_WITH_QUERY = 0.20


def bootstrap(pm: Palace, query: str | None = None, max_tokens: int = DEFAULT_BOOTSTRAP_TOKENS, *,
              now: Any = None, sessions: int = 3, tasks: int = 10, top_k: int = 20,
              include_superseded: bool = False) -> ContextResult:
    """Start-of-session context: essence, recent sessions, open tasks, relevant memories.

    Sections fill in that order. The essence may use the whole budget; with a
    query, session summaries take at most 30% and tasks 20% of it, so that
    something is left for the memories relevant to the query. Every memory
    shown counts as accessed (kind ``bootstrap``).
    """
    max_tokens = _validate_budget(max_tokens)
    if query is not None:
        validate_query(query)  # the same limit as search, whatever the budget leaves room for
    query = (query or "").strip() or None
    when = pm.now(now)
    packer = _Packer(max_tokens)
    shown: set[str] = set()

    essence = get_essence(pm)
    if essence is not None and packer.add_heading("# Essence"):
        if packer.add(essence, section="essence"):
            shown.add(essence.id)
        packer.drop_empty_heading()

    from palace.features.persona import HEADING, get_persona, shown_persona

    persona = get_persona(pm)
    if persona is not None and persona.id not in shown and packer.add_heading(HEADING):
        if packer.add(shown_persona(persona), section="persona"):
            shown.add(persona.id)
        packer.drop_empty_heading()

    def section(heading: str, memories: list[Memory], name: str, share: float) -> None:
        memories = [m for m in memories if m.id not in shown]
        if not memories or not packer.add_heading(heading):
            return
        cap = packer.used + int(max_tokens * share) if query else max_tokens
        for memory in memories:
            piece = packer.add(memory, section=name, limit=cap - packer.used)
            if piece is not None:
                shown.add(memory.id)
        packer.drop_empty_heading()

    section("# Recent sessions", recent_session_summaries(pm, sessions, now=when), "session",
            SESSIONS_SHARE_WITH_QUERY)
    section("# Open tasks", open_tasks(pm, tasks, now=when), "task", TASKS_SHARE_WITH_QUERY)

    notes: tuple[str, ...] = ()
    time_range = None
    if query and packer.add_heading(f"# Relevant to: {query}"):
        notes, time_range = _pack_relevant(pm, packer, query, when=when, top_k=top_k, exclude=shown,
                                           tags=None, location=None, type=None, include_archived=False,
                                           include_superseded=include_superseded)
        packer.drop_empty_heading()
    result = packer.finish(query=query, notes=notes, time_range=time_range)
    pm.record_access(result.ids, at=when, kind="bootstrap")
    return result


def persona_context(pm: Palace, max_tokens: int = 4000, *, refresh: bool = False, now: Any = None) -> ContextResult:
    """The persona exactly as ``bootstrap`` shows it (its heading, label line and text,
    or its summary / an excerpt when the budget is small); empty text when there is
    none. ``refresh`` first rewrites its generated lines from the user's current facts
    (``palace.features.persona.refresh_persona``: lines written by hand are kept). Counts as an
    access, like bootstrap."""
    from palace.features.persona import HEADING, get_persona, refresh_persona, shown_persona

    max_tokens = _validate_budget(max_tokens)
    when = pm.now(now)
    if refresh:
        refresh_persona(pm, now=when)
    packer = _Packer(max_tokens)
    persona = get_persona(pm)
    notes: tuple[str, ...] = ()
    if persona is None:
        notes = ("no persona yet: it is assembled from facts about the user (likes, lives in, works at, "
                 "uses …); store some, then refresh",)
    elif packer.add_heading(HEADING):
        packer.add(shown_persona(persona), section="persona")
        packer.drop_empty_heading()
    result = packer.finish(notes=notes)
    pm.record_access(result.ids, at=when, kind="bootstrap")
    return result


__all__ = [
    "ContextPiece", "ContextResult", "get_context", "bootstrap", "persona_context", "get_essence", "set_essence",
    "fit_memory", "is_open_task", "is_session_summary", "open_tasks", "recent_session_summaries",
    "ESSENCE_ID", "SESSION_TAG", "SESSION_TYPE", "TASK_TYPE", "TASK_DONE_TAGS", "TASK_STATUS_KEY",
    "TASK_CLOSED_STATUSES",
]
