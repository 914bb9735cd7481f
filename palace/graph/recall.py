"""Graph recall results in the shape search returns, the path in the explanation."""

from __future__ import annotations

from pathlib import Path
from typing import Mapping, Sequence

from palace.decay import DecayInfo
from palace.index import row_to_memory
from palace.models import Explanation, SearchResult
from palace.graph.service import SUPERSEDED_BY, TRUNCATED_NOTE, Reached
from palace.index.rows import IndexRow


def recall_results(reached: Sequence[Reached], rows: Mapping[str, IndexRow], decay: Mapping[str, DecayInfo],
                   root: Path) -> list[SearchResult]:
    results = []
    for rank, item in enumerate((r for r in reached if r.memory_id in rows), start=1):
        row = rows[item.memory_id]
        info = decay[item.memory_id]
        memory = row_to_memory(row, root, decay_score=info.score, access_count=info.access_count,
                               last_accessed_at=info.last_accessed_at)
        relevance = round(1.0 / (1 + item.hops), 4)   # nearer in the graph, more relevant
        explanation = Explanation(
            relevance=relevance, importance=row.importance, decay=round(info.score, 4),
            weights={"relevance": 1.0}, retrievers={"graph": {"rank": rank, "hops": item.hops, "path": item.path}},
            notes=(item.path, TRUNCATED_NOTE) if item.truncated else (item.path,), superseded_by=memory.extra.get(SUPERSEDED_BY))
        results.append(SearchResult(memory=memory, score=relevance, explanation=explanation))
    return results
