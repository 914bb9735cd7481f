"""Each stage of the search pipeline (palace/search.py) alone, on explicit inputs."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from palace.concepts import ConceptExpander
from palace.decay import DecayInfo
from palace.errors import InvalidInputError
from palace.index import Filters
from palace.search import (LATE_FACTOR, OUTSIDE_FACTOR, Retriever, TimeScope, check_request, collect,
                           expand_concepts, filter_info, fuse_candidates, gather, is_soft,
                           make_filters, matched_expansions, parse_time, place_in_time, rank, ranks,
                           retriever_info, time_info, graph_specificity)
from palace.time_reasoning import TimeReasoner
from palace.tokenize import stem

TZ = timezone(timedelta(hours=8))
NOW = datetime(2026, 3, 18, 10, 0, tzinfo=TZ)  # a Wednesday


def fixed(name: str, scores: dict[int, float], note: str | None = None) -> Retriever:
    """A retriever that always answers the same."""
    return Retriever(name, "score", lambda filters: (dict(scores), note))


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
    assert not scope.explicit and is_soft(scope, "soft") and not is_soft(scope, "strict")


def test_parse_time_keeps_an_explicit_range_exact_and_checks_it():
    start, end = datetime(2026, 3, 1, tzinfo=TZ), datetime(2026, 3, 5, tzinfo=TZ)
    scope = parse_time("deploy", start=start, end=end, now=NOW, tz=TZ, reasoner=TimeReasoner())
    assert (scope.start, scope.end, scope.window_end, scope.explicit) == (start, end, end, True)
    assert not is_soft(scope, "soft")
    with pytest.raises(InvalidInputError, match="start must be before end"):
        parse_time("deploy", start=end, end=start, now=NOW, tz=TZ)
    with pytest.raises(InvalidInputError, match="query is empty"):
        parse_time("   ", start=None, end=None, now=NOW, tz=TZ)


def test_parse_time_without_a_reasoner_leaves_time_words_as_words():
    scope = parse_time("上周 deploy", start=None, end=None, now=NOW, tz=TZ, reasoner=None)
    assert scope.remainder == "上周 deploy" and scope.parsed is None and not scope.bounded


def test_make_filters_adds_the_window_only_to_the_timed_filters():
    scope = TimeScope(remainder="x", start=datetime(2026, 3, 9, tzinfo=TZ),
                      end=datetime(2026, 3, 16, tzinfo=TZ), window_end=datetime(2026, 3, 23, tzinfo=TZ))
    base, timed = make_filters(scope, tags=["DB"], location="projects/", type="decision",
                               include_archived=True)
    assert base == Filters(statuses=("active", "archived"), tags=("DB",), location="projects",
                           type="decision")
    assert (timed.start_ts, timed.end_ts) == (scope.start.timestamp(), scope.window_end.timestamp())
    assert filter_info(timed) == {"tags": ["DB"], "location": "projects", "type": "decision",
                                  "statuses": ["active", "archived"]}


def test_expand_concepts_adds_weighted_related_terms():
    terms = expand_concepts("数据库", ConceptExpander.load(None))
    assert terms.own == ("数据", "据库", "数据库")
    expanded = {e.term for g in terms.groups[1:] for e in g.expansions}
    assert "PostgreSQL" in expanded and all(g.weight < 1 for g in terms.groups[1:])
    assert expand_concepts("数据库").groups[1:] == ()  # no expander: own words only


def test_gather_asks_every_retriever_and_keeps_each_note_once():
    notes: list[str] = []
    found = gather([fixed("bm25", {1: 2.0}, "slow"), fixed("vector", {2: 0.5}, "slow")], Filters(), notes)
    assert found == {"bm25": {1: 2.0}, "vector": {2: 0.5}} and notes == ["slow"]


def test_fuse_normalises_each_retriever_and_mixes_by_the_vector_share():
    fused = fuse_candidates({"bm25": {1: 4.0, 2: 2.0}, "vector": {2: 0.8}}, vector_share=0.25)
    assert fused == {1: 0.75, 2: 0.75 * 0.5 + 0.25}
    assert fuse_candidates({"bm25": {1: 4.0}}, vector_share=0.25) == {1: 1.0}


def test_collect_browses_a_time_only_query_newest_first():
    scope = TimeScope(remainder="", parsed=None, start=datetime(2026, 3, 9, tzinfo=TZ),
                      end=datetime(2026, 3, 16, tzinfo=TZ), window_end=datetime(2026, 3, 16, tzinfo=TZ))
    base, timed = make_filters(scope, tags=None, location=None, type=None, include_archived=False)
    asked = []
    got = collect([fixed("bm25", {})], scope, expand_concepts(""), base, timed, soft=False,
                  vector_share=0.3, pool=50,
                  list_rows=lambda filters, n: asked.append((filters, n)) or [{"rid": 7}, {"rid": 3}])
    assert got.browse and got.relevance == {7: 1.0, 3: 1.0}
    assert asked == [(timed, 50)] and got.notes == ["time-only query: memories of the period, newest first"]


def test_collect_widens_to_any_time_when_a_strict_period_is_empty():
    parsed = TimeReasoner().parse("上周 deploy", now=NOW)
    scope = parse_time("上周 deploy", start=None, end=None, now=NOW, tz=TZ, reasoner=TimeReasoner())
    base, timed = make_filters(scope, tags=None, location=None, type=None, include_archived=False)

    def only_without_period(filters: Filters):
        return ({} if filters.start_ts is not None else {5: 1.0}), None

    got = collect([Retriever("bm25", "score", only_without_period)], scope, expand_concepts(scope.remainder),
                  base, timed, soft=False, vector_share=0.3, pool=50, list_rows=lambda f, n: [])
    assert got.relevance == {5: 1.0} and not got.browse
    assert got.notes == [f"nothing found in {parsed.text!r}; showing matches from any time"]
    soft = collect([fixed("bm25", {5: 1.0})], scope, expand_concepts(scope.remainder), base, timed,
                   soft=True, vector_share=0.3, pool=50, list_rows=lambda f, n: [])
    assert soft.relevance == {5: 1.0} and soft.notes == []


def test_place_in_time_scales_late_and_outside_memories():
    scope = parse_time("上周 deploy", start=None, end=None, now=NOW, tz=TZ, reasoner=TimeReasoner())
    rows = {1: {"created_ts": datetime(2026, 3, 10, tzinfo=TZ).timestamp()},
            2: {"created_ts": datetime(2026, 3, 17, tzinfo=TZ).timestamp()},
            3: {"created_ts": datetime(2026, 1, 1, tzinfo=TZ).timestamp()}}
    scaled, placement = place_in_time({1: 1.0, 2: 1.0, 3: 1.0}, rows, scope, browse=False)
    assert placement == {1: "inside", 2: "late", 3: "outside"}
    assert scaled == {1: 1.0, 2: LATE_FACTOR, 3: OUTSIDE_FACTOR}
    assert place_in_time({1: 1.0}, rows, scope, browse=True) == ({1: 1.0}, {})


def test_rank_mixes_relevance_importance_and_decay_and_cuts_to_top_k():
    rows = {1: {"id": "a", "importance": 0.0, "created_ts": 1.0},
            2: {"id": "b", "importance": 1.0, "created_ts": 2.0},
            3: {"id": "c", "importance": 0.5, "created_ts": 3.0}}
    decay = {k: DecayInfo(1.0, 0, None) for k in "abc"}
    weights = {"relevance": 1.0, "importance": 1.0, "decay": 0.0}
    assert rank({1: 1.0, 2: 0.6, 3: 0.1, 9: 1.0}, rows, decay, weights, 2, browse=False) == \
        [(0.8, 2), (0.5, 1)]
    # a browse: equal scores, newest first
    flat = {"relevance": 1.0, "importance": 0.0, "decay": 0.0}
    assert [rid for _, rid in rank({1: 1.0, 2: 1.0, 3: 1.0}, rows, decay, flat, 3, browse=True)] == [3, 2, 1]


def test_explained_ranks_are_per_retriever_and_keep_its_score_label():
    sources = [Retriever("bm25", "score", lambda f: ({}, None)), Retriever("vector", "cosine", lambda f: ({}, None))]
    found = {"bm25": {1: 3.0, 2: 5.0}, "vector": {1: 0.91234}}
    ranked = {name: ranks(scores) for name, scores in found.items()}
    assert ranks({4: 1.0, 5: 2.0, 6: 1.0}) == {5: 1, 4: 2, 6: 3}  # ties keep their order
    assert retriever_info(sources, found, ranked, 1) == {"bm25": {"rank": 2, "score": 3.0},
                                                          "vector": {"rank": 1, "cosine": 0.9123}}
    assert retriever_info(sources, found, ranked, 2) == {"bm25": {"rank": 1, "score": 5.0}}


def test_time_info_names_the_parsed_period_or_the_explicit_range():
    scope = parse_time("上周 deploy", start=None, end=None, now=NOW, tz=TZ, reasoner=TimeReasoner())
    assert time_info(scope) == {"text": "上周", "start": "2026-03-09T00:00:00+08:00",
                                "end": "2026-03-16T00:00:00+08:00"}
    explicit = parse_time("deploy", start=datetime(2026, 3, 1, tzinfo=TZ), end=None, now=NOW, tz=TZ)
    assert time_info(explicit) == {"text": None, "start": "2026-03-01T00:00:00+08:00", "end": None}
    assert time_info(parse_time("deploy", start=None, end=None, now=NOW, tz=TZ)) is None


def test_matched_expansions_need_every_word_of_a_multiword_term():
    terms = expand_concepts("数据库", ConceptExpander.load(None))
    assert [m["term"] for m in matched_expansions(terms, {stem("postgresql")})] == ["PostgreSQL"]
    assert matched_expansions(terms, {"无关"}) == []


def test_graph_closeness_keeps_the_text_order_of_boosted_candidates():
    # both linked to the entity the query names: the boost must not tie them at 1.0
    fused = fuse_candidates({"bm25": {1: 1.0, 2: 0.8}, "vector": {1: 0.9, 2: 1.0},
                             "graph": {1: 1.0, 2: 1.0}}, vector_share=0.5)
    assert 1.0 >= fused[1] > fused[2] > 0.9
    assert fuse_candidates({"graph": {3: 1.0}}, vector_share=0.5)[3] == pytest.approx(0.3)


def test_an_entity_every_memory_names_singles_nothing_out():
    assert graph_specificity(40, 40) == 0.0
    assert graph_specificity(19, 19) < 0.1          # a conversation's speaker, in every session
    assert graph_specificity(10, 100) == 0.9
    # a palace of two: an entity both name is not "named everywhere" yet
    assert graph_specificity(2, 2) == 0.9
    assert graph_specificity(0, 0) == 0.0
