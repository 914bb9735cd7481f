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

from palace.search.calibration import GRAPH_STRONG, INJECTION_COVERAGE, KEYWORD_FLOOR
from palace.search.evidence import Evidence
from palace.search.query import Query
from palace.search.retrievers import Candidates
from palace.index.rows import IndexRow

STRONG, WEAK = "strong", "weak"


@dataclass
class Case:
    """What the rules read: the query, the candidates in rank order and their evidence."""

    query: Query
    candidates: Candidates
    evidence: Evidence
    ranked: Sequence[tuple[float, int]]
    rows: Mapping[int, IndexRow]
    min_relevance: float | None = None  # MEMORY_MIN_RELEVANCE (None: the measured floors)
    injection: bool = False             # judged at the precision-first operating point


@dataclass
class Verdict:
    strength: dict[int, str] = field(default_factory=dict)
    reasons: dict[int, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def set(self, rid: int, label: str, reason: str) -> None:
        self.strength[rid] = label
        self.reasons[rid] = reason


class Rule(Protocol):
    name: str

    def apply(self, case: Case, verdict: Verdict) -> None: ...


class OwnEvidence:
    """A result is strong on its own evidence: it holds enough of the query's words
    (keyword coverage ≥ KEYWORD_FLOOR), or reads like it (a cosine at or above the
    model's floor), or the graph links it to an entity the query names, or it carries
    a tag the query names; a time-only listing is all strong. Otherwise weak.
    Injection judges the same evidence at its precision-first point: coverage ≥
    INJECTION_COVERAGE, or a cosine at the model's ``strong`` level."""

    name = "evidence"

    def apply(self, case: Case, verdict: Verdict) -> None:
        found, ev = case.candidates.found, case.evidence
        override = case.min_relevance
        for _score, rid in case.ranked:
            if case.candidates.browse:
                verdict.set(rid, STRONG, "in the period asked for")
                continue
            if override == 0:
                verdict.set(rid, STRONG, "MEMORY_MIN_RELEVANCE=0: every result is strong")
                continue
            coverage = ev.coverage.get(rid, 0.0)
            cosine = ev.cosine.get(rid)
            if override is not None:
                keyword_floor, calibrated = override, ev.calibrated(rid)
                by_vector = calibrated is not None and calibrated >= override
            else:
                keyword_floor, floor = KEYWORD_FLOOR, ev.scale.floor if ev.scale is not None else None
                if case.injection:
                    keyword_floor = INJECTION_COVERAGE
                    floor = max(floor, ev.scale.strong) if floor is not None and ev.scale is not None else None
                by_vector = cosine is not None and floor is not None and cosine >= floor
            if coverage >= keyword_floor:
                verdict.set(rid, STRONG, f"holds the question's words (keyword coverage {coverage:.2f})")
            elif by_vector:
                verdict.set(rid, STRONG, f"reads like the question (cosine {cosine:.2f})")
            elif found.get("graph", {}).get(rid, 0.0) >= GRAPH_STRONG:
                verdict.set(rid, STRONG, "linked to an entity the question names")
            elif rid in found.get("tag", {}):
                verdict.set(rid, STRONG, "carries a tag the question names")
            else:
                verdict.set(rid, WEAK, self.weak_reason(coverage, cosine))

    @staticmethod
    def weak_reason(coverage: float, cosine: float | None) -> str:
        read = f" and reads unlike it (cosine {cosine:.2f})" if cosine is not None else ""
        return f"holds little of the question (keyword coverage {coverage:.2f}){read}"


class AbsentName:
    """A question naming someone or something no memory mentions (陈静 in "陈静的生日"
    where only 妈妈's birthday is stored) cannot be answered from the palace: every
    result is weak, with the name in the reason and the note. A name counts as
    mentioned when a memory holds it, a part of it, or a concept expansion of it.
    Measured on the held-out sets (docs/search-quality.md, "The judge")."""

    name = "absent-name"

    def apply(self, case: Case, verdict: Verdict) -> None:
        postings = case.candidates.postings
        if postings is None or case.candidates.browse or case.min_relevance == 0 or not case.query.names:
            return
        absent = [name for name in case.query.names if not self.mentioned(name, case.query, postings)]
        if not absent:
            return
        said = ", ".join(repr(name) for name in absent)
        for _score, rid in case.ranked:
            verdict.set(rid, WEAK, f"no memory mentions {said}")
        verdict.notes.append(f"no memory mentions {said}: nothing here can answer it")

    @staticmethod
    def mentioned(name: str, query: Query, postings: Any) -> bool:
        from palace.text.tokenize import stem

        unit = next((u for u in query.units if u.term == name or name in u.parts), None)
        terms = [name, *(unit.parts if unit else ())]
        if any(postings.df(stem(t)) for t in terms):
            return True
        stands_for = [e for e in query.expansions if e.source == name or name in e.source]
        return any(all(postings.df(stem(t)) for t in e.terms) if e.needs_all else
                   any(postings.df(stem(t)) for t in e.terms) for e in stands_for)


class Successor:
    """A successor (palace/search/successor.py) is as much evidence as the retired memory
    that brought it: the question matched that fact, and this is its current value, often
    in other words ("moved to Paris" for "where do I live"), so its own evidence is thin.
    One the evidence left weak takes a strong stale one's strength, saying so (at the
    injection point too: the stale one was judged there, and injection skips it)."""

    name = "successor"

    def apply(self, case: Case, verdict: Verdict) -> None:
        for rid, stale in case.candidates.replaces.items():
            if verdict.strength.get(rid) == WEAK and verdict.strength.get(stale) == STRONG:
                reason = verdict.reasons.get(stale, "")
                verdict.set(rid, STRONG, f"replaces {case.rows[stale].id}, which matched"
                                         + (f": {reason}" if reason else ""))


RULES: tuple[Rule, ...] = (OwnEvidence(), Successor(), AbsentName())


def judge(case: Case, rules: Sequence[Rule] = RULES) -> Verdict:
    verdict = Verdict()
    for rule in rules:
        rule.apply(case, verdict)
    return verdict


def strong_first(ranked: Sequence[tuple[float, int]], verdict: Verdict) -> list[tuple[float, int]]:
    """The ranking with strong results before weak ones, each keeping its order."""
    return ([item for item in ranked if verdict.strength.get(item[1]) == STRONG]
            + [item for item in ranked if verdict.strength.get(item[1]) != STRONG])
