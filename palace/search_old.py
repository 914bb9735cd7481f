"""The search pipeline (DESIGN.md, "Search pipeline"), as a sequence of named stages.

``search`` runs them in order; each is a small function over explicit inputs, so
each can be tested alone and a new retriever (a graph, a second backend) is one
more ``Retriever`` in the list ``retrievers`` builds:

1. ``check_request``   the query and ``top_k`` are acceptable
2. ``parse_time``      time words → a period (``TimeScope``), removed from the query
3. ``make_filters``    tags, room, type, statuses (and the period) → ``Filters``
4. ``expand_concepts`` the query's own terms plus weighted concept expansions
5. ``retrievers``      BM25 and vector candidates, each a ``Retriever``
6. ``collect``         gather every retriever's scores and ``fuse`` them; browse a
                       time-only query; widen to any time when the period is empty
7. ``place_in_time``   inside / late / outside the period: relevance scaled
8. ``rank``            relevance mixed with importance and decay
9. ``apply_floor``     results below the relevance floor left out (or marked weak)
10. ``explain``        each result with every number that went into its score

The collaborators come in one ``SearchServices`` (index, vectors, settings,
decay parameters, time zone, and the time reasoner, concept expander and
embedder, loaded only when a query needs them); ``MemoryPalaceManager.search``
builds it and records the accesses afterwards.
"""

from __future__ import annotations

import json
import re

from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from . import limits
from .decay import DecayInfo, DecayParams, decay_info
from .errors import EmbedderUnavailableError, InvalidInputError
from .index import Filters, Index, VectorStore, row_to_memory
from . import floor
from .floor import Measured, fused_relevance, measure, names_no_one
from .models import Explanation, SearchResult, SearchResults
from .retrieval import (TermGroup, document_stems, final_score, matched_terms, phrase_words,
                        term_groups)
from .tokenize import query_terms, stem
from .validation import coerce_datetime, normalize_location, normalize_tags, validate_query, validate_word

if TYPE_CHECKING:
    from .settings import Settings

MAX_QUERY_CHARS = limits.MAX_QUERY_CHARS  # every limit lives in palace/limits.py
# A search embeds at most this many un-embedded memories first (a slow model does ~15
# chunks/s on 2 cores); `palace reindex --vectors` / pm.embed_pending() do the rest.
VECTOR_BACKFILL_PER_SEARCH = 256
GRAPH_DEPTH = 1    # hops the graph retriever follows from the entities a query names
GRAPH_SHARE = 0.3  # the most graph closeness adds to a candidate's relevance
TAG_SHARE = 0.3    # what a tag named in the query (#tag, project/palace) adds, descendants included
GRAPH_SMALL_PALACE = 20  # graph_specificity: the smallest palace size it divides by
GRAPH_STRONG = 0.5  # a graph score (closeness × specificity) that is evidence of its own
LATE_GRACE = timedelta(days=30)
LATE_FACTOR = 0.7
OUTSIDE_FACTOR = 0.5  # soft time filter: a memory outside the period keeps half its relevance

Scores = dict[int, float]  # memory row id → a retriever's score
Row = Any                  # an index row (sqlite3.Row: read by column name)


@dataclass(frozen=True)
class SearchServices:
    """What a search reads from. The reasoner, expander and embedder are callables
    so that a search that does not need one never loads it (the embedder callable
    returns the embedder, or None and why it is unavailable)."""

    index: Index
    vectors: VectorStore
    settings: "Settings"
    decay_params: DecayParams
    tz: tzinfo
    root: Path
    time_reasoner: Callable[[], Any]
    concept_expander: Callable[[], Any]
    embedder: Callable[[], tuple[Any, str | None]]


# ---------------------------------------------------------------------- 1-3: the request


def check_request(query: object, top_k: object) -> None:
    validate_query(query)  # the same check as get_context and bootstrap
    top = limits.MAX_API_TOP_K
    if not isinstance(top_k, int) or isinstance(top_k, bool) or top_k < 1 or top_k > top:
        raise InvalidInputError(f"top_k must be an integer from 1 to {top}, got {top_k!r}")


@dataclass(frozen=True)
class TimeScope:
    """The period a search is about. ``parsed`` is the time expression found in the
    query (None without one); ``explicit`` says ``start``/``end`` were given;
    ``window_end`` admits memories written shortly after a parsed period."""

    remainder: str
    parsed: Any = None
    start: datetime | None = None
    end: datetime | None = None
    window_end: datetime | None = None
    explicit: bool = False

    @property
    def bounded(self) -> bool:
        return self.start is not None or self.end is not None


def parse_time(query: str, *, start: Any, end: Any, now: datetime, tz: tzinfo,
               reasoner: Any = None) -> TimeScope:
    """Find the period: from the query's time words (``reasoner``, None when time
    reasoning is off) narrowed by an explicit ``start``/``end`` (end exclusive)."""
    remainder = query.strip()
    parsed = None
    start_dt = coerce_datetime(start, tz=tz, what="start") if start is not None else None
    end_dt = coerce_datetime(end, tz=tz, what="end") if end is not None else None
    if start_dt and end_dt and start_dt >= end_dt:
        raise InvalidInputError("start must be before end")
    if reasoner is not None and remainder:
        found = reasoner.parse(remainder, now=now)
        if found is not None and found.end > found.start:
            parsed = found
            remainder = found.remainder
            start_dt = max(start_dt, found.start) if start_dt else found.start
            end_dt = min(end_dt, found.end) if end_dt else found.end
    if not remainder.strip() and start_dt is None and end_dt is None:
        raise InvalidInputError("query is empty: give words to search for or a time range")
    # Things get written down after they happen ("went camping last week", noted
    # on Monday), so a range parsed from the query also admits memories created
    # shortly after it (one period, at most LATE_GRACE), ranked lower. Nothing
    # from before the range is admitted, and explicit start/end stay exact.
    window_end = end_dt
    if parsed is not None and end_dt is not None and end is None and start_dt is not None:
        window_end = end_dt + min(end_dt - start_dt, LATE_GRACE)
    return TimeScope(remainder=remainder, parsed=parsed, start=start_dt, end=end_dt,
                     window_end=window_end, explicit=start is not None or end is not None)


def make_filters(scope: TimeScope, *, tags: Sequence[str] | None, location: str | None,
                 type: str | None, include_archived: bool) -> tuple[Filters, Filters]:
    """(filters without the period, filters with it)."""
    statuses = ("active", "archived") if include_archived else ("active",)
    base = Filters(statuses=statuses, tags=normalize_tags(tags),
                   location=normalize_location(location) if location else None,
                   type=validate_word(type, "type") if type else None)
    timed = replace(base, start_ts=scope.start.timestamp() if scope.start else None,
                    end_ts=scope.window_end.timestamp() if scope.window_end else None)
    return base, timed


# ---------------------------------------------------------------------- 4: terms


@dataclass(frozen=True)
class QueryTerms:
    own: tuple[str, ...]            # the user's own words
    groups: tuple[TermGroup, ...]   # own words and each class of expansion, weighted


def expand_concepts(remainder: str, expander: Any = None) -> QueryTerms:
    """The query's own terms and, with an ``expander``, its concept expansions."""
    own = query_terms(remainder)
    expansions = expander.expand(remainder) if expander is not None and remainder.strip() else []
    return QueryTerms(own=tuple(own), groups=tuple(term_groups(own, expansions)))


def strong_relevance(candidates: Candidates) -> Scores:
    """The candidates that clear the relevance floor on their own evidence."""
    vector = candidates.found.get("vector", {})
    return {rid: score for rid, score in candidates.relevance.items()
            if candidates.measured.confidence(rid, vector.get(rid)) == "strong"
            or candidates.found.get("graph", {}).get(rid, 0.0) >= GRAPH_STRONG}


def feedback_sources(relevance: Scores) -> list[int]:
    """The first results feedback reads its words from (palace/feedback.py)."""
    from .feedback import FEEDBACK_DOCS

    return sorted(relevance, key=lambda rid: -relevance[rid])[:FEEDBACK_DOCS]


def keep_first_pass(candidates: Candidates, first: Candidates, sources: Sequence[int]) -> None:
    """Feedback finds *other* memories: the ones its words came from keep their
    first-pass keyword score and relevance (their own words would only lift them, and
    claim a keyword match the question never made)."""
    bm25 = candidates.found.setdefault("bm25", {})
    for rid in sources:
        if rid in first.found.get("bm25", {}):
            bm25[rid] = first.found["bm25"][rid]
        else:
            bm25.pop(rid, None)
        if rid in first.relevance:
            candidates.relevance[rid] = first.relevance[rid]


def keep_question_evidence(candidates: Candidates, first: Candidates) -> None:
    """Vector feedback moves the question's vector: that ranks the second pass, but a
    result's cosine (shown, and judged by the floor) stays its cosine to the question
    itself, as measured in the first pass; a memory only the moved vector found has
    no vector evidence."""
    from .relevance import cosine_relevance

    if "vector" not in candidates.found:
        return
    asked = first.found.get("vector", {})
    candidates.found["vector"] = {rid: asked[rid] for rid in candidates.found["vector"] if rid in asked}
    scale = candidates.measured.scale
    if scale is not None:
        candidates.measured.vector = {rid: cosine_relevance(c, scale)
                                      for rid, c in candidates.found["vector"].items()}


def feedback_terms(index: Index, terms: QueryTerms, relevance: Scores) -> QueryTerms | None:
    """The query's terms plus pseudo-relevance feedback from the best first results
    (palace/feedback.py); None when there is nothing to add."""
    from .feedback import feedback_expansions

    best = feedback_sources(relevance)
    rows = index.rows_by_rid(best)
    texts = [rows[rid]["content"] for rid in best if rid in rows]
    added = feedback_expansions(texts, index, terms.own)
    if not added:
        return None
    concept = [e for group in terms.groups[1 if terms.own else 0:] for e in group.expansions]
    return QueryTerms(own=terms.own, groups=tuple(term_groups(list(terms.own), concept + added)))


def with_vector_neighbours(expander: Any, services: SearchServices) -> Any:
    """The concept expander with ``neighbour_fn`` = palace words near a query word by
    vectors (palace/feedback.py); unchanged when no embedder is available."""
    from .concepts import ConceptExpander
    from .feedback import neighbours_for

    embedder, _why = services.embedder()
    if embedder is None:
        return expander

    def nearest(vector: Any, k: int) -> list[str]:
        # the same catch-up as the vector retriever's, so both read one state of the vectors
        services.vectors.backfill(embedder, limit=VECTOR_BACKFILL_PER_SEARCH,
                                  batch_size=services.settings.vector_batch_size)
        found = services.vectors.scores(embedder.name, vector, allowed=None, limit=k)
        rows = services.index.rows_by_rid(list(found))
        return [rows[rid]["content"] for rid in found if rid in rows]

    return ConceptExpander(expander.groups, neighbour_fn=neighbours_for(embedder, nearest, services.index))


# ---------------------------------------------------------------------- 5: retrievers


@dataclass(frozen=True)
class Retriever:
    """One source of candidates. ``scores(filters)`` returns (row id → score, a note
    for the user or None); ``name`` keys it in the explanation, where its score
    appears under ``score_label``."""

    name: str
    score_label: str
    scores: Callable[[Filters], tuple[Scores, str | None]]
    # the scores fusion ranks by, from the ones shown (None: the same): the vector
    # retriever ranks a memory by its best chunks, shows and is judged by its best one
    ranking: Callable[[Scores], Scores] | None = None


def keyword_retriever(index: Index, terms: QueryTerms, pool: int, *, turns: bool = True) -> Retriever:
    """BM25 over whole memories; with ``turns`` (MEMORY_DIALOGUE_TURNS), a dialogue
    among the candidates is scored by its best turn (``by_best_turn``)."""
    units = [(g.weight, g.units) for g in terms.groups]

    def scores(filters: Filters) -> tuple[Scores, str | None]:
        found = index.keyword_scores(units, filters, pool) if units else {}
        return (by_best_turn(index, found, units) if turns and found else found), None

    return Retriever("bm25", "score", scores)


def by_best_turn(index: Index, found: Scores, groups: Sequence[tuple[float, Sequence[Any]]]) -> Scores:
    """The keyword candidates, a dialogue among them scored by its best turn instead
    of as a whole (palace/turns.py); one whose words no single turn holds drops out.
    Only memories the keyword retriever found can have a matching turn."""
    from .index.postings import query_units
    from .turns import turn_scores

    rows = index.rows_by_rid(list(found))
    turns = turn_scores({rid: row["content"] for rid, row in rows.items()}, query_units(groups))
    best_turn = max(turns.values(), default=0.0)
    if best_turn <= 0:
        return {rid: score for rid, score in found.items() if rid not in turns}
    # a turn's BM25 is on the scale of the turns' collection, not of whole memories: put
    # it back on the memories' scale (the best turn scores what the best of these
    # dialogues scored whole), so a dialogue and a note still compare as before while
    # the dialogues keep the order of their best turns
    scale = max(found[rid] for rid in turns) / best_turn
    return {rid: turns[rid] * scale if rid in turns else score for rid, score in found.items()
            if turns.get(rid, score) > 0}


def vector_retriever(services: SearchServices, text: str, pool: int,
                     toward: Sequence[int] = (), memo: dict[str, Any] | None = None) -> Retriever:
    memo = {} if memo is None else memo

    def scores(filters: Filters) -> tuple[Scores, str | None]:
        return vector_scores(services, text, filters, pool, toward, memo)

    def ranking(found: Scores) -> Scores:
        share = services.settings.second_chunk
        if share <= 0 or toward or not found or text not in memo:  # the moved vector ranks alone
            return found
        embedder, _why = services.embedder()
        if embedder is None:
            return found
        return by_best_chunks(found, services.vectors.chunk_cosines(embedder.name, memo[text], list(found)),
                              share)

    return Retriever("vector", "cosine", scores, ranking)


def by_best_chunks(found: Scores, cosines: Mapping[int, Sequence[float]], share: float) -> Scores:
    """A memory's vector ranking score: its best chunk's cosine, ``share`` of it
    replaced by its second best's (MEMORY_SECOND_CHUNK). A memory of one chunk keeps its
    cosine. Why: a long text scored by one chunk alone wins on one lucky chunk, and
    where the evidence is a passage two chunks hold it loses to it (LongMemEval's
    multi-session questions, docs/search-quality.md Round 5)."""
    out = {}
    for rid, best in found.items():
        near = cosines.get(rid, ())
        second = near[1] if len(near) > 1 else best
        out[rid] = (1.0 - share) * best + share * min(best, second)
    return out


def vector_scores(services: SearchServices, text: str, filters: Filters,
                  pool: int, toward: Sequence[int] = (),
                  memo: dict[str, Any] | None = None) -> tuple[Scores, str | None]:
    """Cosine candidates for ``text``; on any embedder trouble, none and a note why.
    With ``toward`` (vector feedback): the cosines to the question's vector moved
    toward those memories' closest chunks (palace/feedback.py ``feedback_vector``).
    ``memo`` keeps the question's vector for a second pass of the same search."""
    if not services.settings.vector_enabled or not text.strip():
        return {}, None
    embedder, unavailable = services.embedder()
    if embedder is None:
        return {}, unavailable
    try:
        services.vectors.backfill(embedder, limit=VECTOR_BACKFILL_PER_SEARCH,
                                  batch_size=services.settings.vector_batch_size)
        memo = {} if memo is None else memo
        if text not in memo:
            memo[text] = embedder.embed_query(text)
        query_vector = memo[text]
        model_name = embedder.name  # an HTTP embedder may have to ask the sidecar
        if toward:
            from .feedback import feedback_vector

            closest = services.vectors.best_chunks(model_name, query_vector, toward)
            query_vector = feedback_vector(query_vector, [closest[rid] for rid in toward if rid in closest])
    except EmbedderUnavailableError as exc:
        return {}, f"vectors unavailable ({exc}); keyword search only"
    except Exception as exc:  # the model or sidecar failed: fall back, say so
        return {}, f"vectors failed ({type(exc).__name__}: {exc}); keyword search only"
    allowed = None
    if filters != Filters(statuses=filters.statuses):
        allowed = services.index.filtered_rids(filters)
    return services.vectors.scores(model_name, query_vector, allowed=allowed, limit=pool,
                                   statuses=filters.statuses), None


def graph_retriever(services: SearchServices, text: str, now: datetime, pool: int) -> Retriever:
    """Memories one hop from the entities the query names (none named: no candidates)."""
    from .graph.service import entities_in, reach

    def scores(filters: Filters) -> tuple[Scores, str | None]:
        if not getattr(services.index, "supports_graph", False):
            return {}, None
        keys = [key for key in (entities_in(services.index, text) if text.strip() else [])
                if not names_no_one(key)]
        if not keys:
            return {}, None
        reached = reach(services.index, keys, GRAPH_DEPTH, now=now)
        specific = graph_specificity(len(reached), services.index.count(filters.statuses))
        found = {r.rid: specific / (1 + r.hops) for r in reached[:pool]}
        keep = services.index.passing(list(found), filters)  # the graph knows nothing of filters
        return {rid: score for rid, score in found.items() if rid in keep and score > 0}, None

    return Retriever("graph", "closeness", scores)


# A word of the query shaped like a tag path (project/palace) or written as #tag.
_TAG_WORD = re.compile(r"(?<![^\s(（\[【,，;；])#([^\s#,，;；。()（）\[\]【】]+)"
                       r"|(?<![^\s(（\[【,，;；])([^\s/#,，;；。()（）\[\]【】]+(?:/[^\s/#,，;；。()（）\[\]【】]+)+)")


def query_tags(text: str) -> list[str]:
    """The tags a query names: ``#tag`` words and words shaped like a tag path
    (``project/palace``), as written and case-folded, each once."""
    tags: dict[str, None] = {}
    for match in _TAG_WORD.finditer(text):
        tag = (match.group(1) or match.group(2)).strip("/.")
        if tag:
            tags.setdefault(tag, None)
            tags.setdefault(tag.casefold(), None)
    return list(tags)


def tag_retriever(services: SearchServices, text: str, pool: int) -> Retriever:
    """Memories carrying a tag the query names, or a tag below it (``project/palace``
    finds ``project/palace/search``, as a filter does): the newest ``pool`` of them."""
    wanted = query_tags(text)

    def scores(filters: Filters) -> tuple[Scores, str | None]:
        found: Scores = {}
        for tag in wanted:
            for row in services.index.list_rows(replace(filters, tags=(*filters.tags, tag)), limit=pool):
                found[row["rid"]] = 1.0
        return found, None

    return Retriever("tag", "tagged", scores)




def graph_specificity(reached: int, total: int) -> float:
    """How much being linked to the query's entities says: 1 − the share of the palace
    they reach. An entity every memory names (the two speakers of a conversation, the
    user's own name) singles nothing out; measured on LoCoMo, where each session names
    both speakers and a flat boost tied every candidate at 1.0 (docs/search-quality.md)."""
    if total <= 0:
        return 0.0
    # in a palace of a handful of memories everything is a hop or two from everything:
    # reaching 2 of 2 there is not "named everywhere", so small palaces count as
    # GRAPH_SMALL_PALACE memories (a LoCoMo conversation, 19–32 sessions, keeps its fix)
    return max(0.0, 1.0 - reached / max(total, GRAPH_SMALL_PALACE))


def retrievers(services: SearchServices, scope: TimeScope, terms: QueryTerms, pool: int,
               now: datetime | None = None, memo: dict[str, Any] | None = None) -> list[Retriever]:
    sources = [keyword_retriever(services.index, terms, pool, turns=services.settings.dialogue_turns),
               vector_retriever(services, scope.remainder, pool, memo=memo)]
    if now is not None:
        sources.append(graph_retriever(services, scope.remainder, now, pool))
    if query_tags(scope.remainder):
        sources.append(tag_retriever(services, scope.remainder, pool))
    return sources


# ---------------------------------------------------------------------- 6: candidates


def gather(sources: Sequence[Retriever], filters: Filters, notes: list[str]) -> dict[str, Scores]:
    """Every retriever's scores under ``filters``; their notes added once to ``notes``."""
    found: dict[str, Scores] = {}
    for source in sources:
        scores, note = source.scores(filters)
        found[source.name] = scores
        if note and note not in notes:
            notes.append(note)
    return found


Measure = Callable[[Mapping[str, Scores]], Measured]


def fuse_candidates(found: Mapping[str, Scores], vector_share: float,
                    measured: Measured | None = None, ranking: Mapping[str, Scores] | None = None) -> Scores:
    """The candidates' fused relevance (palace/floor.py ``fused_relevance``);
    ``measured`` holds their calibrated scores (none: the plain normalised fusion),
    ``ranking`` a retriever's scores to rank by where they differ from ``found``'s."""
    ranking = ranking or {}
    fused = fused_relevance(found.get("bm25", {}), ranking.get("vector", found.get("vector", {})),
                            measured or Measured(), vector_share=vector_share)
    # graph closeness adds to text relevance: a memory linked to a named entity rises, and
    # one the words missed is still found (at most GRAPH_SHARE of full relevance). Added
    # as a probabilistic "or" (r + g·(1 − r)), not capped at 1: a cap tied every boosted
    # candidate that was already fairly relevant and threw their order away
    for rid, closeness in found.get("graph", {}).items():
        text = fused.get(rid, 0.0)
        fused[rid] = text + GRAPH_SHARE * closeness * (1.0 - text)
    # a tag the query names (or one below it) on the memory: the user's own filing,
    # added the same way (never past 1, never tying what the text told apart)
    for rid, tagged in found.get("tag", {}).items():
        text = fused.get(rid, 0.0)
        fused[rid] = text + TAG_SHARE * tagged * (1.0 - text)
    return fused


def measure_and_fuse(found: Mapping[str, Scores], vector_share: float,
                     measure_found: Measure | None,
                     sources: Sequence[Retriever] = ()) -> tuple[Measured, Scores]:
    measured = measure_found(found) if measure_found is not None else Measured()
    ranking = {source.name: source.ranking(found[source.name]) for source in sources
               if source.ranking is not None and found.get(source.name)}
    return measured, fuse_candidates(found, vector_share, measured, ranking)


@dataclass
class Candidates:
    found: dict[str, Scores]   # per retriever
    relevance: Scores          # fused
    browse: bool = False       # a time-only query: the period's memories, newest first
    notes: list[str] = field(default_factory=list)
    measured: Measured = field(default_factory=Measured)


def is_soft(scope: TimeScope, time_filter: str) -> bool:
    """soft: the period ranks memories (inside first) instead of excluding the rest;
    a question about *when something happened* often finds its answer in a
    memory written at another time ("on Sunday the rota changes", said Wednesday)."""
    return time_filter == "soft" and scope.parsed is not None and not scope.explicit


def collect(sources: Sequence[Retriever], scope: TimeScope, terms: QueryTerms, base: Filters,
            timed: Filters, *, soft: bool, vector_share: float, pool: int,
            list_rows: Callable[[Filters, int], Sequence[Row]],
            measure_found: Measure | None = None) -> Candidates:
    notes: list[str] = []
    found = gather(sources, base if soft else timed, notes)
    measured, relevance = measure_and_fuse(found, vector_share, measure_found, sources)
    if not relevance and not terms.own and scope.bounded:
        # a query that is only a time ("上周") lists that period, newest first
        rows = list_rows(replace(timed, end_ts=scope.end.timestamp() if scope.end else None), pool)
        notes.append("time-only query: memories of the period, newest first")
        return Candidates(found, {row["rid"]: 1.0 for row in rows}, browse=True, notes=notes,
                          measured=measured)
    if not relevance and scope.parsed is not None and not soft and not scope.explicit:
        # nothing at all in that period: better the best matches from any time,
        # clearly labelled, than an empty answer
        found = gather(sources, base, notes)
        measured, relevance = measure_and_fuse(found, vector_share, measure_found, sources)
        if relevance:
            notes.append(f"nothing found in {scope.parsed.text!r}; showing matches from any time")
    return Candidates(found, relevance, notes=notes, measured=measured)


# ---------------------------------------------------------------------- 7-8: ranking


def place_in_time(relevance: Scores, rows: Mapping[int, Row], scope: TimeScope, *,
                  browse: bool) -> tuple[Scores, dict[int, str]]:
    """Each candidate inside, late (written just after) or outside the parsed period,
    its relevance scaled by LATE_FACTOR / OUTSIDE_FACTOR."""
    if scope.parsed is None or browse or scope.start is None or scope.end is None:
        return dict(relevance), {}
    start_ts, end_ts = scope.start.timestamp(), scope.end.timestamp()
    late_ts = scope.window_end.timestamp() if scope.window_end else end_ts
    point = getattr(scope.parsed, "point", None)
    scaled, placement = dict(relevance), {}
    for rid, row in rows.items():
        created_ts = row["created_ts"]
        if start_ts <= created_ts < end_ts:
            placement[rid] = "inside"
            if point is not None:  # "两周前": the closer to that day, the better
                scaled[rid] *= closeness(created_ts, point.timestamp(), start_ts, end_ts)
        elif end_ts <= created_ts < late_ts:
            placement[rid] = "late"
            scaled[rid] *= LATE_FACTOR
        else:
            placement[rid] = "outside"
            scaled[rid] *= OUTSIDE_FACTOR
    return scaled, placement


POINT_FALLOFF = 0.3  # at the edge of an "N units ago" window a memory keeps 70 %


def closeness(created_ts: float, point_ts: float, start_ts: float, end_ts: float) -> float:
    """1 on the day meant by "N units ago", falling linearly to 1 − POINT_FALLOFF at
    the edge of its tolerance window."""
    half = max(point_ts - start_ts, end_ts - point_ts, 1.0)
    return 1.0 - POINT_FALLOFF * min(1.0, abs(created_ts - point_ts) / half)


def score_weights(settings: "Settings", params: DecayParams) -> dict[str, float]:
    return {"relevance": settings.weight_relevance, "importance": settings.weight_importance,
            "decay": settings.weight_decay if params.enabled else 0.0}


def rank(relevance: Scores, rows: Mapping[int, Row], decay: Mapping[str, DecayInfo],
         weights: Mapping[str, float], top_k: int | None, *, browse: bool) -> list[tuple[float, int]]:
    """(score, row id), best ``top_k`` (None: all) first; a browse breaks ties newest first."""
    scored = []
    for rid, rel in relevance.items():
        row = rows.get(rid)
        if row is None:
            continue
        score = final_score(rel, row["importance"], decay[row["id"]].score,
                            w_relevance=weights["relevance"], w_importance=weights["importance"],
                            w_decay=weights["decay"])
        scored.append((superseded_by(row) is not None, score, row["created_ts"] if browse else 0.0, rid))
    # a fact a later memory retired ranks after every current one (still shown, labelled)
    scored.sort(key=lambda item: (item[0], -item[1], -item[2]))
    return [(score, rid) for _old, score, _recency, rid in scored[:top_k]]


def superseded_by(row: Row) -> str | None:
    """The id of the memory that superseded this row's fact (its ``supersededBy`` key)."""
    raw = row["extra"] if "extra" in row.keys() else "{}"
    if "supersededBy" not in raw:
        return None  # cheap test before parsing the JSON
    value = json.loads(raw).get("supersededBy")
    return str(value) if value else None


COMPANION_SHARE = 0.5  # a weak result scoring at least this share of the best strong one is strong


def apply_floor(ranked: Sequence[tuple[float, int]], candidates: Candidates, top_k: int, *,
                include_weak: bool, notes: list[str]) -> tuple[list[tuple[float, int]], dict[int, str]]:
    """The best ``top_k`` results that clear the relevance floor (all of them, weak
    ones marked, with ``include_weak``), and each one's confidence. A time-only
    query lists its period: nothing there is weak.

    Two decisions: first for the query, "does the palace hold an answer at all?"
    (some result clears the floor, and the query names nothing no memory mentions);
    then, when it does, a relative cut: a result scoring at least COMPANION_SHARE of
    the best strong one is kept however weak its own evidence, so that a question with
    several answers (one session each) is not thinned out; but not with none at all
    (no query word, a cosine at the model's noise: only its rank lifted it)."""
    found = candidates.found
    # reached through the entity graph (a specific entity): an explicit link, evidence of
    # its own; so is a tag the query names
    strength = {rid: "strong" if candidates.browse or found.get("graph", {}).get(rid, 0.0) >= GRAPH_STRONG
                or rid in found.get("tag", {}) else
                candidates.measured.confidence(rid, found.get("vector", {}).get(rid))
                for _, rid in ranked}
    # a word no text holds may still be an entity the graph knows (given in the frontmatter,
    # a tag), when the graph found memories for one the query names: not the user ("I")
    named = bool(found.get("graph")) and candidates.measured.names_entity
    absent = () if candidates.browse or named else candidates.measured.absent
    # no memory holds the query's focus words together: a near miss (palace.focus)
    gap = None if candidates.browse else candidates.measured.near_miss
    if absent or gap:
        # the query names something the palace never mentions: whatever else matches
        # answers another question (陈静's birthday is not 妈妈's)
        strength = {rid: "weak" for rid in strength}
    # the question asks for an amount and these state none: they cannot answer it
    unanswering = frozenset() if candidates.browse else candidates.measured.cannot_answer
    overruled = [rid for rid in unanswering if strength.get(rid) == "strong"]
    strength.update({rid: "weak" for rid in unanswering if rid in strength})
    # little of the question's words and a cosine below the model's joint floor: no evidence
    vector_found = found.get("vector", {})
    joint_weak = frozenset(() if candidates.browse else
                           (rid for _, rid in ranked if candidates.measured.below_joint(rid, vector_found.get(rid))))
    strength.update({rid: "weak" for rid in joint_weak})
    top_strong = next((score for score, rid in ranked if strength[rid] == "strong"), None)
    if top_strong is not None and top_strong > 0:
        for score, rid in ranked:
            if (strength[rid] == "weak" and score >= COMPANION_SHARE * top_strong
                    and rid not in unanswering and rid not in joint_weak
                    and candidates.measured.has_evidence(rid, found.get("vector", {}).get(rid))):
                strength[rid] = "strong"
    kept = list(ranked) if include_weak else [item for item in ranked if strength[item[1]] == "strong"]
    hidden = len(ranked) - len(kept) if not include_weak else 0
    shown = f" ({hidden} weak matches hidden; include_weak=True / --include-weak shows them)" if hidden else ""
    if absent:
        notes.append("nothing found: no memory mentions " + ", ".join(f"'{w}'" for w in absent) + shown)
    elif gap:
        notes.append(gap.note() + shown)
    elif hidden and not kept and overruled and candidates.measured.asked is not None:
        notes.append(candidates.measured.asked.note() + shown)
    elif hidden and not kept and candidates.measured.asked is not None and candidates.measured.asking:
        notes.append("nothing above the relevance floor (the words asking for "
                     f"{candidates.measured.asked.words}, " + ", ".join(f"'{w}'" for w in candidates.measured.asking)
                     + ", count for no topic)" + shown)
    elif hidden and not kept:
        notes.append("nothing above the relevance floor" + shown)
    scale = candidates.measured.scale
    if scale is not None and not scale.measured and found.get("vector"):
        notes.append("the relevance floor is not calibrated for this embedding model: "
                     "vector matches are not filtered")
    if not ranked and not any(n.startswith("nothing") for n in notes):
        notes.append("no memory matches these words" if found.get("bm25") is not None else "nothing found")
    return kept[:top_k], strength


# ---------------------------------------------------------------------- 10: explanations


def time_info(scope: TimeScope) -> dict[str, Any] | None:
    if scope.parsed is not None:
        return {"text": scope.parsed.text, "start": scope.parsed.start.isoformat(),
                "end": scope.parsed.end.isoformat()}
    if scope.bounded:
        return {"text": None, "start": scope.start.isoformat() if scope.start else None,
                "end": scope.end.isoformat() if scope.end else None}
    return None


def filter_info(filters: Filters) -> dict[str, Any]:
    return {k: v for k, v in {"tags": list(filters.tags), "location": filters.location,
                              "type": filters.type, "statuses": list(filters.statuses)}.items() if v}


def matched_expansions(terms: QueryTerms, doc_stems: set[str]) -> list[dict[str, Any]]:
    """The concept expansions a document contains (a multiword one: all its words)."""
    matched = []
    for group in terms.groups[1 if terms.own else 0:]:
        hits = set(matched_terms(group.terms, doc_stems))
        for expansion in group.expansions:
            words = phrase_words(expansion.term)
            found = (all(stem(w) in doc_stems for w in words) if words
                     else hits & set(query_terms(expansion.term)))
            if found:
                matched.append({"term": expansion.term, "from": expansion.source,
                                "relation": expansion.relation, "weight": expansion.weight})
    return matched


def ranks(scores: Scores) -> dict[int, int]:
    """Row id → its rank among one retriever's candidates (1 = best; ties keep order)."""
    return {rid: i + 1 for i, (rid, _) in enumerate(sorted(scores.items(), key=lambda kv: -kv[1]))}


def retriever_info(sources: Sequence[Retriever], found: Mapping[str, Scores],
                   ranked: Mapping[str, Mapping[int, int]], rid: int,
                   measured: Measured | None = None) -> dict[str, dict[str, Any]]:
    """Per retriever that found ``rid``: its rank, its own score and its calibrated
    one (keyword coverage, cosine relevance: what the floor looks at)."""
    info = {source.name: {"rank": ranked[source.name][rid],
                          source.score_label: round(found[source.name][rid], 4)}
            for source in sources if rid in found.get(source.name, {})}
    if measured is not None:
        if "bm25" in info and rid in measured.coverage:
            info["bm25"]["coverage"] = round(measured.coverage[rid], 4)
        if "vector" in info and rid in measured.vector:
            info["vector"]["relevance"] = round(measured.vector[rid], 4)
    return info


def weak_reason(candidates: Candidates, rid: int, strength: Mapping[int, str] | None) -> tuple[str, ...]:
    """A weak result's own reason, when the focus rule gave one ("weak: mentions '生日', not '陈静'")."""
    if (strength or {}).get(rid) != "weak" or candidates.browse:
        return ()
    reason = (candidates.measured.weak_reason(rid)
              or candidates.measured.joint_reason(rid, candidates.found.get("vector", {}).get(rid)))
    return (reason,) if reason else ()


def explain(ranked: Sequence[tuple[float, int]], rows: Mapping[int, Row], relevance: Scores,
            candidates: Candidates, sources: Sequence[Retriever], terms: QueryTerms,
            decay: Mapping[str, DecayInfo], weights: dict[str, float], placement: Mapping[int, str],
            scope: TimeScope, filters: Filters, root: Path,
            strength: Mapping[int, str] | None = None) -> list[SearchResult]:
    period = time_info(scope)
    filters_shown = filter_info(filters)
    keyword = candidates.found.get("bm25", {})
    rank_of = {name: ranks(scores) for name, scores in candidates.found.items()}
    results = []
    for score, rid in ranked:
        row = rows[rid]
        info = decay[row["id"]]
        doc_stems = document_stems(row["content"], row["summary"], row["tags"]) if rid in keyword else set()
        memory = row_to_memory(row, root, decay_score=info.score, access_count=info.access_count,
                               last_accessed_at=info.last_accessed_at)
        explanation = Explanation(
            relevance=round(relevance[rid], 4), importance=row["importance"],
            decay=round(info.score, 4), weights=weights,
            retrievers=retriever_info(sources, candidates.found, rank_of, rid, candidates.measured),
            matched_terms=tuple(matched_terms(terms.own, doc_stems)),
            matched_expansions=tuple(matched_expansions(terms, doc_stems)),
            time_range=(dict(period, placement=placement[rid]) if period and rid in placement else period),
            filters=filters_shown, superseded_by=superseded_by(row),
            notes=tuple(candidates.notes) + ((f"superseded by {superseded_by(row)}",) if superseded_by(row) else ())
            + weak_reason(candidates, rid, strength),
            confidence=(strength or {}).get(rid, "strong"))
        results.append(SearchResult(memory=memory, score=round(score, 6), explanation=explanation))
    return results


# ---------------------------------------------------------------------- the pipeline


def search(services: SearchServices, query: str, *, now: datetime, top_k: int = 10,
           tags: Sequence[str] | None = None, location: str | None = None,
           type: str | None = None, include_archived: bool = False,
           start: Any = None, end: Any = None, include_weak: bool = False) -> SearchResults:
    """Best memories for ``query``, best first, each with its score explained.

    Time words in the query ("上周", "last Friday") become a period relative to
    ``now``; ``start``/``end`` give an explicit range (end exclusive). Results
    below the relevance floor are left out unless ``include_weak`` (then marked
    ``explanation.confidence == "weak"``). The list carries the answer's
    ``notes`` and ``time_range``. Recording accesses is the caller's business.
    """
    check_request(query, top_k)
    settings = services.settings
    scope = parse_time(query, start=start, end=end, now=now, tz=services.tz,
                       reasoner=services.time_reasoner() if settings.time_reasoning_enabled
                       and query.strip() else None)
    base, timed = make_filters(scope, tags=tags, location=location, type=type,
                               include_archived=include_archived)
    expander = services.concept_expander() if settings.concepts_enabled and scope.remainder.strip() else None
    if expander is not None and settings.neighbours and settings.vector_enabled:
        expander = with_vector_neighbours(expander, services)
    terms = expand_concepts(scope.remainder, expander)
    pool = max(50, top_k * 5)
    question_vectors: dict[str, Any] = {}  # embedded once, read by both passes
    sources = retrievers(services, scope, terms, pool, now, memo=question_vectors)
    soft = is_soft(scope, settings.time_filter)

    def measure_found(found: Mapping[str, Scores]) -> Measured:
        vector = found.get("vector", {})
        embedder = services.embedder()[0] if vector else None
        return measure(services.index, terms.own, terms.groups, found.get("bm25", {}), vector,
                       model_name=embedder.name if embedder is not None else None,
                       override=settings.min_relevance, text=scope.remainder,
                       absent_rule=floor.ABSENT_RULE if settings.absent_names else "off",
                       focus_latin=floor.FOCUS_LATIN if settings.focus else None,
                       answer_types=settings.answer_types)

    def gather_all(sources: Sequence[Retriever]) -> Candidates:
        return collect(sources, scope, terms, base, timed, soft=soft,
                       vector_share=settings.weight_vector, pool=pool,
                       list_rows=lambda f, n: services.index.list_rows(f, limit=n),
                       measure_found=measure_found)

    candidates = gather_all(sources)
    # feedback only once the first pass found something relevant: expanding a query the
    # palace cannot answer only finds more near misses (measured: unanswerable questions
    # of the zh and new sets lost their empty answers, docs/search-quality.md)
    # nor for a query naming a tag: the user asked for their own filing, and words of
    # what is filed there would bring back memories filed elsewhere
    # and it reads the strong results only: in a small palace the best three may include
    # unrelated memories, whose words would lift them (and their like) as companions
    strong = strong_relevance(candidates) if settings.feedback and not candidates.browse else {}
    if strong and not query_tags(scope.remainder):
        again = feedback_terms(services.index, terms, strong)
        if again is not None:  # the keyword retriever again, with the feedback words,
            # and the vector retriever with the question moved toward the same results
            first = candidates
            read = feedback_sources(strong)
            from . import feedback

            vector = sources[1]
            if feedback.FEEDBACK_VECTOR_SHARE > 0:  # measured, not kept: off (docs/search-quality.md, Round 3)
                vector = vector_retriever(services, scope.remainder, pool, toward=read, memo=question_vectors)
            again_keyword = keyword_retriever(services.index, again, pool, turns=settings.dialogue_turns)
            candidates = gather_all([again_keyword, vector, *sources[2:]])
            keep_question_evidence(candidates, first)
            keep_first_pass(candidates, first, read)
    rows = services.index.rows_by_rid(list(candidates.relevance))
    relevance, placement = place_in_time(candidates.relevance, rows, scope, browse=candidates.browse)
    candidates.measured.in_period = frozenset(rid for rid, where in placement.items() if where == "inside")
    if soft and placement and "inside" not in placement.values():
        candidates.notes.append(f"nothing found in {scope.parsed.text!r}; showing matches from any time")
    rows_list = list(rows.values())
    decay = decay_info(rows_list, services.index.access_times([r["id"] for r in rows_list]), now,
                       services.decay_params, services.tz)
    weights = score_weights(settings, services.decay_params)
    ranked = rank(relevance, rows, decay, weights, None, browse=candidates.browse)
    if settings.focus_dialogue and not candidates.browse and settings.min_relevance != 0:
        # the question names who said it, and in the best dialogues someone else did
        candidates.measured.speaker = floor.dialogue_gap(scope.remainder, ranked, rows)
    if not candidates.browse:  # an amount asked for: which candidates state none (palace.answer_types)
        floor.answer_check(candidates.measured, ranked, rows)
        # the focus words held together, but in one sentence? (palace.focus)
        floor.sentence_check(candidates.measured, services.index.rows_by_rid, [rid for _, rid in ranked])
    ranked, strength = apply_floor(ranked, candidates, top_k, include_weak=include_weak,
                                   notes=candidates.notes)
    results = explain(ranked, rows, relevance, candidates, sources, terms, decay, weights, placement,
                      scope, timed, services.root, strength)
    return SearchResults(results, notes=tuple(candidates.notes), time_range=time_info(scope))
