"""The graph retriever's noise (docs/search-quality.md).

- The graph retriever does not follow the user ("I", "my") nor a lone function word
  ("How") from a query: they singled out whichever memories hold such a relation.

Real palaces in tmp_path."""

from __future__ import annotations

from palace import Settings
from palace.search.retrievers import names_no_one


def _keyword_palace(make_pm):
    pm = make_pm(settings=Settings.from_env(vector_enabled=False))
    home = pm.store("I live in Hangzhou with two cats.")           # extracted: 用户 lives_in Hangzhou
    risotto = pm.store("Cooked a mushroom risotto for dinner on Friday.")
    late = pm.store("What a day. The train was late again and How was the meeting? Nobody knew.")
    return pm, home, risotto, late


def test_a_first_person_question_does_not_bring_back_every_fact_about_the_user(make_pm):
    pm, home, risotto, _late = _keyword_palace(make_pm)
    assert home.extra["relations"][0]["object"] == "Hangzhou"       # the graph knows the user lives there
    found = pm.search("what risotto did I cook", record_access=False, include_weak=True)
    assert [r.memory.id for r in found] == [risotto.id]
    # named, the city is still followed through the graph
    assert home.id in [r.memory.id for r in pm.search("Hangzhou", record_access=False)]


def test_a_capitalised_function_word_is_not_a_name_a_query_gives(make_pm):
    pm, _home, risotto, _late = _keyword_palace(make_pm)
    # the extractor no longer takes a question's first word for a name; a hand-written
    # (or older) entity "How" must still not be what the query names
    pm.store("How was the meeting, asked Dana.", extra={"entities": [{"name": "How"}]})
    found = pm.search("how was the risotto", record_access=False, include_weak=True)
    assert [r.memory.id for r in found] == [risotto.id]


def test_names_no_one():
    assert names_no_one("user") and names_no_one("how") and names_no_one("什么")
    assert not names_no_one("hangzhou") and not names_no_one("the nightingale") and not names_no_one("张伟")
