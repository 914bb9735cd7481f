"""Both backends on the same benchmarks, and Postgres at scale.

1. LongMemEval-S and LoCoMo dev retrieval (the machinery of bench_longmemeval.py and
   bench_locomo.py) on the local backend and on PostgreSQL: the figures must agree
   within 0.01 (keyword ranking is the same BM25 over the same terms on both).
2. ``--scale 100000,1000000``: Postgres at those sizes (scripts/_pg_scale.py): import
   and export time, keyword and hybrid search p50/p95 (random 384-d vectors, an
   instant embedder, HNSW), store throughput with 1, 4 and 16 concurrent client
   processes; ``--local-baseline 100000`` measures the local backend alike, and the
   summary quotes Postgres / local ratios.

Postgres comes from ``--database-url`` (a database this role owns, pgvector installed;
benchmarks 1 only), else an embedded server kept under ``--workdir`` (its data, trees
and workspaces are reused by the next run).

    python scripts/bench_backends.py --longmemeval ../shared/bench/longmemeval_s_dev.json.gz \\
        --locomo ../shared/bench/locomo_dev.json --limit 30 --configs bm25
    python scripts/bench_backends.py --scale 100000 --local-baseline 100000 --verify
"""

from __future__ import annotations

import argparse
import sys
import time
import uuid
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _bench_common  # noqa: E402
import _pg_scale  # noqa: E402
import bench_locomo  # noqa: E402
import bench_longmemeval  # noqa: E402
from _bench_common import Doc, Run, make_embedder, mean, minilm_path, rank_workspace, safe_id  # noqa: E402




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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--longmemeval", help="longmemeval_s_dev.json.gz")
    parser.add_argument("--locomo", help="locomo_dev.json")
    parser.add_argument("--limit", type=int, help="first N questions / conversations")
    parser.add_argument("--configs", default="bm25", help="bm25, palace, vector (comma-separated)")
    parser.add_argument("--model", default=minilm_path())
    parser.add_argument("--scale", default="", help="sizes for the scale test, comma-separated "
                        "(e.g. 100000,1000000; none: skip)")
    parser.add_argument("--local-baseline", type=int, default=0,
                        help="also measure the local backend at this size (e.g. 100000)")
    parser.add_argument("--workdir", default="/tmp/palace-pg-bench",
                        help="trees, workspaces and the kept embedded server's data (reused across runs)")
    parser.add_argument("--clients", default="1,4,16", help="concurrent store clients (processes)")
    parser.add_argument("--stores", type=int, default=1600, help="stores per throughput run (split over clients)")
    parser.add_argument("--store-rounds", type=int, default=3,
                        help="rounds of throughput runs (one client, then each larger number), the "
                             "ratios to one client taken as their median")
    parser.add_argument("--queries", type=int, default=200, help="search queries per latency figure")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--no-reimport", action="store_true",
                        help="skip timing the second (idempotent) import at --scale sizes")
    parser.add_argument("--no-hybrid", action="store_true",
                        help="skip the vectors, the HNSW build and hybrid search at --scale sizes")
    parser.add_argument("--verify", action="store_true", help="check each export byte for byte against its tree")
    parser.add_argument("--resume", action="store_true",
                        help="at --scale sizes, skip the phases whose figures an earlier run saved in "
                             "<workdir>/results-<size>.json (the tree, an imported database and built "
                             "vectors/HNSW are reused anyway)")
    parser.add_argument("--store-graph-extract", choices=("on", "off", "both"), default="on",
                        help="store throughput with graph extraction on (the default setting), off, or both "
                             "(a store whose text states facts takes the whole write lock)")
    parser.add_argument("--no-wait-sample", action="store_true",
                        help="do not sample pg_stat_activity wait events during the store throughput runs")
    parser.add_argument("--database-url", help="an existing database (else an embedded server)")
    args = parser.parse_args()
    args.clients = [int(c) for c in args.clients.split(",") if c]
    sizes = [int(n) for n in args.scale.split(",") if n]
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

        # kept under --workdir, so a big imported palace is measured again without reloading it
        server = EmbeddedPostgres(Path(args.workdir) / "pg", options=_pg_scale.SERVER_OPTIONS).start()
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
        if sizes and server is None:
            raise SystemExit("the scale test runs on the embedded server (omit --database-url)")
        results = []
        for size in sizes:
            results.append(_pg_scale.run_size(size, args, server))
        local = _pg_scale.run_local(args.local_baseline, args) if args.local_baseline else None
        if results:
            _pg_scale.summary(results, local, args.clients)
    finally:
        _bench_common.BACKEND.clear()
        if server is not None:
            server.stop(keep=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
