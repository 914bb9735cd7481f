"""The search pipeline: time words → concept expansion → BM25 and vector candidates
→ fusion → importance and decay → explained results (DESIGN.md, "Search pipeline").

Functions over a ``MemoryPalaceManager`` (``MemoryPalaceManager.search`` calls
``search`` here), kept apart from the manager's storage and bookkeeping.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from typing import TYPE_CHECKING, Any, Sequence

from .errors import EmbedderUnavailableError, InvalidInputError
from .index import Filters, row_to_memory
from .floor import fused_relevance, measure
from .models import Explanation, SearchResult, SearchResults
from .postings import stem
from .retrieval import document_stems, final_score, matched_terms, phrase_words, term_groups
from .tokenize import query_terms
from .validation import coerce_datetime, normalize_location, normalize_tags, validate_word

if TYPE_CHECKING:
    from .manager import MemoryPalaceManager

MAX_QUERY_CHARS = 4000
# A search embeds at most this many un-embedded memories first (a slow model does ~15
# chunks/s on 2 cores); `palace reindex --vectors` / pm.embed_pending() do the rest.
VECTOR_BACKFILL_PER_SEARCH = 256
LATE_GRACE = timedelta(days=30)
LATE_FACTOR = 0.7
OUTSIDE_FACTOR = 0.5  # soft time filter: a memory outside the period keeps half its relevance


def search(pm: "MemoryPalaceManager", query: str, *, top_k: int = 10, now: Any = None,
           tags: Sequence[str] | None = None, location: str | None = None,
           type: str | None = None, include_archived: bool = False,
           start: Any = None, end: Any = None, record_access: bool = True,
           include_weak: bool = False) -> SearchResults:
    """Best memories for ``query``, best first, each with its score explained.

    Time words in the query ("上周", "last Friday") become a time filter relative
    to ``now``; ``start``/``end`` give an explicit range (end exclusive). Results
    below the relevance floor (palace/relevance.py) are left out unless
    ``include_weak``, then marked ``explanation.confidence == "weak"``. What
    ``MEMORY_REINFORCE`` says counts as accessed at ``now``; weak results never do.
    """
    if not isinstance(query, str):
        raise InvalidInputError("query must be a string")
    if len(query) > MAX_QUERY_CHARS:
        raise InvalidInputError(f"query is {len(query)} characters; keep it under {MAX_QUERY_CHARS}")
    if not isinstance(top_k, int) or isinstance(top_k, bool) or top_k < 1 or top_k > 1000:
        raise InvalidInputError(f"top_k must be an integer from 1 to 1000, got {top_k!r}")
    when = pm._coerce_now(now)
    notes: list[str] = []
    remainder = query.strip()
    time_range = None
    start_dt = coerce_datetime(start, tz=pm.tz, what="start") if start is not None else None
    end_dt = coerce_datetime(end, tz=pm.tz, what="end") if end is not None else None
    if start_dt and end_dt and start_dt >= end_dt:
        raise InvalidInputError("start must be before end")
    if pm.settings.time_reasoning_enabled and remainder:
        parsed = pm.time_reasoner.parse(remainder, now=when)
        if parsed is not None and parsed.end > parsed.start:
            time_range = parsed
            remainder = parsed.remainder
            start_dt = max(start_dt, parsed.start) if start_dt else parsed.start
            end_dt = min(end_dt, parsed.end) if end_dt else parsed.end
    if not remainder.strip() and start_dt is None and end_dt is None:
        raise InvalidInputError("query is empty: give words to search for or a time range")
    statuses = ("active", "archived") if include_archived else ("active",)
    # Things get written down after they happen ("went camping last week", noted
    # on Monday), so a range parsed from the query also admits memories created
    # shortly after it (one period, at most LATE_GRACE), ranked lower. Nothing
    # from before the range is admitted, and explicit start/end stay exact.
    window_end = end_dt
    if time_range is not None and end_dt is not None and end is None and start_dt is not None:
        window_end = end_dt + min(end_dt - start_dt, LATE_GRACE)
    base_filters = Filters(statuses=statuses, tags=normalize_tags(tags),
                           location=normalize_location(location) if location else None,
                           type=validate_word(type, "type") if type else None)
    filters = replace(base_filters, start_ts=start_dt.timestamp() if start_dt else None,
                      end_ts=window_end.timestamp() if window_end else None)
    own_terms = query_terms(remainder)
    expansions = []
    if pm.settings.concepts_enabled and remainder.strip():
        expansions = pm.concept_expander.expand(remainder)
    groups = term_groups(own_terms, expansions)
    pool = max(50, top_k * 5)

    def retrieve(active_filters: Filters) -> tuple[dict[int, float], dict[int, float]]:
        kw = (pm.index.keyword_scores([(g.weight, g.units) for g in groups], active_filters, pool)
              if groups else {})
        vec, vector_note = vector_scores(pm, remainder, active_filters, pool)
        if vector_note and vector_note not in notes:
            notes.append(vector_note)
        return kw, vec

    def relevance_of(kw: dict[int, float], vec: dict[int, float]):
        model = pm.embedder.name if vec and pm.embedder is not None else None
        measured = measure(pm.index, own_terms, groups, kw, vec, model_name=model,
                           override=pm.settings.min_relevance)
        return measured, fused_relevance(kw, vec, measured, vector_share=pm.settings.weight_vector)

    # soft: the period ranks memories (inside first) instead of excluding the rest;
    # a question about *when something happened* often finds its answer in a
    # memory written at another time ("on Sunday the rota changes", said Wednesday)
    soft = (pm.settings.time_filter == "soft" and time_range is not None
            and start is None and end is None)
    keyword, vector = retrieve(base_filters if soft else filters)
    measured, relevance = relevance_of(keyword, vector)
    browse = False
    if not relevance and not own_terms and (start_dt or end_dt):
        # a query that is only a time ("上周") lists that period, newest first
        browse = True
        rows = pm.index.list_rows(replace(filters, end_ts=end_dt.timestamp() if end_dt else None),
                                    limit=pool)
        relevance = {row["rid"]: 1.0 for row in rows}
        notes.append("time-only query: memories of the period, newest first")
    elif not relevance and time_range is not None and not soft and start is None and end is None:
        # nothing at all in that period: better the best matches from any time,
        # clearly labelled, than an empty answer
        keyword, vector = retrieve(base_filters)
        measured, relevance = relevance_of(keyword, vector)
        if relevance:
            notes.append(f"nothing found in {time_range.text!r}; showing matches from any time")
    rows_by_rid = pm.index.rows_by_rid(list(relevance))
    rows = list(rows_by_rid.values())
    placement: dict[int, str] = {}
    if time_range is not None and not browse and start_dt is not None and end_dt is not None:
        start_ts, end_ts = start_dt.timestamp(), end_dt.timestamp()
        point = getattr(time_range, "point", None)
        point_ts = point.timestamp() if point is not None else None
        late_ts = window_end.timestamp() if window_end else end_ts
        for rid, row in rows_by_rid.items():
            created_ts = row["created_ts"]
            if start_ts <= created_ts < end_ts:
                placement[rid] = "inside"
                if point_ts is not None:  # "两周前": the closer to that day, the better
                    relevance[rid] *= closeness(created_ts, point_ts, start_ts, end_ts)
            elif end_ts <= created_ts < late_ts:
                placement[rid] = "late"
                relevance[rid] *= LATE_FACTOR
            else:
                placement[rid] = "outside"
                relevance[rid] *= OUTSIDE_FACTOR
        if soft and placement and "inside" not in placement.values():
            notes.append(f"nothing found in {time_range.text!r}; showing matches from any time")
    info = pm._decay_info(rows, when)
    weights = {"relevance": pm.settings.weight_relevance,
               "importance": pm.settings.weight_importance,
               "decay": pm.settings.weight_decay if pm.decay_params.enabled else 0.0}
    scored = []
    for rid, rel in relevance.items():
        row = rows_by_rid.get(rid)
        if row is None:
            continue
        decay_score = info[row["id"]][0]
        score = final_score(rel, row["importance"], decay_score, w_relevance=weights["relevance"],
                            w_importance=weights["importance"], w_decay=weights["decay"])
        recency = row["created_ts"] if browse else 0.0
        scored.append((score, recency, rid))
    scored.sort(key=lambda item: (-item[0], -item[1]))
    strength = {rid: ("strong" if browse else
                      measured.confidence(rid, vector.get(rid))) for _, _, rid in scored}
    weak_hidden = 0
    if not include_weak:
        weak_hidden = sum(1 for _, _, rid in scored if strength[rid] == "weak")
        scored = [item for item in scored if strength[item[2]] == "strong"]
        if weak_hidden and not scored:
            notes.append(f"nothing above the relevance floor ({weak_hidden} weak matches hidden; "
                         "include_weak=True / --include-weak shows them)")
    if measured.scale is not None and not measured.scale.measured and vector:
        notes.append("the relevance floor is not calibrated for this embedding model: "
                     "vector matches are not filtered")
    if not scored and not weak_hidden and not any(n.startswith("nothing") for n in notes):
        notes.append("no memory matches these words" if own_terms else "nothing found")
    scored = scored[:top_k]
    kw_rank = {rid: i + 1 for i, (rid, _) in enumerate(sorted(keyword.items(), key=lambda kv: -kv[1]))}
    vec_rank = {rid: i + 1 for i, (rid, _) in enumerate(sorted(vector.items(), key=lambda kv: -kv[1]))}
    results = []
    time_info = None
    if time_range is not None:
        time_info = {"text": time_range.text, "start": time_range.start.isoformat(),
                     "end": time_range.end.isoformat()}
    elif start_dt or end_dt:
        time_info = {"text": None, "start": start_dt.isoformat() if start_dt else None,
                     "end": end_dt.isoformat() if end_dt else None}
    filter_info = {k: v for k, v in {"tags": list(filters.tags), "location": filters.location,
                                      "type": filters.type, "statuses": list(statuses)}.items() if v}
    for score, _recency, rid in scored:
        row = rows_by_rid[rid]
        retrievers: dict[str, dict[str, Any]] = {}
        if rid in keyword:
            retrievers["bm25"] = {"rank": kw_rank[rid], "score": round(keyword[rid], 4),
                                  "coverage": round(measured.coverage.get(rid, 0.0), 4)}
        if rid in vector:
            retrievers["vector"] = {"rank": vec_rank[rid], "cosine": round(vector[rid], 4),
                                    "relevance": round(measured.vector.get(rid, 0.0), 4)}
        doc_stems = document_stems(row["content"], row["summary"], row["tags"]) if rid in keyword else set()
        matched = matched_terms(own_terms, doc_stems)
        matched_exp = []
        for group in groups[1 if own_terms else 0:]:
            hits = set(matched_terms(group.terms, doc_stems))
            for expansion in group.expansions:
                words = phrase_words(expansion.term)
                found = (all(stem(w) in doc_stems for w in words) if words
                         else hits & set(query_terms(expansion.term)))
                if found:
                    matched_exp.append({"term": expansion.term, "from": expansion.source,
                                        "relation": expansion.relation, "weight": expansion.weight})
        memory = row_to_memory(row, pm.root, decay_score=info[row["id"]][0],
                               access_count=info[row["id"]][1], last_accessed_at=info[row["id"]][2])
        explanation = Explanation(
            relevance=round(relevance[rid], 4), importance=row["importance"],
            decay=round(info[row["id"]][0], 4), weights=weights, retrievers=retrievers,
            matched_terms=tuple(matched), matched_expansions=tuple(matched_exp),
            time_range=(dict(time_info, placement=placement[rid]) if time_info and rid in placement
                        else time_info),
            filters=filter_info, notes=tuple(notes), confidence=strength[rid])
        results.append(SearchResult(memory=memory, score=round(score, 6), explanation=explanation))
    if record_access:
        strong = [r.memory.id for r in results if r.explanation.confidence == "strong"]
        reinforced = {"returned": strong, "top": strong[:1], "used": []}[pm.settings.reinforce]
        if reinforced:
            pm.record_access(reinforced, at=when, kind="search")
    return SearchResults(results, notes=tuple(notes), time_range=time_info)


POINT_FALLOFF = 0.3  # at the edge of an "N units ago" window a memory keeps 70 %


def closeness(created_ts: float, point_ts: float, start_ts: float, end_ts: float) -> float:
    """1 on the day meant by "N units ago", falling linearly to 1 − POINT_FALLOFF at
    the edge of its tolerance window."""
    half = max(point_ts - start_ts, end_ts - point_ts, 1.0)
    return 1.0 - POINT_FALLOFF * min(1.0, abs(created_ts - point_ts) / half)

def vector_scores(pm: "MemoryPalaceManager", text: str, filters: Filters,
                  pool: int) -> tuple[dict[int, float], str | None]:
    if not pm.settings.vector_enabled or not text.strip():
        return {}, None
    embedder = pm.embedder
    if embedder is None:
        return {}, pm._embedder_error
    try:
        pm._vectors.backfill(embedder, limit=VECTOR_BACKFILL_PER_SEARCH,
                               batch_size=pm.settings.vector_batch_size)
        query_vector = embedder.embed_query(text)
        model_name = embedder.name  # an HTTP embedder may have to ask the sidecar
    except EmbedderUnavailableError as exc:
        return {}, f"vectors unavailable ({exc}); keyword search only"
    except Exception as exc:  # the model or sidecar failed: fall back, say so
        return {}, f"vectors failed ({type(exc).__name__}: {exc}); keyword search only"
    allowed = None
    if filters != Filters(statuses=filters.statuses):
        allowed = pm.index.filtered_rids(filters)
    return pm._vectors.scores(model_name, query_vector, allowed=allowed, limit=pool,
                                statuses=filters.statuses), None
