#!/usr/bin/env python3
"""Approximate nearest-neighbour indexes against palace's exact search (issue 29, first step).

palace/index/vectors.py scores a query by one matrix-vector product over every
normalised float32 chunk vector and takes the top k. This measures, on real MiniLM
vectors (LongMemEval text, made by scripts/bench_scale.py), what the maintained ANN
libraries would give instead, one query at a time as search runs:

- **exact**: numpy ``matrix @ query`` + argpartition top 10, the baseline (p50/p95);
- per library installed (hnswlib, faiss-cpu, usearch, sqlite-vec), for a few
  settings: build time, index size (serialised bytes, and the process's RSS growth),
  query p50/p95 at top 10, the ratio of that p50 to the matmul's, and recall@10
  against the exact top 10.

Every library is optional: a missing one prints "not installed". They are a
benchmark's dependencies, not palace's; install them outside the project's venv:

    pip install --target /tmp/annlibs usearch hnswlib faiss-cpu sqlite-vec apsw
    PYTHONPATH=/tmp/annlibs python scripts/bench_ann.py                 # 10k, 30k, 100k
    PYTHONPATH=/tmp/annlibs python scripts/bench_ann.py --synthetic-1m --json ann.json

``--synthetic-1m`` tiles the 100k real vectors ten times with small gaussian noise
(re-normalised): it estimates time and memory at 1M, not recall on real data (each
real vector has nine near-copies). sqlite-vec needs an SQLite that loads extensions;
Python builds without that (pyenv's default) use apsw's bundled SQLite when apsw is
installed, and otherwise report sqlite-vec as unusable.
"""

from __future__ import annotations

import argparse
import atexit
import gc
import json
import os
import shutil
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterator

import numpy as np

DEFAULT_NPZ = "/tmp/palace-bench-scale/minilm-100000-295633759a3f.npz"
K = 10
THREADS = os.cpu_count() or 1  # builds use every core; queries run on one thread


@dataclass
class Row:
    size: int
    library: str
    setting: str
    build_s: float | None = None
    index_mb: float | None = None  # serialised size
    rss_mb: float | None = None  # resident memory the build added
    p50_ms: float | None = None
    p95_ms: float | None = None
    vs_matmul: float | None = None  # p50 / matmul p50
    recall: float | None = None
    note: str = ""


def say(text: str = "") -> None:
    print(text, flush=True)


def rss_mb() -> float:
    try:
        import psutil
    except ImportError:  # Linux without psutil: read it from /proc
        with open("/proc/self/statm") as handle:
            return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    return psutil.Process().memory_info().rss / 2**20


def load_avg() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg()) + f" on {os.cpu_count()} CPUs"


def timed_queries(queries: np.ndarray, search: Callable[[np.ndarray], Any]) -> tuple[list[Any], list[float]]:
    """(results, seconds each) of ``search`` over the queries one at a time, after one warm-up."""
    search(queries[0])
    results, times = [], []
    for query in queries:
        start = time.perf_counter()
        results.append(search(query))
        times.append(time.perf_counter() - start)
    return results, times


def pct(times: list[float], p: float) -> float:
    return float(np.percentile(np.asarray(times) * 1000, p))


def exact_top(matrix: np.ndarray, query: np.ndarray) -> np.ndarray:
    """What palace's search does: one matmul, argpartition, then the top k sorted."""
    sims = matrix @ query
    top = np.argpartition(-sims, K - 1)[:K]
    return top[np.argsort(-sims[top])]


def recall(found: list[Any], truth: list[np.ndarray]) -> float:
    hits = [len(set(np.asarray(f).ravel().tolist()) & set(t.tolist())) for f, t in zip(found, truth)]
    return sum(hits) / (K * len(truth))


def file_mb(save: Callable[[str], Any]) -> float:
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "index")
        save(path)
        return os.path.getsize(path) / 2**20


# --------------------------------------------------------------------------- candidates
# Each candidate yields (setting, build, knobs, size): build(data) -> index; knobs are
# (label, prepare(index) -> search(query) -> ids); size(index) -> MB serialised.

Knob = tuple[str, Callable[[Any], Callable[[np.ndarray], Any]]]
Candidate = tuple[str, Callable[[np.ndarray], Any], list[Knob], Callable[[Any], float]]
EF_SEARCH = (32, 64, 128)


def hnswlib_candidates(n: int) -> Iterator[Candidate]:
    import hnswlib

    def build(data: np.ndarray) -> Any:
        index = hnswlib.Index(space="ip", dim=data.shape[1])
        index.init_index(max_elements=len(data), M=16, ef_construction=128)
        index.add_items(data, np.arange(len(data)), num_threads=THREADS)
        return index

    def knob(ef: int) -> Knob:
        def prepare(index: Any) -> Callable[[np.ndarray], Any]:
            index.set_ef(ef)
            index.set_num_threads(1)
            return lambda q: index.knn_query(q, k=K)[0]
        return f"ef={ef}", prepare

    yield ("HNSW M=16 efc=128", build, [knob(ef) for ef in EF_SEARCH],
           lambda index: file_mb(index.save_index))


def faiss_candidates(n: int) -> Iterator[Candidate]:
    import faiss

    def hnsw(data: np.ndarray) -> Any:
        faiss.omp_set_num_threads(THREADS)
        index = faiss.IndexHNSWFlat(data.shape[1], 16, faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efConstruction = 128
        index.add(data)
        return index

    def ef(value: int) -> Knob:
        def prepare(index: Any) -> Callable[[np.ndarray], Any]:
            faiss.omp_set_num_threads(1)
            index.hnsw.efSearch = value
            return lambda q: index.search(q[None, :], K)[1][0]
        return f"ef={value}", prepare

    nlist = max(16, int(4 * np.sqrt(n)))

    def ivf(data: np.ndarray) -> Any:
        faiss.omp_set_num_threads(THREADS)
        quantizer = faiss.IndexFlatIP(data.shape[1])
        index = faiss.IndexIVFFlat(quantizer, data.shape[1], nlist, faiss.METRIC_INNER_PRODUCT)
        index.train(data[np.random.default_rng(0).permutation(len(data))[:max(nlist * 40, 10000)]])
        index.add(data)
        return index

    def probe(value: int) -> Knob:
        def prepare(index: Any) -> Callable[[np.ndarray], Any]:
            faiss.omp_set_num_threads(1)
            index.nprobe = value
            return lambda q: index.search(q[None, :], K)[1][0]
        return f"nprobe={value}", prepare

    size = lambda index: file_mb(lambda path: faiss.write_index(index, path))  # noqa: E731
    yield "HNSWFlat M=16 efc=128", hnsw, [ef(v) for v in EF_SEARCH], size
    yield f"IVFFlat nlist={nlist}", ivf, [probe(v) for v in (8, 16, 32)], size


def usearch_candidates(n: int) -> Iterator[Candidate]:
    from usearch.index import Index

    def build_as(dtype: str) -> Callable[[np.ndarray], Any]:
        def build(data: np.ndarray) -> Any:
            index = Index(ndim=data.shape[1], metric="cos", dtype=dtype, connectivity=16,
                          expansion_add=128)
            index.add(np.arange(len(data)), data, threads=THREADS)
            return index
        return build

    def knob(ef: int) -> Knob:
        def prepare(index: Any) -> Callable[[np.ndarray], Any]:
            index.expansion_search = ef
            return lambda q: index.search(q, K, threads=1).keys
        return f"ef={ef}", prepare

    for dtype in ("f32", "f16", "i8"):
        yield (f"HNSW {dtype} M=16 efc=128", build_as(dtype), [knob(ef) for ef in EF_SEARCH],
               lambda index: file_mb(index.save))


def sqlite_connection(path: str) -> Any:
    """A connection that can load sqlite-vec: the standard module when its SQLite
    loads extensions, else apsw's bundled SQLite; ImportError when neither can."""
    import sqlite3

    import sqlite_vec

    db = sqlite3.connect(path)
    if hasattr(db, "enable_load_extension"):
        db.enable_load_extension(True)
        sqlite_vec.load(db)
        return db
    db.close()
    try:
        import apsw
    except ImportError:
        raise ImportError("this Python's sqlite3 cannot load extensions; install apsw") from None
    db = apsw.Connection(path)
    db.enable_load_extension(True)
    db.load_extension(sqlite_vec.loadable_path())
    return db


def sqlite_vec_candidates(n: int) -> Iterator[Candidate]:
    import sqlite_vec  # noqa: F401  (a missing library reads "not installed")

    folder = tempfile.mkdtemp(prefix="bench-ann-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)  # the databases are 100s of MB

    def build_as(column: str, insert: str) -> Callable[[np.ndarray], Any]:
        def build(data: np.ndarray) -> Any:
            path = os.path.join(folder, f"vec-{column.split()[0]}-{len(data)}.db")
            db = sqlite_connection(path)
            db.execute(f"CREATE VIRTUAL TABLE v USING vec0(embedding {column})")
            db.execute("BEGIN")
            for start in range(0, len(data), 10000):
                rows = [(int(i), data[i].tobytes()) for i in range(start, min(start + 10000, len(data)))]
                db.executemany(f"INSERT INTO v(rowid, embedding) VALUES (?, {insert})", rows)
            db.execute("COMMIT")
            return db, path
        return build

    def knob(match: str) -> Knob:
        def prepare(index: Any) -> Callable[[np.ndarray], Any]:
            db = index[0]
            sql = f"SELECT rowid FROM v WHERE embedding MATCH {match} AND k = {K} ORDER BY distance"
            return lambda q: [row[0] for row in db.execute(sql, (q.tobytes(),))]
        return "brute force (vec0 MATCH)", prepare

    size = lambda index: os.path.getsize(index[1]) / 2**20  # noqa: E731
    yield "vec0 float[384] (file)", build_as("float[384]", "?"), [knob("?")], size
    yield ("vec0 int8[384] (file)", build_as("int8[384]", "vec_quantize_int8(?, 'unit')"),
           [knob("vec_quantize_int8(?, 'unit')")], size)


LIBRARIES: dict[str, Callable[[int], Iterator[Candidate]]] = {
    "hnswlib": hnswlib_candidates, "faiss": faiss_candidates,
    "usearch": usearch_candidates, "sqlite-vec": sqlite_vec_candidates,
}


# --------------------------------------------------------------------------- measuring

def measure_exact(data: np.ndarray, queries: np.ndarray) -> tuple[Row, list[np.ndarray]]:
    truth, times = timed_queries(queries, lambda q: exact_top(data, q))
    row = Row(len(data), "numpy", "matmul (exact, today)", index_mb=data.nbytes / 2**20,
              p50_ms=pct(times, 50), p95_ms=pct(times, 95), vs_matmul=1.0, recall=1.0)
    return row, truth


def measure_candidate(candidate: Candidate, data: np.ndarray, queries: np.ndarray,
                      truth: list[np.ndarray], base: Row) -> Iterator[Row]:
    setting, build, knobs, size = candidate
    gc.collect()
    before = rss_mb()
    start = time.perf_counter()
    index = build(data)
    build_s = time.perf_counter() - start
    grown = rss_mb() - before
    index_mb = size(index)
    for label, prepare in knobs:
        found, times = timed_queries(queries, prepare(index))
        p50 = pct(times, 50)
        yield Row(len(data), "", f"{setting}, {label}", build_s, index_mb, grown, p50,
                  pct(times, 95), p50 / base.p50_ms if base.p50_ms else None, recall(found, truth))
    del index


def predicted_build(history: dict[str, tuple[int, float]], key: str, n: int) -> float | None:
    """The build time expected at ``n`` from the last size measured (a little worse than linear)."""
    if key not in history:
        return None
    last_n, last_s = history[key]
    return last_s * (n / last_n) * 1.3


def measure_size(data: np.ndarray, queries: np.ndarray, args: argparse.Namespace,
                 history: dict[str, tuple[int, float]]) -> list[Row]:
    n = len(data)
    base, truth = measure_exact(data, queries)
    rows = [base]
    for library, candidates in LIBRARIES.items():
        try:
            found = list(candidates(n))
        except ImportError as error:
            rows.append(Row(n, library, "-", note=f"not installed ({error})"))
            continue
        for candidate in found:
            key = f"{library}/{candidate[0]}"
            if args.only and not any(key.startswith(part) for part in args.only.split(",")):
                continue
            expected = predicted_build(history, key, n)
            if expected is not None and expected > args.max_build:
                rows.append(Row(n, library, candidate[0], note=f"skipped: build expected ~{expected:.0f} s "
                                f"> --max-build {args.max_build:.0f} s"))
                continue
            try:
                measured = list(measure_candidate(candidate, data, queries, truth, base))
            except ImportError as error:
                rows.append(Row(n, library, candidate[0], note=f"unusable: {error}"))
                continue
            measured[0].library = library
            history[key] = (n, measured[0].build_s or 0.0)
            rows.extend(measured)
            say(f"  measured {key} at {n:,}")
    return rows


def fmt(value: float | None, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def table(rows: list[Row], title: str) -> str:
    lines = [f"### {title}", "",
             "| library | setting | build s | index MB | RSS Δ MB | p50 ms | p95 ms | p50 / matmul | recall@10 |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for row in rows:
        if row.note:
            lines.append(f"| {row.library} | {row.setting} | {row.note} | | | | | | |")
            continue
        lines.append(f"| {row.library} | {row.setting} | {fmt(row.build_s, '.2f')} | {fmt(row.index_mb, '.0f')} "
                     f"| {fmt(row.rss_mb, '.0f')} | {fmt(row.p50_ms, '.3f')} | {fmt(row.p95_ms, '.3f')} "
                     f"| {fmt(row.vs_matmul, '.3f')} | {fmt(row.recall, '.3f')} |")
    return "\n".join(lines)


def synthetic(docs: np.ndarray, total: int, noise: float) -> np.ndarray:
    """``total`` vectors: the real ones tiled, each copy moved by gaussian noise, re-normalised."""
    rng = np.random.default_rng(29)
    out = np.empty((total, docs.shape[1]), dtype=np.float32)
    for start in range(0, total, len(docs)):
        part = docs[:min(len(docs), total - start)]
        block = part + rng.normal(0, noise, part.shape).astype(np.float32) if start else part.copy()
        block /= np.linalg.norm(block, axis=1, keepdims=True)
        out[start:start + len(part)] = block
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--npz", default=DEFAULT_NPZ, help="docs (n×d) and queries (q×d), made by bench_scale.py")
    parser.add_argument("--sizes", default="10000,30000,100000", help="prefixes of docs to measure")
    parser.add_argument("--synthetic-1m", action="store_true", help="also 1M vectors: docs tiled with noise")
    parser.add_argument("--noise", type=float, default=0.02, help="per-dimension noise of the synthetic copies")
    parser.add_argument("--max-build", type=float, default=300.0, help="skip a build expected to take longer (s)")
    parser.add_argument("--only", default="", help="comma-separated libraries or library/setting prefixes "
                        "to run, e.g. 'hnswlib,usearch/HNSW f16' (default: all)")
    parser.add_argument("--json", help="write every figure here")
    args = parser.parse_args()
    if args.only:
        for name in set(LIBRARIES) - {part.split("/")[0] for part in args.only.split(",")}:
            del LIBRARIES[name]
    if not Path(args.npz).exists():
        say(f"{args.npz} is missing: make it with `python scripts/bench_scale.py` (it caches the MiniLM "
            f"vectors there), or pass --npz")
        return 2
    with np.load(args.npz) as archive:
        docs, queries = archive["docs"].astype(np.float32), archive["queries"].astype(np.float32)
    plan = [(int(s), f"{int(s):,} real vectors") for s in args.sizes.split(",") if s and int(s) <= len(docs)]
    if args.synthetic_1m:
        plan.append((1_000_000, f"1,000,000 SYNTHETIC vectors (real {len(docs):,} tiled with noise "
                                f"{args.noise}; recall here is not real-data recall)"))
    started = datetime.now(timezone.utc).isoformat(timespec="seconds")
    say(f"bench_ann {started}; {len(queries)} queries, top {K}, one at a time; builds on {THREADS} threads; "
        f"load average {load_avg()}")
    history: dict[str, tuple[int, float]] = {}
    results: list[dict[str, Any]] = []
    for n, title in plan:
        data = docs[:n] if n <= len(docs) else synthetic(docs, n, args.noise)
        rows = measure_size(np.ascontiguousarray(data), queries, args, history)
        say(table(rows, f"{title}; load average {load_avg()}"))
        say()
        results.append({"size": n, "title": title, "loadavg": list(os.getloadavg()),
                        "rows": [asdict(row) for row in rows]})
        if args.json:  # written after every size, so a run stopped late keeps what it measured
            Path(args.json).write_text(json.dumps({"started": started, "npz": args.npz, "queries": len(queries),
                                                   "threads": THREADS, "sizes": results}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
