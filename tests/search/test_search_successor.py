"""Successors (palace/search/successor.py, issue 26): a search that finds a retired fact
brings the memory that replaced it, ranked where the stale one matched, saying so;
filters hold; chains resolve to the newest; loops end. Real palaces in tmp_path."""

from __future__ import annotations

from datetime import datetime, timedelta

from palace import Settings
from palace.features.context import get_context
from palace.responses import search_response

T0 = datetime(2024, 1, 10, 9, 0)
LATER = T0 + timedelta(days=60)
NOW = T0 + timedelta(days=120)


def test_the_current_fact_joins_above_the_stale_one_it_replaces(make_pm):
    pm = make_pm(settings=Settings.from_env(vector_enabled=False))  # extraction on: it marks Berlin
    berlin = pm.store("I live in Berlin", created_at=T0)
    paris = pm.store("I moved to Paris last month", created_at=LATER)
    results = pm.search("where do I live", now=NOW, record_access=False)
    assert [r.memory.id for r in results] == [paris.id, berlin.id]   # Paris shares no word of the question
    current, stale = results[0].explanation, results[1].explanation
    assert current.replaces == berlin.id and current.retrievers["successor"]["replaces"] == berlin.id
    assert f"replaces {berlin.id}, which matched" in current.summary_line()
    assert current.confidence == "strong" and current.reason.startswith(f"replaces {berlin.id}, which matched")
    assert stale.superseded_by == paris.id and stale.replaces is None
    shown = search_response(results)["results"]
    assert shown[0]["replaces"] == berlin.id and shown[1]["superseded_by"] == paris.id
    context = get_context(pm, "where do I live", 500, now=NOW)  # injection: the current fact, not the stale
    assert [piece.id for piece in context.pieces] == [paris.id]


def test_a_successor_outside_the_location_asked_for_does_not_join(make_pm):
    pm = make_pm(settings=Settings.from_env(vector_enabled=False))
    berlin = pm.store("I live in Berlin", created_at=T0, location="home")
    paris = pm.store("I moved to Paris last month", created_at=LATER, location="travel")
    assert pm.get(berlin.id, record_access=False).extra.get("supersededBy") == paris.id
    results = pm.search("where do I live", location="home", now=NOW, record_access=False)
    assert [r.memory.id for r in results] == [berlin.id]
    assert results[0].explanation.superseded_by == paris.id


def _marked(pm, links: dict[str, str | None], texts: dict[str, str]) -> None:
    """Memories with these ids, each ``supersededBy`` the one ``links`` names (as a person
    may write it in the frontmatter), one day apart."""
    for day, (memory_id, later) in enumerate(links.items()):
        pm.store(texts[memory_id], id=memory_id, created_at=T0 + timedelta(days=day),
                 extra={"supersededBy": later} if later else None)


def test_a_chain_of_three_resolves_to_the_newest(make_pm):
    pm = make_pm(settings=Settings.from_env(vector_enabled=False, graph_extract=False))
    _marked(pm, {"c0ffee03": None, "c0ffee02": "c0ffee03", "c0ffee01": "c0ffee02"},
            {"c0ffee01": "The team standup is at nine", "c0ffee02": "We moved it to half past nine",
             "c0ffee03": "From now on it starts at ten"})
    results = pm.search("when is the team standup", now=NOW, record_access=False)
    assert [r.memory.id for r in results][:2] == ["c0ffee03", "c0ffee01"]
    assert results[0].explanation.replaces == "c0ffee01"
    assert "c0ffee02" not in [r.memory.id for r in results]  # retired itself, and no word matched


def test_a_loop_of_supersessions_brings_nothing_and_ends(make_pm):
    pm = make_pm(settings=Settings.from_env(vector_enabled=False, graph_extract=False))
    _marked(pm, {"beef0001": "beef0002", "beef0002": "beef0001"},
            {"beef0001": "The team standup is at nine", "beef0002": "It starts at ten"})
    results = pm.search("when is the team standup", now=NOW, record_access=False)
    assert [r.memory.id for r in results] == ["beef0001"]
    assert results[0].explanation.superseded_by == "beef0002" and results[0].explanation.replaces is None


def test_an_archived_successor_joins_only_when_archived_memories_are_searched(make_pm):
    pm = make_pm(settings=Settings.from_env(vector_enabled=False, graph_extract=False))
    _marked(pm, {"aaaa0002": None, "aaaa0001": "aaaa0002"},
            {"aaaa0001": "The team standup is at nine", "aaaa0002": "From now on it starts at ten"})
    pm.update("aaaa0002", status="archived")
    assert [r.memory.id for r in pm.search("team standup", now=NOW, record_access=False)] == ["aaaa0001"]
    searched = pm.search("team standup", now=NOW, include_archived=True, record_access=False)
    assert [r.memory.id for r in searched] == ["aaaa0002", "aaaa0001"]
