"""The records palace hands to its callers: ``Memory`` and ``SearchResult``."""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from palace.text import chunking

MEMORY_STATUSES = ("active", "archived", "deleted")


def embed_text(content: str, summary: str | None) -> str:
    """The text a memory's vectors are computed from (content, then its summary)."""
    return content if not summary else f"{content}\n\n{summary}"


# What a dialogue's key carries besides its text: the rule its chunks are cut by (one
# chunk per turn, chunking.dialogue_turns). Vectors a palace made before that rule cut
# dialogues as any text; with the rule in the key they are not reused but redone.
DIALOGUE_KEY_TAG = "\x00chunks:turns"


def embed_key(content: str, summary: str | None) -> str:
    """The content hash vectors are keyed by: the hash of exactly ``embed_text`` (and,
    for a dialogue, of the rule that chunks it), so the text embedded, the way it is cut
    and the key it is stored under cannot drift apart."""
    text = embed_text(content, summary)
    if chunking.DIALOGUE_TURNS and chunking.dialogue_turns(text):
        text += DIALOGUE_KEY_TAG
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()


@dataclass(frozen=True)
class Memory:
    id: str
    content: str
    summary: str | None = None
    tags: tuple[str, ...] = ()
    importance: float = 0.5
    status: str = "active"
    location: str = "general"
    type: str = "fact"
    source: str = "manual"
    created_at: datetime | None = None
    updated_at: datetime | None = None
    pinned: bool = False
    # Current Ebbinghaus score in [0, 1], computed from the access journal at read time.
    decay_score: float = 1.0
    access_count: int = 0
    last_accessed_at: datetime | None = None
    # Frontmatter keys palace does not know; kept verbatim on every rewrite.
    extra: dict[str, Any] = field(default_factory=dict)
    path: Path | None = None
    # Set by store() only (never written to the file): the same content was already
    # stored, so this is that memory (with the new tags merged in), not a new copy.
    duplicate: bool = False

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["tags"] = list(self.tags)
        for key in ("created_at", "updated_at", "last_accessed_at"):
            value = data[key]
            data[key] = value.isoformat() if value else None
        data["path"] = str(self.path) if self.path else None
        return data


@dataclass(frozen=True)
class Explanation:
    """Why a result ranked where it did. Every number that went into the score."""

    relevance: float                      # fused retrieval relevance in [0, 1]
    importance: float
    decay: float
    weights: dict[str, float]
    retrievers: dict[str, dict[str, Any]]  # "bm25" / "vector" → rank, raw score, normalised
    matched_terms: tuple[str, ...] = ()
    matched_expansions: tuple[dict[str, Any], ...] = ()
    time_range: dict[str, Any] | None = None
    filters: dict[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()           # e.g. "vectors unavailable: keyword only"
    superseded_by: str | None = None      # a later memory retired this one's fact
    # this memory joined as the current state of a retired one the search found
    # (palace/search/successor.py); the retired one's id
    replaces: str | None = None
    # a newer memory on the same topic ranks above this one: it may be outdated
    # (palace/search/newer.py); the newer one's id
    newer_on_topic: str | None = None
    # "strong": evidence for the query (palace/search/judge.py), what injection takes;
    # "weak": listed after the strong ones by explicit search; ``reason`` says why
    confidence: str = "strong"
    reason: str = ""

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["matched_terms"] = list(self.matched_terms)
        data["matched_expansions"] = list(self.matched_expansions)
        data["notes"] = list(self.notes)
        return data

    def summary_line(self) -> str:
        parts = []
        for name, info in self.retrievers.items():
            parts.append(f"{name}#{info.get('rank')}")
        if self.matched_expansions:
            parts.append("via " + ",".join(e["term"] for e in self.matched_expansions[:3]))
        if self.time_range:
            placement = self.time_range.get("placement")
            label = f"time {self.time_range.get('text') or 'range'}"
            parts.append(f"{label} ({placement})" if placement and placement != "inside" else label)
        if self.superseded_by:
            parts.append(f"superseded by {self.superseded_by}")
        if self.replaces:
            parts.append(f"replaces {self.replaces}, which matched")
        if self.newer_on_topic:
            parts.append(f"possibly outdated: newer {self.newer_on_topic} on the same topic")
        parts.append(f"rel {self.relevance:.2f} imp {self.importance:.2f} decay {self.decay:.2f}")
        if self.confidence == "weak":
            parts.append(f"weak: {self.reason}" if self.reason else "weak")
        return " · ".join(parts)

    def detail_lines(self, score: float) -> list[str]:
        """Every number behind ``score`` for a person (``palace search --explain``): the
        weighted mix, each retriever's figures, what matched, the period, the verdict."""
        mix = " + ".join(f"{self.weights.get(name, 0.0):.2f} × {name} {value:.2f}"
                         for name, value in (("relevance", self.relevance), ("importance", self.importance),
                                             ("decay", self.decay)))
        total = sum(self.weights.get(name, 0.0) for name in ("relevance", "importance", "decay"))
        lines = [f"score {score:.3f} = ({mix}) / {total:.2f}"]
        for name, info in self.retrievers.items():
            lines.append(f"{name}: " + ", ".join(f"{key} {value}" for key, value in info.items()))
        if self.matched_terms:
            lines.append("matched: " + ", ".join(self.matched_terms))
        for e in self.matched_expansions:
            lines.append(f"via: {e['term']} ({e['relation']} of {e['from']}, weight {e['weight']})")
        if self.time_range:
            where = self.time_range.get("placement")
            lines.append(f"period: {self.time_range.get('text') or 'range'}" + (f" ({where})" if where else ""))
        if self.superseded_by:
            lines.append(f"superseded by {self.superseded_by}")
        if self.replaces:
            lines.append(f"replaces {self.replaces}, which matched the question (its current state)")
        if self.newer_on_topic:
            lines.append(f"possibly outdated: a newer memory on the same topic ({self.newer_on_topic})")
        lines.append(f"{self.confidence}: {self.reason}" if self.reason else self.confidence)
        return lines


@dataclass(frozen=True)
class SearchResult:
    memory: Memory
    score: float
    explanation: Explanation

    def to_dict(self) -> dict[str, Any]:
        return {
            "memory": self.memory.to_dict(),
            "score": self.score,
            "explanation": self.explanation.to_dict(),
        }


class SearchResults(list):
    """The results of one search, best first (a plain ``list`` of ``SearchResult``),
    carrying what the response says as a whole: ``notes`` ("no strong match…",
    "vectors unavailable…", "nothing found in '上周'…") and the
    ``time_range`` understood from the query, so that an empty answer says why."""

    def __init__(self, results=(), *, notes: tuple[str, ...] | list[str] = (),
                 time_range: dict[str, Any] | None = None):
        super().__init__(results)
        self.notes: tuple[str, ...] = tuple(notes)
        self.time_range = time_range

    def to_dict(self) -> dict[str, Any]:
        return {"results": [r.to_dict() for r in self], "notes": list(self.notes),
                "time_range": self.time_range}

    def __repr__(self) -> str:
        return f"SearchResults({list.__repr__(self)}, notes={self.notes!r}, time_range={self.time_range!r})"
