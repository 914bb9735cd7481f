"""Hybrid search through the manager with a real model (MiniLM shipped on PyPI) and a
real sidecar process: vectors find what words miss, both retrievers explain
themselves, nothing is embedded twice, and a dead sidecar costs one timeout."""

from __future__ import annotations

import time

import pytest

from palace import MemoryPalaceManager, Settings
from palace.embedders import HttpEmbedder, InProcessEmbedder
from vector_helpers import CountingEmbedder, start_sidecar

pytest_plugins = ["conftest_vectors"]


@pytest.fixture(scope="module")
def minilm_embedder(minilm_path):
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HF_HUB_OFFLINE", "1")
        embedder = InProcessEmbedder(Settings(vector_model=minilm_path, vector_mode="inprocess"))
        embedder.embed_query("warm up")
        return embedder


def _pm(workspace, embedder, **overrides):
    settings = Settings.from_env(workspace_dir=str(workspace), vector_enabled=True, **overrides)
    return MemoryPalaceManager(workspace, settings=settings, embedder=embedder)


MEMORIES = {
    "pets": "My dog Biscuit needs his vaccination at the vet next month.",
    "car": "The car's brakes squeak; book a mechanic to replace the pads.",
    "db": "We chose PostgreSQL for the orders service because of JSONB support.",
    "trip": "Flights to Lisbon are booked for the conference in June.",
}


@pytest.fixture
def filled(tmp_path, minilm_embedder):
    counting = CountingEmbedder(minilm_embedder)
    pm = _pm(tmp_path, counting)
    for memory_id, text in MEMORIES.items():
        pm.store(text, id=memory_id, created_at="2026-11-01T10:00:00+08:00")
    return pm, counting


def test_vectors_find_a_paraphrase_that_shares_no_word(filled):
    pm, counting = filled
    query = "puppy shots appointment"  # no word in common with the pets memory
    assert pm.index.keyword_scores([(1.0, ["puppy", "shots", "appointment"])],
                                   __import__("palace.index").index.Filters(), 10) == {}
    results = pm.search(query, top_k=2, now="2026-11-30T10:00:00+08:00")
    assert results[0].memory.id == "pets"
    assert "vector" in results[0].explanation.retrievers
    assert results[0].explanation.matched_terms == ()  # no word of the query's own: the concept map at most


def test_explanation_shows_both_retrievers_when_both_match(filled):
    pm, _ = filled
    results = pm.search("PostgreSQL database choice", top_k=1, now="2026-11-30T10:00:00+08:00")
    parts = results[0].explanation.retrievers
    assert results[0].memory.id == "db"
    assert parts["bm25"]["rank"] == 1 and parts["vector"]["rank"] == 1
    assert 0 < parts["vector"]["cosine"] <= 1
    assert results[0].explanation.notes == ()


def test_nothing_is_embedded_twice_and_reindex_keeps_vectors(filled):
    pm, counting = filled
    pm.search("vet", now="2026-11-30T10:00:00+08:00")
    first = counting.documents
    assert first >= len(MEMORIES)
    pm.search("mechanic", now="2026-11-30T10:00:00+08:00")
    pm.update("car", tags=["car"])  # tags change, text does not: no new vector
    pm.search("brakes", now="2026-11-30T10:00:00+08:00")
    assert counting.documents == first
    pm.reindex()
    pm.search("brakes", now="2026-11-30T10:00:00+08:00")
    assert counting.documents == first
    pm.update("car", content="The car's brakes were fixed on Friday.")
    pm.search("brakes", now="2026-11-30T10:00:00+08:00")
    assert counting.documents == first + 1


def test_a_model_change_embeds_again_but_never_inside_a_search(filled, minilm_embedder):
    pm, counting = filled
    assert counting.documents == len(MEMORIES)  # each store embedded its memory
    pm.search("vet", now="2026-11-30T10:00:00+08:00")
    assert counting.documents == len(MEMORIES)

    class Renamed(CountingEmbedder):
        name = property(lambda self: "another-model")

    other = Renamed(minilm_embedder)
    pm2 = _pm(pm.settings.workspace, other)
    waiting = pm2.search("vaccination for my dog", top_k=1, now="2026-11-30T10:00:00+08:00")
    assert other.documents == 0  # the search embedded nothing: it found by keywords and says why
    assert waiting[0].memory.id == "pets" and "vector" not in waiting[0].explanation.retrievers
    assert any("4 memories have no vector yet" in note for note in waiting.notes)
    pm2.store("The vet says Biscuit is healthy.", id="vet")  # a write embeds what waits
    assert other.documents == len(MEMORIES) + 1
    results = pm2.search("puppy shots appointment", top_k=1, now="2026-11-30T10:00:00+08:00")
    assert results[0].memory.id == "pets" and "vector" in results[0].explanation.retrievers
    assert set(pm2.stats()["vectors"]) == {counting.name, "another-model"}


def test_the_end_of_a_long_memory_is_findable_through_its_chunks(tmp_path, minilm_embedder):
    pm = _pm(tmp_path, minilm_embedder)
    filler = " ".join(f"Meeting note {i}: we reviewed the quarterly budget spreadsheet." for i in range(60))
    pm.store(filler + " Finally, the kitten needs deworming medicine from the veterinarian.", id="long")
    pm.store("Quarterly budget spreadsheet reviewed with finance.", id="short")
    results = pm.search("cat parasite treatment", top_k=2, now="2026-11-30T10:00:00+08:00")
    assert results[0].memory.id == "long"


def test_without_an_embedder_search_says_it_is_keyword_only(tmp_path, minilm_path):
    broken = Settings.from_env(workspace_dir=str(tmp_path), vector_enabled=True,
                               vector_mode="inprocess", vector_model=str(tmp_path / "no-such-model"))
    pm = MemoryPalaceManager(tmp_path, settings=broken)
    pm.store("We chose PostgreSQL for the orders service.", id="db")
    started = time.perf_counter()
    results = pm.search("PostgreSQL")
    assert time.perf_counter() - started < 10
    assert [r.memory.id for r in results] == ["db"]
    assert any("keyword" in note for note in results[0].explanation.notes)


def test_search_through_the_sidecar_then_falls_back_when_it_dies(tmp_path, minilm_path):
    (tmp_path / "sidecar").mkdir()
    running = start_sidecar(tmp_path / "sidecar", minilm_path)
    try:
        running.wait_until_ready()
        workspace = tmp_path / "ws"
        settings = Settings.from_env(workspace_dir=str(workspace), vector_enabled=True,
                                     # a loaded 2-core machine can take over 1 s to embed the
                                     # first batch; the dead sidecar below refuses at once
                                     vector_service_url=running.url, vector_timeout_s=10.0,
                                     vector_breaker_cooldown_s=60.0)
        embedder = HttpEmbedder(settings)
        pm = MemoryPalaceManager(workspace, settings=settings, embedder=embedder)
        for memory_id, text in MEMORIES.items():
            pm.store(text, id=memory_id)
        results = pm.search("puppy shots appointment", top_k=1)
        assert results[0].memory.id == "pets" and "vector" in results[0].explanation.retrievers

        running.process.kill()
        running.process.wait(10)
        client = embedder._http()
        attempts = []
        real_request = client.request
        client.request = lambda *a, **kw: attempts.append(a[1]) or real_request(*a, **kw)
        results = pm.search("PostgreSQL", top_k=1)
        assert [r.memory.id for r in results] == ["db"]
        assert any("keyword" in note for note in results[0].explanation.notes)
        assert len(attempts) == 1  # one try at the dead sidecar, which opens the breaker
        for _ in range(5):
            assert pm.search("mechanic brakes", top_k=1)[0].memory.id == "car"
        assert len(attempts) == 1  # the breaker skips it: no timeout per query
    finally:
        running.stop()


def test_the_vector_cache_follows_writes_without_reloading_everything(filled, monkeypatch):
    # an agent stores, then searches: re-reading every vector after each write costs
    # ~1 s at 100k memories, so only what was written or deleted since is applied
    pm, counting = filled
    now = "2026-11-30T10:00:00+08:00"
    pm.search("vet", now=now)
    reloads = []
    real_rows = pm.index.vector_rows
    monkeypatch.setattr(pm.index, "vector_rows",
                        lambda model, **kw: reloads.append(model) or real_rows(model, **kw))
    pm.store("Our cat Miso hates the carrier on the way to the vet.", id="cat", created_at=now)
    pm.update("car", content="The car's brakes were fixed; the mechanic also rotated the tyres.")
    pm.update("trip", status="archived")
    results = pm.search("pet clinic visit", top_k=4, now=now)
    assert reloads == []
    assert "cat" in [r.memory.id for r in results]
    from palace.index.vectors import VectorStore

    query = counting.embed_query("tyres and brakes")
    cached = pm._vectors.scores(counting.name, query, allowed=None, limit=10)
    fresh = VectorStore(pm.index).scores(counting.name, query, allowed=None, limit=10)
    assert cached.keys() == fresh.keys() and "trip" not in {pm.index.rows_by_rid([r])[r].id for r in cached}
    for rid, score in fresh.items():
        assert cached[rid] == pytest.approx(score, abs=1e-6)
    before = len(reloads)  # (the fresh store above loaded once)
    pm.delete("pets")  # a removed memory's vectors go too, still without a reload
    results = pm.search("dog vaccination", top_k=4, now=now)
    assert "pets" not in [r.memory.id for r in results]
    assert len(reloads) == before
    cached = pm._vectors.scores(counting.name, query, allowed=None, limit=10)
    fresh = VectorStore(pm.index).scores(counting.name, query, allowed=None, limit=10)
    assert cached.keys() == fresh.keys()


def test_an_index_schema_upgrade_keeps_the_embeddings(filled):
    pm, counting = filled
    now = "2026-11-30T10:00:00+08:00"
    pm.search("vet", now=now)
    embedded = counting.documents
    pm.index.set_meta("schema_version", "5")  # as if written by the previous release
    pm.close()
    again = _pm(pm.settings.workspace, counting)
    assert again.index.rebuilt_schema
    results = again.search("puppy shots appointment", top_k=1, now=now)
    assert results[0].memory.id == "pets"
    assert counting.documents == embedded  # nothing embedded again


def test_a_fresh_process_checks_only_what_was_written_since_the_last_complete_check(filled, monkeypatch):
    # a CLI search is a fresh process: scanning every memory for a missing vector
    # each time costs ~0.3 s at 100k memories
    pm, counting = filled
    now = "2026-11-30T10:00:00+08:00"
    pm.search("vet", now=now)
    embedded = counting.documents
    pm.close()
    again = _pm(pm.settings.workspace, counting)
    checks = []
    real = again.index.hashes_missing_vectors
    monkeypatch.setattr(again.index, "hashes_missing_vectors",
                        lambda model, **kw: checks.append(kw.get("since", 0)) or real(model, **kw))
    again.search("brakes", now=now)
    assert checks == []  # nothing written since: no check at all
    again.store("Planted tomatoes and basil in the garden beds.", id="garden", created_at=now)
    results = again.search("vegetable garden", top_k=1, now=now)
    assert checks and all(since > 0 for since in checks)
    assert counting.documents == embedded + 1 and results[0].memory.id == "garden"


def test_a_fresh_process_starts_from_the_snapshot_and_catches_up(filled, monkeypatch):
    from palace.index import vectors as vectors_module
    from palace.index.vectors import VectorStore

    monkeypatch.setattr(vectors_module, "SNAPSHOT_MIN_ROWS", 1)  # small palace, same code path
    pm, counting = filled
    now = "2026-11-30T10:00:00+08:00"
    pm.search("vet", now=now)  # embeds everything; the whole load leaves a snapshot
    workspace = pm.settings.workspace
    pm.close()

    again = _pm(workspace, counting)
    reloads = []
    real_rows = again.index.vector_rows
    monkeypatch.setattr(again.index, "vector_rows",
                        lambda model, **kw: reloads.append(model) or real_rows(model, **kw))
    again.store("Planted tomatoes and basil in the garden beds.", id="garden", created_at=now)
    again.delete("trip")
    results = again.search("vegetable garden", top_k=2, now=now)
    assert results[0].memory.id == "garden"
    assert reloads == []  # snapshot + logs: no vector row read again
    query = counting.embed_query("flights and brakes")
    cached = again._vectors.scores(counting.name, query, allowed=None, limit=10)
    monkeypatch.setattr(vectors_module, "SNAPSHOT_MIN_ROWS", 10**9)
    for snapshot in (again.index.path.parent).glob("vectors-*.npz"):
        snapshot.unlink()
    fresh = VectorStore(again.index).scores(counting.name, query, allowed=None, limit=10)
    assert cached.keys() == fresh.keys()
    for rid, score in fresh.items():
        assert cached[rid] == pytest.approx(score, abs=1e-6)


def test_a_snapshot_of_a_rebuilt_index_is_not_trusted(filled, monkeypatch):
    from palace.index import vectors as vectors_module

    monkeypatch.setattr(vectors_module, "SNAPSHOT_MIN_ROWS", 1)
    pm, counting = filled
    now = "2026-11-30T10:00:00+08:00"
    pm.search("vet", now=now)
    workspace, db = pm.settings.workspace, pm.index.path
    pm.close()
    for suffix in ("", "-wal", "-shm"):  # a person deletes the index; rows get new ids
        db.with_name(db.name + suffix).unlink(missing_ok=True)
    again = _pm(workspace, counting)
    reloads = []
    real_rows = again.index.vector_rows
    monkeypatch.setattr(again.index, "vector_rows",
                        lambda model, **kw: reloads.append(model) or real_rows(model, **kw))
    results = again.search("puppy shots appointment", top_k=1, now=now)
    assert reloads and results[0].memory.id == "pets"


def test_reindex_clears_the_vector_snapshots(filled, monkeypatch):
    from palace.index import vectors as vectors_module

    monkeypatch.setattr(vectors_module, "SNAPSHOT_MIN_ROWS", 1)
    pm, _ = filled
    pm.search("vet", now="2026-11-30T10:00:00+08:00")
    folder = pm.index.path.parent
    assert list(folder.glob("vectors-*.npz"))
    pm.reindex()
    assert not list(folder.glob("vectors-*.npz"))
    assert pm.search("puppy shots appointment", top_k=1, now="2026-11-30T10:00:00+08:00")[0].memory.id == "pets"
