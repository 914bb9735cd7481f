"""Stage 6, the judge: is each result evidence for the query (``strong``) or not (``weak``)?

Explicit search is recall first: it returns its ranked results with their confidence,
strong ones first. Injection (``get_context``, the prompt hooks) is precision first: it
takes strong results only. One judgement serves both.

The judge is a list of small rules (``RULES``), applied in order; each says which
results it makes strong or weak and why, and the explanation shows that reason. Each
rule earned its place on held-out data (docs/search-quality.md, one row per rule).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Protocol, Sequence

from .calibration import GRAPH_STRONG, KEYWORD_FLOOR
from .evidence import Evidence
from .query import Query
from .retrievers import Candidates

STRONG, WEAK = "strong", "weak"


@dataclass
class Case:
    """What the rules read: the query, the candidates in rank order and their evidence."""

    query: Query
    candidates: Candidates
    evidence: Evidence
    ranked: Sequence[tuple[float, int]]
    rows: Mapping[int, Any]
    min_relevance: float | None = None  # MEMORY_MIN_RELEVANCE (None: the measured floors)


@dataclass
class Verdict:
    strength: dict[int, str] = field(default_factory=dict)
    reasons: dict[int, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def set(self, rid: int, label: str, reason: str | None = None) -> None:
        self.strength[rid] = label
        if reason:
            self.reasons[rid] = reason
        elif label == STRONG:
            self.reasons.pop(rid, None)


class Rule(Protocol):
    name: str

    def apply(self, case: Case, verdict: Verdict) -> None: ...


class OwnEvidence:
    """A result is strong on its own evidence: it holds enough of the query's words
    (keyword coverage ≥ KEYWORD_FLOOR), or reads like it (a cosine at or above the
    model's floor), or the graph links it to an entity the query names, or it carries
    a tag the query names; a time-only listing is all strong. Otherwise weak."""

    name = "evidence"

    def apply(self, case: Case, verdict: Verdict) -> None:
        found, ev = case.candidates.found, case.evidence
        override = case.min_relevance
        for _score, rid in case.ranked:
            if case.candidates.browse or override == 0:
                verdict.set(rid, STRONG)
                continue
            coverage = ev.coverage.get(rid, 0.0)
            cosine = ev.cosine.get(rid)
            if override is not None:
                strong = coverage >= override or (ev.calibrated(rid) or 0.0) >= override
            else:
                floor = ev.scale.floor if ev.scale is not None else None
                strong = coverage >= KEYWORD_FLOOR or (cosine is not None and floor is not None and cosine >= floor)
            strong = strong or found.get("graph", {}).get(rid, 0.0) >= GRAPH_STRONG or rid in found.get("tag", {})
            verdict.set(rid, STRONG if strong else WEAK, None if strong else self.reason(coverage, cosine))

    @staticmethod
    def reason(coverage: float, cosine: float | None) -> str:
        read = f" and reads unlike it (cosine {cosine:.2f})" if cosine is not None else ""
        return f"weak: holds little of the question (keyword coverage {coverage:.2f}){read}"


RULES: tuple[Rule, ...] = (OwnEvidence(),)


def judge(case: Case, rules: Sequence[Rule] = RULES) -> Verdict:
    verdict = Verdict()
    for rule in rules:
        rule.apply(case, verdict)
    return verdict


def strong_first(ranked: Sequence[tuple[float, int]], verdict: Verdict) -> list[tuple[float, int]]:
    """The ranking with strong results before weak ones, each keeping its order."""
    return ([item for item in ranked if verdict.strength.get(item[1]) == STRONG]
            + [item for item in ranked if verdict.strength.get(item[1]) != STRONG])
