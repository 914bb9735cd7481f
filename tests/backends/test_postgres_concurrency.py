"""Many writers at once on Postgres, without a global lock: every write lands, writers
of one memory lose nothing, and the keyword index the trigger and the folds keep
while they race is exactly the one a rebuild from the rows gives (same BM25)."""

from __future__ import annotations

import random
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

from palace.backends.postgres import database
from palace.backends.postgres.postings import PART_BITS, read_postings
from palace.index import postings as index_postings
from palace.manager import MemoryPalaceManager
from palace.settings import Settings

pytest_plugins = ["conftest_postgres"]

CLIENTS = 6
EACH = 30
WORDS = "deploy release login database vector memory palace team 数据库 记忆 向量 部署 发布 会议".split()
QUERIES = ["deploy login", "数据库 向量", "memory palace team", "发布 会议", "vector", "记忆"]


def open_as(url: str, tmp_path, agent: str, scope: str = "team") -> MemoryPalaceManager:
    return MemoryPalaceManager(settings=Settings.from_env(
        backend="postgres", database_url=url, agent_id=agent, scope=scope, vector_enabled=False,
        workspace_dir=str(tmp_path / agent)))


def index_snapshot(pm: MemoryPalaceManager) -> tuple[dict, int, int]:
    """Every term's postings as this client reads them (base overlaid with delta)."""
    with pm.index.palace.connection() as conn:
        terms = [r["term"] for r in conn.execute(
            "SELECT term FROM term_postings UNION SELECT term FROM posting_delta").fetchall()]
        postings, docs, length = read_postings(conn, terms)
    listed = {t: list(zip(*(a.tolist() for a in arrays))) for t, arrays in postings.items() if len(arrays[0])}
    return listed, docs, length


def expected_from_rows(pm: MemoryPalaceManager) -> tuple[dict, int, int]:
    """The same, computed in Python from the memory rows' terms (what local would index)."""
    rows = pm.index._all("SELECT rid, terms, doc_len FROM memories ORDER BY rid")
    listed: dict[str, list] = {}
    for row in rows:
        for term, tf in Counter(row["terms"].split()).items():
            listed.setdefault(term, []).append((row["rid"], min(tf, 65535), row["doc_len"]))
    return listed, len(rows), sum(r["doc_len"] for r in rows)


def rankings(pm: MemoryPalaceManager) -> list[dict[int, float]]:
    """BM25 of each query's words over this client's memories (no decay: exact)."""
    from palace.index.database import Filters
    from palace.text.tokenize import index_text

    return [pm.index.keyword_scores([(1.0, index_text(q).split())], Filters(statuses=("active",)), 50)
            for q in QUERIES]


def test_concurrent_writers_land_every_write_and_keep_the_index_a_rebuild_gives(
        postgres_url, tmp_path, monkeypatch):
    monkeypatch.setattr(database, "FOLD_EVERY", 7)  # fold often, while others write
    monkeypatch.setattr(index_postings, "MERGE_MIN", 4)  # the fold rule both backends share
    with open_as(postgres_url, tmp_path, "setup") as setup:
        shared = [setup.store(f"shared note {i} deploy", id=f"shared{i}").id for i in range(3)]
        with setup.index.palace.connection() as conn:  # about half the writes below land in the next base part
            conn.execute("SELECT setval('memories_rid_seq', %s)", ((1 << PART_BITS) - CLIENTS * EACH // 2,))

    def work(n: int) -> tuple[list[str], list[str]]:
        rng = random.Random(n)
        kept, dropped = [], []
        scope = "team" if n % 2 else f"agent:a{n}"
        with open_as(postgres_url, tmp_path, f"a{n}", scope) as pm:
            for i in range(EACH):
                text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 12))) + f" w{n}x{i}"
                memory = pm.store(text, tags=[rng.choice(["ops", "db"])])
                if i % 5 == 1:  # rewrite: different terms, different length
                    pm.update(memory.id, content=text + " " + " ".join(rng.sample(WORDS, 4)))
                if i % 7 == 3:
                    pm.delete(memory.id)
                    dropped.append(memory.id)
                else:
                    kept.append(memory.id)
                # every client appends to the same shared memories: each append must land
                with pm.write_lock():
                    current = pm.get(shared[i % 3], record_access=False)
                    pm.update(shared[i % 3], content=current.content + f" c{n}")
        return kept, dropped

    started = time.perf_counter()
    with ThreadPoolExecutor(CLIENTS) as pool:
        results = list(pool.map(work, range(CLIENTS)))
    assert time.perf_counter() - started < 120

    with open_as(postgres_url, tmp_path, "auditor") as pm:
        # the auditor sees team memories; each private client checks its own below
        shared_text = " ".join(pm.get(i, record_access=False).content for i in shared)
        assert Counter(w for w in shared_text.split() if w.startswith("c")) == Counter(
            {f"c{n}": EACH for n in range(CLIENTS)})
    for n, (kept, dropped) in enumerate(results):
        scope = "team" if n % 2 else f"agent:a{n}"
        with open_as(postgres_url, tmp_path, f"a{n}", scope) as pm:
            listed = {m.id for m in pm.list(limit=None)}
            assert set(kept) <= listed and not set(dropped) & listed
            assert set(dropped) <= {m.id for m in pm.list_trash()}

    # every scope's client: what was kept under concurrency equals a rebuild, and ranks alike
    for n in range(CLIENTS):
        scope = "team" if n % 2 else f"agent:a{n}"
        with open_as(postgres_url, tmp_path, f"a{n}", scope) as pm:
            with pm.index.palace.connection() as conn:  # folds ran while the clients wrote
                assert conn.execute("SELECT COUNT(*) AS n FROM term_postings").fetchone()["n"] > 0
            live, docs, length = index_snapshot(pm)
            assert (live, docs, length) == expected_from_rows(pm)
            before = rankings(pm)
            assert any(before)
            pm.reindex()  # packs base, delta and counters afresh from the rows
            with pm.index.palace.connection() as conn:
                assert conn.execute("SELECT COUNT(*) AS n FROM posting_delta").fetchone()["n"] == 0
            assert index_snapshot(pm) == (live, docs, length)
            assert rankings(pm) == before


def test_writers_of_different_memories_do_not_wait_for_each_other(postgres_url, tmp_path):
    """A keyed writer holds only its memory's lock: while one client holds a memory's
    lock, another stores and updates other memories; only the exclusive lock stops it."""
    with open_as(postgres_url, tmp_path, "one") as first, open_as(postgres_url, tmp_path, "two") as second:
        held = first.store("held memory").id
        with first._writer.memory_lock(f"id:{held}"):
            first.get(held, record_access=False)  # a keyed lock is taken with its first query
            t0 = time.perf_counter()
            other = second.store("another memory")
            second.update(other.id, content="another memory, changed")
            assert time.perf_counter() - t0 < 5
        pool = ThreadPoolExecutor(1)
        try:
            with first.write_lock():
                waiting = pool.submit(second.store, "waits for the exclusive lock")
                time.sleep(0.5)
                assert not waiting.done()
            assert waiting.result(timeout=10).content == "waits for the exclusive lock"
        finally:
            pool.shutdown()


def test_two_clients_storing_one_text_at_once_make_one_memory(postgres_url, tmp_path, monkeypatch):
    """A store's lock on its text is sent with its look for an earlier copy, in one round
    trip, and taken before that look: while one client's store of a text is held between
    its look and its write, another client's store of the same text waits, then finds the
    first one's memory and adds its tags to it (never a second copy)."""
    from palace.backends.postgres.database import PgStore

    held, release = threading.Event(), threading.Event()
    real = PgStore.write

    def paused(self, memory):
        if memory.content == "the release train leaves on fridays" and not held.is_set():
            held.set()
            release.wait(20)
        return real(self, memory)

    monkeypatch.setattr(PgStore, "write", paused)
    with open_as(postgres_url, tmp_path, "one") as first, open_as(postgres_url, tmp_path, "two") as second:
        with ThreadPoolExecutor(2) as pool:
            one = pool.submit(first.store, "the release train leaves on fridays", tags=["ops"])
            assert held.wait(20)
            two = pool.submit(second.store, "The release train  leaves on Fridays", tags=["release"])
            time.sleep(0.5)
            assert not two.done()  # waits on the first store's lock
            release.set()
            stored, merged = one.result(timeout=20), two.result(timeout=20)
        assert merged.duplicate and merged.id == stored.id
        assert set(second.get(stored.id, record_access=False).tags) == {"ops", "release"}
        assert [m.id for m in second.list(limit=None)] == [stored.id]


def test_a_keyed_lock_is_held_from_its_first_query_to_its_end(postgres_url, tmp_path):
    """Deferred to its first query, a memory's lock is still the lock: another session
    cannot take it from that query to the end of the block, and can again afterwards;
    a block that asked the database nothing took no lock at all."""
    import psycopg

    from palace.backends.postgres.locks import lock_key

    key = lock_key("id:ledger")
    with open_as(postgres_url, tmp_path, "one") as pm, psycopg.connect(postgres_url, autocommit=True) as other:
        def other_can_take() -> bool:
            got = other.execute("SELECT pg_try_advisory_lock(%s)", (key,)).fetchone()[0]
            if got:
                other.execute("SELECT pg_advisory_unlock(%s)", (key,))
            return got

        with pm._writer.memory_lock("id:ledger"):
            assert other_can_take()  # nothing asked of the database yet: nothing taken
            pm.list(limit=1)
            assert not other_can_take()
        assert other_can_take()
        with pm._writer.memory_lock("id:ledger"):
            pass
        assert not other.execute(
            "SELECT COUNT(*) FROM pg_locks WHERE locktype = 'advisory' AND pid <> pg_backend_pid() "
            "AND database = (SELECT oid FROM pg_database WHERE datname = current_database())").fetchone()[0]


def _lives_in(subject: str, place: str) -> dict:
    return {"subject": subject, "predicate": "lives_in", "object": place}


def test_a_store_about_a_subject_waits_for_no_other_and_every_fact_is_applied(postgres_url, tmp_path, monkeypatch):
    """No lock on a fact's subject: while one client's store about Alice is held between
    its commit and its supersession step, another client's stores about her (one under
    her alias, one backdated) go ahead at once. When the first finishes, the timeline is
    the one any order gives: each address ends where the next begins, the latest current."""
    from palace.graph.service import GraphService

    held, release = threading.Event(), threading.Event()
    real = GraphService.after_store

    def paused(self, memory, now, **kwargs):
        if "Berlin" in memory.content:
            held.set()
            release.wait(20)
        return real(self, memory, now, **kwargs)

    monkeypatch.setattr(GraphService, "after_store", paused)
    with open_as(postgres_url, tmp_path, "one") as first, open_as(postgres_url, tmp_path, "two") as second:
        first.store("Alice's address", created_at="2024-01-01", extra={"relations": [_lives_in("Alice", "Paris")]})
        first.store("Alice is also called Ally", extra={"entities": [{"name": "Alice", "aliases": ["Ally"]}]})
        with ThreadPoolExecutor(1) as pool:
            berlin = pool.submit(first.store, "Alice moved to Berlin", created_at="2025-01-01",
                                 extra={"relations": [_lives_in("Alice", "Berlin")]})
            assert held.wait(20)
            t0 = time.perf_counter()
            second.store("Ally moved to Oslo", created_at="2025-06-01", extra={"relations": [_lives_in("Ally", "Oslo")]})
            second.store("Alice's flat in Rome, back then", created_at="2024-06-01",
                         extra={"relations": [_lives_in("Alice", "Rome")]})
            assert time.perf_counter() - t0 < 5      # neither waited for the held store
            release.set()
            berlin.result(timeout=20)
        history = {r.object: (r.valid_from.date().isoformat(), r.valid_to and r.valid_to.date().isoformat())
                   for r in second.graph.history("Alice") if r.predicate == "lives_in"}
        assert history == {"Paris": ("2024-01-01", "2024-06-01"), "Rome": ("2024-06-01", "2025-01-01"),
                           "Berlin": ("2025-01-01", "2025-06-01"), "Oslo": ("2025-06-01", None)}


def test_stores_about_different_subjects_closing_one_memory_lose_no_close(postgres_url, tmp_path, monkeypatch):
    """Each old memory states two people's addresses; two clients at once store each
    person's move. Both retire a fact in the same old memory, each through that
    memory's own lock: neither close is lost, and the memory is marked superseded."""
    pairs = 6
    real_get = MemoryPalaceManager.get

    def slow_get(self, id, **kwargs):  # widen each close's read-change-write: the race is sure
        memory = real_get(self, id, **kwargs)
        time.sleep(0.05)
        return memory

    monkeypatch.setattr(MemoryPalaceManager, "get", slow_get)
    with open_as(postgres_url, tmp_path, "setup") as setup:
        olds = [setup.store(f"addresses {i}", created_at="2024-01-01",
                            extra={"relations": [_lives_in(f"P{i}a", "Paris"), _lives_in(f"P{i}b", "Rome")]}).id
                for i in range(pairs)]

    def move(side: str) -> None:
        with open_as(postgres_url, tmp_path, f"mover-{side}") as pm:
            for i in range(pairs):
                pm.store(f"P{i}{side} moved", created_at="2025-01-01",
                         extra={"relations": [_lives_in(f"P{i}{side}", "Oslo")]})

    with ThreadPoolExecutor(2) as pool:
        for done in [pool.submit(move, "a"), pool.submit(move, "b")]:
            done.result(timeout=120)
    with open_as(postgres_url, tmp_path, "check") as pm:
        for memory_id in olds:
            memory = pm.get(memory_id, record_access=False)
            closed = [r.get("validTo") for r in memory.extra["relations"]]
            assert all(closed), (memory_id, memory.extra["relations"])
            assert memory.extra.get("supersededBy")


def test_sixteen_writers_of_the_same_subjects_leave_one_current_value_per_slot(postgres_url, tmp_path):
    """Sixteen clients at once each state where the same few people live, at dates
    shuffled so a newer fact often lands before an older one. Every store lands, once;
    each person ends with exactly one current address, the latest stated, and every
    older one closed."""
    writers, each, people = 16, 6, ["Ann", "Ben", "Cai", "Dee"]
    dates = [f"2024-{1 + k // 28:02d}-{1 + k % 28:02d}" for k in range(writers * each)]
    random.Random(29).shuffle(dates)

    def write(n: int) -> list[str]:
        with open_as(postgres_url, tmp_path, f"w{n}") as pm:
            return [pm.store(f"{people[(n + i) % len(people)]} lives in City{n}x{i}",
                             created_at=dates[n * each + i],
                             extra={"relations": [_lives_in(people[(n + i) % len(people)], f"City{n}x{i}")]}).id
                    for i in range(each)]

    with ThreadPoolExecutor(writers) as pool:
        stored = [i for ids in pool.map(write, range(writers)) for i in ids]
    assert len(stored) == len(set(stored)) == writers * each

    with open_as(postgres_url, tmp_path, "auditor") as pm:
        assert {m.id for m in pm.list(limit=None)} >= set(stored)
        for person in people:
            facts = [r for r in pm.graph.history(person) if r.predicate == "lives_in"]
            stated = {f"City{n}x{i}": dates[n * each + i] for n in range(writers) for i in range(each)
                      if people[(n + i) % len(people)] == person}
            assert {r.object for r in facts} == set(stated)   # no fact lost or doubled
            assert len(facts) == len(stated)
            current = [r.object for r in facts if r.valid_to is None]
            assert current == [max(stated, key=stated.__getitem__)], (person, current)
