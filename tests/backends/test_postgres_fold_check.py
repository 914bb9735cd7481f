"""A writer's fold check on Postgres (palace/backends/postgres/postings.py): it folds the
touched terms whose delta has outgrown its share and no others, whatever the delta's
size, and a client that found a delta due folds nothing once another client has folded
it (many writers finding one common word due at once fold it once)."""

from __future__ import annotations

from palace.backends.postgres import database, postings
from palace.index import postings as folding
from tests.backends.test_postgres_concurrency import open_as

pytest_plugins = ["conftest_postgres"]


def no_writer_checks(monkeypatch) -> None:
    """The writers here never check on their own (the tests call the check)."""
    monkeypatch.setattr(database, "FOLD_EVERY", 10**12)


def delta_rows(conn, term: str) -> int:
    return conn.execute("SELECT COUNT(*) AS n FROM posting_delta WHERE term = %s", (term,)).fetchone()["n"]


def base_size(conn, term: str) -> int:
    row = conn.execute("SELECT n FROM term_postings WHERE term = %s", (term,)).fetchone()
    return row["n"] if row else 0


def test_the_check_folds_exactly_the_deltas_past_their_share(postgres_url, tmp_path, monkeypatch):
    no_writer_checks(monkeypatch)
    monkeypatch.setattr(folding, "MERGE_MIN", 4)
    monkeypatch.setattr(folding, "MERGE_CAP", 6)  # the count stops at 7 rows: a longer delta is due too
    with open_as(postgres_url, tmp_path, "writer") as pm:
        for i in range(12):  # "kiwi" in every memory (12 rows: past the cap), "plum" in 5, "fig" in 3
            words = ["kiwi"] + (["plum"] if i < 5 else []) + (["fig"] if i < 3 else [])
            pm.store(" ".join(words) + f" note{i}")
        with pm.index.palace.connection() as conn:
            assert [delta_rows(conn, t) for t in ("kiwi", "plum", "fig")] == [12, 5, 3]
            folded = postings.fold_due(conn, [(t, "team", 0) for t in ("kiwi", "plum", "fig", "absent")])
            assert folded == 2
            assert [delta_rows(conn, t) for t in ("kiwi", "plum", "fig")] == [0, 0, 3]
            assert [base_size(conn, t) for t in ("kiwi", "plum", "fig")] == [12, 5, 0]
            assert postings.fold_due(conn, [("kiwi", "team", 0), ("plum", "team", 0), ("fig", "team", 0)]) == 0


def test_a_fold_seen_due_before_another_clients_fold_does_nothing(postgres_url, tmp_path, monkeypatch):
    no_writer_checks(monkeypatch)
    monkeypatch.setattr(folding, "MERGE_MIN", 2)
    with open_as(postgres_url, tmp_path, "one") as one, open_as(postgres_url, tmp_path, "two") as two:
        for i in range(4):
            one.store(f"mango batch{i}")
        with one.index.palace.connection() as a, two.index.palace.connection() as b:
            (seen_by_a,) = postings._due(a, [("mango", "team", 0)])
            (seen_by_b,) = postings._due(b, [("mango", "team", 0)])
            assert seen_by_a == seen_by_b and seen_by_a.version == -1  # no base yet
            assert postings.fold_term(b, "mango", "team", 0, seen=seen_by_b.version)
            two.store("mango later")  # a new delta row after b's fold
            assert not postings.fold_term(a, "mango", "team", 0, seen=seen_by_a.version)
            assert delta_rows(a, "mango") == 1 and base_size(a, "mango") == 4
            # without a seen version a fold takes whatever the delta holds
            assert postings.fold_term(a, "mango", "team", 0)
            assert delta_rows(a, "mango") == 0 and base_size(a, "mango") == 5


def test_opening_a_postgres_palace_reads_no_memory_row(postgres_url, tmp_path, monkeypatch):
    """The quick sync an open (and the MCP server, now and then) runs has no files to check
    on Postgres: it must not count the memories either (a scan of the table at 1M)."""
    from palace.backends.postgres.database import PgIndex

    with open_as(postgres_url, tmp_path, "writer") as pm:
        pm.store("kiwi harvest notes")
    counted = []
    real = PgIndex.count
    monkeypatch.setattr(PgIndex, "count", lambda self, *a, **k: counted.append(1) or real(self, *a, **k))
    with open_as(postgres_url, tmp_path, "reader") as pm:
        assert pm.sync(full=None).unchanged == 0
        assert not counted
        assert pm.count() == 1 and counted  # the count itself still counts


def test_a_check_that_skips_what_cannot_be_due_yet_finds_what_a_full_count_finds(postgres_url, tmp_path, monkeypatch):
    """A check leaves on each base it counted how many writes of its scope it would take
    for the delta to pass its share (a write adds one delta row at most); no client's
    check counts that delta again before then. Through two clients' stores and checks, and
    folds, it finds due exactly what counting every delta finds."""
    import random

    no_writer_checks(monkeypatch)
    monkeypatch.setattr(folding, "MERGE_MIN", 3)
    rng = random.Random(40)
    words = ["kiwi", "plum", "fig", "pear", "lime", "date"]
    keys = [(w, "team", 0) for w in words]
    skipped = 0
    with open_as(postgres_url, tmp_path, "one") as one, open_as(postgres_url, tmp_path, "two") as two, \
            one.index.palace.connection() as a, two.index.palace.connection() as b:
        for w in words:  # every word gets a base, so a horizon can be kept on it
            one.store(f"{w} seed")
        postings.fold_due(a, keys)
        for step in range(80):
            writer, conn = (one, a) if step % 2 else (two, b)
            writer.store(" ".join(rng.sample(words, rng.randint(1, 3))) + f" step{step}")
            truth = sorted((w, "team", 0) for w in words if folding.merge_is_due(delta_rows(conn, w), base_size(conn, w)))
            skipped += sum(r["pending"] is None for r in postings.pending_rows(conn, keys))
            assert sorted(d[:3] for d in postings._due(conn, keys)) == truth, step
            if step % 9 == 8:  # fold now and then: bases grow, and their shares with them
                postings.fold_due(conn, keys)
        assert skipped > 100  # of 480: a delta far from its share was not counted again


def test_a_fold_finding_the_part_locked_by_another_fold_does_nothing(postgres_url, tmp_path, monkeypatch):
    """Two folds of one part never both write it: the one that finds the part's lock held
    (another client folding it now) leaves base and delta as they are."""
    no_writer_checks(monkeypatch)
    with open_as(postgres_url, tmp_path, "one") as one, open_as(postgres_url, tmp_path, "two") as two:
        for i in range(5):
            one.store(f"quince batch{i}")
        with one.index.palace.connection() as a, two.index.palace.connection() as b:
            with b.transaction():  # another client's fold, holding the part's lock
                b.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (postings.FOLD_LOCK, "team\x1fquinc\x1f0"))
                assert not postings.fold_term(a, "quinc", "team", 0)
                assert delta_rows(a, "quinc") == 5 and base_size(a, "quinc") == 0
            assert postings.fold_term(a, "quinc", "team", 0)  # released: now it folds
            assert delta_rows(a, "quinc") == 0 and base_size(a, "quinc") == 5
