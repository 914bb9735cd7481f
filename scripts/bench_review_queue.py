"""The review queue's same-pair check (what every fact-stating store asks, under the
whole write lock) without and with migration 9's index, on a database the scale benchmark
left (`python scripts/bench_backends.py --scale N` keeps it under --workdir): median of 20
random queued pairs each, then the index is dropped again so the database is as it was.

    python scripts/bench_review_queue.py [--workdir /tmp/palace-pg-bench] [--database bench_1000000]
"""
import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _pg_scale  # noqa: E402
import psycopg  # noqa: E402

from palace.backends.postgres.embedded import EmbeddedPostgres  # noqa: E402

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--workdir", default="/tmp/palace-pg-bench")
parser.add_argument("--database", default="bench_1000000")
args = parser.parse_args()
server = EmbeddedPostgres(Path(args.workdir) / "pg", options=_pg_scale.SERVER_OPTIONS).start()
try:
    url = server.database_url(args.database)
    with psycopg.connect(url, autocommit=True) as c:
        n = c.execute("SELECT count(*) FROM review_items").fetchone()[0]
        pairs = c.execute("SELECT old_memory, new_memory FROM review_items ORDER BY random() LIMIT 20").fetchall()
        q = "SELECT 1 FROM review_items WHERE old_memory = %s AND new_memory = %s LIMIT 1"

        def timed():
            out = []
            for old, new in pairs:
                t = time.perf_counter()
                c.execute(q, (old, new)).fetchall()
                out.append((time.perf_counter() - t) * 1000)
            return statistics.median(out)
        c.execute("DROP INDEX IF EXISTS review_items_pair")
        c.execute("DROP INDEX IF EXISTS review_items_old")
        timed()  # warm
        before = timed()
        c.execute("CREATE INDEX review_items_pair ON review_items (new_memory, old_memory)")
        c.execute("CREATE INDEX review_items_old ON review_items (old_memory)")
        timed()
        after = timed()
        plan = c.execute("EXPLAIN " + q, pairs[0]).fetchall()
        print(f"review_items: {n} rows; same-pair check median {before:.2f} ms without the index, {after:.3f} ms with it ({before/after:.0f}x)")
        print("plan with it:", plan[0][0])
        c.execute("DROP INDEX review_items_pair")  # the database as it was
        c.execute("DROP INDEX review_items_old")
finally:
    server.stop(keep=True)
