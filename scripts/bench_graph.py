#!/usr/bin/env python3
"""Graph recall at scale: 100k memories and ~1M relations (issue 15's target: graph
recall p50 within 2x of keyword search p50).

Builds (or reuses) a synthetic palace by writing the Markdown files directly (the
format ``palace.store.files.render_memory`` writes) and rebuilding the index once
(``pm.reindex()``), which is far quicker than a million relations through
``pm.store``. Each memory states ``--relations`` relations (default 10) among people
(English and Chinese names), projects, organisations, cities and tools; the names
appear in the text too, so keyword search has something to find. Then, in one
process and over the same fixed entity draws, it times:

- ``pm.recall([entity], depth=1..3)`` (20 results, the default limit);
- ``pm.search(query)`` with the graph retriever (the query names two entities);
- the same searches as keyword search only (the graph retriever switched off for
  the run by hiding the index's graph support, nothing else changes);

and prints p50/p95 and the ratio recall p50 / keyword p50 (target <= 2).

    python scripts/bench_graph.py                      # 100k memories, ~1M relations
    python scripts/bench_graph.py --size 20000 --queries 100
    python scripts/bench_graph.py --rebuild            # regenerate the workspace

The workspace lives in --workdir (default /tmp/palace-bench-graph) and is reused
when a finished build with the same size, relation count and generator is there.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable, Sequence

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

GENERATOR = 1
MARKER = "bench-graph.json"
TZ = timezone(timedelta(hours=8))
END = datetime(2026, 11, 30, 18, 0, tzinfo=TZ)
TARGET_RATIO = 2.0

FIRST_EN = ["Ada", "Ben", "Cara", "Dan", "Eli", "Faye", "Gus", "Hana", "Ian", "Jade", "Kai", "Lena",
            "Milo", "Nora", "Owen", "Pia", "Quinn", "Rosa", "Sam", "Tess", "Uma", "Vik", "Wren", "Xena",
            "Yuri", "Zoe", "Alma", "Bram", "Cleo", "Dex", "Edda", "Finn", "Gwen", "Hugo", "Iris", "Jon",
            "Kira", "Liam", "Maya", "Nils"]
LAST_EN = ["Abbott", "Baker", "Carver", "Dalton", "Ellis", "Fisher", "Garner", "Hale", "Irving", "Jensen",
           "Keller", "Lawson", "Mercer", "Nolan", "Ortega", "Parker", "Quincy", "Rhodes", "Sutton", "Turner",
           "Upton", "Vance", "Walsh", "Xiong", "Young", "Zeller", "Archer", "Brooks", "Cole", "Drake",
           "Emery", "Frost", "Grant", "Hayes", "Ingram", "Joyce", "Knox", "Lowe", "Moss", "Nash"]
SURNAMES_ZH = "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾萧田董潘袁蔡蒋余于杜叶程魏苏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦傅方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤"
GIVEN_ZH = "伟芳娜敏静丽强磊军洋勇艳杰娟涛明超秀霞平刚桂英华玉兰萍建红飞鹏辉斌波宇浩凯俊帆琳晨欣怡佳"
PROJECT_WORDS = ["Aurora", "Beacon", "Comet", "Delta", "Ember", "Falcon", "Garnet", "Harbor", "Indigo",
                 "Juniper", "Kestrel", "Lumen", "Meridian", "Nimbus", "Onyx", "Pulsar", "Quartz", "Raven",
                 "Sierra", "Tundra", "Umber", "Vortex", "Willow", "Zephyr"]
CITIES = ["Beijing", "Shanghai", "Hangzhou", "Shenzhen", "Chengdu", "Berlin", "Paris", "London", "Boston",
          "Seattle", "Toronto", "Sydney", "Madrid", "Dublin", "Austin", "Denver", "Oslo", "Tokyo", "Seoul",
          "Singapore", "南京", "武汉", "西安", "广州", "苏州", "重庆", "厦门", "青岛", "天津", "长沙"]
TOOLS = ["PostgreSQL", "MySQL", "Redis", "Kafka", "RabbitMQ", "Docker", "Kubernetes", "Helm", "Terraform",
         "Grafana", "Prometheus", "nginx", "Elasticsearch", "ClickHouse", "SQLite", "FastAPI", "Django",
         "React", "Vue", "TypeScript", "Rust", "Go", "Python", "pytest", "Jenkins", "Sentry", "Celery",
         "gRPC", "MinIO", "etcd", "Flink", "Airflow", "DuckDB", "Milvus", "Vite", "ruff", "uv", "Bazel",
         "Nomad", "Consul"]
ORG_WORDS = ["Acme", "Globex", "Initech", "Umbra", "Hooli", "Stark", "Wayne", "Cyberdyne", "Tyrell",
             "Soylent", "Vandelay", "Massive", "Oscorp", "Gringotts", "Monarch", "Nakatomi", "Wonka",
             "Zorg", "Aperture", "BlackMesa"]
ROOMS = ["general", "projects/palace", "projects/atlas", "people", "meetings", "ops", "decisions",
         "notes/2025", "notes/2026", "incidents", "design", "reviews"]
# (predicate, subject pool, object pool) drawn for each memory's relations
PREDICATES = [("works_on", "person", "project"), ("knows", "person", "person"),
              ("reports_to", "person", "person"), ("uses", "project", "tool"),
              ("depends_on", "project", "project"), ("member_of", "person", "org"),
              ("based_in", "org", "city"), ("reviewed", "person", "project"),
              ("mentors", "person", "person"), ("owns", "org", "project")]


def entity_pools(size: int) -> dict[str, list[str]]:
    """People scale with the palace (~1 per 4 memories), projects ~1 per 40."""
    people_en = [f"{f} {last}" for last in LAST_EN for f in FIRST_EN]           # 1,600
    people_zh = [s + g1 + g2 for s in SURNAMES_ZH for g1 in GIVEN_ZH[:12] for g2 in GIVEN_ZH[12:24]]
    rng = random.Random(11)
    rng.shuffle(people_zh)
    people = (people_en + people_zh)[: max(40, size // 4)]
    projects = [f"{a}{b}" for a in PROJECT_WORDS for b in PROJECT_WORDS if a != b]
    projects += [f"{p}{i}" for i in range(2, 10) for p in projects[:552]]
    orgs = [f"{w} {kind}" for w in ORG_WORDS for kind in ("Labs", "Corp", "Systems", "Group", "Works")]
    return {"person": people, "project": projects[: max(10, size // 40)], "org": orgs,
            "city": CITIES, "tool": TOOLS}


def memory_text(i: int, rels: Sequence[tuple[str, str, str]]) -> str:
    parts = [f"{s} {p.replace('_', ' ')} {o}" for s, p, o in rels[:4]]
    return f"Note {i}: " + "; ".join(parts) + f". Follow-up on item {i % 997} next week."


def generate(ws: Path, size: int, per_memory: int, seed: int = 7) -> dict[str, Any]:
    from palace.models import Memory
    from palace.store.files import PALACE_SUBDIR, render_memory

    rng = random.Random(seed)
    pools = entity_pools(size)
    root = ws / PALACE_SUBDIR
    relations = 0
    started = time.perf_counter()
    made: set[Path] = set()
    for i in range(size):
        rels = []
        # each memory is about one person and one project, with a few others around them
        person = rng.choice(pools["person"])
        project = rng.choice(pools["project"])
        for k in range(per_memory):
            predicate, s_pool, o_pool = PREDICATES[(i + k) % len(PREDICATES)]
            subject = person if s_pool == "person" and k % 2 == 0 else (
                project if s_pool == "project" and k % 3 else rng.choice(pools[s_pool]))
            obj = rng.choice(pools[o_pool])
            if obj == subject:
                continue
            rels.append((subject, predicate, obj))
        created = END - timedelta(minutes=rng.randrange(730 * 24 * 60))
        location = ROOMS[i % len(ROOMS)]
        memory_id = f"g{seed:02d}{i:08d}"
        extra = {"relations": [{"subject": s, "predicate": p, "object": o} for s, p, o in rels]}
        memory = Memory(id=memory_id, content=memory_text(i, rels), summary=None,
                        tags=(f"project/{project.lower()}", "graph-bench"), importance=0.5, status="active",
                        location=location, type="fact", source="bench", created_at=created,
                        updated_at=created, pinned=False, extra=extra)
        folder = root.joinpath(*location.split("/"))
        if folder not in made:
            folder.mkdir(parents=True, exist_ok=True)
            made.add(folder)
        (folder / f"{memory_id}.md").write_text(render_memory(memory), "utf-8")
        relations += len(rels)
        if (i + 1) % max(1, size // 10) == 0:
            print(f"  wrote {i + 1:,} files ({time.perf_counter() - started:.0f} s)", flush=True)
    return {"relations": relations, "write_s": time.perf_counter() - started,
            "entities": {k: len(v) for k, v in pools.items()}}


def settings(ws: Path):
    from palace.settings import Settings

    return Settings.from_env({}, workspace_dir=str(ws), vector_enabled=False, decay_enabled=False,
                             graph_extract=False)


def build(ws: Path, size: int, per_memory: int) -> dict[str, Any]:
    from palace import MemoryPalaceManager

    if ws.exists():
        shutil.rmtree(ws)
    ws.mkdir(parents=True)
    print(f"writing {size:,} memory files to {ws} …", flush=True)
    info = generate(ws, size, per_memory)
    print(f"  {info['relations']:,} relations written in {info['write_s']:.0f} s; reindexing …", flush=True)
    started = time.perf_counter()
    with MemoryPalaceManager(ws, settings=settings(ws), embedder=None, sync=False) as pm:
        pm.reindex()
        info["count"] = pm.count()
    info["reindex_s"] = time.perf_counter() - started
    info.update(size=size, per_memory=per_memory, generator=GENERATOR,
                built_at=time.strftime("%Y-%m-%d %H:%M:%S"))
    (ws / MARKER).write_text(json.dumps(info, indent=1))
    print(f"  reindexed {info['count']:,} memories in {info['reindex_s']:.0f} s", flush=True)
    return info


def pct(values: Sequence[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def timed(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> float:
    started = time.perf_counter()
    fn(*args, **kwargs)
    return (time.perf_counter() - started) * 1000


def measure(ws: Path, size: int, queries: int, seed: int = 3) -> dict[str, list[float]]:
    from palace import MemoryPalaceManager

    pools = entity_pools(size)
    rng = random.Random(seed)
    draws = [(rng.choice(pools["person"]), rng.choice(pools["project"])) for _ in range(queries)]
    out: dict[str, list[float]] = {}
    with MemoryPalaceManager(ws, settings=settings(ws), embedder=None) as pm:
        now = pm.now()
        index = pm.index

        def keyword_only(query: str) -> None:
            index.supports_graph = False  # the graph retriever answers nothing: keyword search only
            try:
                pm.search(query, record_access=False, now=now)
            finally:
                index.supports_graph = True

        measures: list[tuple[str, Callable[[str, str], Any]]] = [
            *((f"recall depth {d}", lambda person, _p, d=d: pm.recall([person], depth=d, now=now))
              for d in (1, 2, 3)),
            # a wide recall: the caps, not the limit, bound the walk
            *((f"recall depth {d} limit 200", lambda person, _p, d=d: pm.recall([person], depth=d, now=now,
                                                                              limit=200)) for d in (2, 3)),
            *((f"recall query depth {d}", lambda person, project, d=d: pm.recall(
                f"who works on {project} with {person}", depth=d, now=now)) for d in (1, 2, 3)),
            ("search (graph retriever)", lambda person, project: pm.search(f"{person} {project}",
                                                                            record_access=False, now=now)),
            ("search (keyword only)", lambda person, project: keyword_only(f"{person} {project}")),
        ]
        for person, project in draws[:20]:  # warm the caches (page cache, jieba, the tokenizer)
            for _name, fn in measures:
                fn(person, project)
        out = {name: [] for name, _fn in measures}
        # every measure on every draw, in a rotating order: the page cache and the load
        # of this shared machine fall on all of them alike
        for i, (person, project) in enumerate(draws):
            for name, fn in measures[i % len(measures):] + measures[:i % len(measures)]:
                out[name].append(timed(fn, person, project))
        truncated = sum(any("capped" in n for r in pm.recall([person], depth=3, now=now, limit=200)
                            for n in r.explanation.notes) for person, _p in draws[:20])
        print(f"  (the walk hit its caps in {truncated} of 20 wide recalls at depth 3)")
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=100_000, help="memories (default 100000)")
    parser.add_argument("--relations", type=int, default=10, help="relations per memory (default 10)")
    parser.add_argument("--queries", type=int, default=200, help="timed draws per measure (default 200)")
    parser.add_argument("--workdir", default="/tmp/palace-bench-graph", help="where the workspace is kept")
    parser.add_argument("--rebuild", action="store_true", help="regenerate the workspace")
    parser.add_argument("--build-only", action="store_true", help="build (or check) the workspace and stop")
    args = parser.parse_args(argv)
    ws = Path(args.workdir) / f"ws-{args.size}-r{args.relations}-gen{GENERATOR}"
    try:
        info = json.loads((ws / MARKER).read_text())
    except (OSError, ValueError):
        info = None
    if args.rebuild or info is None:
        info = build(ws, args.size, args.relations)
    else:
        print(f"reusing {ws} (built {info['built_at']}: {info['count']:,} memories, "
              f"{info['relations']:,} relations, reindex {info['reindex_s']:.0f} s)")
    if args.build_only:
        return 0
    print(f"cpus: {os.cpu_count()}, load: {os.getloadavg()[0]:.1f}; {args.queries} draws per line")
    results = measure(ws, args.size, args.queries)
    print(f"{'measure':<32}{'p50 ms':>10}{'p95 ms':>10}")
    for name, times in results.items():
        print(f"{name:<32}{statistics.median(times):>10.2f}{pct(times, 95):>10.2f}")
    keyword = statistics.median(results["search (keyword only)"])
    worst = 0.0
    for depth in (1, 2, 3):
        ratio = statistics.median(results[f"recall depth {depth}"]) / keyword
        worst = max(worst, ratio)
        print(f"ratio recall depth {depth} / keyword p50: {ratio:.2f}")
    ratio = statistics.median(results["search (graph retriever)"]) / keyword
    print(f"ratio search with graph / keyword p50: {ratio:.2f}")
    ok = worst <= TARGET_RATIO
    print(f"target recall p50 <= {TARGET_RATIO}x keyword p50 at depth 1..3: {'MET' if ok else 'NOT MET'}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
