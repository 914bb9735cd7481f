"""Stage 7, explain: each result with every number that went into its score and why
it is strong or weak."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Sequence

from palace.decay import DecayInfo
from palace.index import Filters, row_to_memory
from palace.models import Explanation, SearchResult
from palace.search.evidence import Evidence
from palace.search.judge import Verdict
from palace.search.request import TimeScope
from palace.search.retrievers import Candidates, Retriever, Scores
from palace.search.ranking import superseded_by
from palace.index.rows import IndexRow


def filter_info(filters: Filters) -> dict[str, Any]:
    return {k: v for k, v in {"tags": list(filters.tags), "location": filters.location,
                              "type": filters.type, "statuses": list(filters.statuses)}.items() if v}


def ranks(scores: Scores) -> dict[int, int]:
    """Row id → its rank among one retriever's candidates (1 = best; ties keep order)."""
    return {rid: i + 1 for i, (rid, _) in enumerate(sorted(scores.items(), key=lambda kv: -kv[1]))}


def retriever_info(sources: Sequence[Retriever], candidates: Candidates, rank_of: Mapping[str, Mapping[int, int]],
                   evidence: Evidence, rid: int) -> dict[str, dict[str, Any]]:
    labels = {s.name: s.score_label for s in sources} | {"time": "listed", "successor": "relevance"}
    info = {name: {"rank": rank_of[name][rid], labels.get(name, "score"): round(scores[rid], 4)}
            for name, scores in candidates.found.items() if rid in scores}
    if "bm25" in info and rid in evidence.coverage:
        info["bm25"]["coverage"] = round(evidence.coverage[rid], 4)
        info["bm25"]["held_idf"] = round(evidence.held_idf.get(rid, 0.0), 3)
    if "vector" in info and evidence.calibrated(rid) is not None:
        info["vector"]["relevance"] = round(evidence.calibrated(rid) or 0.0, 4)
    return info


def explain(ranked: Sequence[tuple[float, int]], rows: Mapping[int, IndexRow], relevance: Scores,
            candidates: Candidates, sources: Sequence[Retriever], evidence: Evidence, verdict: Verdict,
            decay: Mapping[str, DecayInfo], weights: dict[str, float], placement: Mapping[int, str],
            scope: TimeScope, filters: Filters, root: Path,
            outdated: Mapping[int, int] | None = None) -> list[SearchResult]:
    period = scope.info()
    shown_filters = filter_info(filters)
    rank_of = {name: ranks(scores) for name, scores in candidates.found.items()}
    results = []
    for score, rid in ranked:
        row = rows[rid]
        info = decay[row.id]
        retired = superseded_by(row)
        memory = row_to_memory(row, root, decay_score=info.score, access_count=info.access_count,
                               last_accessed_at=info.last_accessed_at)
        replaces = rows[candidates.replaces[rid]].id if rid in candidates.replaces else None
        notes = tuple(candidates.notes) + ((f"superseded by {retired}",) if retired else ())
        retrieved = retriever_info(sources, candidates, rank_of, evidence, rid)
        if replaces:
            retrieved["successor"]["replaces"] = replaces
        explanation = Explanation(
            relevance=round(relevance[rid], 4), importance=row.importance, decay=round(info.score, 4),
            weights=weights, retrievers=retrieved,
            matched_terms=evidence.words.get(rid, ()),
            matched_expansions=tuple({"term": e.term, "from": e.source, "relation": e.relation, "weight": e.weight}
                                     for e in evidence.expansions.get(rid, ())),
            time_range=dict(period, placement=placement[rid]) if period and rid in placement else period,
            filters=shown_filters, superseded_by=retired, replaces=replaces, notes=notes,
            newer_on_topic=rows[outdated[rid]].id if outdated and rid in outdated else None,
            confidence=verdict.strength.get(rid, "strong"), reason=verdict.reasons.get(rid, ""))
        results.append(SearchResult(memory=memory, score=round(score, 6), explanation=explanation))
    return results
