"""Search quality and confidence, and what injection adds to a prompt (issue 24).

Explicit search is recall first: it returns its ranked results, each labelled
``strong`` or ``weak``. Injection (``get_context``: the prompt hooks, bootstrap's recall)
is precision first: strong results only. One confidence serves both, so each set is
scored on:

- ``recall``   recall@k over everything search returns (weak results included, in order);
- ``r_strong`` recall@k over the strong results alone (what a caller asking for strong
               results only gets);
- ``strong``   of the answers found in the top k, the share labelled strong (target ≥ 0.95);
- ``quiet``    unanswerable questions with no strong result in the top k (target ≥ 0.6);
- ``claimed``  mean strong results on the unanswerable questions;
- ``inj+``     related prompts whose evidence ``get_context`` injects (target ≥ 0.8);
- ``inj0``     unrelated prompts that inject nothing (target ≥ 0.9);
- ``ms``       search p50 in milliseconds on that set.

Sets (``--sets``):

- ``lme``:      LongMemEval-S dev (../shared/bench), one memory per session of user turns;
                ``_abs`` questions unanswerable; recall_any@5;
- ``locomo``:   LoCoMo dev, one memory per session; category 5 unanswerable; session R@10;
- ``zh``:       scripts/data/zh_retrieval.json; recall@5;
- ``new``, ``new_2`` … ``new_7``: scripts/data/new_queries*.json (held-out sets, each
                written before the round that first scored it: see its description);
                ``new_7`` and ``sessions`` have injection prompts;
- ``sessions``: scripts/data/sessions_holdout/: 43 Claude Code transcripts taken in with
                ``palace ingest``'s own capture, questions naming the answering turn by a
                substring (a memory of that session holding it is relevant).

Configurations (``--configs``): ``keyword`` (no vectors), ``minilm`` / ``use`` / ``e5``
(with that embedder), ``bm25`` (plain BM25: no concepts, no time, no confidence) and
``dense`` (MiniLM cosines alone). Every figure is given per half of the fixed split
(``_bench_common.half_of``: tune on "tune", report "check") and over all.

    python scripts/bench_precision.py --sets new_7,sessions --configs keyword,use
    python scripts/bench_precision.py --sets lme,locomo --configs keyword,minilm --embed-cache /tmp/pp
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _bench_common import (HALVES, STAGES, CachingEmbedder, half_of, make_embedder, mean,  # noqa: E402
                           minilm_path, patch_constants, safe_id, without)
from palace import MemoryPalaceManager, SearchWeights, Settings  # noqa: E402

JSON_SETS = {"zh": "zh_retrieval.json", "new": "new_queries.json",
             **{f"new_{n}": f"new_queries_{n}.json" for n in range(2, 8)}}
SETS = ("lme", "locomo", *JSON_SETS, "sessions")
MODELS = {"keyword": None, "minilm": "minilm", "use": "use-multilingual", "e5": "e5-multilingual-small",
          "bm25": None, "dense": "minilm"}
TOP_K = 10
RECALL_K = {"lme": 5, "locomo": 10}  # every other set: 5
TARGETS = {"strong": 0.95, "quiet": 0.6, "inj+": 0.8, "inj0": 0.9}


@dataclass
class Question:
    key: str                      # stable id: decides the half
    text: str
    now: object
    relevant: frozenset | None    # None: unanswerable
    prompt: bool = False          # an injection prompt (get_context), not a search


@dataclass
class Haystack:
    docs: list = field(default_factory=list)  # (id, content, created_at, tags)
    questions: list = field(default_factory=list)
    timezone: str | None = None
    transcripts: Path | None = None           # sessions: ingested instead of stored
    anchors: dict = field(default_factory=dict)  # sessions: key -> [(session id, substring)]


# ------------------------------------------------------------------ the sets


def lme_haystacks(path: str, limit: int | None) -> list[Haystack]:
    from bench_longmemeval import load, parse_date, session_text

    out = []
    for q in load(path)[:limit]:
        seen, docs = set(), []
        for sid, turns, date in zip(q["haystack_session_ids"], q["haystack_sessions"], q["haystack_dates"]):
            doc_id = safe_id(sid)
            if doc_id not in seen:
                seen.add(doc_id)
                docs.append((doc_id, session_text(turns) or "(empty session)", parse_date(date), ()))
        relevant = None if q["question_id"].endswith("_abs") else frozenset(safe_id(s) for s in q["answer_session_ids"])
        out.append(Haystack(docs, [Question(q["question_id"], q["question"], parse_date(q["question_date"]), relevant)]))
    return out


def locomo_haystacks(path: str, limit: int | None) -> list[Haystack]:
    from bench_locomo import evidence_sessions, session_docs

    out = []
    for sample in json.loads(Path(path).read_text(encoding="utf-8"))[:limit]:
        docs = [(d.id, d.content, d.created_at, ()) for d in session_docs(sample["conversation"])]
        now = max(d[2] for d in docs) + timedelta(days=1)
        questions = [Question(f"{sample['sample_id']}#{i}", qa["question"], now,
                              None if qa.get("category") == 5 else frozenset(evidence_sessions(qa)))
                     for i, qa in enumerate(sample["qa"])]
        out.append(Haystack(docs, questions))
    return out


def prompt_questions(data: dict) -> list[Question]:
    return [Question(p["id"], p["prompt"], p["now"], None if p["kind"] == "unrelated" else p["relevant"], True)
            for p in data.get("prompts", ())]


def json_haystack(path: Path) -> list[Haystack]:
    data = json.loads(path.read_text(encoding="utf-8"))
    docs = [(m["id"], m["content"], m["created_at"], tuple(m.get("tags", ()))) for m in data["memories"]]
    questions = [Question(q["id"], q["query"], q["now"],
                          None if q["kind"] == "unanswerable" else frozenset(q["relevant"]))
                 for q in data["queries"]]
    prompts = prompt_questions(data)
    for p in prompts:
        p.relevant = None if p.relevant is None else frozenset(p.relevant)
    return [Haystack(docs, questions + prompts, data.get("timezone"))]


def sessions_haystack(folder: Path) -> list[Haystack]:
    data = json.loads((folder / "questions.json").read_text(encoding="utf-8"))
    stack = Haystack(timezone=data.get("timezone"), transcripts=folder / "projects")
    for q in data["queries"]:
        stack.questions.append(Question(q["id"], q["query"], q["now"], None if q["kind"] == "unanswerable"
                                        else frozenset()))
        stack.anchors[q["id"]] = [(r["session"], r["contains"]) for r in q["relevant"]]
    for p in prompt_questions(data):
        stack.anchors[p.key] = [(r["session"], r["contains"]) for r in (p.relevant or ())]
        p.relevant = None if p.relevant is None else frozenset()
        stack.questions.append(p)
    return [stack]


# ------------------------------------------------------------------ running


EXTRA: dict = {}  # --min-relevance etc.


def settings_for(config: str, workspace: Path, timezone: str | None) -> Settings:
    options = dict(**EXTRA, workspace_dir=str(workspace), decay_enabled=False,
                   search_weights=SearchWeights(relevance=1.0, importance=0.0, decay=0.0))
    if timezone:
        options["timezone"] = timezone
    if MODELS[config] is None or config in BASELINES:
        options.update(vector_enabled=False)
    else:
        options.update(vector_mode="inprocess", vector_model=MODELS[config])
    return Settings.from_env(**options)


DUMP_FEATURES = False  # --dump: also each prompt's search results with their evidence


def features(result) -> dict:
    e = result.explanation
    bm25, vector = e.retrievers.get("bm25", {}), e.retrievers.get("vector", {})
    return {"id": result.memory.id, "confidence": e.confidence, "coverage": bm25.get("coverage", 0.0),
            "held_idf": bm25.get("held_idf", 0.0), "cosine": vector.get("cosine"),
            "graph": "graph" in e.retrievers, "tag": "tag" in e.retrievers, "score": result.score,
            "bm25": bm25.get("score", 0.0), "placement": (e.time_range or {}).get("placement")}


# outside palace's pipeline (scripts/_baselines.py): every result they give counts as strong
BASELINES = ("bm25", "dense")


def baseline_rows(stack: "Haystack", pm, config: str, embedder) -> list[dict]:
    from _baselines import Bm25, Dense, live_docs

    docs = live_docs(pm)
    engine = Bm25(docs) if config == "bm25" else Dense(docs, embedder)
    rows = []
    for q in stack.questions:
        t0 = time.perf_counter()
        found = engine.search(q.text, TOP_K)
        rows.append({"key": q.key, "query": q.text, "prompt": q.prompt, "found": found,
                     "seconds": time.perf_counter() - t0})
    return rows


def build(stack: Haystack, workspace: Path) -> None:
    store = settings_for("keyword", workspace, stack.timezone)
    with MemoryPalaceManager(workspace, settings=store, embedder=None) as pm:
        if stack.transcripts is not None:
            from palace.capture.pipeline import Capturer
            from palace.capture.transcripts import find_transcripts

            capturer = Capturer(pm)
            for path in find_transcripts([str(stack.transcripts)]):
                capturer.ingest_file(path)
            return
        for doc_id, content, created, tags in stack.docs:
            pm.store(content, created_at=created, id=doc_id, tags=tags, location="general", source="benchmark")


def transcript_turns(folder: Path) -> dict[str, list[tuple[str, str]]]:
    """Per session id, its turns as (the prompt line's uuid, every text of the turn): a
    turn is a typed user prompt and everything up to the next one, as Claude Code shows it."""
    turns: dict[str, list[tuple[str, str]]] = {}
    for path in sorted(folder.rglob("*.jsonl")):
        for raw in path.read_text(encoding="utf-8").splitlines():
            line = json.loads(raw)
            message = line.get("message") or {}
            content = message.get("content")
            blocks = [content] if isinstance(content, str) else [
                b.get("text", "") for b in content or () if isinstance(b, dict) and b.get("type") == "text"]
            typed = (line.get("type") == "user" and not line.get("isMeta") and not line.get("isCompactSummary")
                     and blocks and not any(isinstance(b, dict) and b.get("type") == "tool_result"
                                            for b in (content if isinstance(content, list) else ())))
            session = line.get("sessionId")
            if not session:
                continue
            if typed:
                turns.setdefault(session, []).append((line["uuid"], ""))
            if turns.get(session) and blocks:
                uuid, text = turns[session][-1]
                turns[session][-1] = (uuid, text + "\n" + "\n".join(blocks))
    return turns


def anchored(stack: Haystack, pm) -> dict[str, frozenset]:
    """sessions: per question, the memories capture made of the turn holding each anchor
    (by the turn's key); a turn capture kept no memory of counts as a miss ("lost:…")."""
    squash = lambda text: " ".join(text.split())  # noqa: E731
    assert stack.transcripts is not None
    turns = transcript_turns(stack.transcripts)
    by_turn: dict[str, set[str]] = {}
    for memory in pm.list(status="all"):
        by_turn.setdefault(str(memory.extra.get("turnKey", "")), set()).add(memory.id)
    out = {}
    for key, anchors in stack.anchors.items():
        wanted: set[str] = set()
        for session, needle in anchors:
            for uuid, text in turns.get(session, ()):
                if squash(needle) in squash(text):
                    wanted |= by_turn.get(uuid, {f"lost:{uuid}"})
                    break
        out[key] = frozenset(wanted)
    return out


def run(haystacks: list[Haystack], config: str, embedder, label: str) -> list[dict]:
    from palace.features.context import get_context

    rows: list[dict] = []
    started = time.perf_counter()
    for number, stack in enumerate(haystacks, 1):
        with tempfile.TemporaryDirectory(prefix="palace-precision-") as tmp:
            workspace = Path(tmp)
            build(stack, workspace)
            with MemoryPalaceManager(workspace, settings=settings_for(config, workspace, stack.timezone),
                                     embedder=embedder) as pm:
                if embedder is not None and config not in BASELINES:
                    pm.embed_pending()
                relevant_of = anchored(stack, pm) if stack.anchors else {}
                outside = {row["key"]: row for row in baseline_rows(stack, pm, config, embedder)} \
                    if config in BASELINES else {}
                for q in stack.questions:
                    relevant = q.relevant
                    if relevant is not None and q.key in relevant_of:
                        relevant = relevant_of[q.key]
                    row = {"key": q.key, "half": half_of(q.key), "query": q.text, "prompt": q.prompt,
                           "relevant": None if relevant is None else sorted(relevant)}
                    t0 = time.perf_counter()
                    if q.key in outside:
                        found = outside[q.key]["found"]
                        if q.prompt:
                            row["injected"] = found[:3]
                        else:
                            row["results"] = [{"id": i, "confidence": "strong"} for i in found]
                            row["notes"] = []
                        row["seconds"] = outside[q.key]["seconds"]
                        rows.append(row)
                        continue
                    if q.prompt:
                        row["injected"] = get_context(pm, q.text, now=q.now).ids
                    else:
                        results = pm.search(q.text, top_k=TOP_K, now=q.now, record_access=False,
                                            include_weak=True)
                        row["results"] = [features(r) for r in results]
                        row["notes"] = list(results.notes)
                    row["seconds"] = time.perf_counter() - t0
                    if q.prompt and DUMP_FEATURES:  # what the judge saw, for studying it
                        row["results"] = [features(r) for r in pm.search(q.text, top_k=TOP_K, now=q.now,
                                                                         record_access=False)]
                    rows.append(row)
        if len(haystacks) > 5 and (number % 10 == 0 or number == len(haystacks)):
            print(f"  … {label}: {number}/{len(haystacks)} ({time.perf_counter() - started:.0f} s)",
                  file=sys.stderr, flush=True)
    return rows


# ------------------------------------------------------------------ scoring


def score(rows: list[dict], set_name: str) -> dict[str, float]:
    k = RECALL_K.get(set_name, 5)
    strong_recalls: list[float] = []
    recalls, evidence, quiet, claimed, inj_plus, inj_zero, times = [], [], [], [], [], [], []
    for row in rows:
        times.append(row["seconds"])
        relevant = None if row["relevant"] is None else set(row["relevant"])
        if row["prompt"]:
            injected = set(row["injected"])
            if relevant is None:
                inj_zero.append(float(not injected))
            elif relevant:
                inj_plus.append(float(bool(relevant & injected)))
            continue
        top = row["results"][:k]
        if relevant is None:
            strong = [r for r in row["results"][:TOP_K] if r["confidence"] == "strong"]
            quiet.append(float(not strong))
            claimed.append(len(strong))
            continue
        if not relevant:  # LoCoMo questions with no evidence count 1.0 (README); an unmapped anchor: skipped
            if set_name == "locomo":
                recalls.append(1.0)
            continue
        found = [r for r in top if r["id"] in relevant]
        ids = {r["id"] for r in found}
        recalls.append(float(bool(ids)) if set_name == "lme" else len(ids) / len(relevant))
        held = {r["id"] for r in row["results"] if r["confidence"] == "strong"}
        held = {r for r in [x["id"] for x in row["results"] if x["id"] in held][:k]} & relevant
        strong_recalls.append(float(bool(held)) if set_name == "lme" else len(held) / len(relevant))
        evidence += [float(r["confidence"] == "strong") for r in found]
    nan = float("nan")
    return {"n_ans": len(recalls), "recall": mean(recalls) if recalls else nan,
            "r_strong": mean(strong_recalls) if strong_recalls else nan,
            "strong": mean(evidence) if evidence else nan,
            "n_unans": len(quiet), "quiet": mean(quiet) if quiet else nan,
            "claimed": mean(claimed) if claimed else nan,
            "n_rel": len(inj_plus), "inj+": mean(inj_plus) if inj_plus else nan,
            "n_unrel": len(inj_zero), "inj0": mean(inj_zero) if inj_zero else nan,
            "ms": statistics.median(times) * 1000 if times else nan}


COLUMNS = (("n_ans", "{:>6}"), ("recall", "{:>7.3f}"), ("r_strong", "{:>9.3f}"), ("strong", "{:>7.3f}"), ("n_unans", "{:>8}"),
           ("quiet", "{:>6.3f}"), ("claimed", "{:>8.2f}"), ("n_rel", "{:>6}"), ("inj+", "{:>6.3f}"),
           ("n_unrel", "{:>8}"), ("inj0", "{:>6.3f}"), ("ms", "{:>7.1f}"))


def print_scores(set_name: str, by_config: dict[str, list[dict]]) -> None:
    k = RECALL_K.get(set_name, 5)
    print(f"\n{set_name}: recall@{k} over all results; strong share of the answers found (≥0.95); "
          f"quiet = unanswerable with no strong result (≥0.6); inj+ related prompts injecting their "
          f"evidence (≥0.8); inj0 unrelated prompts injecting nothing (≥0.9)")
    widths = [len(fmt.format(0.0 if "f" in fmt else 0)) for _name, fmt in COLUMNS]
    print(f"{'config':<9}{'half':<7}" + "".join(f"{name:>{w}}" for (name, _f), w in zip(COLUMNS, widths)))
    for config, rows in by_config.items():
        for half in (*HALVES, "all"):
            picked = rows if half == "all" else [r for r in rows if r["half"] == half]
            s = score(picked, set_name)
            cells = "".join(fmt.format(s[name]) for name, fmt in COLUMNS)
            print(f"{config:<9}{half:<7}{cells}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", default="new_7,sessions", help="comma-separated, from " + ",".join(SETS))
    parser.add_argument("--configs", default="keyword,use", help="from " + ",".join(MODELS))
    bench = next((p for p in (HERE.parent.parent / "shared" / "bench", HERE.parent.parent.parent / "shared" / "bench")
                  if p.is_dir()), HERE.parent.parent / "shared" / "bench")
    parser.add_argument("--lme", default=str(bench / "longmemeval_s_dev.json.gz"))
    parser.add_argument("--locomo", default=str(bench / "locomo_dev.json"))
    parser.add_argument("--data", default=str(HERE / "data"), help="folder of the JSON sets and sessions_holdout/")
    parser.add_argument("--limit", type=int, help="LongMemEval questions / LoCoMo conversations")
    parser.add_argument("--embed-cache", help="pickle prefix keeping vectors between runs "
                                              "(one file per set and model: PREFIX-<set>-<config>.pkl)")
    parser.add_argument("--min-relevance", type=float, help="MEMORY_MIN_RELEVANCE (0 = no floor)")
    parser.add_argument("--patch", action="append", default=[], metavar="MODULE.NAME=VALUE",
                        help="set a module constant for this run (see _bench_common.patch_constants)")
    parser.add_argument("--without", default="", help="comma-separated stages taken out of palace's "
                        "search for this run, to measure each: " + ",".join(STAGES))
    parser.add_argument("--dump", type=Path, help="write every question's results to this JSON file")
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
    MODELS["minilm"] = MODELS["dense"] = minilm_path()
    patch_constants(args.patch)
    global DUMP_FEATURES
    DUMP_FEATURES = args.dump is not None
    if args.min_relevance is not None:
        EXTRA["min_relevance"] = args.min_relevance
    data = Path(args.data)
    dump: dict[str, dict[str, list[dict]]] = {}
    for set_name in sets:
        if set_name == "lme":
            haystacks = lme_haystacks(args.lme, args.limit)
        elif set_name == "locomo":
            haystacks = locomo_haystacks(args.locomo, args.limit)
        elif set_name == "sessions":
            haystacks = sessions_haystack(data / "sessions_holdout")
        else:
            haystacks = json_haystack(data / JSON_SETS[set_name])
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
            with without(*[stage for stage in args.without.split(",") if stage]):
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
