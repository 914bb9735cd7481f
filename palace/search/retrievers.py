"""Stage 3, the retrievers: each finds candidates and scores them on its own scale.

- **keyword**: BM25 over the index's postings (``index.postings.bm25_scores``), read
  once per search; the same postings tell the judge which query words each
  candidate holds, so no memory text is read for that;
- **vector**: the best-chunk cosine of each memory to the query (vectors stored at
  write time; a search never embeds a memory);
- **graph**: memories one hop from the entities the query names;
- **tag**: memories carrying a tag the query names (or one below it).

``retrieve`` runs them under the request's filters; a query with a period and no topic
("上周", "what happened last week": ``Query.topic``) lists that period, newest first, and
a strict period that holds nothing widens to any time.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Callable, Sequence

from palace.errors import EmbedderUnavailableError
from palace.index import Filters
from palace.index.postings import Postings
from palace.search.calibration import SMALL_PALACE
from palace.search.query import Query
from palace.search.request import Request


Scores = dict[int, float]  # memory row id → a retriever's score

GRAPH_DEPTH = 1    # hops the graph retriever follows from the entities a query names


@dataclass
class Candidates:
    """What the retrievers found: per retriever its scores, the postings of the
    query's terms, and notes for the user."""

    found: dict[str, Scores] = field(default_factory=dict)
    postings: Postings | None = None
    notes: list[str] = field(default_factory=list)
    browse: bool = False   # a time-only query: the period's memories, newest first
    # a successor (palace/search/successor.py) row id → the retired row id that brought it
    replaces: dict[int, int] = field(default_factory=dict)

    def add_note(self, note: str | None) -> None:
        if note and note not in self.notes:
            self.notes.append(note)

    @property
    def rids(self) -> set[int]:
        return {rid for scores in self.found.values() for rid in scores}


@dataclass(frozen=True)
class Retriever:
    """One source of candidates: ``find(filters, candidates)`` adds its scores (and any
    note) to ``candidates``."""

    name: str
    score_label: str  # what its score is called in an explanation
    find: Callable[[Filters, Candidates], None]
    # runs in a thread beside the others: set where most of its time is the server's (a
    # vector scan over a shared Postgres palace) and the index reads concurrently
    beside: bool = False


def keyword(services: Any, query: Query, pool: int) -> Retriever:
    def find(filters: Filters, out: Candidates) -> None:
        if out.postings is None:
            out.postings = services.index.postings(query.stems)
        out.found["bm25"] = services.index.best_keyword(list(query.bm25), out.postings, filters, pool)

    return Retriever("bm25", "score", find)


def vector(services: Any, query: Query, pool: int) -> Retriever:
    memo: dict[str, Any] = {}  # the query's vector, embedded once even when a search widens

    def find(filters: Filters, out: Candidates) -> None:
        if not services.settings.vector_enabled or not query.text.strip():
            return
        embedder, unavailable = services.embedder()
        if embedder is None:
            out.add_note(unavailable)
            return
        try:
            if "q" not in memo:
                memo["q"] = embedder.embed_query(query.text)
            model = embedder.name  # an HTTP embedder may have to ask the sidecar
        except EmbedderUnavailableError as exc:
            out.add_note(f"vectors unavailable ({exc.brief}); keyword only")
            return
        except Exception as exc:  # the model or sidecar failed: fall back, say so
            out.add_note(f"vectors failed ({type(exc).__name__}: {exc}); keyword search only")
            return
        # a filter's rows as its index lists them: perhaps more than pass (Postgres reads a tag's
        # rows from the tag index alone: 5 ms at 1M, 262 ms checked), so the picks are checked
        allowed = services.index.maybe_passing(filters) if filters != Filters(statuses=filters.statuses) else None
        found = services.vectors.scores(model, memo["q"], allowed=allowed, limit=pool, statuses=filters.statuses)
        if allowed is not None and found:
            passed = services.index.passing(list(found), filters)
            found = {rid: cosine for rid, cosine in found.items() if rid in passed}
        out.found["vector"] = found
        waiting = services.vectors.pending(model)
        if waiting:  # stored, not embedded yet: a search never embeds them (they would stall it)
            many = f"{waiting}+" if waiting >= 1000 else str(waiting)
            out.add_note(f"{many} memories have no vector yet (being embedded in the background, or "
                         "`palace reindex --vectors`); keyword search finds them meanwhile")

    # beside the keyword leg where the index reads concurrently (a pool of connections): a
    # narrow filter's exact vector scan is the server's work, the keyword scoring the client's
    return Retriever("vector", "cosine", find, beside=bool(getattr(services.index, "concurrent_reads", False)))


def graph(services: Any, pool: int, names: Sequence[str], now: datetime) -> Retriever:
    """Memories one hop from the entities the query names (``names``: their keys)."""
    from palace.graph.service import reach

    def find(filters: Filters, out: Candidates) -> None:
        if not names:
            return
        reached = reach(services.index, list(names), GRAPH_DEPTH, now=now)
        specific = graph_specificity(len(reached), services.index.count(filters.statuses))
        scores = {r.rid: specific / (1 + r.hops) for r in reached[:pool]}
        keep = services.index.passing(list(scores), filters)  # the graph knows nothing of filters
        out.found["graph"] = {rid: s for rid, s in scores.items() if rid in keep and s > 0}

    return Retriever("graph", "closeness", find)


def graph_specificity(reached: int, total: int) -> float:
    """How much being linked to the query's entities says: 1 − the share of the palace
    they reach. An entity every memory names (the two speakers of a conversation, the
    user's own name) singles nothing out (measured on LoCoMo). In a palace of a handful
    of memories everything is near everything, so small palaces count as
    SMALL_PALACE memories."""
    if total <= 0:
        return 0.0
    return max(0.0, 1.0 - reached / max(total, SMALL_PALACE))


def tag(services: Any, query: Query, pool: int) -> Retriever:
    """Memories carrying a tag the query names, or one below it: the newest ``pool``."""
    def find(filters: Filters, out: Candidates) -> None:
        found: Scores = {}
        for name in query.tags:
            for row in services.index.list_rows(replace(filters, tags=(*filters.tags, name)), limit=pool):
                found[row.rid] = 1.0
        out.found["tag"] = found

    return Retriever("tag", "tagged", find)


def gather(sources: Sequence[Retriever], filters: Filters, postings: Postings | None = None) -> Candidates:
    """Every source's candidates, each found into its own ``Candidates`` (those marked
    ``beside`` in a thread while the rest run here) and merged in the sources' order, so
    the result is the same whichever ran first."""
    own = {source.name: Candidates(postings=postings) for source in sources}
    threads = [_started(source, filters, own[source.name]) for source in sources if source.beside]
    for source in sources:
        if not source.beside:
            source.find(filters, own[source.name])
    for thread in threads:
        thread.finish()
    out = Candidates(postings=postings)
    for source in sources:
        found = own[source.name]
        out.found.update(found.found)
        out.postings = found.postings if found.postings is not None else out.postings
        for note in found.notes:
            out.add_note(note)
    return out


class _Beside(threading.Thread):
    """One source's ``find`` in a thread; ``finish`` waits for it and raises what it raised."""

    def __init__(self, source: Retriever, filters: Filters, out: Candidates):
        super().__init__(name=f"palace-{source.name}", daemon=True)
        self.source, self.filters, self.out = source, filters, out
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.source.find(self.filters, self.out)
        except BaseException as exc:  # re-raised in the searching thread
            self.error = exc

    def finish(self) -> None:
        self.join()
        if self.error is not None:
            raise self.error


def _started(source: Retriever, filters: Filters, out: Candidates) -> _Beside:
    thread = _Beside(source, filters, out)
    thread.start()
    return thread


def retrieve(services: Any, request: Request, query: Query, sources: Sequence[Retriever],
             pool: int) -> Candidates:
    """Every retriever's candidates under the request's filters: with a soft period, all
    of time (the ranking places them); a period asked for with no topic is listed (no
    retriever runs: a word like "happened" or a query vector would rank memories by
    nothing the user asked about); a strict period that holds nothing gives the best
    matches from any time, labelled."""
    scope = request.scope
    if scope.bounded and not query.topic and not query.tags:
        return period_listing(services, request, pool)
    found = gather(sources, request.base if request.soft else request.timed)
    if not found.rids and scope.parsed is not None and not request.soft and not scope.explicit:
        wider = gather(sources, request.base, found.postings)
        for note in found.notes:
            wider.add_note(note)
        if wider.rids:
            wider.add_note(f"nothing found in {scope.parsed.text!r}; showing matches from any time")
        return wider
    return found


def period_listing(services: Any, request: Request, pool: int) -> Candidates:
    """The period's memories, newest first (its late window left out: nothing matched)."""
    scope = request.scope
    rows = services.index.list_rows(replace(request.timed, end_ts=scope.end.timestamp() if scope.end else None),
                                    limit=pool)
    found = Candidates(found={"time": {row.rid: 1.0 for row in rows}}, browse=True)
    found.add_note("time-only query: memories of the period, newest first")
    return found


def entity_names(services: Any, text: str) -> list[str]:
    """The graph entity keys the query names, not the user or a lone function word
    (``names_no_one``): those are named by nearly every question of a personal palace."""
    if not getattr(services.index, "supports_graph", False) or not text.strip():
        return []
    from palace.graph.service import entities_in

    return [key for key in entities_in(services.index, text) if not names_no_one(key)]


def names_no_one(key: str) -> bool:
    """An entity key no query is about: the user ("I", "my", 我: every memory of a
    personal palace is theirs) and a lone function word ("how", "the", 什么: a
    capitalised sentence start the extractor took for a name)."""
    from palace.graph.normalise import USER_KEY
    from palace.text.words import EN_STOPWORDS, ZH_STOPWORDS

    return key == USER_KEY or key in EN_STOPWORDS or key in ZH_STOPWORDS


def standard(services: Any, query: Query, pool: int, now: datetime) -> list[Retriever]:
    """The retrievers a search runs: keyword and vector always, the graph when the
    query names an entity it knows, tags when it names a tag."""
    sources = [keyword(services, query, pool), vector(services, query, pool)]
    names = entity_names(services, query.text)
    if names:
        sources.append(graph(services, pool, names, now))
    if query.tags:
        sources.append(tag(services, query, pool))
    return sources
