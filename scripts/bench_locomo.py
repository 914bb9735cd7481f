"""LoCoMo session-level retrieval, measured as ../shared/bench/README.md defines it.

One memory per session (every turn as "Speaker: text", image captions included,
stored with the session's date); per question, the share of its evidence
sessions (from the ``D<n>:`` of its evidence ids) found in the top k; questions
with no evidence count 1.0; mean over all questions. LoCoMo questions carry no
date, so ``now`` is the day after the conversation's last session. Prints palace
(hybrid), BM25 alone and vectors alone on the same questions, R@5 and R@10, and
per category.

    python scripts/bench_locomo.py ../shared/bench/locomo_dev.json
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _bench_common import (Doc, Run, add_common_args, apply_tuning_args, half_of, make_embedder, mean, dump_rankings,  # noqa: E402
                           print_table, progress, rank_workspace)

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}


def parse_date(text: str) -> datetime:
    # "1:56 pm on 8 May, 2023"
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y")


def session_docs(conversation: dict) -> list[Doc]:
    docs = []
    numbers = sorted(int(m.group(1)) for key in conversation
                     if (m := re.fullmatch(r"session_(\d+)", key)))
    for number in numbers:
        turns = conversation[f"session_{number}"]
        if not turns:
            continue
        lines = []
        for turn in turns:
            line = f"{turn['speaker']}: {turn.get('text', '')}"
            if turn.get("blip_caption"):
                line += f" [shares an image: {turn['blip_caption']}]"
            lines.append(line)
        docs.append(Doc(f"s{number}", "\n".join(lines),
                        parse_date(conversation[f"session_{number}_date_time"])))
    return docs


def evidence_sessions(qa: dict) -> set[str]:
    found = set()
    for item in qa.get("evidence") or []:
        found.update(f"s{n}" for n in re.findall(r"D(\d+):", str(item)))
    return found


def recall(ranked: list[str], evidence: set[str], k: int) -> float:
    if not evidence:
        return 1.0
    return len(evidence & set(ranked[:k])) / len(evidence)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common_args(parser)
    args = parser.parse_args()
    with open(args.data, encoding="utf-8") as handle:
        conversations = json.load(handle)[: args.limit]
    configs = tuple(c for c in args.configs.split(",") if c)
    embedder = make_embedder(args.model, args.embed_cache) if set(configs) - {"bm25"} else None
    tuning = apply_tuning_args(args)
    run = Run()
    questions: list[dict] = []
    started = time.perf_counter()
    for number, sample in enumerate(conversations, 1):
        docs = session_docs(sample["conversation"])
        now = max(d.created_at for d in docs) + timedelta(days=1)
        qas = [dict(qa, _key=f"{sample['sample_id']}#{index}") for index, qa in enumerate(sample["qa"])]
        qas = [qa for qa in qas if args.half == "all" or half_of(qa["_key"]) == args.half]
        questions.extend(qas)
        rank_workspace(docs, [(qa["question"], now) for qa in qas], embedder=embedder,
                       model=args.model, top_k=10, configs=configs, tuning=tuning, run=run)
        progress(number, len(conversations), started)
    if embedder is not None:
        embedder.save()
    print(f"LoCoMo dev: {len(conversations)} conversations, {len(questions)} questions, model {args.model}")
    for half in ("tune", "check", "all"):
        picked = [i for i, q in enumerate(questions) if half == "all" or half_of(q["_key"]) == half]
        if not picked or (half == "all" and args.half != "all"):
            continue
        metrics = {}
        for config in configs:
            pairs = [(questions[i], run.rankings[config][i]) for i in picked]
            metrics[config] = {
                "R@5": mean([recall(r, evidence_sessions(q), 5) for q, r in pairs]),
                "R@10": mean([recall(r, evidence_sessions(q), 10) for q, r in pairs]),
            }
        print_table(f"session-level recall, {half} half ({len(picked)} questions)", metrics, ["R@5", "R@10"])
        if {"bm25", "vector"} <= set(configs):
            # what any fusion of the two plain retrievers could at best keep: the evidence
            # in either one's top 10 (up to 20 sessions; docs/search-quality.md, Round 3)
            either = mean([recall(run.rankings["bm25"][i][:10] + run.rankings["vector"][i][:10],
                                  evidence_sessions(questions[i]), 20) for i in picked])
            print(f"{'ceiling: BM25 ∪ dense top 10':<22}{either:>10.4f}")
    print("\nR@10 by category")
    for category, name in CATEGORIES.items():
        picked = [i for i, q in enumerate(questions) if q.get("category") == category]
        if not picked:
            continue
        row = f"{name:<14}({len(picked):>3})"
        for config in configs:
            row += f"{mean([recall(run.rankings[config][i], evidence_sessions(questions[i]), 10) for i in picked]):>10.3f}"
        print(row)
    dump_rankings(args.dump_rankings, [q["_key"] for q in questions], run)
    timing = ", ".join(f"{c} {run.seconds[c]:.0f} s" for c in configs)
    print(f"\ntime: storing {run.store_seconds:.0f} s; searching {timing}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
