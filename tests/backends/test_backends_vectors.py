"""Vectors on both backends: pgvector gives the same hybrid ranking as the local matrix."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from palace.backends.postgres.schema import MIGRATIONS
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
    assert pm.embed_pending() == 0  # each store embedded its memory: a search never has to
    assert pm.stats()["vectors"][pm.embedder.name] == len(TEXTS)
    return [[(r.memory.id, round(r.score, 5)) for r in pm.search(q, now=NOW, record_access=False, include_weak=True)]
            for q in QUERIES]


def local_and_postgres(embedder, minilm_path, postgres_url, tmp_path):
    """Two palaces with the same embedder: local files, and the Postgres database."""
    common = dict(vector_enabled=True, vector_mode="inprocess", vector_model=minilm_path)
    local = MemoryPalaceManager(settings=Settings.from_env(workspace_dir=str(tmp_path / "l"), **common),
                                embedder=embedder)
    remote = MemoryPalaceManager(settings=Settings.from_env(
        workspace_dir=str(tmp_path / "p"), backend="postgres", database_url=postgres_url, **common),
        embedder=embedder)
    return local, remote


def test_hybrid_search_ranks_alike_on_both_backends(embedder, minilm_path, postgres_url, tmp_path):
    local, remote = local_and_postgres(embedder, minilm_path, postgres_url, tmp_path)
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
            # built for recall (ef_construction 128: the default left dense clusters' vectors unreachable)
            options = conn.execute("SELECT reloptions FROM pg_class WHERE relname = %s", (names[0],)).fetchone()[0]
            assert sorted(options) == ["ef_construction=128", "m=16"]
            conn.execute("SET enable_seqscan = off")
            plan = "\n".join(r[0] for r in conn.execute(
                "EXPLAIN SELECT content_hash FROM vectors WHERE model = %s ORDER BY vec::vector(384) <=> "
                "%s::vector(384) LIMIT 5", (embedder.name, "[" + ",".join(["0.1"] * 384) + "]")))
            assert names[0] in plan
    finally:
        remote.close()


def test_a_filtered_search_through_hnsw_keeps_only_what_passes_and_ranks_as_exact(
        embedder, minilm_path, postgres_url, tmp_path, monkeypatch):
    """Above the threshold a broad filter over-fetches from HNSW and checks the candidates
    in the client: the same memories, in the same order, as the exact filtered scan."""
    from palace.backends.postgres import vectors

    remote = MemoryPalaceManager(settings=Settings.from_env(
        workspace_dir=str(tmp_path / "p"), backend="postgres", database_url=postgres_url,
        vector_enabled=True, vector_mode="inprocess", vector_model=minilm_path), embedder=embedder)
    try:
        for i, text in enumerate(TEXTS):
            remote.store(text, id=f"v{i}", created_at=NOW - timedelta(hours=i),
                         location="pets" if i in (0, 2, 4) else "work", tags=["even"] if i % 2 == 0 else [])

        def searched(**filters):
            return [[(r.memory.id, round(r.score, 5)) for r in remote.search(
                q, now=NOW, record_access=False, include_weak=True, **filters)] for q in QUERIES]

        exact = {"room": searched(location="pets"), "tag": searched(tags=["even"])}
        monkeypatch.setattr(vectors, "HNSW_ABOVE", 0)
        assert searched(location="pets") == exact["room"]
        assert searched(tags=["even"]) == exact["tag"]
        assert {m for q in exact["room"] for m, _ in q} <= {"v0", "v2", "v4"}
        assert {m for q in exact["tag"] for m, _ in q} <= {"v0", "v2", "v4"}
        assert exact["room"][0][0][0] in {"v0", "v2"}  # a small feline pet: the cat or the kitten
    finally:
        remote.close()


def test_a_room_holds_the_rooms_inside_it_and_overlapped_legs_rank_as_one_after_the_other(
        embedder, minilm_path, postgres_url, tmp_path, monkeypatch):
    """A room filter reads the room and the rooms inside it as two index ranges; a search
    whose vector leg runs beside its keyword leg (Postgres: ``concurrent_reads``) ranks
    exactly as one that runs them in turn."""
    from palace.backends.postgres.database import PgIndex

    remote = MemoryPalaceManager(settings=Settings.from_env(
        workspace_dir=str(tmp_path / "p"), backend="postgres", database_url=postgres_url,
        vector_enabled=True, vector_mode="inprocess", vector_model=minilm_path), embedder=embedder)
    try:
        rooms = {0: "pets/cats", 2: "pets/cats", 4: "pets"}
        for i, text in enumerate(TEXTS):
            remote.store(text, id=f"v{i}", created_at=NOW - timedelta(hours=i), location=rooms.get(i, "work"))

        def searched(**filters):
            return [[(r.memory.id, round(r.score, 5)) for r in remote.search(
                q, now=NOW, record_access=False, include_weak=True, **filters)] for q in QUERIES]

        overlapped = {"pets": searched(location="pets"), "cats": searched(location="pets/cats"), "all": searched()}
        assert {m for q in overlapped["pets"] for m, _ in q} == {"v0", "v2", "v4"}
        assert {m for q in overlapped["cats"] for m, _ in q} == {"v0", "v2"}
        monkeypatch.setattr(PgIndex, "concurrent_reads", False)
        assert {"pets": searched(location="pets"), "cats": searched(location="pets/cats"),
                "all": searched()} == overlapped
    finally:
        remote.close()


def test_reindex_prunes_true_orphans_and_never_another_agents_private_vectors(embedder, minilm_path,
                                                                              postgres_url, tmp_path):
    """Vectors are keyed by text, not by memory, and a client sees only its scopes: the
    prune runs as the schema owner over every scope, so alice's reindex (or doctor)
    keeps bob's private vectors and drops only those no memory anywhere has."""
    import psycopg

    def agent(name):
        return MemoryPalaceManager(settings=Settings.from_env(
            workspace_dir=str(tmp_path / name), backend="postgres", database_url=postgres_url,
            agent_id=name, scope=f"agent:{name}", vector_enabled=True, vector_mode="inprocess",
            vector_model=minilm_path), embedder=embedder)

    alice, bob = agent("alice"), agent("bob")
    try:
        bobs = bob.store("bob's private plan: the lighthouse key is under the blue stone")
        draft = alice.store("alice's draft: the launch moves to Thursday")
        alice.store("alice's note: buy more coffee filters")
        assert bob.embed_pending() == 0 and alice.embed_pending() == 0  # embedded as they were stored
        with psycopg.connect(postgres_url, autocommit=True) as raw:   # the owner, no identity
            def hashes():
                return {r[0] for r in raw.execute("SELECT content_hash FROM vectors")}

            assert raw.execute("SELECT palace_orphan_vectors(false)").fetchone()[0] == 0
            before = hashes()
            assert len(before) == 3
            alice.update(draft.id, content="alice's draft: the launch moves to Friday")  # old text: an orphan
            new_draft = hashes() - before  # the edit embedded the new text at once
            assert alice.doctor(repair=False).to_dict()["findings"] == [
                {"kind": "orphan-vectors", "path": None, "detail": "1 vectors of texts no memory has",
                 "repaired": False}]
            alice.reindex()
            after = hashes()
            assert len(new_draft) == 1 and after == (before | new_draft) - {h for h in before if h not in after}
            assert len(after) == 3 and len(before - after) == 1  # the orphan went, bob's stayed
            assert bob.search("where is the lighthouse key", record_access=False)[0].memory.id == bobs.id
            assert bob.doctor().ok and alice.doctor().findings == []
            # a memory deleted for good leaves an orphan too; bob's reindex prunes it, alice's stays
            bob.delete(bobs.id)
            bob.empty_trash()
            bob.reindex()
            assert len(hashes()) == 2 and alice.embed_pending() == 0  # alice's two texts
    finally:
        alice.close()
        bob.close()


def test_best_chunks_agree_on_both_backends(embedder, minilm_path, postgres_url, tmp_path):
    """Vector feedback reads each result's closest chunk: both stores give the chunk the
    memory's cosine came from."""
    local, remote = local_and_postgres(embedder, minilm_path, postgres_url, tmp_path)
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


LONG = ["\n\n".join(["The mechanic replaced the brake pads and rotated the tyres. " * 6,
                      "My sourdough starter looked flat, so I fed it rye flour and warm water.",
                      "The mechanic replaced the brake pads and rotated the tyres. " * 6,
                      "Keep the starter jar on the counter and discard half before each feeding."]),
        "Is my sourdough starter still alive?", *TEXTS]


def test_chunk_cosines_and_the_ranking_by_two_chunks_agree_on_both_backends(embedder, minilm_path,
                                                                            postgres_url, tmp_path):
    """MEMORY_SECOND_CHUNK ranks by a memory's best two chunks: both stores give the same
    cosines, best first, the first of them the memory's cosine, and rank alike."""
    local, remote = local_and_postgres(embedder, minilm_path, postgres_url, tmp_path)
    question = embedder.embed_query("how do I keep my sourdough starter alive")
    try:
        found = []
        for pm in (local, remote):
            for i, text in enumerate(LONG):
                pm.store(text, id=f"c{i}", created_at=NOW - timedelta(hours=i))
            pm.embed_pending()
            scores = pm._vectors.scores(embedder.name, question, allowed=None, limit=10)
            near = pm._vectors.chunk_cosines(embedder.name, question, list(scores))
            assert set(near) == set(scores)
            assert all(abs(near[rid][0] - scores[rid]) < 1e-5 and list(near[rid]) == sorted(near[rid], reverse=True)
                       for rid in scores)
            ids = {rid: row.id for rid, row in pm.index.rows_by_rid(list(near)).items()}
            assert len(near[next(r for r in ids if ids[r] == "c0")]) == 2 and len(near[next(r for r in ids if ids[r] == "c1")]) == 1
            ranking = [(r.memory.id, round(r.score, 5)) for r in pm.search(
                "how do I keep my sourdough starter alive", now=NOW, record_access=False, include_weak=True)]
            found.append(({ids[rid]: tuple(round(c, 4) for c in cosines) for rid, cosines in near.items()}, ranking))
        assert found[0] == found[1]
    finally:
        local.close()
        remote.close()


DIALOGUES = ["Caroline: Hey Mel, how was your week?\nMelanie: Busy. I signed up for a pottery class and made a bowl.\n"
             "Caroline: I went to a support group for trans people, it was moving.\nMelanie: I'm proud of you.\n"
             "Caroline: Thanks! Next month I start the counseling course.\nMelanie: You will be great at it.",
             "Caroline: Did the kids enjoy the trip?\nMelanie: We camped by the lake and roasted marshmallows.\n"
             "Caroline: Sounds like fun. I painted a sunrise this weekend.\nMelanie: Send me a photo!\n"
             "Caroline: Sure. My friends took me to a concert too.\nMelanie: Which band?",
             "Our database migration finished without errors, and the new schema is live."]


def test_dialogues_are_chunked_and_scored_by_turns_alike_on_both_backends(embedder, minilm_path,
                                                                          postgres_url, tmp_path):
    local, remote = local_and_postgres(embedder, minilm_path, postgres_url, tmp_path)
    queries = ["what did Melanie make in her pottery class", "a course to become a therapist", "camping"]
    try:
        rankings = []
        for pm in (local, remote):
            for i, text in enumerate(DIALOGUES):
                pm.store(text, id=f"d{i}", created_at=NOW - timedelta(days=i))
            assert pm.embed_pending() == 0  # embedded as stored
            rankings.append([[(r.memory.id, round(r.score, 5), r.explanation.retrievers.get("bm25", {}).get("score"))
                              for r in pm.search(q, now=NOW, record_access=False, include_weak=True)]
                             for q in queries])
        assert rankings[0] == rankings[1]
        assert [q[0][0] for q in rankings[0]] == ["d0", "d0", "d1"]
    finally:
        local.close()
        remote.close()


def test_dialogues_embedded_before_the_turn_rule_are_embedded_again_after_the_upgrade(
        embedder, minilm_path, postgres_url, tmp_path, monkeypatch):
    import psycopg

    from palace.text import chunking

    # the previous release: a dialogue was cut as any text, its vectors keyed by its text alone
    monkeypatch.setattr(chunking, "DIALOGUE_TURNS", False)
    local, remote = local_and_postgres(embedder, minilm_path, postgres_url, tmp_path)
    for pm in (local, remote):
        pm.store(DIALOGUES[0], id="d0", created_at=NOW)
        pm.store(DIALOGUES[1], id="d1", created_at=NOW)
        pm.store(DIALOGUES[2], id="n0", created_at=NOW)
        assert pm.embed_pending() == 0 and pm.stats()["vectors"][pm.embedder.name] >= 3
    local.index.set_meta("schema_version", "9")
    local.close()
    remote.close()
    with psycopg.connect(postgres_url, autocommit=True) as raw:
        raw.execute("UPDATE palace_meta SET value = '9' WHERE key = 'schema_version'")

    monkeypatch.setattr(chunking, "DIALOGUE_TURNS", True)  # this release, opening that palace
    monkeypatch.setattr("palace.backends.postgres.schema.REKEY_BATCH", 1)  # the migration reads in batches
    local, remote = local_and_postgres(embedder, minilm_path, postgres_url, tmp_path)
    try:
        for pm in (local, remote):
            assert pm.index.orphan_vector_count() > 0     # the dialogue's old vectors
            assert pm.embed_pending() == 2                # the dialogues again, by their turns; the note stays
            assert pm.embed_pending() == 0
            pm.index.prune_orphan_vectors()
            assert pm.index.orphan_vector_count() == 0
            [hit] = [r for r in pm.search("what did Melanie make in her pottery class", now=NOW,
                                          record_access=False) if r.memory.id == "d0"]
            assert "vector" in hit.explanation.retrievers
        with psycopg.connect(postgres_url, autocommit=True) as raw:
            migrated = raw.execute("SELECT value FROM palace_meta WHERE key = 'schema_version'").fetchone()[0]
            assert migrated == str(len(MIGRATIONS))
    finally:
        local.close()
        remote.close()


def test_a_tag_filter_keeps_only_passing_memories_on_the_vector_side(embedder, minilm_path, postgres_url, tmp_path):
    """The vector side reads a tag's rows as the tag index lists them (on Postgres: every
    row holding the tag, archived and other rooms too) and checks what it picks: a search
    by meaning with a tag and a room finds the passing memory, never the archived one or
    the one in another room, on both backends alike."""
    local, remote = local_and_postgres(embedder, minilm_path, postgres_url, tmp_path)
    try:
        for pm in (local, remote):
            pm.store("She adopted a kitten from the animal shelter", id="keep", tags=["pets"], location="home")
            pm.store("A cat curled up asleep on the sofa", id="elsewhere", tags=["pets"], location="office")
            pm.store("The cat knocked a glass off the shelf", id="old", tags=["pets"], location="home")
            pm.update("old", status="archived")
            pm.store("The dog chased the ball across the park", id="untagged", location="home")
            found = pm.search("a small feline pet", tags=["pets"], location="home", record_access=False,
                              include_weak=True)
            assert [r.memory.id for r in found] == ["keep"]
            assert "vector" in found[0].explanation.to_dict()["retrievers"]
    finally:
        local.close()
        remote.close()
