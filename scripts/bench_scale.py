#!/usr/bin/env python3
"""Search speed at scale, on real text, against the baselines users compare with.

The corpus is real conversation text from LongMemEval-S dev (../shared/bench): every
distinct user turn first, then distinct paragraphs of the assistant turns, until the
size asked for (23k user turns exist; 100k needs the paragraphs; 148k distinct texts
exist in all). Beyond that (1M) the rest are the synthetic zh/en agent memories of
``_synthetic.py`` (as bench_backends.py uses), said in the output. Each becomes one
memory file dated by its session. The queries are the benchmark's 100 questions.

Measured in one run, so ratios hold on a busy machine (the load average is printed):

- **rebuild**: ``palace reindex`` from the files (index deleted) against bm25s's build
  (tokenize + index) of the same texts;
- **keyword**: ``pm.search`` (no vectors, top 10) against bm25s (one query at a time,
  top 10) and SQLite FTS5 (an OR of the query's words, ``ORDER BY rank LIMIT 10``);
- **hybrid**: ``pm.search`` with MiniLM vectors already stored (query vectors computed
  beforehand, so neither side pays the model) against bm25s plus a numpy matmul over
  the whole matrix and its top 10. Above 100k memories the vectors past the first 100k
  are those real ones again with small noise (an estimate of time and memory; recall is
  measured against exact search over the same vectors). Then the **vector leg** alone:
  the store's graph (``palace.index.ann``, used above 20k vector rows) against the
  exact product over every row: p50, the ratio to the numpy matmul, recall@10, the
  graph's build time and the process's peak memory;
- **prompt hook path**: ``pm.get_context`` (keyword) on a 10k palace, in process;
- **store**: ``pm.store`` of new memories into the big palace (keyword mode).

Targets (issue 24): keyword p50 <= 3x bm25s and <= 0.05x FTS5; hybrid p50 <= 2x
(bm25s + matmul); rebuild <= 4x bm25s build; get_context at 10k p50 <= 30 ms.
Issue 29 (1M): the vector leg p50 <= 0.1x the matmul with recall@10 >= 0.95.

    python scripts/bench_scale.py                           # 100k, keyword + hybrid
    python scripts/bench_scale.py --size 20000 --no-hybrid  # quicker
    python scripts/bench_scale.py --profile keyword         # + cProfile of a phase
    python scripts/bench_scale.py --size 10000 --phases rebuild --profile rebuild
    python scripts/bench_scale.py --scale 1000000 --no-fts5 --repeat 1 --phases rebuild,keyword,hybrid

Workspaces and MiniLM vectors are cached in --workdir (default /tmp/palace-bench-scale).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import re
import shutil
import sqlite3
import sys
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Sequence

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _bench_common import STAGES, without  # noqa: E402

DEFAULT_LME = HERE.parent.parent / "shared" / "bench" / "longmemeval_s_dev.json.gz"
TARGETS = {"keyword_vs_bm25s": 3.0, "keyword_vs_fts5": 0.05, "hybrid_vs_baseline": 2.0,
           "rebuild_vs_bm25s": 4.0, "context_10k_ms": 30.0, "vector_leg_vs_matmul": 0.1,
           "vector_recall_at_10": 0.95}
REAL_VECTORS = 100_000  # MiniLM vectors computed (and cached) for at most this many texts
CORPUS_VERSION = 1
TOP_K = 10
PHASES = ("rebuild", "keyword", "hybrid", "context", "store")


def say(text: str = "") -> None:
    print(text, flush=True)


def pct(values: Sequence[float], p: float) -> float:
    data = sorted(values)
    if not data:
        return float("nan")
    k = (len(data) - 1) * p / 100.0
    lo = int(k)
    hi = min(lo + 1, len(data) - 1)
    return data[lo] + (data[hi] - data[lo]) * (k - lo)


def line(label: str, times: Sequence[float]) -> str:
    return f"    {label:<40} p50 {pct(times, 50) * 1000:8.2f} ms   p95 {pct(times, 95) * 1000:8.2f} ms"


def load_avg() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg()) + f" on {os.cpu_count()} CPUs"


# ----------------------------------------------------------------------------- the corpus


def parse_date(text: str) -> datetime:
    return datetime.strptime(text.split(" (")[0] + " " + text.split(") ")[-1],
                             "%Y/%m/%d %H:%M").replace(tzinfo=timezone.utc)


def corpus(path: Path, size: int) -> tuple[list[tuple[str, datetime]], list[str]]:
    """(text, date) of ``size`` distinct real texts, user turns first; and the questions."""
    data = json.load(gzip.open(path))
    seen: dict[str, datetime] = {}
    paragraphs: list[tuple[str, datetime]] = []
    for q in data:
        for turns, date in zip(q["haystack_sessions"], q["haystack_dates"]):
            when = parse_date(date)
            for turn in turns:
                text = turn["content"].strip()
                if turn["role"] == "user":
                    if text and text not in seen:
                        seen[text] = when
                else:
                    paragraphs += [(p.strip(), when) for p in re.split(r"\n\s*\n", text) if len(p.strip()) > 40]
    for text, when in paragraphs:
        if len(seen) >= size:
            break
        seen.setdefault(text, when)
    texts = list(seen.items())[:size]
    if len(texts) < size:
        from _synthetic import generate_memories

        say(f"  NOTE: {len(texts):,} distinct real texts; the other {size - len(texts):,} are synthetic "
            "agent memories (_synthetic.py)")
        taken = set(seen)
        texts += [(m.content, m.created_at) for m in generate_memories(size - len(texts))
                  if m.content not in taken][:size - len(texts)]
    return texts, [q["question"] for q in data]


# ----------------------------------------------------------------------------- palace


def workspace(workdir: Path, size: int) -> Path:
    return workdir / f"lme-{size}-v{CORPUS_VERSION}"


def write_files(ws: Path, texts: Sequence[tuple[str, datetime]]) -> None:
    """The memory files, as palace writes them (its own renderer), without the index."""
    from palace.models import Memory
    from palace.store.files import PALACE_SUBDIR, render_memory

    if ws.exists():
        shutil.rmtree(ws)
    root = ws / PALACE_SUBDIR
    for i, (text, when) in enumerate(texts):
        room = f"lme/{when:%Y-%m}"
        memory = Memory(id=f"t{i:07d}", content=text, location=room, source="benchmark",
                        created_at=when, updated_at=when)
        folder = root / room
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{memory.id}.md").write_text(render_memory(memory), encoding="utf-8")
    (ws / "built.json").write_text(json.dumps({"size": len(texts), "version": CORPUS_VERSION}))


def keyword_settings(ws: Path, **extra: Any):
    from palace.settings import Settings

    return Settings.from_env(workspace_dir=str(ws), vector_enabled=False, decay_enabled=False, **extra)


def rebuild(ws: Path) -> float:
    from palace import MemoryPalaceManager
    from palace.index import INDEX_DIR
    from palace.store.files import PALACE_SUBDIR

    shutil.rmtree(ws / PALACE_SUBDIR / INDEX_DIR, ignore_errors=True)
    started = time.perf_counter()
    with MemoryPalaceManager(ws, settings=keyword_settings(ws), sync=False) as pm:
        pm.reindex()
    return time.perf_counter() - started


def timed(fn: Callable[[str], Any], queries: Sequence[str], repeat: int = 1) -> list[float]:
    fn(queries[0])  # lazy loads (dictionaries, concept map) are not a query's cost
    times = []
    for _ in range(repeat):
        for q in queries:
            started = time.perf_counter()
            fn(q)
            times.append(time.perf_counter() - started)
    return times


# ----------------------------------------------------------------------------- baselines


def bm25s_index(texts: Sequence[str]) -> tuple[Any, float]:
    import bm25s

    started = time.perf_counter()
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(list(texts), stopwords="en", show_progress=False), show_progress=False)
    return retriever, time.perf_counter() - started


def bm25s_search(retriever: Any, k: int = TOP_K) -> Callable[[str], Any]:
    import bm25s

    def search(query: str) -> Any:
        tokens = bm25s.tokenize([query], stopwords="en", show_progress=False)
        if not tokens.vocab:
            return []
        return retriever.retrieve(tokens, k=min(k, retriever.scores["num_docs"]), show_progress=False,
                                  n_threads=1)

    return search


_WORD = re.compile(r"\w+", re.UNICODE)


def fts5_index(texts: Sequence[str], path: Path) -> tuple[sqlite3.Connection, float]:
    path.unlink(missing_ok=True)
    started = time.perf_counter()
    conn = sqlite3.connect(str(path))
    conn.execute("CREATE VIRTUAL TABLE docs USING fts5(body, tokenize='unicode61')")
    conn.executemany("INSERT INTO docs(rowid, body) VALUES (?, ?)", enumerate(texts))
    conn.commit()
    return conn, time.perf_counter() - started


def fts5_search(conn: sqlite3.Connection) -> Callable[[str], Any]:
    def search(query: str) -> Any:
        words = [w for w in _WORD.findall(query.lower()) if len(w) > 1]
        if not words:
            return []
        match = " OR ".join(f'"{w}"' for w in words)
        return conn.execute("SELECT rowid FROM docs WHERE docs MATCH ? ORDER BY rank LIMIT ?",
                            (match, TOP_K)).fetchall()

    return search


# ----------------------------------------------------------------------------- vectors


class FixedEmbedder:
    """MiniLM vectors computed once (cached in the workdir): search then pays the
    retrieval only, as the baseline's matmul does."""

    def __init__(self, name: str, dimension: int, docs: dict[str, Any], queries: dict[str, Any]):
        self.name, self.dimension, self.max_chars = name, dimension, 10**9
        self.status = "precomputed (benchmark)"
        self._docs, self._queries = docs, queries

    def available(self) -> bool:
        return True

    def embed_documents(self, texts: Sequence[str]) -> Any:
        import numpy as np

        return np.stack([self._docs[t] for t in texts])

    def embed_query(self, text: str) -> Any:
        return self._queries[text]


def minilm_vectors(texts: Sequence[str], questions: Sequence[str], cache: Path) -> tuple[str, Any, Any]:
    import numpy as np

    from _bench_common import minilm_path

    if cache.exists():
        saved = np.load(cache, allow_pickle=False)
        return str(saved["name"]), saved["docs"], saved["queries"]
    from palace.embedders import InProcessEmbedder
    from palace.settings import Settings

    embedder = InProcessEmbedder(Settings.from_env(vector_model=minilm_path(), vector_mode="inprocess"))
    say(f"  embedding {len(texts):,} texts with MiniLM once (cached in {cache}) …")
    started = time.perf_counter()
    docs = np.asarray(embedder.embed_documents(list(texts)), dtype=np.float32)
    queries = np.stack([embedder.embed_query(q) for q in questions]).astype(np.float32)
    say(f"  … {time.perf_counter() - started:.0f} s")
    np.savez(cache, name=np.array(embedder.name), docs=docs, queries=queries)
    return embedder.name, docs, queries


def matmul_search(matrix: Any) -> Callable[[Any], Any]:
    import numpy as np

    def search(vector: Any) -> Any:
        scores = matrix @ vector
        top = np.argpartition(-scores, TOP_K)[:TOP_K]
        return top[np.argsort(-scores[top])]

    return search


# ----------------------------------------------------------------------------- phases


def at_million(rows: int) -> str:
    """Issue 29's vector targets are set for 1M rows: said beside a figure measured below."""
    return "" if rows >= 1_000_000 else f" (the target is set for 1M; here {rows:,})"


def ratio_line(name: str, ratio: float, target: float, smaller_is_better: bool = True) -> str:
    ok = ratio <= target if smaller_is_better else ratio >= target
    return f"    {name:<40} {ratio:8.3f}x   target <= {target}x: {'PASS' if ok else 'FAIL'}"


def run(args: argparse.Namespace) -> dict[str, Any]:
    workdir = Path(args.workdir).expanduser().resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    texts, questions = corpus(Path(args.lme), args.size)
    bodies = [t for t, _ in texts]
    ws = workspace(workdir, len(texts))
    say(f"palace search at {len(texts):,} memories (LongMemEval-S dev real text), "
        f"{len(questions)} questions; load average {load_avg()}")
    built = ws / "built.json"
    if args.rebuild or not built.exists() or json.loads(built.read_text()).get("size") != len(texts):
        say("  writing memory files …")
        write_files(ws, texts)
    out: dict[str, Any] = {"size": len(texts)}

    phases = set(args.phases.split(","))
    if args.profile == "rebuild":
        profile(lambda: rebuild(ws), workdir / "rebuild.prof")
    # rebuild: palace reindex against bm25s's build
    palace_build = rebuild(ws) if "rebuild" in phases else None
    retriever, bm25s_build = bm25s_index(bodies)
    conn, fts_build = (None, float("nan")) if args.no_fts5 else fts5_index(bodies, workdir / "fts5.sqlite3")
    if palace_build is not None:
        out.update(rebuild_s=palace_build, bm25s_build_s=bm25s_build, fts5_build_s=fts_build)
        say("  rebuild from files")
        say(f"    palace reindex {palace_build:8.1f} s   bm25s build {bm25s_build:6.1f} s   "
            f"FTS5 build {fts_build:6.1f} s   (load {load_avg()})")
        say(ratio_line("palace / bm25s", palace_build / bm25s_build, TARGETS["rebuild_vs_bm25s"]))
        say(f"    peak memory of this process after the reindex: {peak_rss_mb():,.0f} MB")
        out["rebuild_peak_rss_mb"] = peak_rss_mb()
    if "keyword" in phases:
        out.update(keyword(ws, questions, retriever, conn, args))
    if "hybrid" in phases and not args.no_hybrid:
        out.update(hybrid(ws, bodies, questions, retriever, workdir, args))
    if "context" in phases:
        out.update(context_path(workdir, texts, questions, args))
    if "store" in phases:
        out.update(store_rate(ws, args))
    return out


def peak_rss_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def keyword(ws: Path, questions: Sequence[str], retriever: Any, conn: sqlite3.Connection | None,
            args: argparse.Namespace) -> dict[str, Any]:
    from palace import MemoryPalaceManager

    out: dict[str, Any] = {}
    with MemoryPalaceManager(ws, settings=keyword_settings(ws)) as pm:
        def palace_keyword(q: str) -> Any:
            return pm.search(q, top_k=TOP_K, record_access=False)

        if args.profile == "keyword":
            profile(lambda: timed(palace_keyword, questions), Path(args.workdir).expanduser().resolve() / "keyword.prof")
        base_bm25s = timed(bm25s_search(retriever), questions, args.repeat)
        base_fts = timed(fts5_search(conn), questions, args.repeat) if conn is not None else [float("nan")]
        ours = timed(palace_keyword, questions, args.repeat)
        found = sum(bool(palace_keyword(q)) for q in questions)
        stage_times = {}
        for stage in STAGES:  # what each stage costs, measured by taking it out
            with without(stage):
                stage_times[stage] = timed(palace_keyword, questions, args.repeat)
    say(f"  keyword search, top {TOP_K} (load {load_avg()})")
    say(line("palace pm.search (keyword)", ours))
    say(line("bm25s (en stopwords)", base_bm25s))
    say(line("SQLite FTS5 (OR of the words)", base_fts))
    say(f"    palace answered {found}/{len(questions)} questions with at least one result")
    for stage, times in stage_times.items():
        cost = pct(ours, 50) - pct(times, 50)
        say(line(f"palace without {stage}", times) + f"   (the stage costs {cost * 1000:+.1f} ms at p50)")
        out[f"keyword_without_{stage}_p50_ms"] = pct(times, 50) * 1000
    out.update(keyword_p50_ms=pct(ours, 50) * 1000, keyword_p95_ms=pct(ours, 95) * 1000,
               bm25s_p50_ms=pct(base_bm25s, 50) * 1000, fts5_p50_ms=pct(base_fts, 50) * 1000)
    say(ratio_line("palace / bm25s (p50)", pct(ours, 50) / pct(base_bm25s, 50), TARGETS["keyword_vs_bm25s"]))
    if conn is not None:
        say(ratio_line("palace / FTS5 (p50)", pct(ours, 50) / pct(base_fts, 50), TARGETS["keyword_vs_fts5"]))
    return out


def hybrid(ws: Path, bodies: Sequence[str], questions: Sequence[str], retriever: Any,
           workdir: Path, args: argparse.Namespace) -> dict[str, Any]:
    import numpy as np

    from palace import MemoryPalaceManager

    name, docs, queries = document_vectors(bodies, questions, workdir)
    embedder = FixedEmbedder(name, docs.shape[1], dict(zip(bodies, docs)), dict(zip(questions, queries)))
    settings = keyword_settings(ws).__class__.from_env(workspace_dir=str(ws), vector_mode="inprocess",
                                                       vector_model=name, decay_enabled=False)
    with MemoryPalaceManager(ws, settings=settings, embedder=embedder) as pm:
        started = time.perf_counter()
        pending = pm.embed_pending()  # a whole backfill: also builds (or loads) the graph
        if pending:
            say(f"  stored {pending:,} memories' vectors ({time.perf_counter() - started:.0f} s with the graph)")
        ours = timed(lambda q: pm.search(q, top_k=TOP_K, record_access=False), questions, args.repeat)
        leg = vector_leg(pm, name, queries, docs, args)
    keyword = bm25s_search(retriever)
    matmul = matmul_search(np.ascontiguousarray(docs))
    by_text = dict(zip(questions, queries))

    def baseline(q: str) -> Any:
        return keyword(q), matmul(by_text[q])

    base = timed(baseline, questions, args.repeat)
    say(f"  hybrid search, MiniLM vectors stored (load {load_avg()})")
    say(line("palace pm.search (hybrid)", ours))
    say(line("bm25s + numpy matmul top 10", base))
    say(ratio_line("palace / (bm25s + matmul) (p50)", pct(ours, 50) / pct(base, 50),
                   TARGETS["hybrid_vs_baseline"]))
    # issue 29 asks the whole hybrid search for 0.1x the matmul alone: its keyword leg by
    # itself (9 ms at 1M, against bm25s's 47) is over that, so the vector leg is held to it
    say(ratio_line("palace hybrid / numpy matmul alone (p50)", pct(ours, 50) * 1000 / leg["vector_matmul_p50_ms"],
                   TARGETS["vector_leg_vs_matmul"]) + at_million(len(bodies)) + " (keyword leg included)")
    return {"hybrid_p50_ms": pct(ours, 50) * 1000, "hybrid_p95_ms": pct(ours, 95) * 1000,
            "hybrid_baseline_p50_ms": pct(base, 50) * 1000, **leg}


def document_vectors(bodies: Sequence[str], questions: Sequence[str], workdir: Path) -> tuple[str, Any, Any]:
    """MiniLM vectors of the first REAL_VECTORS texts; past them, those again with noise."""
    import numpy as np

    real = bodies[:REAL_VECTORS]
    digest = hashlib.sha1("\x00".join(real).encode()).hexdigest()[:12]
    name, docs, queries = minilm_vectors(real, questions, workdir / f"minilm-{len(real)}-{digest}.npz")
    if len(bodies) > len(real):
        say(f"  the vectors of the {len(bodies) - len(real):,} texts past the first {len(real):,} are "
            "real ones again with noise (time and memory, not recall on real data)")
        rng = np.random.default_rng(29)
        extra = docs[np.arange(len(real), len(bodies)) % len(real)]
        extra = extra + rng.normal(0, 0.02, extra.shape).astype(np.float32)
        extra /= np.linalg.norm(extra, axis=1, keepdims=True)
        docs = np.concatenate([docs, extra])
    return name, docs, queries


def vector_leg(pm: Any, model: str, queries: Any, docs: Any, args: argparse.Namespace) -> dict[str, Any]:
    """The vector store's graph against its exact product over every row, and numpy's matmul."""
    import numpy as np

    from palace.index.vectors import VectorStore
    from palace.text.chunking import chunk_text

    graphed = pm._vectors
    exact = VectorStore(pm.index, chunk_text, graph_min_rows=2**62)
    started = time.perf_counter()
    ready = graphed.build_graph(model)
    graph = graphed._cache.graph if ready else None
    build_s = getattr(graph, "built_in_s", None)
    wait_s = time.perf_counter() - started
    items = list(queries)
    truth = [set(exact.scores(model, q, allowed=None, limit=TOP_K)) for q in items]
    found = [set(graphed.scores(model, q, allowed=None, limit=TOP_K)) for q in items]
    recall = sum(len(t & f) for t, f in zip(truth, found)) / max(1, sum(len(t) for t in truth))
    by_index = dict(enumerate(items))
    t_exact = timed(lambda i: exact.scores(model, by_index[i], allowed=None, limit=TOP_K), list(by_index), args.repeat)
    t_graph = timed(lambda i: graphed.scores(model, by_index[i], allowed=None, limit=TOP_K), list(by_index), args.repeat)
    matmul = matmul_search(np.ascontiguousarray(docs))
    t_matmul = timed(lambda i: matmul(by_index[i]), list(by_index), args.repeat)
    peak_mb = peak_rss_mb()
    rows = graphed._cache.used
    say(f"  vector leg alone, {rows:,} chunk rows (load {load_avg()}); graph "
        + (f"built in {build_s:.1f} s" if build_s is not None else
           f"ready in {wait_s:.1f} s (loaded from the saved graph)" if ready else "not used (below its threshold)"))
    say(line("VectorStore.scores, graph", t_graph))
    say(line("VectorStore.scores, exact product", t_exact))
    say(line("numpy matmul top 10 (baseline)", t_matmul))
    say(f"    recall@10 of the graph against the exact product: {recall:.3f}   target >= "
        f"{TARGETS['vector_recall_at_10']}: {'PASS' if recall >= TARGETS['vector_recall_at_10'] else 'FAIL'}")
    say(ratio_line("graph / numpy matmul (p50)", pct(t_graph, 50) / pct(t_matmul, 50),
                   TARGETS["vector_leg_vs_matmul"]) + at_million(rows))
    say(f"    peak memory of this process so far: {peak_mb:,.0f} MB")
    return {"vector_graph_p50_ms": pct(t_graph, 50) * 1000, "vector_exact_p50_ms": pct(t_exact, 50) * 1000,
            "vector_matmul_p50_ms": pct(t_matmul, 50) * 1000, "vector_recall_at_10": recall,
            "graph_build_s": build_s, "vector_rows": rows, "peak_rss_mb": peak_mb}


def context_path(workdir: Path, texts: Sequence[tuple[str, datetime]], questions: Sequence[str],
                 args: argparse.Namespace) -> dict[str, Any]:
    from palace import MemoryPalaceManager
    from palace.features.context import get_context

    size = min(10_000, len(texts))
    ws = workspace(workdir, size)
    built = ws / "built.json"
    if not built.exists() or json.loads(built.read_text()).get("size") != size:
        write_files(ws, texts[:size])
        rebuild(ws)
    with MemoryPalaceManager(ws, settings=keyword_settings(ws)) as pm:
        times = timed(lambda q: get_context(pm, q), questions, args.repeat)
    say(f"  prompt-hook path: get_context at {size:,} memories, keyword, in process (load {load_avg()})")
    say(line("pm.get_context", times))
    target = TARGETS["context_10k_ms"]
    say(f"    p50 target <= {target:.0f} ms: {'PASS' if pct(times, 50) * 1000 <= target else 'FAIL'}")
    return {"context_p50_ms": pct(times, 50) * 1000, "context_p95_ms": pct(times, 95) * 1000}


def store_rate(ws: Path, args: argparse.Namespace) -> dict[str, Any]:
    """pm.store of new memories into the big palace (keyword mode), then removed again."""
    from palace import MemoryPalaceManager

    n = args.stores
    texts = [f"store benchmark note {i}: the deploy of service {i % 17} moved to port {8000 + i}"
             for i in range(n)]
    with MemoryPalaceManager(ws, settings=keyword_settings(ws)) as pm:
        started = time.perf_counter()
        stored = [pm.store(t, location="bench-store", source="benchmark").id for t in texts]
        elapsed = time.perf_counter() - started
        for memory_id in stored:
            pm.delete(memory_id)
        pm.empty_trash()
    say(f"  store: {n / elapsed:6.0f} memories/s through pm.store into the big palace (n={n})")
    return {"store_per_s": n / elapsed}


def profile(fn: Callable[[], Any], out: Path) -> None:
    import cProfile
    import pstats

    prof = cProfile.Profile()
    prof.runcall(fn)
    prof.dump_stats(str(out))
    pstats.Stats(str(out)).sort_stats("cumulative").print_stats(25)
    pstats.Stats(str(out)).sort_stats("tottime").print_stats(20)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", "--scale", type=int, default=100_000, help="memories (--scale: the same)")
    parser.add_argument("--no-fts5", action="store_true", help="skip the FTS5 baseline (slow at 1M)")
    parser.add_argument("--lme", default=str(DEFAULT_LME))
    parser.add_argument("--workdir", default="/tmp/palace-bench-scale")
    parser.add_argument("--repeat", type=int, default=2, help="passes over the questions per phase")
    parser.add_argument("--stores", type=int, default=300)
    parser.add_argument("--no-hybrid", action="store_true")
    parser.add_argument("--rebuild", action="store_true", help="write the memory files again")
    parser.add_argument("--profile", choices=("keyword", "rebuild"), help="cProfile one phase first")
    parser.add_argument("--phases", default=",".join(PHASES),
                        help=f"comma-separated, of {','.join(PHASES)} (the baselines are always built)")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    figures = run(args)
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
