"""Newer first (palace/search/newer.py, issue 26): of two close results about the same
thing, the newer ranks first and the older says it may be outdated; unrelated results
keep their order. Real palaces in tmp_path, and the stage on explicit inputs."""

from __future__ import annotations

from datetime import datetime

from palace import Settings
from palace.responses import search_response
from palace.search.newer import newer_first

JAN, JUL, NOW = datetime(2024, 1, 5), datetime(2024, 7, 5), datetime(2024, 8, 1)
# the stale note is short, so it holds the question's words more densely and, by
# keywords alone, outranks the later, longer one
OLD = "Bought a Fitbit Charge 3 to count my steps."
NEW = ("Nine months on I still wear the Fitbit Charge 3 every day. It counts my steps on the way to "
       "the office, tracks my sleep and my resting heart rate, reminds me to stand up during "
       "meetings, and the battery lasts a week between charges.")


def _palace(make_pm):
    pm = make_pm(settings=Settings.from_env(vector_enabled=False))
    old = pm.store(OLD, created_at=JAN)
    new = pm.store(NEW, created_at=JUL)
    pm.store("Went hiking in the hills with Dana on Sunday.", created_at=datetime(2024, 3, 1))
    return pm, old, new


def test_the_newer_memory_on_the_same_topic_ranks_first_and_the_older_says_why(make_pm):
    pm, old, new = _palace(make_pm)
    results = pm.search("how long have I had my Fitbit Charge 3", now=NOW, record_access=False)
    assert [r.memory.id for r in results][:2] == [new.id, old.id]
    assert results[0].score < results[1].score        # the order, not the score, says which is newer
    stale = results[1].explanation
    assert stale.newer_on_topic == new.id and results[0].explanation.newer_on_topic is None
    assert f"possibly outdated: newer {new.id} on the same topic" in stale.summary_line()
    assert any(new.id in line for line in stale.detail_lines(results[1].score))
    shown = search_response(results)["results"]
    assert shown[1]["newer_on_topic"] == new.id and "newer_on_topic" not in shown[0]


def test_memories_matching_different_words_keep_their_order(make_pm):
    pm = make_pm(settings=Settings.from_env(vector_enabled=False))
    boots = pm.store("Bought hiking boots for the Alps trip.", created_at=JAN)
    fitbit = pm.store("Bought a Fitbit for the Alps trip.", created_at=JUL)
    results = pm.search("hiking boots Fitbit", now=NOW, record_access=False)
    assert [r.memory.id for r in results] == [boots.id, fitbit.id]
    assert all(r.explanation.newer_on_topic is None for r in results)


PROFILE = {1: (1.0, 2.0), 2: (1.0, 2.0), 3: (0.5, 1.5), 4: (1.0, 0.0)}
CREATED = {1: 100.0, 2: 200.0, 3: 300.0, 4: 400.0, 5: 500.0}


def order(ranked, profile=PROFILE, retired=frozenset(), most=3):
    out, outdated = newer_first(ranked, CREATED, profile, set(retired), close=0.7, same_topic=0.6, most=most)
    return [rid for _, rid in out], outdated


def test_a_close_newer_result_on_the_same_words_moves_above_the_older():
    assert order([(1.0, 1), (0.8, 2)]) == ([2, 1], {1: 2})
    # holds 2/3 of the older's weight (≥ 0.6): the same topic
    assert order([(1.0, 1), (0.8, 3)]) == ([3, 1], {1: 3})


def test_different_words_far_scores_or_a_retired_fact_keep_the_order():
    assert order([(1.0, 1), (0.8, 4)]) == ([1, 4], {})             # 1/3 of the weight
    assert order([(1.0, 1), (0.5, 2)]) == ([1, 2], {})             # not close
    assert order([(1.0, 2), (0.9, 1)]) == ([2, 1], {})             # the newer is first already
    assert order([(1.0, 1), (0.9, 2)], retired={2}) == ([1, 2], {})
    assert order([(1.0, 1), (0.9, 5)]) == ([1, 5], {})             # no keyword profile
    # one query word alone ("PostgreSQL") is a mention, not a topic
    assert order([(1.0, 1), (0.9, 2)], profile={1: (3.0, 0.0), 2: (3.0, 0.0)}) == ([1, 2], {})


def test_only_neighbours_swap_so_a_lifted_result_passes_nothing_else():
    assert order([(1.0, 1), (0.9, 4), (0.8, 2)]) == ([1, 4, 2], {})
    # a fact restated three times: newest first
    assert order([(1.0, 1), (0.95, 2), (0.9, 3)], profile={1: (1.0, 1.0), 2: (1.0, 1.0), 3: (1.0, 1.0)})[0] \
        == [3, 2, 1]


def test_words_that_many_close_results_hold_are_common_ground_not_one_topic():
    everyone = {rid: (1.0, 1.0) for rid in CREATED}
    ranked = [(1.0, 1), (0.99, 2), (0.98, 3), (0.97, 4)]
    assert order(ranked, profile=everyone) == ([1, 2, 3, 4], {})
    assert order(ranked, profile=everyone, most=4)[0] == [4, 3, 2, 1]
