"""Chinese-first retrieval benchmark: which palace features earn their keep?

Stores every memory of ``scripts/data/zh_retrieval.json`` (hand-written agent
memories, mostly Chinese, 2026-01..03) through the public API into a temporary
workspace, asks every query with its own ``now``, and reports recall@5 and MRR
per query kind for these configurations:

- ``keyword``:     keyword search only (concepts, time reasoning and vectors off)
- ``+concepts``:   query expansion from the concept map
- ``+time``:       time words in the query become a filter ("上周", "二月初")
- ``+both``:       concepts and time reasoning (palace's keyword search as shipped)
- ``+vectors``:    both, plus semantic vectors (only when an embedder loads)

(the stages are taken out with ``_bench_common.without``: no setting switches them)

Importance and decay are switched off (weight 0) so only retrieval is measured;
searches do not record accesses, so the configurations do not influence each other.

    python scripts/bench_retrieval_zh.py [--data PATH] [--model NAME] [--misses]

The held-out sets work the same way: ``--data scripts/data/new_queries.json``,
``new_queries_2.json``, ``new_queries_3.json`` (issue 11, third round),
``new_queries_4.json`` (fourth round), ``new_queries_5.json`` (fifth round) and
``new_queries_6.json`` (sixth, written during round 5).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any, Sequence

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from palace import MemoryPalaceManager, SearchWeights, Settings  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _bench_common import without  # noqa: E402

DEFAULT_DATA = Path(__file__).resolve().parent / "data" / "zh_retrieval.json"
RECALL_AT = 5
MRR_DEPTH = 10
FALLBACK_MODEL = "use-multilingual"  # multilingual and torch-free: loads offline

# name -> (concepts, time reasoning, vectors)
CONFIGS: dict[str, tuple[bool, bool, bool]] = {
    "keyword": (False, False, False),
    "+concepts": (True, False, False),
    "+time": (False, True, False),
    "+both": (True, True, False),
    "+vectors": (True, True, True),
}


def settings_for(config: str, workspace: Path, timezone: str, model: str | None) -> Settings:
    _concepts, _time_reasoning, vectors = CONFIGS[config]
    options: dict[str, Any] = dict(
        workspace_dir=str(workspace), timezone=timezone, vector_enabled=vectors, decay_enabled=False,
        search_weights=SearchWeights(relevance=1.0, importance=0.0, decay=0.0),
    )
    if vectors:
        options.update(vector_mode="inprocess", vector_model=model)
    return Settings.from_env(**options)


KINDS = {"keyword", "paraphrase", "concept", "temporal", "temporal+concept", "cross-lingual", "unanswerable"}
UNANSWERABLE = "unanswerable"  # the answer is not stored: relevant is [] (scored by bench_precision.py)


def dataset_problems(data: dict) -> list[str]:
    """What is wrong with a dataset file (empty list: nothing)."""
    problems = []
    ids = [m.get("id") for m in data.get("memories", [])]
    if len(ids) != len(set(ids)):
        problems.append("duplicate memory ids")
    known = set(ids)
    for memory in data.get("memories", []):
        if not memory.get("content") or not memory.get("created_at"):
            problems.append(f"{memory.get('id')}: needs content and created_at")
    query_ids = [q.get("id") for q in data.get("queries", [])]
    if len(query_ids) != len(set(query_ids)):
        problems.append("duplicate query ids")
    for query in data.get("queries", []):
        if query.get("kind") not in KINDS:
            problems.append(f"{query.get('id')}: kind {query.get('kind')!r} is not one of {sorted(KINDS)}")
        if query.get("kind") == UNANSWERABLE:
            if query.get("relevant"):
                problems.append(f"{query.get('id')}: an unanswerable query lists no relevant ids")
        elif not query.get("relevant") or not set(query["relevant"]) <= known:
            problems.append(f"{query.get('id')}: relevant ids missing or unknown: {query.get('relevant')}")
        if not query.get("query") or not query.get("now"):
            problems.append(f"{query.get('id')}: needs query and now")
    return problems


def recall_at(ranked: Sequence[str], relevant: Sequence[str], k: int) -> float:
    return len(set(ranked[:k]) & set(relevant)) / len(relevant)


def reciprocal_rank(ranked: Sequence[str], relevant: Sequence[str]) -> float:
    for position, memory_id in enumerate(ranked, start=1):
        if memory_id in relevant:
            return 1.0 / position
    return 0.0


def store_memories(workspace: Path, memories: list[dict], timezone: str) -> None:
    settings = settings_for("keyword", workspace, timezone, None)
    with MemoryPalaceManager(workspace, settings=settings, embedder=None) as pm:
        for memory in memories:
            pm.store(memory["content"], tags=memory.get("tags", ()), location=memory.get("location", "general"),
                     type=memory.get("type", "fact"), created_at=memory["created_at"], id=memory["id"],
                     source="benchmark")


def load_embedder(model: str | None):
    """An in-process embedder that has actually loaded, or (None, why not)."""
    from palace.embedders import InProcessEmbedder
    from palace.errors import EmbedderUnavailableError

    candidates = [model] if model else []
    candidates += [Settings.from_env().vector_model, FALLBACK_MODEL]
    reasons = []
    for name in dict.fromkeys(candidates):
        embedder = InProcessEmbedder(Settings.from_env(vector_mode="inprocess", vector_model=name))
        try:
            embedder.load()
            return embedder, name, reasons
        except EmbedderUnavailableError as exc:
            reasons.append(f"{name}: {exc}")
        if model:  # the caller asked for this one: do not silently measure another
            break
    return None, None, reasons


def run_config(config: str, workspace: Path, data: dict, embedder, model: str | None) -> list[list[str]]:
    """Ranked memory ids per query."""
    settings = settings_for(config, workspace, data.get("timezone", "Asia/Shanghai"), model)
    concepts, time_reasoning, _vectors = CONFIGS[config]
    off = [name for name, on in (("concepts", concepts), ("time", time_reasoning)) if not on]
    rankings = []
    with MemoryPalaceManager(workspace, settings=settings, embedder=embedder) as pm, without(*off):
        if embedder is not None:
            pm.embed_pending()
        for query in data["queries"]:
            results = pm.search(query["query"], top_k=MRR_DEPTH, now=query["now"], record_access=False)
            rankings.append([result.memory.id for result in results])
    return rankings


def summarise(queries: list[dict], rankings: list[list[str]]) -> dict[str, dict[str, float]]:
    """kind -> {recall, mrr, n}; plus 'overall'."""
    per_kind: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for query, ranked in zip(queries, rankings):
        if query["kind"] == UNANSWERABLE:
            continue  # no recall to measure; see scripts/bench_precision.py
        scores = (recall_at(ranked, query["relevant"], RECALL_AT), reciprocal_rank(ranked, query["relevant"]))
        per_kind[query["kind"]].append(scores)
        per_kind["overall"].append(scores)
    return {
        kind: {"recall": sum(r for r, _ in s) / len(s), "mrr": sum(m for _, m in s) / len(s), "n": len(s)}
        for kind, s in per_kind.items()
    }


def print_table(metric: str, title: str, results: dict[str, dict[str, dict[str, float]]], kinds: list[str]) -> None:
    configs = list(results)
    print(f"\n{title}")
    header = f"{'kind':<18}{'n':>4}" + "".join(f"{c:>11}" for c in configs)
    print(header)
    print("-" * len(header))
    for kind in kinds + ["overall"]:
        n = next(iter(results.values()))[kind]["n"]
        print(f"{kind:<18}{n:>4}" + "".join(f"{results[c][kind][metric]:>11.3f}" for c in configs))


def print_misses(config: str, queries: list[dict], rankings: list[list[str]]) -> None:
    print(f"\nmisses under {config} (relevant memory not in the top {RECALL_AT}):")
    for query, ranked in zip(queries, rankings):
        if query["kind"] != UNANSWERABLE and recall_at(ranked, query["relevant"], RECALL_AT) < 1.0:
            print(f"  {query['id']} [{query['kind']}] {query['query']!r}: want {query['relevant']}, "
                  f"got {ranked[:RECALL_AT]}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="dataset JSON (default: %(default)s)")
    parser.add_argument("--model", default=os.environ.get("MEMORY_VECTOR_MODEL"),
                        help="embedding model for +vectors (default: MEMORY_VECTOR_MODEL, else palace's "
                             f"default model, else {FALLBACK_MODEL})")
    parser.add_argument("--configs", default=",".join(CONFIGS),
                        help="comma-separated subset of " + ",".join(CONFIGS))
    parser.add_argument("--download", action="store_true",
                        help="let the embedding model be downloaded from the Hugging Face hub "
                             "(default: offline, only models already in the cache or on disk)")
    parser.add_argument("--misses", action="store_true", help="list the queries each configuration misses")
    parser.add_argument("--half", choices=("tune", "check", "all"), default="all",
                        help="only the queries of one half of the fixed split (scripts/_bench_common.half_of)")
    parser.add_argument("--json", type=Path, help="also write the figures to this JSON file")
    args = parser.parse_args(argv)

    if not args.download:
        # Without this an uncached hub model costs a minute of network retries
        # before it fails; a benchmark should measure, not download.
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
    data = json.loads(args.data.read_text(encoding="utf-8"))
    problems = dataset_problems(data)
    if problems:
        print(f"{args.data} is not a valid dataset:\n  " + "\n  ".join(problems), file=sys.stderr)
        return 2
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from _bench_common import pick_half

    data = dict(data, queries=pick_half(data["queries"], [q["id"] for q in data["queries"]], args.half))
    queries = data["queries"]
    kinds = list(dict.fromkeys(q["kind"] for q in queries if q["kind"] != UNANSWERABLE))
    configs = [c.strip() for c in args.configs.split(",") if c.strip()]
    unknown = [c for c in configs if c not in CONFIGS]
    if unknown:
        parser.error(f"unknown configuration(s): {', '.join(unknown)}")
    print(f"{len(data['memories'])} memories, {len(queries)} queries ({args.data}, half: {args.half})")

    embedder = model = None
    if "+vectors" in configs:
        embedder, model, reasons = load_embedder(args.model)
        for reason in reasons:
            print(f"  vectors: {reason}", file=sys.stderr)
        if embedder is None:
            print("  +vectors skipped: no embedding model could be loaded", file=sys.stderr)
            configs.remove("+vectors")
        else:
            print(f"  +vectors uses {model}")

    results: dict[str, dict[str, dict[str, float]]] = {}
    all_rankings: dict[str, list[list[str]]] = {}
    with tempfile.TemporaryDirectory(prefix="palace-bench-zh-") as tmp:
        workspace = Path(tmp)
        started = time.perf_counter()
        store_memories(workspace, data["memories"], data.get("timezone", "Asia/Shanghai"))
        print(f"  stored in {time.perf_counter() - started:.1f} s")
        for config in configs:
            started = time.perf_counter()
            uses_embedder = CONFIGS[config][2]
            try:
                rankings = run_config(config, workspace, data, embedder if uses_embedder else None, model)
            except ImportError as exc:  # a feature whose module is not written yet
                print(f"  {config} skipped: {exc}", file=sys.stderr)
                continue
            elapsed = time.perf_counter() - started
            print(f"  {config}: {elapsed:.1f} s ({elapsed / len(queries) * 1000:.0f} ms/query)")
            all_rankings[config] = rankings
            results[config] = summarise(queries, rankings)

    if not results:
        print("no configuration could run", file=sys.stderr)
        return 1
    print_table("recall", f"recall@{RECALL_AT}", results, kinds)
    print_table("mrr", f"MRR (first relevant within the top {MRR_DEPTH})", results, kinds)
    if args.misses:
        for config, rankings in all_rankings.items():
            print_misses(config, queries, rankings)
    if args.json:
        args.json.write_text(json.dumps({"model": model, "results": results,
                                         "rankings": all_rankings}, ensure_ascii=False, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
