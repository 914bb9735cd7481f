"""Each stage of the search pipeline (palace/search/) alone, on explicit inputs."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from types import SimpleNamespace

import pytest

from palace.search.concepts import ConceptExpander
from palace.decay import DecayInfo
from palace.errors import InvalidInputError
from palace.index.rows import IndexRow
from palace.index import Filters
from palace.search.calibration import LATE_FACTOR, OUTSIDE_FACTOR
from palace.search.explain import filter_info, ranks, retriever_info
from palace.search.evidence import Evidence
from palace.search.fusion import fuse
from palace.search.query import analyse
from palace.search.ranking import place_in_time, rank
from palace.search.request import check_request, make_request, parse_time
from palace.search.retrievers import Candidates, Retriever, gather, graph_specificity, retrieve
from palace.time_reasoning import TimeReasoner

TZ = timezone(timedelta(hours=8))
NOW = datetime(2026, 3, 18, 10, 0, tzinfo=TZ)  # a Wednesday


def fixed(name: str, scores: dict[int, float], note: str | None = None) -> Retriever:
    """A retriever that always answers the same."""
    def find(filters: Filters, out: Candidates) -> None:
        out.found[name] = dict(scores)
        out.add_note(note)
    return Retriever(name, "score", find)


def request(query: str, *, time_filter: str = "strict", **options) -> object:
    base = dict(top_k=10, now=NOW, tz=TZ, reasoner=TimeReasoner(), time_filter=time_filter, tags=None,
                location=None, type=None, include_archived=False, start=None, end=None, include_weak=True)
    return make_request(query, **(base | options))


@pytest.mark.parametrize("query, top_k, message", [
    (5, 10, "query must be a string"),
    ("x" * 4001, 10, "keep it under 4000"),
    ("ok", 0, "top_k"), ("ok", 1001, "top_k"), ("ok", True, "top_k"),
])
def test_check_request_rejects_bad_input(query, top_k, message):
    with pytest.raises(InvalidInputError, match=message):
        check_request(query, top_k)


def test_parse_time_takes_the_period_out_of_the_query_and_admits_late_notes():
    scope = parse_time("上周讨论的数据库选型", start=None, end=None, now=NOW, tz=TZ, reasoner=TimeReasoner())
    assert scope.remainder == "讨论的数据库选型"
    assert (scope.start, scope.end) == (datetime(2026, 3, 9, tzinfo=TZ), datetime(2026, 3, 16, tzinfo=TZ))
    assert scope.window_end == scope.end + timedelta(days=7)  # one period of grace
    assert not scope.explicit
    assert request("上周讨论的数据库选型", time_filter="soft").soft
    assert not request("上周讨论的数据库选型", time_filter="strict").soft


def test_parse_time_keeps_an_explicit_range_exact_and_checks_it():
    start, end = datetime(2026, 3, 1, tzinfo=TZ), datetime(2026, 3, 5, tzinfo=TZ)
    scope = parse_time("deploy", start=start, end=end, now=NOW, tz=TZ, reasoner=TimeReasoner())
    assert (scope.start, scope.end, scope.window_end, scope.explicit) == (start, end, end, True)
    assert not request("deploy", time_filter="soft", start=start, end=end).soft
    with pytest.raises(InvalidInputError, match="start must be before end"):
        parse_time("deploy", start=end, end=start, now=NOW, tz=TZ)
    with pytest.raises(InvalidInputError, match="query is empty"):
        parse_time("   ", start=None, end=None, now=NOW, tz=TZ)


def test_parse_time_without_a_reasoner_leaves_time_words_as_words():
    scope = parse_time("上周 deploy", start=None, end=None, now=NOW, tz=TZ, reasoner=None)
    assert scope.remainder == "上周 deploy" and scope.parsed is None and not scope.bounded


def test_the_request_adds_the_window_only_to_the_timed_filters():
    asked = request("上周 x", tags=["DB"], location="projects/", type="decision", include_archived=True)
    base, timed, scope = asked.base, asked.timed, asked.scope
    assert base == Filters(statuses=("active", "archived"), tags=("DB",), location="projects",
                           type="decision")
    assert (timed.start_ts, timed.end_ts) == (scope.start.timestamp(), scope.window_end.timestamp())
    assert filter_info(timed) == {"tags": ["DB"], "location": "projects", "type": "decision",
                                  "statuses": ["active", "archived"]}


def test_the_query_is_analysed_once_with_weighted_related_terms():
    query = analyse("数据库", ConceptExpander.load(None))
    assert query.words == ("数据", "据库", "数据库")
    assert [(u.term, set(u.parts)) for u in query.units] == [("数据库", {"数据", "据库"})]
    assert "PostgreSQL" in {e.term for e in query.expansions} and all(e.weight < 1 for e in query.expansions)
    assert all(u.weight == 1.0 for u in query.bm25 if u.source is None or u.required[0] in query.words)
    assert analyse("数据库").expansions == ()  # no expander: own words only
    assert analyse("see #ops and project/palace").tags == ("ops", "project/palace")


def test_gather_asks_every_retriever_and_keeps_each_note_once():
    found = gather([fixed("bm25", {1: 2.0}, "slow"), fixed("vector", {2: 0.5}, "slow")], Filters())
    assert found.found == {"bm25": {1: 2.0}, "vector": {2: 0.5}} and found.notes == ["slow"]


def test_a_retriever_run_beside_the_others_merges_in_the_sources_order_and_raises_what_it_raised():
    import threading
    from dataclasses import replace

    started = threading.Event()

    def slow(filters: Filters, out: Candidates) -> None:  # finishes after the others have run
        assert started.wait(5), "it ran alone, not beside the keyword leg"
        out.found["vector"] = {2: 0.5}
        out.add_note("vectors: slow")

    def quick(filters: Filters, out: Candidates) -> None:
        out.found["bm25"] = {1: 2.0}
        out.add_note("keyword: quick")
        started.set()

    found = gather([Retriever("vector", "cosine", slow, beside=True), Retriever("bm25", "score", quick)], Filters())
    assert list(found.found) == ["vector", "bm25"] and found.notes == ["vectors: slow", "keyword: quick"]

    def broken(filters: Filters, out: Candidates) -> None:
        raise RuntimeError("the server went away")

    with pytest.raises(RuntimeError, match="went away"):
        gather([replace(fixed("bm25", {1: 2.0}), beside=False), Retriever("vector", "cosine", broken, beside=True)],
               Filters())


def test_fuse_normalises_each_retriever_and_mixes_by_the_vector_share():
    fused = fuse(Candidates(found={"bm25": {1: 4.0, 2: 2.0}, "vector": {2: 0.8}}), vector_share=0.25)
    assert fused == {1: 0.75, 2: 0.75 * 0.5 + 0.25}
    assert fuse(Candidates(found={"bm25": {1: 4.0}}), vector_share=0.25) == {1: 1.0}


def _row(rid: int, **fields) -> IndexRow:
    """An index row with the given columns, the others as a fresh active memory's."""
    base = dict(rid=rid, id=f"m{rid}", path=f"general/m{rid}.md", location="general", type="fact",
                status="active", source="test", importance=0.5, pinned=0, created_ts=0.0, updated_ts=0.0,
                created_at="2026-01-01T00:00:00+00:00", updated_at="2026-01-01T00:00:00+00:00", tags="[]",
                summary=None, content="", extra="{}", content_hash="", mtime_ns=0, size=0)
    return IndexRow(**{**base, **fields})


def _services(rows):
    asked = []
    index = SimpleNamespace(list_rows=lambda filters, limit: asked.append((filters, limit)) or rows)
    return SimpleNamespace(index=index), asked


def test_retrieve_browses_a_time_only_query_newest_first():
    asked_for = request("上周")
    services, asked = _services([_row(7), _row(3)])
    got = retrieve(services, asked_for, analyse(""), [fixed("bm25", {})], pool=50)
    assert got.browse and got.found["time"] == {7: 1.0, 3: 1.0} and fuse(got, 0.3) == {7: 1.0, 3: 1.0}
    assert asked[0][0].start_ts == asked_for.timed.start_ts and asked[0][0].end_ts == asked_for.scope.end.timestamp()
    assert got.notes == ["time-only query: memories of the period, newest first"]


def test_retrieve_widens_to_any_time_when_a_strict_period_is_empty():
    parsed = TimeReasoner().parse("上周 deploy", now=NOW)
    strict = request("上周 deploy")

    def only_without_period(filters: Filters, out: Candidates) -> None:
        out.found["bm25"] = {} if filters.start_ts is not None else {5: 1.0}

    services, _ = _services([])
    got = retrieve(services, strict, analyse("deploy"), [Retriever("bm25", "score", only_without_period)], pool=50)
    assert got.found["bm25"] == {5: 1.0} and not got.browse
    assert got.notes == [f"nothing found in {parsed.text!r}; showing matches from any time"]
    soft = retrieve(services, request("上周 deploy", time_filter="soft"), analyse("deploy"),
                    [fixed("bm25", {5: 1.0})], pool=50)
    assert soft.found["bm25"] == {5: 1.0} and soft.notes == []


def test_place_in_time_scales_late_and_outside_memories():
    scope = parse_time("上周 deploy", start=None, end=None, now=NOW, tz=TZ, reasoner=TimeReasoner())
    rows = {1: _row(1, created_ts=datetime(2026, 3, 10, tzinfo=TZ).timestamp()),
            2: _row(2, created_ts=datetime(2026, 3, 17, tzinfo=TZ).timestamp()),
            3: _row(3, created_ts=datetime(2026, 1, 1, tzinfo=TZ).timestamp())}
    scaled, placement = place_in_time({1: 1.0, 2: 1.0, 3: 1.0}, rows, scope, browse=False)
    assert placement == {1: "inside", 2: "late", 3: "outside"}
    assert scaled == {1: 1.0, 2: LATE_FACTOR, 3: OUTSIDE_FACTOR}
    assert place_in_time({1: 1.0}, rows, scope, browse=True) == ({1: 1.0}, {})


def test_rank_mixes_relevance_importance_and_decay_and_cuts_to_top_k():
    rows = {1: _row(1, id="a", importance=0.0, created_ts=1.0),
            2: _row(2, id="b", importance=1.0, created_ts=2.0),
            3: _row(3, id="c", importance=0.5, created_ts=3.0)}
    decay = {k: DecayInfo(1.0, 0, None) for k in "abc"}
    weights = {"relevance": 1.0, "importance": 1.0, "decay": 0.0}
    assert rank({1: 1.0, 2: 0.6, 3: 0.1, 9: 1.0}, rows, decay, weights, browse=False)[:2] == \
        [(0.8, 2), (0.5, 1)]
    # a browse (a time-only query): newest first, whatever the scores
    flat = {"relevance": 1.0, "importance": 0.0, "decay": 0.0}
    assert [rid for _, rid in rank({1: 1.0, 2: 1.0, 3: 1.0}, rows, decay, flat, browse=True)] == [3, 2, 1]
    assert [rid for _, rid in rank({1: 1.0, 2: 1.0, 3: 1.0}, rows, decay, weights, browse=True)] == [3, 2, 1]


def test_explained_ranks_are_per_retriever_and_keep_its_score_label():
    sources = [fixed("bm25", {}), Retriever("vector", "cosine", lambda f, out: None)]
    found = Candidates(found={"bm25": {1: 3.0, 2: 5.0}, "vector": {1: 0.91234}})
    ranked = {name: ranks(scores) for name, scores in found.found.items()}
    evidence = Evidence(coverage={1: 0.5}, held_idf={1: 1.25})
    assert ranks({4: 1.0, 5: 2.0, 6: 1.0}) == {5: 1, 4: 2, 6: 3}  # ties keep their order
    assert retriever_info(sources, found, ranked, evidence, 1) == {
        "bm25": {"rank": 2, "score": 3.0, "coverage": 0.5, "held_idf": 1.25}, "vector": {"rank": 1, "cosine": 0.9123}}
    assert retriever_info(sources, found, ranked, evidence, 2) == {"bm25": {"rank": 1, "score": 5.0}}


def test_time_info_names_the_parsed_period_or_the_explicit_range():
    scope = parse_time("上周 deploy", start=None, end=None, now=NOW, tz=TZ, reasoner=TimeReasoner())
    assert scope.info() == {"text": "上周", "start": "2026-03-09T00:00:00+08:00",
                            "end": "2026-03-16T00:00:00+08:00"}
    explicit = parse_time("deploy", start=datetime(2026, 3, 1, tzinfo=TZ), end=None, now=NOW, tz=TZ)
    assert explicit.info() == {"text": None, "start": "2026-03-01T00:00:00+08:00", "end": None}
    assert parse_time("deploy", start=None, end=None, now=NOW, tz=TZ).info() is None


def test_graph_closeness_keeps_the_text_order_of_boosted_candidates():
    # both linked to the entity the query names: the boost must not tie them at 1.0
    fused = fuse(Candidates(found={"bm25": {1: 1.0, 2: 0.8}, "vector": {1: 0.9, 2: 1.0},
                                   "graph": {1: 1.0, 2: 1.0}}), vector_share=0.5)
    assert 1.0 >= fused[1] > fused[2] > 0.9
    assert fuse(Candidates(found={"graph": {3: 1.0}}), vector_share=0.5)[3] == pytest.approx(0.3)


def test_an_entity_every_memory_names_singles_nothing_out():
    assert graph_specificity(40, 40) == 0.0
    assert graph_specificity(19, 19) < 0.1          # a conversation's speaker, in every session
    assert graph_specificity(10, 100) == 0.9
    # a palace of two: an entity both name is not "named everywhere" yet
    assert graph_specificity(2, 2) == 0.9
    assert graph_specificity(0, 0) == 0.0
