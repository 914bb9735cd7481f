"""The HNSW graph over the vectors (palace.index.ann), through the real index and a
real usearch graph: above its threshold a query's top memories are the exact
product's (recall), filters and the trash still hold, writes made after the build
are found, a fresh process reads the saved graph instead of building one, and a
graph that does not fit the snapshot beside it is never used."""

from __future__ import annotations

import hashlib
import time

import numpy as np
import pytest

from palace import MemoryPalaceManager, Settings
from palace.index.ann import Graph
from palace.index.vectors import VectorStore
from palace.text.chunking import chunk_text

TOPICS = ("database", "garden", "travel", "music", "cooking", "finance", "health", "code")
ROWS_FOR_GRAPH = 300  # the test's threshold; the real one (ann.MIN_ROWS) is 20k rows
NOW = "2026-11-30T10:00:00+08:00"


class TopicEmbedder:
    """Vectors near the centre of the topic a text names, with noise drawn from the text:
    clustered like real embeddings, deterministic, and instant."""

    name = "topic-embedder-v1"
    max_chars = 2000
    dimension = 64

    def __init__(self) -> None:
        centres = np.random.default_rng(7).normal(size=(len(TOPICS), self.dimension))
        self.centres = centres / np.linalg.norm(centres, axis=1, keepdims=True)

    def _vector(self, text: str) -> np.ndarray:
        seed = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")
        noise = np.random.default_rng(seed).normal(size=self.dimension)
        topic = next((i for i, t in enumerate(TOPICS) if t in text), 0)
        vector = self.centres[topic] + 0.12 * noise
        return (vector / np.linalg.norm(vector)).astype(np.float32)

    def embed_documents(self, texts):
        return [self._vector(t) for t in texts]

    def embed_query(self, text):
        return self._vector(text)


@pytest.fixture(scope="module")
def palace(tmp_path_factory):
    workspace = tmp_path_factory.mktemp("graph")
    embedder = TopicEmbedder()
    pm = MemoryPalaceManager(workspace, settings=Settings.from_env(workspace_dir=str(workspace),
                                                                   vector_enabled=True), embedder=embedder)
    with pm.writes_batched():
        for n in range(600):
            topic = TOPICS[n % len(TOPICS)]
            pm.store(f"note {n} about {topic}: item {n * 7919 % 1000}", id=f"m{n}",
                     tags=["even"] if n % 2 == 0 else [], created_at="2026-11-01T10:00:00+08:00")
    yield pm, embedder
    pm.close()


def graph_store(pm) -> VectorStore:
    return VectorStore(pm.index, chunk_text, graph_min_rows=ROWS_FOR_GRAPH)


def exact_store(pm) -> VectorStore:
    return VectorStore(pm.index, chunk_text, graph_min_rows=10**9)


def queries(embedder, n=40):
    return [embedder.embed_query(f"question {i} on {TOPICS[i % len(TOPICS)]} {i * 31}") for i in range(n)]


def test_the_graph_gives_the_exact_top_memories(palace):
    pm, embedder = palace
    store, exact = graph_store(pm), exact_store(pm)
    assert store.build_graph(embedder.name)
    assert store._cache.graph is not None  # the graph answers below, not the product
    hits = total = 0
    for query in queries(embedder):
        truth = exact.scores(embedder.name, query, allowed=None, limit=10)
        found = store.scores(embedder.name, query, allowed=None, limit=10)
        hits += len(truth.keys() & found.keys())
        total += len(truth)
        for rid in truth.keys() & found.keys():  # cosines come from the matrix, not the graph
            assert found[rid] == pytest.approx(truth[rid], abs=1e-6)
    assert hits / total >= 0.95


def test_filters_hold_on_the_graph_and_a_rare_filter_is_answered_exactly(palace):
    pm, embedder = palace
    store, exact = graph_store(pm), exact_store(pm)
    store.build_graph(embedder.name)
    rids = pm.index.conn.execute("SELECT rid FROM memories ORDER BY rid").fetchall()
    every = [r[0] for r in rids]
    half, rare = set(every[::2]), set(every[5:8])
    for query in queries(embedder, 10):
        found = store.scores(embedder.name, query, allowed=half, limit=10)
        assert len(found) == 10 and set(found) <= half
        found, truth = (s.scores(embedder.name, query, allowed=rare, limit=10) for s in (store, exact))
        assert list(found) == list(truth) and list(found.values()) == pytest.approx(list(truth.values()))


def rid_of(pm, memory_id: str) -> int:
    return pm.index.conn.execute("SELECT rid FROM memories WHERE id = ?", (memory_id,)).fetchone()[0]


def test_writes_after_the_build_are_found_and_deleted_memories_are_not(palace):
    pm, embedder = palace
    store = graph_store(pm)
    store.build_graph(embedder.name)
    built_over = store._cache.graph.rows
    text = "fresh database memory written after the graph"
    pm.store(text, id="late", created_at=NOW)
    pm.embed_pending()
    gone = rid_of(pm, "m0")
    pm.delete("m0")
    found = store.scores(embedder.name, embedder.embed_query(text), allowed=None, limit=5)
    assert store._cache.graph.rows > built_over  # the new row went into the graph
    assert next(iter(found)) == rid_of(pm, "late")
    assert gone not in store.scores(embedder.name, embedder.embed_query("note 0 about database: item 0"),
                                    allowed=None, limit=50)
    pm.restore("m0")


def test_a_fresh_process_reads_the_saved_graph_and_never_one_of_another_snapshot(palace, monkeypatch):
    from palace.index import vectors as vectors_module

    monkeypatch.setattr(vectors_module, "SNAPSHOT_MIN_ROWS", 1)
    pm, embedder = palace
    store = graph_store(pm)
    store.invalidate()
    assert store.build_graph(embedder.name)
    folder = pm.index.path.parent
    saved = list(folder.glob("vectors-*.usearch"))
    assert len(saved) == 1

    fresh = graph_store(pm)
    builds = []
    real_build = Graph.build.__func__
    monkeypatch.setattr(Graph, "build", classmethod(lambda cls, *a: builds.append(a) or real_build(cls, *a)))
    query = embedder.embed_query("travel plans")
    fresh.scores(embedder.name, query, allowed=None, limit=10)
    assert fresh._cache.graph is not None and builds == []  # loaded, not built

    stranger = saved[0].with_name(saved[0].name.replace(".usearch", "").rsplit(".", 1)[0] + ".other-tag.usearch")
    saved[0].rename(stranger)  # a graph of some other snapshot: not this one's
    third = graph_store(pm)
    third.scores(embedder.name, query, allowed=None, limit=10)
    assert third._cache.graph is None or builds  # built afresh (in the background), never the stranger's
    deadline = time.monotonic() + 30
    while third._cache.graph_building and time.monotonic() < deadline:
        time.sleep(0.02)


def test_an_unreadable_graph_file_falls_back_to_a_rebuild_in_the_background(palace, monkeypatch):
    from palace.index import vectors as vectors_module

    monkeypatch.setattr(vectors_module, "SNAPSHOT_MIN_ROWS", 1)
    pm, embedder = palace
    store = graph_store(pm)
    store.invalidate()
    store.build_graph(embedder.name)
    saved = next(pm.index.path.parent.glob("vectors-*.usearch"))
    saved.write_bytes(b"not a graph at all")
    fresh, exact = graph_store(pm), exact_store(pm)
    query = embedder.embed_query("music evening")
    found, truth = (s.scores(embedder.name, query, allowed=None, limit=10) for s in (fresh, exact))
    assert list(found) == list(truth)  # the exact product answers meanwhile
    deadline = time.monotonic() + 30
    while fresh._cache.graph is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert fresh._cache.graph is not None  # built in the background


def test_reindex_removes_the_saved_graphs(palace, monkeypatch):
    from palace.index import vectors as vectors_module

    monkeypatch.setattr(vectors_module, "SNAPSHOT_MIN_ROWS", 1)
    pm, embedder = palace
    store = graph_store(pm)
    store.invalidate()
    store.build_graph(embedder.name)
    assert list(pm.index.path.parent.glob("vectors-*.usearch"))
    pm.reindex()
    assert not list(pm.index.path.parent.glob("vectors-*.usearch"))


def test_reindex_with_vectors_leaves_a_graph_ready(palace, monkeypatch):
    from palace.index import vectors as vectors_module

    monkeypatch.setattr(vectors_module, "SNAPSHOT_MIN_ROWS", 1)
    pm, embedder = palace
    monkeypatch.setattr(pm._vectors, "graph_min_rows", ROWS_FOR_GRAPH)
    pm.reindex(vectors=True)
    assert pm._vectors._cache.graph is not None  # built by the reindex, not by the first query
    assert len(list(pm.index.path.parent.glob("vectors-*.usearch"))) == 1
    results = pm.search("notes about gardens and the garden", top_k=3, now=NOW)
    assert results and all("garden" in r.memory.content for r in results)
