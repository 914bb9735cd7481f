"""LongMemEval-S retrieval, measured as ../shared/bench/README.md defines it.

Session level: one memory per haystack session (its *user* turns joined with
newlines, stored with the session's date), the question as the query and the
question's date as ``now``. Prints, for palace (hybrid), BM25 alone and vectors
alone on the same questions:

- recall_any@5 / @10 over all questions (MemPalace's headline figure);
- the official figures: skipping abstention questions (``_abs``) and those whose
  answer sessions have no ``has_answer`` user turn: recall_all@5, recall_all@10,
  ndcg_any@10.

    python scripts/bench_longmemeval.py ../shared/bench/longmemeval_s_dev.json.gz
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import sys
import time
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _bench_common import (Doc, Run, add_common_args, apply_tuning_args, half_of, make_embedder, mean, dump_rankings, pick_half,  # noqa: E402
                           print_table, progress, rank_workspace, safe_id)


def parse_date(text: str) -> datetime:
    # "2023/05/20 (Sat) 02:21"
    day, _weekday, clock = text.split(" ")
    return datetime.strptime(f"{day} {clock}", "%Y/%m/%d %H:%M")


def session_text(turns: list[dict]) -> str:
    return "\n".join(t["content"] for t in turns if t.get("role") == "user" and t.get("content", "").strip())


def load(path: str) -> list[dict]:
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as handle:
        return json.load(handle)


def official_eligible(question: dict) -> bool:
    if question["question_id"].endswith("_abs"):
        return False
    answers = set(question["answer_session_ids"])
    for sid, turns in zip(question["haystack_session_ids"], question["haystack_sessions"]):
        if sid in answers and any(t.get("has_answer") and t.get("role") == "user" for t in turns):
            return True
    return False


def ndcg_any(ranked: list[str], relevant: set[str], k: int) -> float:
    gains = [1.0 if rid in relevant else 0.0 for rid in ranked[:k]]
    dcg = sum(g / math.log2(i + 2) for i, g in enumerate(gains))
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(len(relevant), k)))
    return dcg / ideal if ideal else 0.0


def evaluate(questions: list[dict], rankings: list[list[str]]) -> dict[str, float]:
    any5, any10, all5, all10, ndcg10 = [], [], [], [], []
    for question, ranked in zip(questions, rankings):
        relevant = {safe_id(s) for s in question["answer_session_ids"]}
        any5.append(float(bool(relevant & set(ranked[:5]))))
        any10.append(float(bool(relevant & set(ranked[:10]))))
        if official_eligible(question):
            all5.append(float(relevant <= set(ranked[:5])))
            all10.append(float(relevant <= set(ranked[:10])))
            ndcg10.append(ndcg_any(ranked, relevant, 10))
    return {"recall_any@5": mean(any5), "recall_any@10": mean(any10),
            "official recall_all@5": mean(all5), "official recall_all@10": mean(all10),
            "official ndcg_any@10": mean(ndcg10), "questions": len(any5), "official n": len(all5)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common_args(parser)
    parser.add_argument("--by-type", action="store_true", help="also print recall_any@5 per question type")
    args = parser.parse_args()
    questions = load(args.data)
    questions = pick_half(questions, [q["question_id"] for q in questions], args.half)[: args.limit]
    configs = tuple(c for c in args.configs.split(",") if c)
    embedder = make_embedder(args.model, args.embed_cache) if set(configs) - {"bm25"} else None
    tuning = apply_tuning_args(args)
    run = Run()
    started = time.perf_counter()
    for number, question in enumerate(questions, 1):
        docs = [Doc(safe_id(sid), session_text(turns) or "(empty session)", parse_date(date))
                for sid, turns, date in zip(question["haystack_session_ids"],
                                            question["haystack_sessions"], question["haystack_dates"])]
        # the same session id can appear twice in a haystack: keep the first
        seen: set[str] = set()
        docs = [d for d in docs if not (d.id in seen or seen.add(d.id))]
        rank_workspace(docs, [(question["question"], parse_date(question["question_date"]))],
                       embedder=embedder, model=args.model, top_k=10, configs=configs,
                       tuning=tuning, run=run)
        progress(number, len(questions), started)
        if embedder is not None and number % 10 == 0:
            embedder.save()
    if embedder is not None:
        embedder.save()
    print(f"LongMemEval-S dev: {len(questions)} questions, model {args.model}")
    for half in ("tune", "check", "all"):
        picked = [i for i, q in enumerate(questions) if half == "all" or half_of(q["question_id"]) == half]
        if not picked or (half == "all" and args.half != "all"):
            continue
        part = {c: evaluate([questions[i] for i in picked], [run.rankings[c][i] for i in picked])
                for c in configs}
        print_table(f"session-level retrieval, {half} half ({len(picked)} questions)", part,
                    ["recall_any@5", "recall_any@10", "official recall_all@5", "official recall_all@10",
                     "official ndcg_any@10"])
    metrics = {c: evaluate(questions, run.rankings[c]) for c in configs}
    print(f"\nofficial subset: {metrics[configs[0]]['official n']} questions")
    if args.by_type:
        types = sorted({q["question_type"] for q in questions})
        print("\nrecall_any@5 by question type")
        for qtype in types:
            picked = [i for i, q in enumerate(questions) if q["question_type"] == qtype]
            row = f"{qtype:<28}({len(picked):>3})"
            for config in configs:
                hits = [float(bool({safe_id(s) for s in questions[i]["answer_session_ids"]}
                                   & set(run.rankings[config][i][:5]))) for i in picked]
                row += f"{mean(hits):>10.3f}"
            print(row)
    dump_rankings(args.dump_rankings, [q["question_id"] for q in questions], run)
    timing = ", ".join(f"{c} {run.seconds[c]:.0f} s" for c in configs)
    embed_s = embedder.embed_seconds if embedder else 0.0
    print(f"\ntime: storing {run.store_seconds:.0f} s; searching {timing} (embedding {embed_s:.0f} s of it)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
