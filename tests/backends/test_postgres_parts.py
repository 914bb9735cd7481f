"""Packed keyword bases kept in parts by row id on Postgres (postings.PART_BITS): a
store's delta lands in its row's part, a fold rewrites that part and no other, a read
joins the parts in row-id order (and keeps what did not change), and a rebuild packs
the same parts. The row-id sequence is moved past part boundaries, as a palace of
more than 65,536 memories has it."""

from __future__ import annotations

from palace.backends.postgres import database, postings
from palace.backends.postgres.cache import ListCache
from palace.backends.postgres.postings import PART_BITS, read_postings
from tests.backends.test_postgres_concurrency import expected_from_rows, index_snapshot, open_as

pytest_plugins = ["conftest_postgres"]


def jump_to_part(conn, part: int) -> None:
    """The next memory stored gets the first row id of ``part``."""
    conn.execute("SELECT setval('memories_rid_seq', %s, false)", (part << PART_BITS,))


def parts(conn, term: str) -> dict[int, tuple[int, int]]:
    """part → (postings, version) of the term's base."""
    return {r["part"]: (r["n"], r["version"]) for r in conn.execute(
        "SELECT part, n, version FROM term_postings WHERE term = %s", (term,)).fetchall()}


def test_a_fold_rewrites_only_the_part_its_delta_touched(postgres_url, tmp_path, monkeypatch):
    monkeypatch.setattr(database, "FOLD_EVERY", 10**12)  # the test folds by hand
    with open_as(postgres_url, tmp_path, "writer") as pm:
        old = [pm.store(f"kiwi harvest {i}").id for i in range(5)]
        with pm.index.palace.connection() as conn:
            for key in postings.delta_keys(conn):
                postings.fold_term(conn, *key)
            before = parts(conn, "kiwi")
            assert list(before) == [0] and before[0][0] == 5
            jump_to_part(conn, 2)
        new = [pm.store(f"kiwi picking {i}").id for i in range(4)]
        with pm.index.palace.connection() as conn:
            assert {k[2] for k in postings.delta_keys(conn) if k[0] == "kiwi"} == {2}
            assert postings.fold_due(conn, [("kiwi", "team", 2)]) == 0  # 4 rows: not past its share
            assert postings.fold_term(conn, "kiwi", "team", 2)
            after = parts(conn, "kiwi")
            assert after[0] == before[0]  # part 0 not rewritten: same version
            assert after[2][0] == 4
            rids = read_postings(conn, ["kiwi"])[0]["kiwi"][0].tolist()
        assert rids == sorted(rids) and len(rids) == 9
        assert rids[4] < 2 << PART_BITS <= rids[5]
        # an old memory rewritten: its delta row lands in part 0, which alone is rewritten
        pm.update(old[0], content="kiwi kiwi orchard")
        with pm.index.palace.connection() as conn:
            assert {k for k in postings.delta_keys(conn) if k[0] == "kiwi"} == {("kiwi", "team", 0)}
            postings.fold_term(conn, "kiwi", "team", 0)
            again = parts(conn, "kiwi")
            assert again[2] == after[2] and again[0][1] != after[0][1]
        pm.delete(new[0])
        assert index_snapshot(pm) == expected_from_rows(pm)
        pm.reindex()  # packed afresh: the same parts, no delta
        with pm.index.palace.connection() as conn:
            assert {p: n for p, (n, _) in parts(conn, "kiwi").items()} == {0: 5, 2: 3}
            assert not postings.delta_keys(conn)
        assert index_snapshot(pm) == expected_from_rows(pm)


def test_a_writer_folds_the_part_its_stores_landed_in(postgres_url, tmp_path, monkeypatch):
    """The writer's own fold check knows each store's part (from its row id)."""
    from palace.index import postings as folding

    monkeypatch.setattr(database, "FOLD_EVERY", 3)
    monkeypatch.setattr(folding, "MERGE_MIN", 2)
    with open_as(postgres_url, tmp_path, "writer") as pm:
        with pm.index.palace.connection() as conn:
            jump_to_part(conn, 5)
        for i in range(9):
            pm.store(f"plum jam batch {i}")
        with pm.index.palace.connection() as conn:
            assert set(parts(conn, "plum")) == {5}
            assert sum(n for n, _ in parts(conn, "plum").values()) >= 3
        assert index_snapshot(pm) == expected_from_rows(pm)


def test_a_kept_term_sends_only_the_part_that_changed(postgres_url, tmp_path, monkeypatch):
    with open_as(postgres_url, tmp_path, "one") as pm:
        for i in range(6):
            pm.store(f"deploy the release {i}")
        with pm.index.palace.connection() as conn:
            jump_to_part(conn, 1)
        for i in range(6):
            pm.store(f"deploy again {i}")
        with pm.index.palace.connection() as conn:
            for key in postings.delta_keys(conn):
                postings.fold_term(conn, *key)
        cache = ListCache()
        with pm.index.palace.connection() as conn:
            first = read_postings(conn, ["deploi"], cache=cache)[0]["deploi"]
            again = read_postings(conn, ["deploi"], cache=cache)[0]["deploi"]
        assert again[0] is first[0]  # joined once, kept
        pm.store("deploy once more")  # part 1's delta changes; part 0 does not
        sent = []
        real = postings._unpack
        monkeypatch.setattr(postings, "_unpack", lambda *a: sent.append(len(a[0]) // 8) or real(*a))
        with pm.index.palace.connection() as conn:
            changed = read_postings(conn, ["deploi"], cache=cache)[0]["deploi"]
            assert sent == [1]  # part 1's one delta row: neither base was sent again
            fresh = read_postings(conn, ["deploi"])[0]["deploi"]
        assert [a.tolist() for a in changed] == [a.tolist() for a in fresh]
        assert len(changed[0]) == 13


def test_a_palace_with_whole_bases_is_parted_on_upgrade(postgres_url, tmp_path):
    """A database at schema 15 (one packed base per term and scope, a delta beside it)
    opened by this palace: migration 16 packs the parts afresh, and every list reads as
    the memory rows give it."""
    with open_as(postgres_url, tmp_path, "writer") as pm:
        for i in range(5):
            pm.store(f"mango tree {i}")
        with pm.index.palace.connection() as conn:
            jump_to_part(conn, 3)
        ids = [pm.store(f"mango grove {i}").id for i in range(5)]
        expected = expected_from_rows(pm)
    import psycopg

    with psycopg.connect(postgres_url, autocommit=True) as raw, raw.transaction():  # schema 15's layout
        raw.execute("ALTER TABLE term_postings NO FORCE ROW LEVEL SECURITY")
        raw.execute("DELETE FROM term_postings")
        raw.execute("ALTER TABLE term_postings DROP CONSTRAINT term_postings_pkey, DROP COLUMN part, "
                    "ADD PRIMARY KEY (term, scope)")
        raw.execute("INSERT INTO term_postings (term, scope, n, rids, tfs, dls) "
                    "SELECT t.term, m.scope, COUNT(*), string_agg(int8send(m.rid), ''::bytea ORDER BY m.rid), "
                    "string_agg(int4send(t.tf), ''::bytea ORDER BY m.rid), "
                    "string_agg(int4send(m.doc_len), ''::bytea ORDER BY m.rid) "
                    "FROM memories m CROSS JOIN LATERAL palace_memory_terms(m.terms) t GROUP BY t.term, m.scope")
        raw.execute("ALTER TABLE term_postings FORCE ROW LEVEL SECURITY")
        raw.execute("UPDATE palace_meta SET value = '15' WHERE key = 'schema_version'")
    with open_as(postgres_url, tmp_path, "upgraded") as pm:
        with pm.index.palace.connection() as conn:
            assert {p: n for p, (n, _) in parts(conn, "mango").items()} == {0: 5, 3: 5}
        assert index_snapshot(pm) == expected
        assert ids[0] in [r.memory.id for r in pm.search("mango grove", record_access=False)]
        pm.store("mango chutney")  # and writes go on into the parted layout
        assert index_snapshot(pm) == expected_from_rows(pm)
