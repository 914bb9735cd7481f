"""Simulate a year of an agent's memory use and see what decay does to it.

Everything goes through the public API with an explicit ``now``:

- every day a few memories are stored (topics drawn from a zh+en vocabulary,
  weekly-recurring topics such as 周报 / standup, and a handful of facts whose
  answer changes over the year: "what database do we use" is answered by a
  fact superseded three times);
- every day the agent recalls memories with ``pm.search``: targets are drawn
  Zipf-like by popularity, with a bias towards recent memories, weekly topics
  come back every week, and the changing facts are asked about while current;
- ``pm.run_decay`` runs every Sunday night.

Two palaces receive the identical stream of events: one with decay on (the
defaults), one with ``MEMORY_DECAY_ENABLED=false``. The report shows

1. per month: memories stored, active, archived, and how often a recall still
   found its target in the top 5 (an archived target is a miss: forgetting has
   a price);
2. whether the frequently recalled memories survive (top decile by recalls)
   compared with the never-recalled ones;
3. on the questions whose answer changed, asked at monthly checkpoints, top-1
   accuracy and MRR of the *current* answer with decay on and off.

    python scripts/sim_decay.py [--days 365] [--per-day 4] [--seed 7]

Deterministic for a given seed. Time words and concept expansion are switched
off (the queries hold no time words and the point is decay, not expansion);
vectors are off so that the run needs no model.
"""

from __future__ import annotations

import argparse
import math
import random
import shutil
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from palace import MemoryPalaceManager, Settings

TZ = ZoneInfo("Asia/Shanghai")
TOP_K = 5

# topic: (Chinese words, English words) — memories and queries draw from both
TOPICS: dict[str, tuple[list[str], list[str]]] = {
    "database": (["数据库", "索引", "慢查询", "迁移", "连接池"], ["schema", "index", "query", "migration", "replica"]),
    "deploy": (["部署", "上线", "回滚", "灰度", "发布"], ["deploy", "rollback", "canary", "release", "pipeline"]),
    "cache": (["缓存", "过期", "命中率", "预热"], ["cache", "ttl", "eviction", "warmup"]),
    "monitoring": (["监控", "告警", "指标", "看板"], ["alert", "metrics", "dashboard", "latency"]),
    "frontend": (["前端", "组件", "样式", "打包"], ["component", "css", "bundle", "layout"]),
    "auth": (["认证", "登录", "权限", "令牌"], ["login", "oauth", "token", "permission"]),
    "queue": (["消息队列", "消费者", "积压", "重试"], ["queue", "consumer", "backlog", "retry"]),
    "logging": (["日志", "采集", "检索", "归档"], ["logs", "collector", "retention", "parsing"]),
    "backup": (["备份", "恢复", "快照", "容灾"], ["backup", "restore", "snapshot", "disaster"]),
    "testing": (["测试", "用例", "覆盖率", "回归"], ["test", "fixture", "coverage", "flaky"]),
    "billing": (["计费", "发票", "账单", "退款"], ["invoice", "billing", "refund", "pricing"]),
    "search": (["搜索", "分词", "排序", "召回"], ["ranking", "tokenizer", "recall", "relevance"]),
    "hiring": (["招聘", "面试", "简历", "offer"], ["interview", "candidate", "resume", "recruiter"]),
    "budget": (["预算", "成本", "采购", "报销"], ["budget", "cost", "purchase", "expense"]),
    "travel": (["出差", "机票", "酒店", "签证"], ["trip", "flight", "hotel", "visa"]),
    "customer": (["客户", "需求", "反馈", "合同"], ["customer", "feedback", "contract", "renewal"]),
    "roadmap": (["路线图", "里程碑", "优先级", "规划"], ["roadmap", "milestone", "priority", "planning"]),
    "security": (["安全", "漏洞", "扫描", "补丁"], ["security", "vulnerability", "scan", "patch"]),
    "office": (["办公室", "会议室", "打印机", "午饭"], ["office", "printer", "lunch", "desk"]),
    "design": (["设计", "评审", "原型", "交互"], ["design", "review", "prototype", "mockup"]),
}

# topics that come back every week: a new note each week, a recall each week
WEEKLY = {
    "weekly report": ("周报", "weekly report"),
    "standup": ("站会", "standup"),
    "sprint": ("迭代计划", "sprint planning"),
    "one-on-one": ("一对一", "one-on-one"),
}


@dataclass(frozen=True)
class ChangingFact:
    zh: str
    en: str
    answers: tuple[str, ...]  # superseded in this order: the last one is the answer at the end


CHANGING_FACTS = (
    ChangingFact("主数据库", "primary database", ("MySQL", "PostgreSQL", "TiDB", "CockroachDB")),
    ChangingFact("部署平台", "deploy platform", ("Heroku", "Kubernetes", "Nomad", "Fly")),
    ChangingFact("缓存服务", "cache service", ("Memcached", "Redis", "Dragonfly", "KeyDB")),
    ChangingFact("持续集成", "CI service", ("Jenkins", "Travis", "GitLab", "Buildkite")),
    ChangingFact("监控系统", "monitoring stack", ("Nagios", "Zabbix", "Prometheus", "Datadog")),
    ChangingFact("值班负责人", "on-call lead", ("Alice", "Bob", "Carol", "Dave")),
    ChangingFact("发布周期", "release cadence", ("monthly", "biweekly", "weekly", "daily")),
    ChangingFact("前端框架", "frontend framework", ("jQuery", "Angular", "React", "Svelte")),
)

FACT_TEMPLATES = (
    "{zh}：决定改用 {v}。Our {en} is now {v}.",
    "Decision: the {en} moves to {v}（{zh} 换成 {v}）",
    "{zh}现在是 {v}，{en} = {v}",
    "从今天起 {zh} 用 {v}; {en} switched to {v} after the review",
)

SYLLABLES = ["ka", "lo", "mi", "ren", "zu", "tor", "vex", "qin", "bal", "dor", "fen", "gri",
             "hul", "jas", "kor", "lum", "nix", "pol", "ras", "sul", "tam", "vor", "wen", "yar"]


@dataclass
class SimMemory:
    index: int
    kind: str                 # "topic" | "weekly" | "fact"
    created: datetime
    content: str
    query_words: list[str]
    popularity: float
    ids: dict[str, str] = field(default_factory=dict)  # palace name -> memory id
    recalls: int = 0
    last_recall: datetime | None = None
    fact: int | None = None   # index into CHANGING_FACTS
    version: int | None = None


def codename(rng: random.Random, taken: set[str]) -> str:
    while True:
        name = "".join(rng.choice(SYLLABLES) for _ in range(3))
        if name not in taken:
            taken.add(name)
            return name


def open_palace(folder: Path, decay: bool) -> MemoryPalaceManager:
    settings = Settings.from_env({}, vector_enabled=False, decay_enabled=decay, timezone="Asia/Shanghai")
    return MemoryPalaceManager(folder, settings=settings)


def fact_schedule(days: int, rng: random.Random) -> list[list[int]]:
    """Days on which each changing fact gets each of its versions."""
    schedule = []
    for fact in CHANGING_FACTS:
        first = rng.randint(2, max(2, days // 12))
        span = max(len(fact.answers), days - first - max(7, days // 10))
        step = span / len(fact.answers)
        days_of = [first]
        for k in range(1, len(fact.answers)):
            days_of.append(min(days - 1, int(first + k * step + rng.uniform(-0.2, 0.2) * step)))
        schedule.append(days_of)
    return schedule


class Simulation:
    def __init__(self, args: argparse.Namespace, root: Path):
        self.args = args
        self.rng = random.Random(args.seed)
        self.start = datetime.fromisoformat(args.start).replace(tzinfo=TZ)
        self.palaces = {"on": open_palace(root / "decay-on", True),
                        "off": open_palace(root / "decay-off", False)}
        self.memories: list[SimMemory] = []
        self.names: set[str] = set()
        self.schedule = fact_schedule(args.days, self.rng)
        self.current_version: dict[int, SimMemory] = {}
        self.fact_versions: dict[int, list[SimMemory]] = defaultdict(list)
        self.month_rows: list[dict] = []
        self.month = self._blank_month()
        self.checks = {name: [] for name in self.palaces}   # (reciprocal rank) per checkpoint
        self.final_checks = {name: [] for name in self.palaces}
        self.searches = 0

    def _blank_month(self) -> dict:
        return {"recalls": 0, "hits": Counter(), "archived_now": 0}

    # ------------------------------------------------------------------ events

    def store(self, item: SimMemory, importance: float) -> None:
        for name, pm in self.palaces.items():
            item.ids[name] = pm.store(item.content, importance=importance, created_at=item.created,
                                      location="sim", type="fact", source="sim").id
        self.memories.append(item)

    def new_topic_memory(self, when: datetime) -> None:
        topic = self.rng.choice(list(TOPICS))
        zh, en = TOPICS[topic]
        name = codename(self.rng, self.names)
        words_zh = self.rng.sample(zh, 2)
        words_en = self.rng.sample(en, 2)
        content = (f"{name} 项目的{words_zh[0]}和{words_zh[1]}: notes on {words_en[0]} and "
                   f"{words_en[1]} for {name} ({topic})")
        # Pareto weights give a Zipf-like popularity: a few memories get most recalls
        popularity = self.rng.paretovariate(1.1)
        self.store(SimMemory(len(self.memories), "topic", when, content,
                             [name, words_zh[0], words_en[0], words_en[1]], popularity),
                   importance=round(self.rng.uniform(0.2, 0.7), 2))

    def new_weekly_memory(self, when: datetime, key: str, week: int) -> None:
        zh, en = WEEKLY[key]
        name = codename(self.rng, self.names)
        content = f"{zh} 第{week}周 / {en} week {week}: {name} status, blockers and next steps"
        self.store(SimMemory(len(self.memories), "weekly", when, content, [zh, en, name], 1.0),
                   importance=0.3)

    def new_fact_version(self, when: datetime, fact_index: int, version: int) -> None:
        fact = CHANGING_FACTS[fact_index]
        template = self.rng.choice(FACT_TEMPLATES)
        content = template.format(zh=fact.zh, en=fact.en, v=fact.answers[version])
        item = SimMemory(len(self.memories), "fact", when, content, [fact.zh, fact.en], 1.0,
                         fact=fact_index, version=version)
        self.store(item, importance=0.5)
        self.current_version[fact_index] = item
        self.fact_versions[fact_index].append(item)

    def recall(self, when: datetime, target: SimMemory, query: str) -> None:
        target.recalls += 1
        target.last_recall = when
        self.month["recalls"] += 1
        for name, pm in self.palaces.items():
            found = [r.memory.id for r in pm.search(query, top_k=TOP_K, now=when,
                                                    record_access=False)]
            self.searches += 1
            hit = target.ids[name] in found
            if hit:
                self.month["hits"][name] += 1
            # what counts as accessed (MEMORY_REINFORCE): every result, the best one,
            # or only the memory the agent actually needed, when it was found
            reinforced = {"returned": found, "top": found[:1],
                          "used": [target.ids[name]] if hit else []}[self.args.reinforce]
            if reinforced:
                pm.record_access(reinforced, at=when, kind="search")

    def pick_target(self, when: datetime) -> SimMemory | None:
        pool = [m for m in self.memories if m.kind == "topic" and m.created <= when]
        if not pool:
            return None
        if self.rng.random() < 0.6:
            weights = [m.popularity for m in pool]  # the long-lived favourites
        else:  # what happened lately: popularity × a two-week recency window
            weights = [m.popularity * math.exp(-(when - m.created).days / 14) for m in pool]
        return self.rng.choices(pool, weights=weights)[0]

    def query_for(self, target: SimMemory) -> str:
        words = list(target.query_words)
        if target.kind == "topic" and self.rng.random() < 0.4:
            words = words[1:]  # without the codename: the agent remembers only the subject
        self.rng.shuffle(words)
        return " ".join(words[:3])

    # ------------------------------------------------------------------ evaluation

    def ask_changing_facts(self, when: datetime, into: dict[str, list[float]]) -> None:
        """Every fact whose answer has changed at least once: where does the current one rank?"""
        for fact_index, versions in self.fact_versions.items():
            if len(versions) < 2:
                continue
            fact = CHANGING_FACTS[fact_index]
            current = versions[-1]
            for name, pm in self.palaces.items():
                found = [r.memory.id for r in pm.search(f"{fact.zh} {fact.en}", top_k=10, now=when,
                                                        record_access=False)]
                rank = found.index(current.ids[name]) + 1 if current.ids[name] in found else None
                into[name].append(1.0 / rank if rank else 0.0)

    def end_month(self, when: datetime, label: str) -> None:
        on = self.palaces["on"]
        counts = on.index.stats()["by_status"]
        self.month_rows.append({
            "month": label, "stored": len(self.memories), "active": counts.get("active", 0),
            "archived": counts.get("archived", 0), "archived_now": self.month["archived_now"],
            "recalls": self.month["recalls"],
            "hit_on": self.month["hits"]["on"], "hit_off": self.month["hits"]["off"]})
        self.month = self._blank_month()

    # ------------------------------------------------------------------ the year

    def run(self) -> None:
        args = self.args
        versions_due = defaultdict(list)
        for fact_index, days_of in enumerate(self.schedule):
            for version, day in enumerate(days_of):
                versions_due[day].append((fact_index, version))
        month_label = self.start.strftime("%Y-%m")
        for day in range(args.days):
            today = self.start + timedelta(days=day)
            if today.strftime("%Y-%m") != month_label:
                self.ask_changing_facts(today, self.checks)
                self.end_month(today, month_label)
                month_label = today.strftime("%Y-%m")
            # morning: new memories
            for n in range(self._poisson(args.per_day)):
                self.new_topic_memory(today.replace(hour=9) + timedelta(minutes=17 * n))
            for fact_index, version in versions_due.get(day, []):
                self.new_fact_version(today.replace(hour=8), fact_index, version)
            if today.weekday() == 0:  # Mondays: this week's notes, last weeks' recalled
                week = day // 7 + 1
                for key in WEEKLY:
                    self.new_weekly_memory(today.replace(hour=8, minute=30), key, week)
            # daytime: recalls at scattered hours
            events = []
            for _ in range(self._poisson(args.per_day * 1.5)):
                events.append((self.rng.randint(10 * 60, 20 * 60), "topic", None))
            if today.weekday() == 0:
                for key in WEEKLY:
                    events.append((self.rng.randint(10 * 60, 12 * 60), "weekly", key))
            for fact_index in self.current_version:
                if self.rng.random() < 1 / 10:  # each current fact is asked about every ~10 days
                    events.append((self.rng.randint(10 * 60, 20 * 60), "fact", fact_index))
            events.sort(key=lambda e: (e[0], e[1], str(e[2])))
            for minute, kind, key in events:
                when = today + timedelta(minutes=minute)
                if kind == "topic":
                    target = self.pick_target(when)
                    if target is not None:
                        self.recall(when, target, self.query_for(target))
                elif kind == "weekly":
                    weekly = [m for m in self.memories if m.kind == "weekly" and WEEKLY[key][1] in m.content]
                    target = weekly[-1]
                    self.recall(when, target, f"{WEEKLY[key][0]} {WEEKLY[key][1]}")
                else:
                    fact = CHANGING_FACTS[key]
                    target = self.current_version[key]
                    value = fact.answers[target.version]
                    # half the time the agent names the value it is working with
                    words = [fact.zh, fact.en] + ([value] if self.rng.random() < 0.5 else [])
                    self.recall(when, target, " ".join(words))
            if today.weekday() == 6:  # Sunday night: forget
                for name, pm in self.palaces.items():
                    report = pm.run_decay(now=today.replace(hour=23))
                    if name == "on":
                        self.month["archived_now"] += len(report.archived)
        end = self.start + timedelta(days=args.days)
        self.ask_changing_facts(end, self.checks)
        self.ask_changing_facts(end, self.final_checks)
        self.end_month(end, month_label)
        self.end = end

    def _poisson(self, mean: float) -> int:
        # Knuth's method: fine for the small means used here, and seeded
        limit, k, product = math.exp(-mean), 0, self.rng.random()
        while product > limit:
            k += 1
            product *= self.rng.random()
        return k

    # ------------------------------------------------------------------ report

    def report(self, seconds: float) -> None:
        args = self.args
        print(f"palace decay simulation: {args.days} days from {args.start}, ~{args.per_day} "
              f"memories/day, seed {args.seed}, reinforce {args.reinforce}")
        print(f"{len(self.memories)} memories stored, {self.searches} searches, "
              f"{seconds:.0f} s\n")

        print("1. Archiving over time (decay on) and recalls that found their target in the top "
              f"{TOP_K}")
        header = f"{'month':8} {'stored':>6} {'active':>6} {'archived':>8} {'+this mo':>8} " \
                 f"{'recalls':>7} {'hit on':>7} {'hit off':>7}"
        print(header)
        print("-" * len(header))
        for row in self.month_rows:
            recalls = row["recalls"] or 1
            print(f"{row['month']:8} {row['stored']:>6} {row['active']:>6} {row['archived']:>8} "
                  f"{row['archived_now']:>8} {row['recalls']:>7} {row['hit_on'] / recalls:>7.1%} "
                  f"{row['hit_off'] / recalls:>7.1%}")
        total_recalls = sum(r["recalls"] for r in self.month_rows) or 1
        print(f"{'year':8} {'':>6} {'':>6} {'':>8} {'':>8} {total_recalls:>7} "
              f"{sum(r['hit_on'] for r in self.month_rows) / total_recalls:>7.1%} "
              f"{sum(r['hit_off'] for r in self.month_rows) / total_recalls:>7.1%}\n")

        print("2. Do the frequently recalled survive? (topic memories, status at the end, decay on)")
        on = self.palaces["on"]
        final = {m.id: m for m in on.list(status="all", type="fact", location="sim", now=self.end)}
        topic = [m for m in self.memories if m.kind == "topic"]
        ranked = sorted(topic, key=lambda m: -m.recalls)
        decile = ranked[: max(1, len(ranked) // 10)]

        def older(members: list[SimMemory], days: int) -> list[SimMemory]:
            return [m for m in members if (self.end - m.created).days >= days]

        never = [m for m in topic if m.recalls == 0]
        groups = [
            ("top decile by recalls", decile),
            ("  of them stored 120+ days before the end", older(decile, 120)),
            ("  of them archived", [m for m in decile if final[m.ids["on"]].status == "archived"]),
            ("recalled once or twice, stored 120+ days before", older([m for m in topic if 1 <= m.recalls <= 2], 120)),
            ("never recalled (all)", never),
            ("never recalled, stored 120+ days before", older(never, 120)),
            ("never recalled, stored 240+ days before", older(never, 240)),
        ]
        print(f"  {'':50} {'active':>16}   {'recalls':>7} {'accesses':>8} {'idle days':>9}")
        for label, members in groups:
            if not members:
                print(f"  {label:50} (none)")
                continue
            active = sum(1 for m in members if final[m.ids["on"]].status == "active")
            mean_recalls = sum(m.recalls for m in members) / len(members)
            # accesses: what the journal holds, including being returned for another target
            mean_accesses = sum(final[m.ids["on"]].access_count for m in members) / len(members)
            # idle: days from the last recall (or the creation) to the end of the run
            idle = sum((self.end - (m.last_recall or m.created)).days for m in members) / len(members)
            print(f"  {label:50} {active:>4}/{len(members):<4} {active / len(members):6.1%}"
                  f"   {mean_recalls:>7.1f} {mean_accesses:>8.1f} {idle:>9.0f}")
        counted = {"returned": "every time it was returned", "top": "when it was the best result",
                   "used": "only when the agent used it"}[self.args.reinforce]
        print("  (recalls: searches aimed at the memory; accesses: journalled reinforcements after "
              f"merging bursts, {counted}; idle days: since the last recall or the creation)")
        print()

        print("3. Questions whose answer changed (each fact superseded up to "
              f"{max(len(f.answers) for f in CHANGING_FACTS) - 1} times): "
              "rank of the current answer")
        for label, checks in (("monthly checkpoints", self.checks), ("at the end", self.final_checks)):
            for name in ("on", "off"):
                values = checks[name]
                if not values:
                    continue
                top1 = sum(1 for v in values if v == 1.0) / len(values)
                mrr = sum(values) / len(values)
                print(f"  {label:20} decay {name:3}: top-1 {top1:6.1%}   MRR {mrr:.3f}   "
                      f"({len(values)} questions)")

    def close(self) -> None:
        for pm in self.palaces.values():
            pm.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--days", type=int, default=365, help="days to simulate (default 365)")
    parser.add_argument("--per-day", type=float, default=4.0, help="new memories per day, on average")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--start", default="2026-01-01", help="first simulated day (ISO date)")
    parser.add_argument("--reinforce", choices=["returned", "top", "used"], default="returned",
                        help="which results count as accessed (MEMORY_REINFORCE): returned = every "
                             "search result; top = the best one; used = only the memory the agent "
                             "needed, when it was found (search with record_access=False, then "
                             "pm.record_access)")
    parser.add_argument("--workspace", help="keep the two palaces here (default: a temp folder)")
    args = parser.parse_args(argv)
    if args.days < 14 or args.per_day <= 0:
        parser.error("--days must be at least 14 and --per-day positive")
    root = Path(args.workspace) if args.workspace else Path(tempfile.mkdtemp(prefix="palace-sim-"))
    if args.workspace and root.exists() and any(root.iterdir()):
        parser.error(f"{root} is not empty")
    started = time.perf_counter()
    simulation = Simulation(args, root)
    try:
        simulation.run()
        simulation.report(time.perf_counter() - started)
    finally:
        simulation.close()
        if not args.workspace:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
