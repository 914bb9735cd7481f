"""Vectors on both backends: pgvector gives the same hybrid ranking as the local matrix."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from palace.embedders import InProcessEmbedder
from palace.manager import MemoryPalaceManager
from palace.settings import Settings

pytest_plugins = ["conftest_vectors", "conftest_postgres"]

NOW = datetime(2026, 3, 10, 12, 0, tzinfo=ZoneInfo("Asia/Shanghai"))
TEXTS = ["The cat sat on the warm windowsill all afternoon",
         "Our database migration finished without errors",
         "She adopted a kitten from the animal shelter",
         "Quarterly revenue grew by twelve percent",
         "The dog chased the ball across the park",
         "We rolled back the schema change after the outage"]
QUERIES = ["a small feline pet", "problems with the database schema", "money the company made"]


@pytest.fixture(scope="module")
def embedder(minilm_path):
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HF_HUB_OFFLINE", "1")
        return InProcessEmbedder(Settings(vector_model=minilm_path, vector_mode="inprocess"))


def ranked(pm: MemoryPalaceManager) -> list[list[tuple[str, float]]]:
    # include_weak: the backends must agree on every candidate, whatever the relevance floor keeps
    for i, text in enumerate(TEXTS):
        pm.store(text, id=f"v{i}", created_at=NOW - timedelta(hours=i))
    assert pm.embed_pending() == len(TEXTS)
    assert pm.embed_pending() == 0  # keyed by model and content hash: nothing twice
    return [[(r.memory.id, round(r.score, 5)) for r in pm.search(q, now=NOW, record_access=False, include_weak=True)]
            for q in QUERIES]


def test_hybrid_search_ranks_alike_on_both_backends(embedder, minilm_path, postgres_url, tmp_path):
    common = dict(vector_enabled=True, vector_mode="inprocess", vector_model=minilm_path)
    local = MemoryPalaceManager(settings=Settings.from_env(workspace_dir=str(tmp_path / "l"), **common),
                                embedder=embedder)
    remote = MemoryPalaceManager(settings=Settings.from_env(
        workspace_dir=str(tmp_path / "p"), backend="postgres", database_url=postgres_url, **common),
        embedder=embedder)
    try:
        expected = ranked(local)
        got = ranked(remote)
        assert [q[0][0] for q in expected] == ["v2", "v5", "v3"]  # found by meaning, no shared word
        assert got == expected
        assert remote.stats()["vectors"] == {embedder.name: len(TEXTS)}
    finally:
        local.close()
        remote.close()


def test_above_the_threshold_search_goes_through_an_hnsw_index(embedder, minilm_path, postgres_url,
                                                               tmp_path, monkeypatch):
    from palace.backends.postgres import vectors

    remote = MemoryPalaceManager(settings=Settings.from_env(
        workspace_dir=str(tmp_path / "p"), backend="postgres", database_url=postgres_url,
        vector_enabled=True, vector_mode="inprocess", vector_model=minilm_path), embedder=embedder)
    try:
        exact = ranked(remote)
        monkeypatch.setattr(vectors, "HNSW_ABOVE", 0)
        approximate = [[(r.memory.id, round(r.score, 5)) for r in remote.search(q, now=NOW, record_access=False, include_weak=True)]
                       for q in QUERIES]
        assert [q[0] for q in approximate] == [q[0] for q in exact]  # six rows: HNSW finds the best
        import psycopg

        with psycopg.connect(postgres_url) as conn:
            names = [r[0] for r in conn.execute("SELECT indexname FROM pg_indexes WHERE tablename = 'vectors' "
                                                "AND indexdef LIKE '%hnsw%'")]
            assert len(names) == 1
            conn.execute("SET enable_seqscan = off")
            plan = "\n".join(r[0] for r in conn.execute(
                "EXPLAIN SELECT content_hash FROM vectors WHERE model = %s ORDER BY vec::vector(384) <=> "
                "%s::vector(384) LIMIT 5", (embedder.name, "[" + ",".join(["0.1"] * 384) + "]")))
            assert names[0] in plan
    finally:
        remote.close()


def test_best_chunks_agree_on_both_backends(embedder, minilm_path, postgres_url, tmp_path):
    """Vector feedback reads each result's closest chunk: both stores give the chunk the
    memory's cosine came from."""
    common = dict(vector_enabled=True, vector_mode="inprocess", vector_model=minilm_path)
    local = MemoryPalaceManager(settings=Settings.from_env(workspace_dir=str(tmp_path / "l"), **common),
                                embedder=embedder)
    remote = MemoryPalaceManager(settings=Settings.from_env(
        workspace_dir=str(tmp_path / "p"), backend="postgres", database_url=postgres_url, **common),
        embedder=embedder)
    try:
        question = embedder.embed_query(QUERIES[0])
        found = []
        for pm in (local, remote):
            for i, text in enumerate(TEXTS):
                pm.store(text, id=f"v{i}", created_at=NOW - timedelta(hours=i))
            pm.embed_pending()
            scores = pm._vectors.scores(embedder.name, question, allowed=None, limit=10)
            chunks = pm._vectors.best_chunks(embedder.name, question, list(scores))
            assert set(chunks) == set(scores)
            found.append({round(scores[rid], 4): round(float(chunks[rid] @ question), 4) for rid in scores})
        assert all(cosine == again for cosine, again in found[0].items())
        assert found[0] == found[1]
    finally:
        local.close()
        remote.close()
