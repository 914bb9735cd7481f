"""The best BM25 matches without scoring every posting (MaxScore), exactly.

``bm25_scores`` scores every memory holding any query word: a word held by a quarter
of a million memories costs a quarter of a million scores, though a query's best
matches are nearly always among the memories holding its rarer words. MaxScore
(Turtle & Flood, 1995) bounds what each (unit, word) pair can add to any score (its idf
times the tf part's ceiling, K1 + 1), scores the holders of the strongest pairs first to
learn the ``limit``-th best score θ, and then only the memories holding a pair whose
bounds do not sum below θ: a memory holding none of those can score at most that sum,
so it can never reach the best ``limit``. Those candidates are scored by looking their
row ids up in every pair's list (a binary search per candidate and pair), in the same
order, with the same arithmetic as ``bm25_scores``: the scores are the same floats, and
ties fall by row id (``postings.best_first``), so the picks equal a full scoring's on
both backends. When the bounds prune nothing (a query of common words only), the full
scoring is cheaper, and is what runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from palace.index.postings import (B, K1, LITERAL_BASE, Postings, Unit, best_passing, bm25_scores, idf,
                                   needed_terms, query_units)

if TYPE_CHECKING:
    import numpy as np

# Scoring a candidate means a binary search in each word's list: about 0.7 of what a
# full scoring spends on one posting, per word (measured at 1M). Candidates are scored
# only while their lookups stay under this share of every posting a full scoring reads.
CANDIDATE_SHARE = 0.5
SEED = 8            # the first candidates: the strongest pairs' holders, at least SEED × limit
SLACK = 1 + 1e-9    # ceilings rounded up: a sum of bounds is never below the sum of scores


@dataclass(frozen=True)
class Pair:
    """One scored word of one unit: where it counts, and how much it can add at most."""

    unit: Unit
    term: str
    factor: float       # the score is unit.weight × this × (LITERAL_BASE + part), or × part
    literal: bool
    ceiling: float      # the most it adds to any memory's score

    def add(self, part: "np.ndarray") -> "np.ndarray":
        """Its score for tf parts ``part``, with bm25_scores' very operations (same floats)."""
        if self.literal:
            return self.unit.weight * (self.factor * (LITERAL_BASE + part))
        return self.unit.weight * (self.factor * part / (K1 + 1))


def pairs_of(units: Sequence[Unit], term_idf: Mapping[str, float]) -> list[Pair]:
    """The (unit, word) pairs bm25_scores adds up, in its order, with their ceilings."""
    out = []
    for unit in units:
        if unit.weight == 0 or any(term not in term_idf for term in unit.required):
            continue
        for term in unit.scored:
            if term not in term_idf:
                continue
            if unit.source is None:
                factor = term_idf[term]
                ceiling = unit.weight * factor * (LITERAL_BASE + K1 + 1) * SLACK
                out.append(Pair(unit, term, factor, True, ceiling))
            else:
                factor = min(term_idf[term], term_idf.get(unit.source, term_idf[term]))
                out.append(Pair(unit, term, factor, False, unit.weight * factor * SLACK))
    return out


def score_these(postings: Mapping[str, tuple["np.ndarray", ...]], pairs: Sequence[Pair],
                candidates: "np.ndarray", avgdl: float) -> tuple["np.ndarray", "np.ndarray"]:
    """(rids, scores) of those of ``candidates`` (sorted row ids) any pair scores, as
    bm25_scores gives them: binary searches in the lists, the same per-posting
    arithmetic, added in the same order."""
    import numpy as np

    def holds(term: str) -> tuple["np.ndarray", "np.ndarray"]:
        rids = postings[term][0]
        at = np.minimum(np.searchsorted(rids, candidates), len(rids) - 1)
        return at, rids[at] == candidates

    found: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    scores = np.zeros(len(candidates), dtype=np.float64)
    scored = np.zeros(len(candidates), dtype=bool)
    for pair in pairs:
        unit = pair.unit
        at, hit = found.setdefault(pair.term, holds(pair.term))
        if tuple(unit.required) != tuple(unit.scored) or len(unit.required) > 1:
            for term in unit.required:
                hit = hit & found.setdefault(term, holds(term))[1]
        _rids, tfs, dls = postings[pair.term]
        tf = tfs[at[hit]].astype(np.float64)
        part = tf * (K1 + 1) / (tf + K1 * (1 - B + B * dls[at[hit]] / avgdl))
        scores[hit] += pair.add(part)
        scored |= hit
    return candidates[scored], scores[scored]


def best_keyword(postings: Mapping[str, tuple["np.ndarray", ...]], units: Sequence[Unit], *, docs: int,
                 total_length: int, limit: int, passing: Callable[[list[int]], set[int]],
                 passing_all: Callable[[], Any]) -> dict[int, float]:
    """The ``limit`` best memories passing the filter by BM25: what ``best_passing`` over
    ``bm25_scores`` gives (the same row ids and scores), scoring only the memories that
    can reach them. ``postings``: term → (rids, tfs, dls), rids ascending and unique."""
    import numpy as np

    term_idf = {term: idf(len(lists[0]), docs) for term, lists in postings.items() if len(lists[0])}
    pairs = pairs_of(units, term_idf)
    if not pairs:
        return {}
    looked_up = {t for p in pairs for t in (p.term, *p.unit.required)}
    budget = CANDIDATE_SHARE * sum(len(postings[p.term][0]) for p in pairs) / len(looked_up)
    avgdl = total_length / docs if docs else 1.0
    checked: dict[int, bool] = {}

    def remembered(rids: list[int]) -> set[int]:  # each row's filter asked once per search
        ask = [r for r in rids if r not in checked]
        if ask:
            ok = passing(ask)
            checked.update((r, r in ok) for r in ask)
        return {r for r in rids if checked[r]}

    def best_of(candidates: "np.ndarray") -> dict[int, float]:
        rids, scores = score_these(postings, pairs, candidates, avgdl)
        return best_passing(rids, scores, limit, remembered, passing_all)

    def full() -> dict[int, float]:
        rids, scores = bm25_scores(postings, units, docs=docs, total_length=total_length)
        return best_passing(rids, scores, limit, remembered, passing_all)

    # 1. θ from the holders of the strongest pairs (the rarest words, as a rule), while few
    strongest = sorted(range(len(pairs)), key=lambda i: -pairs[i].ceiling)
    seed = np.zeros(0, dtype=np.int64)
    for i in strongest:
        listed = postings[pairs[i].term][0]
        if len(seed) >= SEED * limit or len(seed) + len(listed) > budget / 2:
            break
        seed = np.union1d(seed, listed)
    if len(seed) < limit:
        return full()  # even the rarest word is common: nothing to prune with
    first = best_of(seed)
    if len(first) < limit:
        return full()  # fewer than limit pass among them: no bound to prune with
    theta = min(first.values())
    # 2. a memory holding only pairs whose ceilings sum below θ cannot reach the best limit
    weakest = sorted(range(len(pairs)), key=lambda i: pairs[i].ceiling)
    below, essential = 0.0, []
    for i in weakest:
        if below + pairs[i].ceiling < theta:
            below += pairs[i].ceiling
        else:
            essential.append(i)
    lists = [postings[t][0] for t in dict.fromkeys(pairs[i].term for i in essential)]
    if sum(len(listed) for listed in lists) > budget:
        return full()
    return best_of(np.unique(np.concatenate(lists)))


class KeywordScoring:
    """BM25 over an index's postings, the same code on both backends (so both rank
    identically). The index provides ``postings(terms)``, ``_passing(rids, filters)`` and
    ``filtered_rids(filters)``, and may narrow ``maybe_passing(filters)``."""

    def postings(self, terms: Any) -> Postings:
        raise NotImplementedError

    def _passing(self, rids: list[int], filters: Any) -> set[int]:
        raise NotImplementedError

    def filtered_rids(self, filters: Any) -> Any:
        raise NotImplementedError

    def maybe_passing(self, filters: Any) -> Any:
        """Row ids holding every memory that passes ``filters`` (more are checked and
        dropped): where the exact set costs more to find, an index may give a superset."""
        return self.filtered_rids(filters)

    def keyword_scores(self, groups: Sequence[tuple[float, Sequence[Any]]], filters: Any,
                       limit: int) -> dict[int, float]:
        """The ``limit`` best memories passing ``filters`` by BM25 over the groups' units
        (``query_units``; each group the user's own words or one class of concept
        expansion, with its weight)."""
        units = query_units(groups)
        return self.best_keyword(units, self.postings(needed_terms(units)), filters, limit)

    def best_keyword(self, units: Sequence[Unit], postings: Postings, filters: Any,
                     limit: int) -> dict[int, float]:
        """The ``limit`` best memories passing ``filters`` by BM25 over postings already read."""
        if not units:
            return {}
        return best_keyword(postings.lists, units, docs=postings.docs, total_length=postings.total_length,
                            limit=limit, passing=lambda some: self._passing(some, filters),
                            passing_all=lambda: self.maybe_passing(filters))
