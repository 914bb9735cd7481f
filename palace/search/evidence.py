"""What the judge reads about each candidate, measured once from what retrieval has.

- **coverage**: the share of the query's informative weight a memory holds. Each
  query word weighs its idf in the palace (counted as SMALL_PALACE memories at least); a memory holding only a part of it
  (数据 of 数据库) gets PART_CREDIT of it, one holding a concept expansion of it the
  expansion's weight. From the postings the keyword retriever read: no text is read.
- **cosine**: the memory's best-chunk cosine, and that cosine on the model's scale.
- **held**: the query words and expansions each memory holds (its explanation);
- **profile**: per query word, the idf weight a memory holds of it (how ``newer``
  tells two results that match the query through the same words).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from palace.index.postings import Postings, idf
from palace.text.tokenize import stem
from palace.search.calibration import PART_CREDIT, SMALL_PALACE, CosineScale
from palace.search.query import Query


@dataclass
class Evidence:
    coverage: dict[int, float] = field(default_factory=dict)
    held_idf: dict[int, float] = field(default_factory=dict)  # the idf the coverage counts, unscaled
    # held idf per query unit (units × candidates) and each candidate's column: only the
    # best few are ever compared (``newer``), so no row is built per candidate
    weighted: Any = None
    column: dict[int, int] = field(default_factory=dict)
    cosine: dict[int, float] = field(default_factory=dict)
    words: dict[int, tuple[str, ...]] = field(default_factory=dict)      # own words held
    expansions: dict[int, tuple[Any, ...]] = field(default_factory=dict)  # Expanded held
    scale: CosineScale | None = None

    def calibrated(self, rid: int) -> float | None:
        cosine = self.cosine.get(rid)
        return None if cosine is None or self.scale is None else self.scale.relevance(cosine)

    def profiles(self, rids: Sequence[int]) -> dict[int, tuple[float, ...]]:
        """Per candidate of ``rids`` measured, the idf it holds of each query unit."""
        if self.weighted is None:
            return {}
        return {rid: tuple(self.weighted[:, self.column[rid]].tolist()) for rid in rids if rid in self.column}


def measure(query: Query, postings: Postings | None, rids: Sequence[int], cosines: dict[int, float],
            scale: CosineScale | None) -> Evidence:
    """The evidence of every candidate in ``rids``."""
    import numpy as np

    out = Evidence(cosine={rid: cosines[rid] for rid in rids if rid in cosines}, scale=scale)
    if postings is None or not rids or not query.units:
        return out
    order = np.asarray(list(rids), dtype=np.int64)
    wanted = {stem(t) for u in query.units for t in (u.term, *u.parts)}
    wanted |= {stem(t) for e in query.expansions for t in e.terms}
    held = postings.holding(wanted, order)
    docs = max(postings.docs, SMALL_PALACE)
    weights = [idf(postings.df(stem(u.term)), docs) for u in query.units]
    # per expansion, which candidates hold it (all of a phrase, any of a segmented word)
    holds = [(np.logical_and if e.needs_all else np.logical_or).reduce([held[stem(t)] for t in e.terms])
             for e in query.expansions]
    credit = np.zeros((len(query.units), len(order)))
    for i, unit in enumerate(query.units):
        for part in unit.parts:
            credit[i] = np.maximum(credit[i], PART_CREDIT * held[stem(part)])
        for exp, hit in zip(query.expansions, holds):
            if exp.source == unit.term or exp.source in unit.parts or unit.term in exp.source:
                credit[i] = np.maximum(credit[i], exp.weight * hit)
        credit[i] = np.where(held[stem(unit.term)], 1.0, credit[i])
    total = sum(weights) or 1.0
    weighted = np.asarray(weights)[:, None] * credit  # units × candidates
    held_idf = weighted.sum(axis=0)
    coverage = held_idf / total
    own = [(w, held[stem(w)].tolist()) for w in query.words if stem(w) in held]
    # an expansion is shown as the reason ("via 终端用户") only when the memory holds it
    # through a word of its own: a segmented expansion whose only held part is one of the
    # query's words (用户 of 终端用户) says nothing the matched words don't
    own_stems = {stem(t) for u in query.units for t in (u.term, *u.parts)}
    shown = [hit if e.needs_all else np.logical_or.reduce(
                 [held[stem(t)] for t in e.terms if stem(t) not in own_stems] or [np.zeros(len(order), bool)])
             for e, hit in zip(query.expansions, holds)]
    expansions = [(e, hit.tolist()) for e, hit in zip(query.expansions, shown)]
    out.weighted = weighted
    for col, rid in enumerate(order.tolist()):
        out.column[rid] = col
        out.coverage[rid] = float(coverage[col])
        out.held_idf[rid] = float(held_idf[col])
        out.words[rid] = tuple(w for w, mask in own if mask[col])
        out.expansions[rid] = tuple(e for e, mask in expansions if mask[col])
    return out
