"""Facts that change: does search put the current fact first and label the stale one?

Two parts, each run *before* (MEMORY_GRAPH_EXTRACT=false: no graph, plain search) and
*after* (the default: extraction, supersession, the graph retriever):

1. Fact sequences written for this benchmark (``sequences()``: 155, in Chinese and
   English): a fact, then a later one that replaces it (also reworded: 搬到 after
   住在, "relocated to" after "live in", 不喜欢 after 喜欢, "switched to X for Y"),
   or that merely coexists (likes tea / likes coffee; lives in A / works at B), or
   whose relation is uncertain ("uses black" then "uses ruff": must go to review,
   not be superseded). Each sequence gets its own palace and one question.
   Scores: current first (the newest fact ranks above the stale one), stale labelled
   (the stale memory carries superseded_by), coexisting untouched (no memory of a
   coexisting pair is marked), uncertain queued (a review item, nothing marked).
2. LongMemEval-S ``knowledge-update`` and ``temporal-reasoning`` questions: one memory
   per session (user turns), recall_any@5 of the answer sessions; and for each
   knowledge-update question (two answer sessions: the earlier states the stale value,
   the later the current one) whether the current one ranks above the stale one
   ("current above stale": the current found and the stale not, or found first), per
   half (``_bench_common.half_of`` on the question id).

    python scripts/bench_updates.py [--longmemeval ../shared/bench/longmemeval_s_dev.json.gz]
    python scripts/bench_updates.py --sequences scripts/data/updates_holdout.json   # held-out set
    python scripts/bench_updates.py --longmemeval ../shared/bench/longmemeval_s_dev.json.gz --no-sequences
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _bench_common import half_of  # noqa: E402

from palace import MemoryPalaceManager  # noqa: E402
from palace.settings import Settings  # noqa: E402

T0 = datetime(2024, 1, 10, 9, 0)


@dataclass(frozen=True)
class Sequence:
    kind: str                  # "update", "coexist" or "uncertain"
    facts: tuple[str, ...]     # oldest first; in "update" the last one is current
    question: str
    lang: str


CITIES_ZH = ["北京", "上海", "杭州", "深圳", "成都", "南京", "武汉", "西安", "广州", "苏州", "重庆", "厦门"]
CITIES_EN = ["Berlin", "Paris", "London", "Boston", "Seattle", "Toronto", "Sydney", "Madrid", "Dublin",
             "Austin", "Denver", "Oslo"]
ORGS_ZH = ["阿里巴巴", "腾讯", "字节跳动", "华为", "百度", "美团", "京东", "小米"]
ORGS_EN = ["Acme", "Globex", "Initech", "Umbrella", "Hooli", "Stark", "Wayne", "Cyberdyne"]
LIKES_ZH = ["咖啡", "绿茶", "跑步", "爵士乐", "火锅", "羽毛球", "围棋", "摄影"]
LIKES_EN = ["coffee", "jazz", "running", "sushi", "chess", "hiking", "tennis", "opera"]
TOOLS_EN = [("black", "ruff", "formatting"), ("npm", "pnpm", "packages"), ("vim", "helix", "editing"),
            ("jenkins", "buildkite", "builds"), ("mysql", "postgres", "storage"), ("make", "just", "tasks")]
TOOLS_ZH = [("black", "ruff", "格式化"), ("npm", "pnpm", "装包"), ("vim", "helix", "写代码"),
            ("jenkins", "buildkite", "构建"), ("mysql", "postgres", "存数据"), ("make", "just", "跑任务")]


def sequences() -> list[Sequence]:
    out: list[Sequence] = []
    for i in range(len(CITIES_ZH) - 1):
        a, b = CITIES_ZH[i], CITIES_ZH[i + 1]
        out.append(Sequence("update", (f"我住在{a}", f"我搬到{b}了"), "我现在住在哪个城市？", "zh"))
        out.append(Sequence("update", (f"我住在{a}，离公司很近", f"今年我定居在{b}"), "我住在哪里", "zh"))
        a, b = CITIES_EN[i], CITIES_EN[i + 1]
        out.append(Sequence("update", (f"I live in {a}", f"I moved to {b} last month"), "Where do I live now?", "en"))
        out.append(Sequence("update", (f"I live in {a} with my cat", f"I relocated to {b}"), "which city do I live in", "en"))
    for i in range(0, len(CITIES_ZH) - 2, 2):  # three moves: the last retires the second
        a, b, c = CITIES_ZH[i:i + 3]
        out.append(Sequence("update", (f"我住在{a}", f"我搬到{b}了", f"后来我又搬到{c}"), "我住在哪个城市", "zh"))
        a, b, c = CITIES_EN[i:i + 3]
        out.append(Sequence("update", (f"I live in {a}", f"I moved to {b}", f"Then I moved to {c}"),
                            "Where do I live?", "en"))
    for i in range(len(ORGS_ZH) - 1):
        a, b = ORGS_ZH[i], ORGS_ZH[i + 1]
        out.append(Sequence("update", (f"我在{a}工作", f"我现在在{b}上班"), "我在哪家公司工作？", "zh"))
        a, b = ORGS_EN[i], ORGS_EN[i + 1]
        out.append(Sequence("update", (f"I work at {a}", f"I now work at {b}"), "Where do I work?", "en"))
        out.append(Sequence("update", (f"I work for {a} as an engineer", f"I started working at {b}"),
                            "who is my employer", "en"))
    for x in LIKES_ZH:
        out.append(Sequence("update", (f"我喜欢{x}", f"我不喜欢{x}了"), f"我喜欢{x}吗？", "zh"))
    for x in LIKES_EN:
        out.append(Sequence("update", (f"I like {x}", f"I don't like {x} anymore"), f"Do I like {x}?", "en"))
    for old, new, purpose in TOOLS_EN:
        out.append(Sequence("update", (f"I use {old} for {purpose}", f"I switched to {new} for {purpose}"),
                            f"What do I use for {purpose}?", "en"))
    for old, new, purpose in TOOLS_ZH:
        out.append(Sequence("update", (f"我用{old}来{purpose}", f"我改用{new}来{purpose}"),
                            f"我用什么{purpose}？", "zh"))
    # coexisting: two current facts, neither may be marked
    for i in range(len(LIKES_ZH) - 1):
        out.append(Sequence("coexist", (f"我喜欢{LIKES_ZH[i]}", f"我喜欢{LIKES_ZH[i + 1]}"), "我喜欢什么？", "zh"))
        out.append(Sequence("coexist", (f"I like {LIKES_EN[i]}", f"I like {LIKES_EN[i + 1]}"), "What do I like?", "en"))
    for i in range(len(ORGS_ZH)):
        out.append(Sequence("coexist", (f"我住在{CITIES_ZH[i]}", f"我在{ORGS_ZH[i]}工作"), "我住在哪里，在哪工作", "zh"))
        out.append(Sequence("coexist", (f"I live in {CITIES_EN[i]}", f"I work at {ORGS_EN[i]}"),
                            "where do I live and work", "en"))
        out.append(Sequence("coexist", (f"张伟在{ORGS_ZH[i]}工作", f"我在{ORGS_ZH[(i + 1) % len(ORGS_ZH)]}工作"),
                            "谁在哪里工作", "zh"))
    # uncertain: a second tool without a purpose: review, not supersession
    for old, new, _purpose in TOOLS_EN:
        out.append(Sequence("uncertain", (f"I use {old}", f"I use {new}"), f"Do I use {new}?", "en"))
    for old, new, _purpose in TOOLS_ZH:
        out.append(Sequence("uncertain", (f"我用{old}", f"我用{new}"), f"我用{new}吗", "zh"))
    return out


def settings(workspace: Path, *, graph: bool) -> Settings:
    return Settings.from_env({}, workspace_dir=str(workspace), vector_enabled=False, graph_extract=graph,
                             decay_enabled=False)


def load_sequences(path: str) -> list[Sequence]:
    """Sequences from a JSON file (``{"sequences": [{kind, lang, facts, question}]}``)."""
    data = json.loads(Path(path).read_text("utf-8"))
    return [Sequence(item["kind"], tuple(item["facts"]), item["question"], item["lang"])
            for item in data["sequences"]]


def run_sequences(graph: bool, seqs: list[Sequence] | None = None,
                  misses: list[str] | None = None) -> dict[str, float]:
    """Scores over ``seqs`` (default: ``sequences()``); what each missed goes to ``misses``."""
    seqs = sequences() if seqs is None else seqs
    scores: dict[str, list[float]] = {"current first": [], "stale labelled": [], "coexisting untouched": [],
                                      "uncertain queued": []}
    for seq in seqs:
        with tempfile.TemporaryDirectory(prefix="palace-updates-") as tmp:
            pm = MemoryPalaceManager(tmp, settings=settings(Path(tmp), graph=graph), embedder=None)
            ids = [pm.store(text, created_at=T0 + timedelta(days=60 * i)).id for i, text in enumerate(seq.facts)]
            now = T0 + timedelta(days=60 * len(seq.facts))
            results = pm.search(seq.question, now=now, record_access=False)
            ranked = [r.memory.id for r in results]
            marked = {i: pm.get(i, record_access=False).extra.get("supersededBy") for i in ids}
            if seq.kind == "update":
                current, stale = ids[-1], ids[-2]
                first = ranked.index(current) < ranked.index(stale) if current in ranked and stale in ranked \
                    else current in ranked
                scores["current first"].append(float(first))
                labelled = any(r.memory.id == stale and r.explanation.superseded_by == current for r in results)
                scores["stale labelled"].append(float(labelled))
                ok = first and labelled
            elif seq.kind == "coexist":
                ok = not any(marked.values())
                scores["coexisting untouched"].append(float(ok))
            else:
                queued = len(pm.graph.queue.items()) == 1
                ok = queued and not any(marked.values())
                scores["uncertain queued"].append(float(ok))
            if not ok and misses is not None:
                misses.append(f"{seq.kind}: {' → '.join(seq.facts)} ({seq.question})")
            pm.close()
    return {name: sum(v) / len(v) for name, v in scores.items() if v} | {
        "sequences": float(len(seqs))}


def session_text(turns: list[dict]) -> str:
    return "\n".join(t["content"] for t in turns if t.get("role") == "user" and t.get("content", "").strip())


def parse_date(text: str) -> datetime:
    day, _weekday, clock = text.split(" ")
    return datetime.strptime(f"{day} {clock}", "%Y/%m/%d %H:%M")


def run_longmemeval(path: str, graph: bool, limit: int | None) -> dict[str, float]:
    with gzip.open(path) as handle:
        questions = [q for q in json.load(handle) if q["question_type"] in ("knowledge-update", "temporal-reasoning")]
    questions = questions[:limit] if limit else questions
    hits: dict[str, list[float]] = {"knowledge-update": [], "temporal-reasoning": []}
    above: dict[str, list[float]] = {"tune": [], "check": []}
    for q in questions:
        with tempfile.TemporaryDirectory(prefix="palace-lme-") as tmp:
            pm = MemoryPalaceManager(tmp, settings=settings(Path(tmp), graph=graph), embedder=None)
            seen: set[str] = set()
            ids = {}
            for sid, turns, date in zip(q["haystack_session_ids"], q["haystack_sessions"], q["haystack_dates"]):
                if sid in seen:
                    continue
                seen.add(sid)
                memory = pm.store(session_text(turns) or "(empty session)", created_at=parse_date(date))
                ids[memory.id] = sid
            results = pm.search(q["question"], now=parse_date(q["question_date"]), top_k=50, record_access=False)
            ranked = [ids[r.memory.id] for r in results]
            found = set(ranked[:5])
            hits[q["question_type"]].append(float(bool(found & set(q["answer_session_ids"]))))
            if q["question_type"] == "knowledge-update" and len(q["answer_session_ids"]) == 2:
                dated = dict(zip(q["haystack_session_ids"], q["haystack_dates"]))
                stale, current = sorted(q["answer_session_ids"], key=lambda sid: parse_date(dated[sid]))
                first = (current in ranked and (stale not in ranked or ranked.index(current) < ranked.index(stale)))
                above[half_of(q["question_id"])].append(float(first))
            pm.close()
    return {f"{k} recall_any@5 ({len(v)})": sum(v) / len(v) for k, v in hits.items() if v} | {
        f"knowledge-update current above stale, {h} ({len(v)})": sum(v) / len(v) for h, v in above.items() if v}


def run_scale(count: int, queries: int = 200) -> dict[str, float]:
    """Graph recall (depth 2) vs keyword search p50 on ``count`` memories, each with two
    relations among ``count // 4`` people and ``count // 20`` projects."""
    import random
    import statistics

    rng = random.Random(7)
    people = [f"person{i}" for i in range(max(4, count // 4))]
    projects = [f"project{i}" for i in range(max(2, count // 20))]
    with tempfile.TemporaryDirectory(prefix="palace-graph-scale-") as tmp:
        pm = MemoryPalaceManager(tmp, settings=settings(Path(tmp), graph=False), embedder=None)
        for i in range(count):
            a, b, p = rng.choice(people), rng.choice(people), rng.choice(projects)
            pm.store(f"{a} and {b} discussed {p} milestone {i}", extra={"relations": [
                {"subject": a, "predicate": "works_on", "object": p},
                {"subject": b, "predicate": "knows", "object": a}]})
        timings: dict[str, list[float]] = {"keyword": [], "recall": []}
        for _ in range(queries):
            name = rng.choice(people)
            started = time.perf_counter()
            pm.search(f"{name} milestone", record_access=False)
            timings["keyword"].append(time.perf_counter() - started)
            started = time.perf_counter()
            pm.graph.recall([name], 2, now=pm.now(), limit=20)  # pm.recall's default
            timings["recall"].append(time.perf_counter() - started)
        pm.close()
    return {f"{name} p50 ms ({count} memories)": statistics.median(v) * 1000 for name, v in timings.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--longmemeval", help="path to longmemeval_s_dev.json.gz (part 2)")
    parser.add_argument("--limit", type=int, help="at most this many LongMemEval questions")
    parser.add_argument("--scale", type=int, help="also time graph recall vs keyword search on this many memories")
    parser.add_argument("--sequences", help="score the sequences in this JSON file instead of the built-in ones "
                                            "(e.g. scripts/data/updates_holdout.json), listing the misses")
    parser.add_argument("--no-sequences", action="store_true", help="skip part 1 (with --longmemeval: part 2 only)")
    args = parser.parse_args()
    if args.scale:
        for name, value in run_scale(args.scale).items():
            print(f"{name:<44}{value:>10.2f}")
    seqs = load_sequences(args.sequences) if args.sequences else None
    misses: list[str] = []
    table: dict[str, dict[str, float]] = {}
    for label, graph in (("before", False), ("after", True)):
        started = time.perf_counter()
        table[label] = {} if args.no_sequences else run_sequences(graph, seqs, misses if graph else None)
        if args.longmemeval:
            table[label] |= run_longmemeval(args.longmemeval, graph, args.limit)
        table[label]["seconds"] = time.perf_counter() - started
    print(f"{'metric':<44}{'before':>10}{'after':>10}")
    for name in table["after"]:
        print(f"{name:<44}{table['before'].get(name, float('nan')):>10.3f}{table['after'][name]:>10.3f}")
    if args.sequences:
        print(f"missed after ({len(misses)}):")
        for line in misses:
            print(f"  {line}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
