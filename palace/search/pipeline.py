"""The search pipeline, top to bottom: request → query → retrievers → fusion → successors
→ rank → newer first → judge → explain (each stage a module of this package)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Sequence

from palace.decay import DecayParams, decay_info
from palace.index import Index, VectorStore
from palace.text.tokenize import has_han
from palace.models import SearchResults
from palace.search import retrievers
from palace.search.calibration import scale_for
from palace.search.evidence import measure
from palace.search.explain import explain
from palace.search.fusion import fuse
from palace.search.judge import Case, judge, strong_first
from palace.search.newer import reorder
from palace.search.query import analyse
from palace.search.ranking import place_in_time, rank
from palace.search.request import check_request, make_request
from palace.search.successor import join as join_successors

if TYPE_CHECKING:
    from palace.settings import Settings


@dataclass(frozen=True)
class SearchServices:
    """What a search reads from. The reasoner, expander and embedder are callables so
    that a search that does not need one never loads it (the embedder callable returns
    the embedder, or None and why it is unavailable)."""

    index: Index
    vectors: VectorStore
    settings: "Settings"
    decay_params: DecayParams
    tz: tzinfo
    root: Path
    time_reasoner: Callable[[], Any]
    concept_expander: Callable[[], Any]
    embedder: Callable[[], tuple[Any, str | None]]


def weights_of(settings: "Settings", params: DecayParams) -> dict[str, float]:
    weights = settings.search_weights
    return {"relevance": weights.relevance, "importance": weights.importance,
            "decay": weights.decay if params.enabled else 0.0}


def search(services: SearchServices, query: str, *, now: datetime, top_k: int = 10,
           tags: Sequence[str] | None = None, location: str | None = None, type: str | None = None,
           include_archived: bool = False, start: Any = None, end: Any = None,
           include_weak: bool = True, injection: bool = False) -> SearchResults:
    """Best memories for ``query``, best first, each with its score explained and its
    confidence: strong results first, then weak ones (only strong ones without
    ``include_weak``). Time words in the query name a period relative to ``now``;
    ``start``/``end`` give an exact one (end exclusive). Recording accesses is the
    caller's business."""
    settings = services.settings
    check_request(query, top_k)
    request = make_request(query, top_k=top_k, now=now, tz=services.tz,
                           reasoner=services.time_reasoner() if query.strip() else None,
                           time_filter=settings.time_filter, tags=tags, location=location, type=type,
                           include_archived=include_archived, start=start, end=end, include_weak=include_weak)
    text = request.scope.remainder
    expander = services.concept_expander() if text.strip() else None
    asked = analyse(text, expander)
    pool = max(50, top_k * 5)
    sources = retrievers.standard(services, asked, pool, now)
    candidates = retrievers.retrieve(services, request, asked, sources, pool)
    relevance = fuse(candidates, settings.search_weights.vector)
    rows = services.index.rows_by_rid(list(relevance))
    relevance, placement = place_in_time(relevance, rows, request.scope, browse=candidates.browse)
    if request.soft and placement and "inside" not in placement.values():
        candidates.add_note(f"nothing found in {request.scope.parsed.text!r}; showing matches from any time")
    relevance, rows = join_successors(services.index, relevance, rows, candidates,
                                      request.base if request.soft else request.timed,
                                      skip=candidates.browse or request.scope.parsed is not None)
    decay = decay_info(list(rows.values()), services.index.access_times([r.id for r in rows.values()]), now,
                       services.decay_params, services.tz)
    weights = weights_of(settings, services.decay_params)
    ranked = rank(relevance, rows, decay, weights, browse=candidates.browse)
    model = services.embedder()[0].name if candidates.found.get("vector") else None
    language = "zh" if has_han(asked.text) else "en"
    evidence = measure(asked, candidates.postings, [rid for _, rid in ranked], candidates.found.get("vector", {}),
                       scale_for(model, language) if model else None)
    ranked, outdated = reorder(ranked, rows, evidence, browse=candidates.browse,
                               period=request.scope.parsed is not None)
    verdict = judge(Case(asked, candidates, evidence, ranked, rows, settings.min_relevance, injection))
    ordered = strong_first(ranked, verdict)
    shown = ordered if include_weak else [item for item in ordered if verdict.strength.get(item[1]) == "strong"]
    notes = answer_notes(candidates, verdict, ordered, shown[:top_k], include_weak, evidence)
    if not ordered and "archived" not in request.base.statuses:
        notes += archived_hint(services, request, asked, sources, pool)
    results = explain(shown[:top_k], rows, relevance, candidates, sources, evidence, verdict, decay, weights,
                      placement, request.scope, request.timed, services.root, outdated)
    return SearchResults(results, notes=tuple(notes), time_range=request.scope.info())


def archived_hint(services: SearchServices, request: Any, asked: Any, sources: Sequence[Any],
                  pool: int) -> list[str]:
    """An empty answer that archived (faded) memories would fill says so: the same
    search over archived memories only, run only when nothing active matched."""
    archived = replace(request, base=replace(request.base, statuses=("archived",)),
                       timed=replace(request.timed, statuses=("archived",)))
    found = len(retrievers.retrieve(services, archived, asked, sources, pool).rids)
    if not found:
        return []
    which = "1 archived memory matches" if found == 1 else f"{found} archived memories match"
    return [f"{which}: include_archived=True (on the command line --include-archived) searches "
            "archived memories too"]


def answer_notes(candidates: retrievers.Candidates, verdict: Any, ordered: Sequence[tuple[float, int]],
                 shown: Sequence[tuple[float, int]], include_weak: bool, evidence: Any) -> list[str]:
    """What the answer as a whole says: why it is empty, or that nothing in it is strong."""
    notes = list(candidates.notes) + list(verdict.notes)
    strong = sum(1 for _, rid in ordered if verdict.strength.get(rid) == "strong")
    weak = len(ordered) - strong
    if not ordered:
        notes.append("no memory matches these words" if "bm25" in candidates.found else "nothing found")
    elif not strong and include_weak:
        notes.append("no strong match: every result below is weak (it shares little with the question)")
    elif not strong:
        notes.append(f"nothing strong ({weak} weak {'match' if weak == 1 else 'matches'} hidden: "
                     "include_weak=True, or a search without --strong-only, shows them)")
    scale = evidence.scale
    if scale is not None and not scale.measured and candidates.found.get("vector"):
        notes.append("this embedding model's cosines are not calibrated for this query's language: "
                     "vectors rank results but alone never make one strong")
    return notes
