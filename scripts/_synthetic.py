"""Deterministic synthetic agent memories (zh / en / mixed) and queries for benchmarks.

Everything is generated from vocabularies and templates with a seeded
``random.Random``: the same seed gives the same memories, ids, rooms, tags,
dates and queries on every machine. Memories look like what a coding / ops
agent writes down over two years: decisions about projects and tools,
incidents and their fixes, facts about services, people's preferences, meeting
notes, lessons learned ("when X fails with Y, do Z"), todos.

Used by ``scripts/bench_scale.py``; no palace imports, so it can be reused by
other benchmarks.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone

GENERATOR_VERSION = 1
TZ = timezone(timedelta(hours=8))  # agents in this story live in Asia/Shanghai
END = datetime(2026, 11, 30, 18, 0, tzinfo=TZ)
SPAN_DAYS = 730  # memories spread over two years

# (name as written in text, room slug)
PROJECTS = [
    ("palace", "palace"), ("Atlas", "atlas"), ("Orion", "orion"), ("Hermes", "hermes"),
    ("Nebula", "nebula"), ("Lighthouse", "lighthouse"), ("Falcon", "falcon"),
    ("Mercury", "mercury"),
    ("支付网关", "支付网关"), ("用户中心", "用户中心"), ("推荐系统", "推荐系统"),
    ("数据平台", "数据平台"), ("风控引擎", "风控引擎"), ("客服机器人", "客服机器人"),
    ("订单服务", "订单服务"), ("搜索中台", "搜索中台"),
]
TOOLS = [
    "PostgreSQL", "MySQL", "Redis", "Kafka", "RabbitMQ", "Docker", "Kubernetes", "Helm",
    "Terraform", "Grafana", "Prometheus", "nginx", "Elasticsearch", "ClickHouse", "SQLite",
    "FastAPI", "Django", "React", "Vue", "TypeScript", "Rust", "Go", "Python", "pytest",
    "GitHub Actions", "Jenkins", "Sentry", "OpenTelemetry", "Celery", "gRPC", "MinIO",
    "etcd", "Nacos", "Flink", "Airflow", "DuckDB", "pgvector", "Milvus", "OpenSearch", "Vite",
]
TOOL_TAG = {t: t.lower().replace(" ", "-") for t in TOOLS}
PEOPLE_ZH = ["张伟", "李娜", "王芳", "刘洋", "陈静", "杨磊", "赵敏", "黄勇", "周杰", "吴昊",
             "徐婷", "孙浩", "马超", "朱琳", "胡斌", "郭敏"]
PEOPLE_EN = ["Alice", "Bob", "Carol", "David", "Emma", "Frank", "Grace", "Henry", "Ivy",
             "Jack", "Kevin", "Laura"]
# (zh, en, tag)
TOPICS = [
    ("数据库选型", "database selection", "数据库"), ("缓存策略", "caching strategy", "缓存"),
    ("部署流程", "deployment pipeline", "部署"), ("监控告警", "alerting rules", "监控"),
    ("权限设计", "access control design", "安全"), ("接口限流", "rate limiting", "性能"),
    ("日志采集", "log collection", "日志"), ("性能优化", "performance tuning", "性能"),
    ("灰度发布", "canary release", "部署"), ("数据迁移", "data migration", "数据库"),
    ("代码评审", "code review", "流程"), ("单元测试", "unit tests", "测试"),
    ("容量规划", "capacity planning", "infra"), ("成本优化", "cost reduction", "成本"),
    ("故障复盘", "incident postmortem", "incident"), ("技术债", "tech debt", "重构"),
    ("版本发布", "release process", "部署"), ("向量检索", "vector search", "搜索"),
    ("中文分词", "Chinese tokenization", "搜索"), ("配置管理", "config management", "infra"),
    ("消息队列", "message queue", "backend"), ("前端构建", "frontend build", "frontend"),
    ("备份恢复", "backup and restore", "数据库"), ("多租户隔离", "multi-tenant isolation", "安全"),
]
# (zh, en)
ISSUES = [
    ("连接池耗尽", "connection pool exhaustion"), ("内存泄漏", "a memory leak"),
    ("慢查询", "slow queries"), ("磁盘写满", "a full disk"), ("证书过期", "an expired certificate"),
    ("死锁", "a deadlock"), ("请求超时", "request timeouts"), ("消息积压", "consumer lag"),
    ("CPU 飙高", "a CPU spike"), ("主从延迟", "replication lag"), ("OOM", "OOM kills"),
    ("DNS 解析失败", "DNS resolution failures"), ("索引损坏", "a corrupted index"),
    ("限流误杀", "rate limiter false positives"),
]
FIXES = [
    ("调大连接池", "raising the pool size"), ("加了复合索引", "adding a composite index"),
    ("回滚到上一个版本", "rolling back to the previous release"), ("扩容两个节点", "adding two nodes"),
    ("重启服务", "restarting the service"), ("清理旧日志", "rotating old logs"),
    ("续签证书", "renewing the certificate"), ("拆分大事务", "splitting the big transaction"),
    ("增加消费者", "adding consumers"), ("开启慢查询日志", "turning on the slow query log"),
    ("调整 JVM 参数", "tuning JVM flags"), ("改成批量写入", "switching to batched writes"),
]
REASONS = [
    ("性能更好", "it is faster"), ("运维成本低", "it is cheaper to operate"),
    ("社区活跃", "the community is active"), ("团队更熟悉", "the team knows it better"),
    ("许可证更友好", "the license is friendlier"), ("支持事务", "it supports transactions"),
    ("延迟更低", "latency is lower"), ("有云厂商托管版本", "there is a managed cloud offering"),
]
PREFS = [
    ("回复用中文，代码注释用英文", "answers in Chinese and code comments in English"),
    ("小步提交，每个 PR 不超过 400 行", "small PRs under 400 lines"),
    ("先写测试再改代码", "writing tests before changing code"),
    ("用 tabs 缩进", "tabs for indentation"), ("周末不要发通知", "no notifications on weekends"),
    ("日志用 JSON 格式", "JSON-formatted logs"), ("命名用 snake_case", "snake_case names"),
    ("deploy 前先在 staging 验证", "verifying on staging before every deploy"),
]
ENVS = [("生产环境", "production"), ("预发环境", "staging"), ("测试环境", "the test cluster")]
CHECKS = [("连接数和慢日志", "connection counts and the slow log"), ("磁盘和 inode", "disk and inodes"),
          ("最近一次配置变更", "the last config change"), ("证书有效期", "certificate expiry"),
          ("上游依赖的状态页", "upstream status pages")]
ERRORS = ["ECONNRESET", "too many connections", "OOMKilled", "deadline exceeded", "502 Bad Gateway",
          "CrashLoopBackOff", "lock wait timeout", "SSL handshake failed", "disk quota exceeded",
          "segfault", "EADDRINUSE", "401 Unauthorized"]
PURPOSES = [("缓存会话", "session caching"), ("存订单数据", "order storage"), ("异步任务", "background jobs"),
            ("指标采集", "metrics"), ("全文检索", "full-text search"), ("埋点分析", "event analytics"),
            ("对象存储", "object storage"), ("服务发现", "service discovery")]
EXTRA_NOTES = [
    "后续需要补文档。", "相关讨论在飞书群里。", "记得同步给 QA。", "需要在下次周会上确认。",
    "Follow-up ticket created.", "See the runbook for details.", "Owner agreed to revisit next quarter.",
    "性能数据见 Grafana 看板。", "不要在高峰期操作。", "Benchmark numbers are in the wiki.",
    "这次的教训：先在 staging 复现。", "Rollback plan documented in the PR description.",
]
GENERIC_TAGS = ["decision", "incident", "todo", "meeting", "preference", "lesson", "backend",
                "frontend", "infra", "重要", "待跟进", "架构", "ops"]
WEEKDAYS = ["周一", "周二", "周三", "周四", "周五"]


@dataclass
class MemorySpec:
    id: str
    content: str
    tags: list[str]
    importance: float
    location: str
    type: str
    source: str
    created_at: datetime
    summary: str | None = None


@dataclass
class QuerySpec:
    text: str
    lang: str  # zh | en | mixed
    tags: list[str] = field(default_factory=list)
    location: str | None = None

    @property
    def words(self) -> list[str]:
        return [w for w in self.text.lower().split() if w]

    @property
    def kind(self) -> str:
        return self.lang + ("+filter" if (self.tags or self.location) else "")


def _date_short(d: datetime) -> str:
    return f"{d.month}月{d.day}日" if d.day % 2 else d.strftime("%Y-%m-%d")


def _make_one(rng: random.Random, created: datetime) -> tuple[str, str, list[str], str, float, str | None]:
    """(content, type, tags, location, importance, summary)."""
    pname, pslug = rng.choice(PROJECTS)
    tool, tool2 = rng.sample(TOOLS, 2)
    zh_person, en_person = rng.choice(PEOPLE_ZH), rng.choice(PEOPLE_EN)
    person = zh_person if rng.random() < 0.65 else en_person
    tz, ten, ttag = rng.choice(TOPICS)
    iz, ien = rng.choice(ISSUES)
    fz, fen = rng.choice(FIXES)
    rz, ren = rng.choice(REASONS)
    ez, een = rng.choice(ENVS)
    ticket = f"{pslug.upper() if pslug.isascii() else 'PAY'}-{rng.randint(100, 9999)}"
    version = f"v{rng.randint(1, 16)}.{rng.randint(0, 20)}.{rng.randint(0, 9)}"
    n = rng.randint(3, 180)
    date = _date_short(created)
    kind = rng.choices(
        ["decision", "event", "fact", "preference", "experience", "meeting", "todo"],
        weights=[22, 18, 22, 6, 12, 12, 8])[0]
    lang = rng.choices(["zh", "en", "mixed"], weights=[45, 25, 30])[0]
    tags = [ttag]
    location = "general"
    summary = None
    if kind == "decision":
        content = {
            "zh": f"{person}和我讨论了{pname}的{tz}，最后决定用 {tool} 替代 {tool2}，主要因为{rz}。对应工单 {ticket}。",
            "en": f"Decided with {person} to move {pname} from {tool2} to {tool} for {ten}, because {ren}. Ticket {ticket}.",
            "mixed": f"{pname} 的 {tz} 定了：用 {tool}，不再用 {tool2}（{ren}）。{person} 负责 follow up，deadline {date}。",
        }[lang]
        tags += ["decision", TOOL_TAG[tool]]
        location = rng.choice(["decisions", f"projects/{pslug}", f"projects/{pslug}/decisions"])
        importance = rng.choice([0.6, 0.7, 0.8, 0.8, 0.9])
    elif kind == "event":
        content = {
            "zh": f"{date} {ez}的 {tool} 出现{iz}，{person}通过{fz}解决，影响约 {n} 分钟。",
            "en": f"Incident on {date}: {tool} in {een} hit {ien}; {person} fixed it by {fen}. Impact {n} min.",
            "mixed": f"{ez} {tool} {iz}（{ien}），{person} 先 {fen}，最后{fz}搞定，{ticket}。",
        }[lang]
        tags += ["incident", TOOL_TAG[tool]]
        location = rng.choice(["ops/incidents", f"ops/incidents/{created.year}", f"projects/{pslug}"])
        importance = rng.choice([0.5, 0.6, 0.7, 0.8])
    elif kind == "fact":
        pz, pen = rng.choice(PURPOSES)
        content = {
            "zh": f"{pname}使用 {tool} {version} 做{pz}，配置在 deploy/{pslug}/{TOOL_TAG[tool]}.yaml，负责人{zh_person}。",
            "en": f"{pname} runs {tool} {version} for {pen}; config lives in deploy/{pslug}/{TOOL_TAG[tool]}.yaml, owner {en_person}.",
            "mixed": f"{pname} 的 {pz} 用的是 {tool} {version}，{een} 和 {ez} 各一套，owner 是 {person}。",
        }[lang]
        tags += [TOOL_TAG[tool]]
        location = rng.choice(["general", "projects", f"projects/{pslug}", f"projects/{pslug}/infra"])
        importance = rng.choice([0.3, 0.4, 0.5, 0.5, 0.6])
    elif kind == "preference":
        prz, pren = rng.choice(PREFS)
        content = {
            "zh": f"{person}的偏好：{prz}。",
            "en": f"{en_person} prefers {pren}.",
            "mixed": f"用户偏好：{prz}（{pren}），{pname} 项目也按这个来。",
        }[lang]
        tags = ["preference"]
        location = rng.choice(["preferences", "people", f"people/{zh_person}"])
        importance = rng.choice([0.7, 0.8, 0.9, 1.0])
    elif kind == "experience":
        err = rng.choice(ERRORS)
        cz, cen = rng.choice(CHECKS)
        content = {
            "zh": f"经验：{tool} 报 {err} 时，先检查{cz}，再{fz}，通常能解决{iz}。",
            "en": f"Lesson: when {tool} fails with {err}, check {cen} first, then try {fen}.",
            "mixed": f"踩坑记录：{tool} {err}，root cause 是{iz}，fix：{fz}（{fen}）。",
        }[lang]
        tags += ["lesson", TOOL_TAG[tool]]
        location = rng.choice(["experiences", f"experiences/{TOOL_TAG[tool]}", "learning/ops"])
        importance = rng.choice([0.6, 0.7, 0.8])
    elif kind == "meeting":
        content = {
            "zh": f"{rng.choice(WEEKDAYS)}例会：{pname}进度 {rng.randint(5, 100)}%，{tz}还差 {n % 20 + 1} 个任务，{zh_person}负责演示。",
            "en": f"Sync meeting: {pname} is {rng.randint(5, 100)}% done, {n % 20 + 1} tasks left on {ten}; {en_person} will demo.",
            "mixed": f"站会：{pname} {tz} 还有 {n % 20 + 1} 个 task，blocker 是 {tool} 的 {ien}，{person} 跟进。",
        }[lang]
        tags += ["meeting"]
        location = rng.choice(["meetings", "meetings/weekly", f"meetings/{created.year}"])
        importance = rng.choice([0.3, 0.4, 0.5])
    else:  # todo
        content = {
            "zh": f"待办：给{pname}加上 {tool} 的{tz}，预计 {n % 10 + 1} 人日，{zh_person}评审。",
            "en": f"TODO: add {ten} with {tool} to {pname}, about {n % 10 + 1} days, review by {en_person}.",
            "mixed": f"TODO：{pname} 接入 {tool} 做 {ten}，{zh_person} review，预计 {n % 10 + 1} 天。",
        }[lang]
        tags += ["todo"]
        location = rng.choice(["todo", f"projects/{pslug}"])
        importance = rng.choice([0.4, 0.5, 0.6])
    # realistic length spread: some memories carry a few more sentences
    for _ in range(rng.choices([0, 1, 2, 3], weights=[50, 30, 15, 5])[0]):
        content += " " + rng.choice(EXTRA_NOTES)
    if rng.random() < 0.06:  # an occasional long note
        content += "\n\n" + " ".join(rng.choice(EXTRA_NOTES) for _ in range(rng.randint(8, 30)))
    if rng.random() < 0.3:
        tags.append(rng.choice(GENERIC_TAGS))
    if rng.random() < 0.25:
        tags.append(pslug)
    if rng.random() < 0.08:
        summary = f"{pname} / {tz} / {tool}"
    return content, kind, list(dict.fromkeys(tags)), location, importance, summary


def generate_memories(count: int, seed: int = 42) -> list[MemorySpec]:
    """``count`` memories, oldest first, spread over the two years before END."""
    rng = random.Random(f"palace-memories-{seed}")
    offsets = sorted(rng.random() for _ in range(count))
    specs: list[MemorySpec] = []
    for frac in offsets:
        day = END - timedelta(days=SPAN_DAYS * (1 - frac))
        # working hours, minute resolution
        created = day.replace(hour=rng.randint(8, 22), minute=rng.randint(0, 59), second=0,
                              microsecond=0)
        if created > END:
            created = END - timedelta(minutes=rng.randint(1, 600))
        content, kind, tags, location, importance, summary = _make_one(rng, created)
        memory_id = f"{rng.getrandbits(64):016x}"
        specs.append(MemorySpec(id=memory_id, content=content, tags=tags, importance=importance,
                                location=location, type=kind,
                                source=rng.choice(["conversation", "conversation", "agent", "manual"]),
                                created_at=created, summary=summary))
    return specs


def generate_access_events(specs: list[MemorySpec], seed: int = 42) -> list[tuple[datetime, list[str], str]]:
    """A plausible access history: ~one event per 8 memories, each recalling 1–10
    memories created before it (recent ones more often)."""
    rng = random.Random(f"palace-accesses-{seed}")
    events = []
    n = len(specs)
    for _ in range(max(1, n // 8)):
        pivot = int(n * (1 - rng.random() ** 2))  # more events late in the timeline
        pivot = min(max(pivot, 1), n - 1) if n > 1 else 0
        base = specs[pivot].created_at
        at = base + timedelta(hours=rng.randint(1, 240))
        if at > END:
            at = END
        ids = {specs[max(0, pivot - int(rng.random() ** 3 * pivot))].id
               for _ in range(rng.randint(1, 10))}
        events.append((at, sorted(ids), rng.choice(["search", "search", "get", "context"])))
    events.sort(key=lambda e: e[0])
    return events


# ----------------------------------------------------------------------------- queries

_ZH_TERMS = ([t[0] for t in TOPICS] + [i[0] for i in ISSUES] + [f[0] for f in FIXES][:6]
             + ["数据库", "部署", "缓存", "监控", "回滚", "扩容", "迁移", "偏好", "工单", "演示",
                "配置", "负责人", "经验", "待办", "故障", "延迟", "索引", "证书", "限流", "日志"]
             + [p[0] for p in PROJECTS if not p[0].isascii()] + PEOPLE_ZH[:8])
_EN_TERMS = (TOOLS[:30] + [p[0] for p in PROJECTS if p[0].isascii()] + PEOPLE_EN[:6]
             + ["migration", "deadlock", "rollback", "canary", "timeout", "latency", "incident",
                "postmortem", "cache", "deploy", "staging", "production", "ticket", "config",
                "review", "tests", "lesson", "owner", "index", "certificate", "consumer", "pool",
                "memory leak", "rate limiting", "slow queries", "tech debt"])
_FILTER_TAGS = (["decision", "incident", "lesson", "meeting", "todo", "preference", "数据库", "部署",
                 "性能", "监控", "安全", "搜索"] + [TOOL_TAG[t] for t in TOOLS[:12]])
_FILTER_LOCATIONS = (["decisions", "ops", "ops/incidents", "projects", "experiences", "meetings",
                      "preferences"] + [f"projects/{p[1]}" for p in PROJECTS[:10]])


def generate_queries(count: int = 240, seed: int = 7) -> list[QuerySpec]:
    """``count`` queries: ~40% zh, ~30% en, ~30% mixed; 1–4 terms; ~30% with a
    tag and/or location filter. No time words (those are a separate benchmark)."""
    rng = random.Random(f"palace-queries-{seed}")
    queries: list[QuerySpec] = []
    seen: set[tuple] = set()
    while len(queries) < count:
        lang = rng.choices(["zh", "en", "mixed"], weights=[40, 30, 30])[0]
        k = rng.choices([1, 2, 3, 4], weights=[25, 40, 25, 10])[0]
        if lang == "zh":
            terms = rng.sample(_ZH_TERMS, k)
        elif lang == "en":
            terms = rng.sample(_EN_TERMS, k)
        else:
            k = max(k, 2)
            n_zh = rng.randint(1, k - 1)
            terms = rng.sample(_ZH_TERMS, n_zh) + rng.sample(_EN_TERMS, k - n_zh)
            rng.shuffle(terms)
        text = " ".join(terms)
        tags: list[str] = []
        location = None
        r = rng.random()
        if r < 0.15:
            tags = [rng.choice(_FILTER_TAGS)]
        elif r < 0.27:
            location = rng.choice(_FILTER_LOCATIONS)
        elif r < 0.32:
            tags = [rng.choice(_FILTER_TAGS)]
            location = rng.choice(_FILTER_LOCATIONS)
        key = (text, tuple(tags), location)
        if key in seen:
            continue
        seen.add(key)
        queries.append(QuerySpec(text=text, lang=lang, tags=tags, location=location))
    return queries
