"""Vector feedback (Rocchio on embeddings, palace/feedback.py ``feedback_vector``): the
question's vector moved toward the best first results' closest chunks ranks the second
pass, while every result's cosine — shown, and judged by the relevance floor — stays its
cosine to the question itself. Real MiniLM, real SQLite palaces in tmp_path.

Off by default (FEEDBACK_VECTOR_SHARE = 0: measured on the tuning halves,
docs/search-quality.md "Round 3"); these tests switch it on as the benchmarks'
``--patch palace.feedback.FEEDBACK_VECTOR_SHARE=0.3`` does."""

from __future__ import annotations

import numpy as np
import pytest

from vector_helpers import CountingEmbedder

from palace import MemoryPalaceManager, Settings, feedback
from palace.chunking import chunk_text
from palace.embedders import InProcessEmbedder

pytest_plugins = ["conftest_vectors"]

NOW = "2026-11-30T10:00:00+08:00"


@pytest.fixture(scope="module")
def minilm(minilm_path):
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HF_HUB_OFFLINE", "1")
        return InProcessEmbedder(Settings(vector_model=minilm_path, vector_mode="inprocess"))


def _pm(workspace, embedder):
    settings = Settings.from_env(workspace_dir=str(workspace), vector_enabled=True, weight_importance=0.0,
                                 weight_decay=0.0, weight_relevance=1.0, decay_enabled=False)
    return MemoryPalaceManager(workspace, settings=settings, embedder=embedder)


def test_the_moved_vector_is_normalised_and_closer_to_the_results(minilm):
    question = minilm.embed_query("what did we decide about the database")
    result = minilm.embed_documents(["We picked PostgreSQL for the orders service."])[0]
    moved = feedback.feedback_vector(question, [result], share=0.3)
    assert abs(float(np.linalg.norm(moved)) - 1.0) < 1e-5
    assert float(moved @ result) > float(question @ result)
    assert float(moved @ question) > 0.9  # still mostly the question
    assert np.array_equal(feedback.feedback_vector(question, [], share=0.3), question)
    assert np.array_equal(feedback.feedback_vector(question, [result], share=0.0), question)


def test_best_chunks_gives_the_chunk_a_memory_is_scored_by(tmp_path, minilm):
    long = " ".join(["The quarterly report covers revenue, hiring and office moves."] * 12
                    + ["At the very end: my sister's wedding is in Porto next May."])
    assert len(chunk_text(long, minilm.max_chars)) > 2  # a memory of several chunks
    pm = _pm(tmp_path, minilm)
    pm.store(long, id="report")
    pm.store("Buy oat milk and eggs on the way home.", id="shopping")
    pm.embed_pending()
    question = minilm.embed_query("where is the wedding")
    store = pm._vectors
    scores = store.scores(minilm.name, question, allowed=None, limit=10)
    chunks = store.best_chunks(minilm.name, question, list(scores))
    assert set(chunks) == set(scores)
    for row_id, vector in chunks.items():
        assert abs(float(vector @ question) - scores[row_id]) < 1e-5  # best chunk = the score's chunk
    pm.close()


MEMORIES = {
    # the question names the trip; the two trip memories say different things about it
    "flight": "Booked the flights to Lisbon for the design conference, leaving June 3.",
    "hotel": "Reserved a room near Alfama for the Lisbon conference week in June.",
    "talk": "My talk slot at the Lisbon design conference is on the second morning.",
    "garden": "Repotted the basil and the tomato seedlings on the balcony.",
    "car": "The car's brakes squeak; book a mechanic to replace the pads.",
    "bank": "Moved the savings account to the bank with the better interest rate.",
}


def _search(tmp_path, minilm, share, monkeypatch, name):
    monkeypatch.setattr(feedback, "FEEDBACK_VECTOR_SHARE", share)
    counting = CountingEmbedder(minilm)
    pm = _pm(tmp_path / name, counting)
    for memory_id, text in MEMORIES.items():
        pm.store(text, id=memory_id, created_at="2026-05-01T10:00:00+08:00")
    pm.embed_pending()
    counting.queries = 0
    results = pm.search("Lisbon conference plans", top_k=6, now=NOW, include_weak=True, record_access=False)
    embedded = counting.queries
    pm.close()
    return results, embedded


def test_feedback_ranks_but_each_result_keeps_its_cosine_to_the_question(tmp_path, minilm, monkeypatch):
    plain, _ = _search(tmp_path, minilm, 0.0, monkeypatch, "plain")
    moved, embedded = _search(tmp_path, minilm, 0.3, monkeypatch, "moved")
    assert embedded == 1  # the question is embedded once for both passes
    cosine = {r.memory.id: r.explanation.retrievers.get("vector", {}).get("cosine") for r in plain}
    for result in moved:
        # the evidence shown (and judged by the floor) is the cosine to the question itself
        assert result.explanation.retrievers.get("vector", {}).get("cosine") == cosine[result.memory.id]
        assert result.explanation.confidence == next(
            r.explanation.confidence for r in plain if r.memory.id == result.memory.id)
    # the three conference memories stay the three best, and the unrelated ones below them
    assert {r.memory.id for r in moved[:3]} == {"flight", "hotel", "talk"}
    assert {r.memory.id for r in plain[:3]} == {"flight", "hotel", "talk"}


def test_feedback_moves_the_second_pass(tmp_path, minilm, monkeypatch):
    plain, _ = _search(tmp_path, minilm, 0.0, monkeypatch, "plain")
    moved, _ = _search(tmp_path, minilm, 0.3, monkeypatch, "moved")
    relevance = {r.memory.id: r.explanation.relevance for r in plain}
    # the memories feedback read keep their first-pass relevance; the others are ranked
    # by the moved vector (the conference memories resemble each other more than the question)
    changed = {r.memory.id for r in moved if r.explanation.relevance != relevance[r.memory.id]}
    assert changed and not changed & {"flight", "hotel", "talk"}
