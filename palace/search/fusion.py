"""Stage 4, fusion: one relevance in [0, 1] per candidate from every retriever.

Keyword and vector scores are each divided by their best candidate's and mixed by the
vector share (MEMORY_SEARCH_WEIGHTS ``vector``); the scale-free normalised mix was
measured against calibrated and rank fusions and kept (docs/search-quality.md). A
graph link or a tag the query names then adds as a probabilistic "or"
(r + s·(1 − r)), never past 1, never tying what the text told apart.
"""

from __future__ import annotations

from typing import Mapping

from palace.search.calibration import GRAPH_SHARE, TAG_SHARE
from palace.search.retrievers import Candidates, Scores



def normalise(scores: Mapping[int, float]) -> Scores:
    """Divide by the best score, so the best candidate of a retriever gets 1.0."""
    if not scores:
        return {}
    best = max(scores.values())
    if best <= 0:
        return {key: 0.0 for key in scores}
    return {key: max(0.0, value) / best for key, value in scores.items()}


def fuse(candidates: Candidates, vector_share: float) -> Scores:
    if candidates.browse:
        return dict(candidates.found.get("time", {}))
    keyword = normalise(candidates.found.get("bm25", {}))
    vector = normalise(candidates.found.get("vector", {}))
    if vector:
        fused = {rid: (1.0 - vector_share) * keyword.get(rid, 0.0) + vector_share * vector.get(rid, 0.0)
                 for rid in set(keyword) | set(vector)}
    else:
        fused = dict(keyword)
    for name, share in (("graph", GRAPH_SHARE), ("tag", TAG_SHARE)):
        for rid, score in candidates.found.get(name, {}).items():
            text = fused.get(rid, 0.0)
            fused[rid] = text + share * score * (1.0 - text)
    return fused
