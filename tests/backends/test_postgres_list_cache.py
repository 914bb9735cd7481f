"""The keyword lists a Postgres client keeps (palace/backends/postgres/cache.py) are
always the server's: after another client's stores, rewrites and deletes, after a fold
and after a reindex, a read through the cache equals a fresh read of every list, and an
unchanged list is not sent again."""

from __future__ import annotations

import random

from palace.backends.postgres import postings
from palace.backends.postgres.cache import ListCache
from palace.backends.postgres.postings import read_postings
from palace.text.tokenize import index_text
from tests.backends.test_postgres_concurrency import WORDS, open_as

pytest_plugins = ["conftest_postgres"]


def as_lists(read):
    lists, docs, length = read
    return {t: [a.tolist() for a in arrays] for t, arrays in lists.items()}, docs, length


def test_a_kept_list_is_the_servers_after_every_kind_of_change(postgres_url, tmp_path):
    rng = random.Random(29)
    cache = ListCache()
    with open_as(postgres_url, tmp_path, "reader") as reader, open_as(postgres_url, tmp_path, "writer") as writer:
        ids = [writer.store(" ".join(rng.choices(WORDS, k=6)) + f" {i}").id for i in range(40)]
        terms = sorted(set(index_text(" ".join(WORDS)).split()))
        for step in range(60):
            if step == 30:  # later stores land in the next base part; rewrites still reach the first
                with writer.index.palace.connection() as conn:
                    conn.execute("SELECT setval('memories_rid_seq', %s, false)", (1 << postings.PART_BITS,))
            action = rng.choice(["store", "store", "rewrite", "delete", "fold", "nothing"])
            if action == "store":
                ids.append(writer.store(" ".join(rng.choices(WORDS, k=rng.randint(1, 8))) + f" s{step}").id)
            elif action == "rewrite" and ids:
                writer.update(rng.choice(ids), content=" ".join(rng.choices(WORDS, k=5)) + f" r{step}")
            elif action == "delete" and len(ids) > 5:
                writer.delete(ids.pop(rng.randrange(len(ids))))
            elif action == "fold":
                with writer.index.palace.connection() as conn:
                    pending = postings.delta_keys(conn)
                    for key in rng.sample(pending, min(3, len(pending))):
                        postings.fold_term(conn, *key)
            with reader.index.palace.connection() as conn:
                kept = as_lists(read_postings(conn, terms, cache=cache))
                fresh = as_lists(read_postings(conn, terms))
            assert kept == fresh, (step, action)
        writer.reindex()
        with reader.index.palace.connection() as conn:
            assert as_lists(read_postings(conn, terms, cache=cache)) == as_lists(read_postings(conn, terms))


def test_an_unchanged_list_is_not_sent_again(postgres_url, tmp_path, monkeypatch):
    with open_as(postgres_url, tmp_path, "one") as pm:
        for i in range(30):
            pm.store(f"deploy the release {i}")
        cache = ListCache()
        with pm.index.palace.connection() as conn:
            first = read_postings(conn, ["deploi", "releas"], cache=cache)[0]
            unpacked = []
            real = postings._unpack
            monkeypatch.setattr(postings, "_unpack", lambda *a: unpacked.append(a) or real(*a))
            again = read_postings(conn, ["deploi", "releas"], cache=cache)[0]
        assert unpacked == []                                   # nothing was sent
        assert all(again[t][0] is first[t][0] for t in first)   # the very arrays kept
        pm.store("deploy once more")
        with pm.index.palace.connection() as conn:
            changed = read_postings(conn, ["deploi", "releas"], cache=cache)[0]
        assert len(changed["deploi"][0]) == 31 and changed["releas"][0] is first["releas"][0]


def test_a_cache_too_small_keeps_nothing_and_reads_stay_right(postgres_url, tmp_path):
    with open_as(postgres_url, tmp_path, "one") as pm:
        for i in range(20):
            pm.store(f"vector memory {i}")
        tiny = ListCache(limit=64)
        with pm.index.palace.connection() as conn:
            for _ in range(2):
                assert as_lists(read_postings(conn, ["vector", "memori"], cache=tiny)) == \
                    as_lists(read_postings(conn, ["vector", "memori"]))
        assert tiny.held(["vector", "memori"]) == {}


def test_a_delta_row_rewritten_by_a_writer_that_commits_late_is_seen(postgres_url, tmp_path):
    """A writer takes its delta row's seq when it writes, and may commit after another
    writer's newer seq: the newest seq then stays the same, and so does the row count. A
    kept list must still be read again (the state sums the seqs, it does not take the
    newest)."""
    cache = ListCache()
    with open_as(postgres_url, tmp_path, "reader") as reader, open_as(postgres_url, tmp_path, "late") as late, \
            open_as(postgres_url, tmp_path, "early") as early:
        stored = late.store("kestrel sightings at dawn").id
        with late.index.palace.connection() as slow, reader.index.palace.connection() as conn:
            rid = slow.execute("SELECT rid FROM memories WHERE id = %s", (stored,)).fetchone()["rid"]
            with slow.transaction():  # what the trigger writes when that memory is rewritten: tf 1 → 3
                slow.execute("INSERT INTO posting_delta AS d (term, scope, rid, tf, dl) "
                             "VALUES ('kestrel', 'team', %s, 3, 6) ON CONFLICT (term, scope, rid) "
                             "DO UPDATE SET tf = EXCLUDED.tf, dl = EXCLUDED.dl, seq = EXCLUDED.seq", (rid,))
                early.store("a kestrel hovered")  # a newer seq, committed first
                read_postings(conn, ["kestrel"], cache=cache)
            kept = as_lists(read_postings(conn, ["kestrel"], cache=cache))
            fresh = as_lists(read_postings(conn, ["kestrel"]))
        assert kept == fresh
        assert 3 in kept[0]["kestrel"][1]


def test_the_cache_drops_whole_terms_least_recently_read_first_and_counts_its_bytes():
    import numpy as np

    from palace.backends.postgres.cache import Kept, State

    def lists(n):
        return np.arange(n, dtype=np.int64), np.ones(n, np.int32), np.ones(n, np.int32)

    def part(n):
        made = lists(n)
        return Kept(State(1, 0, -1), made, made)  # no delta: the lists are the base

    cache = ListCache(limit=4 * part(100).size + 1)
    cache.put(("kiwi", "team", 0), part(100))
    cache.put(("kiwi", "team", 1), part(100))
    cache.put(("plum", "team", 0), part(100))
    cache.touch(("kiwi", "team", 0))                 # kiwi read again: plum is now the oldest
    cache.put(("fig", "team", 0), part(150))          # over the limit: plum goes, whole
    assert set(cache.held(["kiwi", "plum", "fig"])) == {("kiwi", "team", 0), ("kiwi", "team", 1), ("fig", "team", 0)}
    cache.put(("kiwi", "team", 1), part(100))         # replaced, not counted twice
    cache.put_joined("kiwi", "sig", lists(200))       # the join of kiwi's parts counts too: fig goes
    assert set(cache.held(["kiwi", "fig"])) == {("kiwi", "team", 0), ("kiwi", "team", 1)}
    assert cache.joined("kiwi", "sig") is not None and cache.joined("kiwi", "other") is None
    assert cache._bytes == 2 * part(100).size + sum(a.nbytes for a in lists(200))
