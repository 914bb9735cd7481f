"""Both backends on the same benchmarks, and Postgres under load.

1. LongMemEval-S and LoCoMo dev retrieval (the machinery of bench_longmemeval.py and
   bench_locomo.py) on the local backend and on PostgreSQL: the figures must agree
   within 0.01 (keyword ranking is the same BM25 over the same terms on both).
2. On PostgreSQL at ``--scale`` synthetic memories: keyword search p50/p95, and store
   throughput with 1, 4 and 16 concurrent clients (each its own manager and pool).

Postgres comes from ``--database-url`` (a database this role owns, pgvector installed),
else an embedded server (the ``postgres`` extra) started and stopped here.

    python scripts/bench_backends.py --longmemeval ../shared/bench/longmemeval_s_dev.json.gz \\
        --locomo ../shared/bench/locomo_dev.json --limit 30 --scale 5000 --configs bm25
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _bench_common  # noqa: E402
import bench_locomo  # noqa: E402
import bench_longmemeval  # noqa: E402
from _bench_common import Doc, Run, make_embedder, mean, minilm_path, rank_workspace, safe_id  # noqa: E402

from palace import MemoryPalaceManager, Settings  # noqa: E402

WORDS = ("deploy release login database vector memory palace team agent search index query cache "
         "数据库 记忆 向量 检索 部署 发布 团队 会议 周五 项目").split()


def longmemeval(path: str, limit: int | None, configs, embedder, model) -> dict[str, dict[str, float]]:
    questions = bench_longmemeval.load(path)[:limit]
    run = Run()
    for question in questions:
        docs = [Doc(safe_id(sid), bench_longmemeval.session_text(turns) or "(empty session)",
                    bench_longmemeval.parse_date(date))
                for sid, turns, date in zip(question["haystack_session_ids"], question["haystack_sessions"],
                                            question["haystack_dates"])]
        seen: set[str] = set()
        docs = [d for d in docs if not (d.id in seen or seen.add(d.id))]
        rank_workspace(docs, [(question["question"], bench_longmemeval.parse_date(question["question_date"]))],
                       embedder=embedder, model=model, top_k=10, configs=configs, run=run)
    return {c: {k: v for k, v in bench_longmemeval.evaluate(questions, run.rankings[c]).items()
                if k in ("recall_any@5", "recall_any@10", "official ndcg_any@10")} for c in configs}


def locomo(path: str, limit: int | None, configs, embedder, model) -> dict[str, dict[str, float]]:
    import json

    with open(path, encoding="utf-8") as handle:
        conversations = json.load(handle)[:limit]
    run, questions = Run(), []
    for sample in conversations:
        docs = bench_locomo.session_docs(sample["conversation"])
        now = max(d.created_at for d in docs) + timedelta(days=1)
        questions.extend(sample["qa"])
        rank_workspace(docs, [(qa["question"], now) for qa in sample["qa"]], embedder=embedder, model=model,
                       top_k=10, configs=configs, run=run)
    return {c: {f"R@{k}": mean([bench_locomo.recall(r, bench_locomo.evidence_sessions(q), k)
                               for q, r in zip(questions, run.rankings[c])]) for k in (5, 10)}
            for c in configs}


def synthetic(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(12)) + f" note {n}"


def load_test(new_url, scale: int, tmp: Path) -> None:
    def manager(url: str, name: str) -> MemoryPalaceManager:
        return MemoryPalaceManager(settings=Settings.from_env(
            backend="postgres", database_url=url, vector_enabled=False, workspace_dir=str(tmp / name)))

    url = new_url()
    rng = random.Random(7)
    started = time.perf_counter()
    with manager(url, "fill") as pm:
        base = datetime(2025, 1, 1, tzinfo=timezone.utc)
        for n in range(scale):
            pm.store(synthetic(rng, n), created_at=base + timedelta(minutes=n))
        fill_s = time.perf_counter() - started
        latencies = []
        for _ in range(200):
            query = " ".join(rng.sample(WORDS, 2))
            t0 = time.perf_counter()
            pm.search(query, record_access=False)
            latencies.append((time.perf_counter() - t0) * 1000)
    latencies.sort()
    print(f"\nPostgres, {scale} memories (filled in {fill_s:.1f} s, {scale / fill_s:.0f}/s by one client)")
    print(f"keyword search: p50 {statistics.median(latencies):.1f} ms, "
          f"p95 {latencies[int(len(latencies) * 0.95)]:.1f} ms (200 queries)")
    for clients in (1, 4, 16):
        url = new_url()
        per_client = max(50, 800 // clients)

        def work(c: int, url: str = url, per_client: int = per_client) -> None:
            local = random.Random(c)
            with manager(url, f"c{c}") as pm:
                for n in range(per_client):
                    pm.store(synthetic(local, n))

        t0 = time.perf_counter()
        with ThreadPoolExecutor(clients) as pool:
            list(pool.map(work, range(clients)))
        seconds = time.perf_counter() - t0
        print(f"store throughput, {clients:>2} clients: {clients * per_client / seconds:.0f} memories/s "
              f"({clients * per_client} stores)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--longmemeval", help="longmemeval_s_dev.json.gz")
    parser.add_argument("--locomo", help="locomo_dev.json")
    parser.add_argument("--limit", type=int, help="first N questions / conversations")
    parser.add_argument("--configs", default="bm25", help="bm25, palace, vector (comma-separated)")
    parser.add_argument("--model", default=minilm_path())
    parser.add_argument("--scale", type=int, default=0, help="synthetic memories for the load test (0: none)")
    parser.add_argument("--database-url", help="an existing database (else an embedded server)")
    args = parser.parse_args()
    configs = tuple(c for c in args.configs.split(",") if c)
    embedder = make_embedder(args.model) if set(configs) - {"bm25"} else None

    server = None
    if args.database_url:
        def new_url() -> str:  # one database for everything: emptied before each palace
            import psycopg

            with psycopg.connect(args.database_url, autocommit=True) as conn:
                conn.execute("DROP TABLE IF EXISTS memories, memory_tags, postings, trash, accesses, vectors, "
                             "palace_meta CASCADE; DROP FUNCTION IF EXISTS palace_scope_visible")
            return args.database_url
    else:
        from palace.backends.postgres.embedded import EmbeddedPostgres

        server = EmbeddedPostgres().start()
        made: list[str] = []

        def new_url() -> str:
            for name in made:
                server.drop_database(name)
            made.clear()
            made.append("b_" + uuid.uuid4().hex[:10])
            return server.create_database(made[-1])
    try:
        for title, bench, path in (("LongMemEval-S dev", longmemeval, args.longmemeval),
                                   ("LoCoMo dev", locomo, args.locomo)):
            if not path:
                continue
            figures = {}
            for backend in ("local", "postgres"):
                _bench_common.BACKEND.clear()
                _bench_common.BACKEND["backend"] = backend
                _bench_common.fresh_store = ((lambda: {"database_url": new_url()}) if backend == "postgres"
                                             else (lambda: {}))
                started = time.perf_counter()
                figures[backend] = bench(path, args.limit, configs, embedder, args.model)
                print(f"{title} on {backend}: {time.perf_counter() - started:.0f} s", file=sys.stderr)
            print(f"\n{title} ({args.limit or 'all'}), local vs postgres")
            worst = 0.0
            for config in configs:
                for metric, value in figures["local"][config].items():
                    other = figures["postgres"][config][metric]
                    worst = max(worst, abs(value - other))
                    print(f"  {config:<7} {metric:<22} local {value:.4f}  postgres {other:.4f}")
            print(f"  largest difference {worst:.4f} ({'within' if worst <= 0.01 else 'NOT within'} 0.01)")
        if args.scale:
            with tempfile.TemporaryDirectory(prefix="palace-bench-") as tmp:
                load_test(new_url, args.scale, Path(tmp))
    finally:
        _bench_common.BACKEND.clear()
        if server is not None:
            server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
