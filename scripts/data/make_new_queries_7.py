"""Write scripts/data/new_queries_7.json: a blind held-out set for search and injection.

Written on 2026-12-03 by a helper session that read none of palace's code, rules or
docs/search-quality.md, none of the other new_queries_* files (only their format, from
the brief), and never ran palace on this data. The persona is a backend engineer on an
order-management platform ("Harbor") who uses an AI coding agent every day and keeps work
and personal memories with it.

Run:  python scripts/data/make_new_queries_7.py
It validates the data (unique ids, every relevant id exists, kinds/langs/types known,
answerable cases have answers, unanswerable/unrelated have none) and prints the counts.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from datetime import datetime
from pathlib import Path

OUT = Path(__file__).with_name("new_queries_7.json")
TZ = "+08:00"

QUERY_KINDS = {"keyword", "paraphrase", "concept", "crosslingual", "temporal", "multi",
               "unanswerable"}
PROMPT_KINDS = {"related", "unrelated"}
LANGS = {"zh", "en", "mixed"}
TYPES = {"fact", "decision", "preference", "event", "experience", "task", "observation",
         "session"}

# Default "now" for cases whose answer does not depend on the date.
NOW = "2026-12-02T10:00:00+08:00"
NOW_THU = "2026-12-03T09:30:00+08:00"

DESCRIPTION = (
    "Held-out set 7, written 2026-12-03 by a helper session, BLIND: the author read none "
    "of palace's code, rules or search-quality notes, none of the other new_queries files' "
    "contents, and never ran palace on this data, so its score is what a user would see. "
    "Persona: a backend engineer on an order-management platform (Harbor: order-service, "
    "inventory-service, notify-service, payment-gateway) who uses an AI coding agent daily "
    "and keeps work and personal memories with it. 72 memories (2026-01 .. 2026-12-01, "
    "zh/en/mixed, four long write-ups, near duplicates: several timeouts, three birthdays, "
    "staging vs production PostgreSQL upgrade and staging-only addresses; five memories "
    "on 2026-11-18). Queries: keyword, paraphrase, concept, crosslingual, temporal "
    "(relative to each query's now, mostly Wed 2026-12-02), multi, and unanswerable "
    "(absent topics and near misses: stored topic, unstored attribute). Prompts simulate "
    "what an agent host sends before a turn: 'related' ones list the memories that must "
    "be injected, 'unrelated' ones (several sharing a generic word with some memory) "
    "must inject nothing."
)


def at(day: str, hm: str) -> str:
    return f"{day}T{hm}:00{TZ}"


# ---------------------------------------------------------------------------------------
# Memories: (id, created_at, type, tags, content)
# ---------------------------------------------------------------------------------------

M04_INCIDENT = """事故记录 2026-01-23：生产 PostgreSQL 主库磁盘写满
时间线：
- 09:40 告警：pg-prod-1 磁盘使用率 97%，order-service 写入开始报错 `could not extend file`。
- 09:52 王磊确认 pg_wal 目录占了 410GB。原因：WAL 归档命令 archive_command 上传对象存储失败（前一天轮换了访问密钥，新密钥没有同步到数据库主机），归档失败后 WAL 无法回收，一直堆积。
- 10:05 临时把磁盘从 500GB 扩到 1TB，写入恢复。
- 10:40 更新密钥，archive_command 恢复，积压的 WAL 在两小时内归档完成。
影响：订单写入失败约 25 分钟，约 1,800 笔下单请求报错，用户看到“系统繁忙”。
根因：密钥轮换流程没有覆盖数据库主机；归档失败没有任何告警。
改进项：
1）密钥轮换清单加上数据库主机（Marco）；
2）监控 pg_stat_archiver 的 failed_count（王磊）；
3）pg_wal 目录单独加磁盘告警（我）。
教训：PostgreSQL 磁盘满的时候先看 pg_wal 和归档状态（SELECT * FROM pg_stat_archiver;），不要直接去删日志文件，更不要手动删 WAL，否则备库和 PITR 都会坏掉。
后续：当天下午跟 Helen 同步了影响范围，客服按订单号给受影响用户发了优惠券补偿；复盘会定在 1 月 27 日，王磊、Marco 和我参加。"""

M25_OUTBOX = """Design note: transactional outbox for order events (draft v2, reviewed with Wang Lei)

Problem: order-service writes the order row and then publishes `order.created` to Kafka. When Kafka is slow, or the pod dies between the two steps, we either lose events or publish events for orders whose transaction rolled back. inventory-service and notify-service both depend on these events.

Decision: write each event to an `outbox_events` table in the same PostgreSQL transaction as the order. A relay process (outbox-relay, one active replica holding a pg_advisory_lock as leader lock) polls unpublished rows every 200 ms in batches of 500, publishes them to Kafka with acks=all, then sets published_at. The relay may publish an event twice after a crash, so consumers must be idempotent: every event carries an event_id (UUIDv7) and each consumer keeps a processed_events table.

Rejected: Debezium CDC (one more system to run, and nobody on the team has run Kafka Connect); two-phase commit (Kafka does not take part in XA).

Ordering: per-order ordering is guaranteed by using order_id as the partition key; ordering across orders is not guaranteed and nobody needs it.

Retention: published rows are deleted after 3 days by a nightly job.

Rollout: shadow mode in staging for one week, then production behind the flag `order.outbox_relay`."""

M34_Q4 = """Q4 规划会议纪要（9 月 9 日；参会：Helen、王磊、Priya、Marco、陈静、我）
1. 性能目标：双十一前 order-service 能扛住 3000 QPS，p99 < 200ms。负责人：我。
2. 数据库：order-service 的 PostgreSQL 14 在 11 月升级到 16，王磊主导，先 staging 后生产。
3. 前端：Priya 的团队重做结算页，目标转化率提升 2%，设计稿 10 月中旬给出。
4. 测试：陈静把回归测试从手工清单迁到 Playwright，覆盖核心下单路径，目标覆盖率 80%。
5. 可观测性：Marco 把 Prometheus 告警规则收敛成基于 SLO 的告警，减少夜间误报。
6. 招聘：后端招 1 人，我参加面试。
7. 风险：order-service 到 inventory-service 的 gRPC 改造可能拖期；如果 10 月底还没完成，双十一前冻结这部分改动。
待办：每个负责人在 9 月 20 日前把各自的里程碑写进 Confluence 的 Q4 页面。
其他：Helen 提醒双十一当周（11 月 9 日到 15 日）后端全员尽量不请假，晚上轮流值班；Marco 会在 10 月底组织一次故障演练，演练数据库主从切换，演练步骤和结果写进 runbook，新人也要参加。
下次会议：10 月 14 日。"""

M52_CALLBACK = """事故复盘草稿：2026-11-27 支付回调丢失
现象：11 月 27 日 20:10–21:35 之间，约 340 笔订单银行已经扣款，但订单状态一直停在“待支付”，客服收到大量投诉。
时间线：
- 20:10 payment-gateway 发布 v2.14（新增了新的签名算法）；
- 20:25 客服反馈有用户付了钱订单没变；
- 20:50 我和 Marco 定位到支付回调接口全部返回 401，银行重试三次后放弃；
- 21:20 回滚到 v2.13；
- 21:35 回调恢复正常；
- 22:30 用银行的对账文件手工补单完成。
根因：v2.14 用新的签名算法校验回调，但银行生产环境仍然用旧算法签名；staging 接的是银行沙箱，沙箱已经切到新算法，所以测试没有发现。
改进项：
1）签名校验同时兼容新旧两种算法，观察一周后再下线旧算法（我）；
2）回调 401 比例超过 1% 时告警（Marco）；
3）对账任务从每天一次改成每小时一次（我）；
4）payment-gateway 发布必须在上线窗口内（这次是晚上 20:10 发的，违反了规定）（Marco）；
5）和银行约定：他们切换签名算法之前至少提前两周书面通知我们，并在生产环境先双签一段时间（我负责对接）。
影响：约 340 笔订单状态延迟最长 2 小时 20 分钟，没有资金损失；客服共接到 126 个投诉电话，给受影响用户每人发了 10 元优惠券。"""

MEMORIES = [
    ("m01", at("2026-01-08", "10:20"), "decision", ["cache", "redis", "order-service"],
     "决定：order-service 的缓存统一用 Redis，key 前缀 `ord:`，默认 TTL 300 秒。"
     "不再用进程内缓存，因为多副本部署时各个 Pod 的数据会不一致。"),
    ("m02", at("2026-01-15", "16:05"), "fact", ["payment-gateway", "timeout", "config"],
     "payment-gateway's outbound HTTP client timeout is 8 seconds in total (connect 2 s, "
     "read 6 s). The upstream bank API gets slow at month-end, so don't lower it."),
    ("m03", at("2026-02-03", "11:40"), "fact", ["notify-service", "timeout", "email"],
     "notify-service's SMTP send timeout is 30 seconds; an email that takes longer is put "
     "on the retry queue instead of blocking the worker."),
    ("m04", at("2026-01-23", "13:30"), "event", ["incident", "postgresql", "postmortem"],
     M04_INCIDENT),
    ("m05", at("2026-01-23", "15:10"), "task", ["todo", "alerting", "postgresql"],
     "TODO：给 pg-prod-1 的 pg_wal 目录单独加磁盘使用率告警，80% 发 Slack，90% 打电话给值班"
     "（1 月 23 日事故的改进项）。"),
    ("m06", at("2026-02-10", "09:15"), "fact", ["editor", "personal"],
     "My editor is Neovim with a LazyVim config kept in ~/dotfiles/nvim."),
    ("m07", at("2026-02-14", "15:00"), "preference", ["coffee", "personal"],
     "咖啡：只喝手冲，浅烘的埃塞俄比亚豆；下午三点以后不喝，不然晚上失眠。"),
    ("m08", at("2026-02-20", "10:00"), "fact", ["team", "ownership", "postgresql"],
     "王磊负责 PostgreSQL 和所有数据库迁移脚本的 review，改表结构之前要先找他确认。"),
    ("m09", at("2026-02-20", "10:05"), "fact", ["team", "ownership", "frontend"],
     "Priya Nair owns the web frontend (React + Vite) and the shared design-system package "
     "@harbor/ui."),
    ("m10", at("2026-03-05", "14:00"), "decision", ["database", "inventory-service"],
     "Decided that the new inventory-service uses PostgreSQL 16, not MongoDB: we need "
     "transactions across the stock and reservation tables, and the team already operates "
     "Postgres."),
    ("m11", at("2026-03-12", "12:30"), "fact", ["team", "birthday"],
     "Wang Lei's birthday is March 28; the team usually orders him a cake from the bakery "
     "next to the office."),
    ("m12", at("2026-06-09", "22:00"), "fact", ["family", "birthday", "personal"],
     "女儿小雨的生日是 6 月 14 日，今年她想要一套乐高。"),
    ("m13", at("2026-03-18", "18:45"), "experience", ["ci", "pnpm", "lesson"],
     "Lesson: when `pnpm install` fails in CI with ERR_PNPM_LOCKFILE_CONFIG_MISMATCH, the "
     "runner's pnpm version differs from the `packageManager` field in package.json. Pin it "
     "with `corepack enable` in the workflow; don't delete the lockfile."),
    ("m14", at("2026-03-25", "11:00"), "decision", ["api-design", "rest"],
     "API 设计约定：对外 REST 接口的 JSON 字段一律 snake_case；分页用 cursor（请求参数 "
     "`cursor`，响应里 `next_cursor`），不用 page/offset；错误响应体统一为 "
     "`{code, message, request_id}`。"),
    ("m15", at("2026-04-02", "10:30"), "event", ["ci", "github-actions"],
     "Moved CI for all backend repos from Jenkins to GitHub Actions this week; the "
     "self-hosted runners live in the `ci-runners` namespace of the k8s cluster."),
    ("m16", at("2026-04-10", "14:20"), "fact", ["staging", "config", "ports"],
     "staging 环境：API 网关端口 8443，数据库是 pg-staging.internal:5433，库名 harbor_staging。"),
    ("m17", at("2026-04-15", "09:40"), "preference", ["git", "conventions"],
     "Commit messages: Conventional Commits (feat:, fix:, chore:, ...), in English, "
     "imperative mood, subject under 72 characters. PRs are squash-merged."),
    ("m18", at("2026-04-22", "17:50"), "session", ["session", "e2e", "flaky-test"],
     "Session: fixed the flaky login e2e test (tests/e2e/login.spec.ts). Cause: it clicked "
     "'Sign in' before the CSRF token request had finished. Fix: "
     "`await page.waitForResponse('/api/csrf')` before the click. Files touched: "
     "tests/e2e/login.spec.ts, playwright.config.ts (retries 0 -> 1 on CI only)."),
    ("m19", at("2026-05-06", "21:00"), "event", ["trip", "personal"],
     "五一假期去杭州玩了三天，住在西湖边，吃了好几次西湖醋鱼。下次想带爸妈一起去。"),
    ("m20", at("2026-05-12", "11:15"), "decision", ["feature-flags", "unleash"],
     "Feature flags: chose self-hosted Unleash over LaunchDarkly (cost and data residency). "
     "Flag names follow `<team>.<feature>`, e.g. `checkout.new_coupon_flow`; remove a flag "
     "within two sprints after full rollout."),
    ("m21", at("2026-05-20", "07:00"), "fact", ["gym", "personal", "schedule"],
     "健身安排：每周一、三、五早上 7 点去公司楼下的健身房，周一练腿，周三练上肢，周五有氧 40 分钟。"),
    ("m22", at("2026-06-03", "15:25"), "observation", ["pytest", "order-service"],
     "Observation: running order-service's pytest suite with `-n auto` on my laptop is "
     "slower than `-n 4`, because the Postgres test containers compete for CPU. Use `-n 4`."),
    ("m23", at("2026-06-30", "18:00"), "observation", ["agent", "yaml"],
     "Observation: when the agent edits a YAML file it sometimes reformats the whole file; "
     "ask it to keep the diff minimal and leave untouched lines alone."),
    ("m24", at("2026-06-18", "14:10"), "decision", ["logging", "privacy"],
     "日志规范：所有服务日志输出 JSON，字段为 ts、level、service、trace_id、msg；"
     "禁止把手机号、身份证号原样写进日志，必须脱敏。"),
    ("m25", at("2026-07-01", "16:40"), "decision", ["design", "outbox", "kafka"],
     M25_OUTBOX),
    ("m26", at("2026-07-08", "11:20"), "fact", ["kafka", "conventions"],
     "Kafka 约定：topic 命名 `harbor.<domain>.<event>.v1`，比如 `harbor.order.created.v1`；"
     "order 相关 topic 分区数 12，消息保留 7 天。"),
    ("m27", at("2026-07-15", "17:00"), "task", ["todo", "notify-service", "dependencies"],
     "TODO: move notify-service off the deprecated `request` npm package to undici before "
     "Q4 starts."),
    ("m28", at("2026-07-22", "20:15"), "experience", ["k8s", "oom", "lesson"],
     "教训：k8s 里 payment-gateway（Java 服务）的 Pod 一直 CrashLoopBackOff、事件里显示 "
     "OOMKilled 时，先检查 JVM 的 -Xmx 是否超过了容器 memory limit 的 75%，不要上来就加 limit。"),
    ("m29", at("2026-08-05", "18:30"), "event", ["customer-bug", "notify-service"],
     "Customer bug HB-2291: ACME Logistics got every shipment notification twice. Root "
     "cause: notify-service retried the SMS provider call without an idempotency key. Fixed "
     "by sending an `Idempotency-Key` header derived from the notification id."),
    ("m30", at("2026-08-12", "09:20"), "preference", ["coding-style"],
     "When you write code for me in the Harbor backend repos: small functions, type hints "
     "everywhere, pytest rather than unittest, and no leftover print() debugging in a PR."),
    ("m31", at("2026-08-19", "18:00"), "session", ["session", "inventory-service"],
     "Session：给 inventory-service 加了库存预留过期的定时任务：每 5 分钟扫一次 reservation "
     "表，超过 15 分钟未支付的预留自动释放。改了 scheduler.py、reservation_repo.py，"
     "新增 tests/test_reservation_expiry.py。"),
    ("m32", at("2026-08-26", "11:30"), "fact", ["team", "ownership", "deploy"],
     "Marco Rossi is our SRE lead and owns the Argo CD setup; production deploys go through "
     "him or the #deploy channel."),
    ("m33", at("2026-09-02", "15:00"), "decision", ["release", "process"],
     "上线窗口：生产环境只在周二、周四 14:00–17:00 发布，周五不发版；紧急修复走 hotfix 流程，"
     "需要 Marco 审批。"),
    ("m34", at("2026-09-09", "17:00"), "event", ["meeting", "planning", "q4"], M34_Q4),
    ("m35", at("2026-09-16", "14:30"), "fact", ["elasticsearch", "logging", "production"],
     "Production Elasticsearch: 3 nodes on version 8.11, log indices named `harbor-logs-*`, "
     "kept 14 days by an ILM policy."),
    ("m36", at("2026-09-23", "21:10"), "experience", ["alembic", "lesson"],
     "Lesson: if Alembic autogenerate produces an empty migration after I changed a model, "
     "the model's module isn't imported by env.py. Import it in models/__init__.py."),
    ("m37", at("2026-10-08", "20:00"), "event", ["trip", "family", "personal"],
     "国庆假期带家人去了成都，吃了三次火锅；小雨最喜欢大熊猫基地。"),
    ("m38", at("2026-10-14", "16:20"), "decision", ["grpc", "architecture"],
     "Decided: internal calls between order-service and inventory-service use gRPC, with "
     "the .proto files in the harbor-protos repo. Public APIs stay REST."),
    ("m39", at("2026-10-21", "10:40"), "fact", ["team", "ownership", "qa"],
     "陈静负责 QA 和 e2e 测试平台（Playwright），每次发版前的回归测试清单在她那里。"),
    ("m40", at("2026-10-28", "15:50"), "observation", ["agent", "search", "monorepo"],
     "Observation: the agent's grep over the monorepo times out because it walks "
     "node_modules; `rg --glob '!node_modules'` finishes in a few seconds."),
    ("m41", at("2026-11-03", "17:30"), "decision", ["database", "config", "order-service"],
     "数据库连接池：order-service 的 SQLAlchemy pool_size 从 10 调到 20，max_overflow 10，"
     "pool_timeout 3 秒（拿不到连接 3 秒就报错）。原因是压测时大量请求在等连接。"),
    ("m42", at("2026-11-12", "22:30"), "event", ["load-test", "performance"],
     "Double 11 load test (Nov 11): order-service held 3,200 req/s at p99 180 ms. The "
     "bottleneck was the gRPC call to inventory-service."),
    ("m43", at("2026-11-18", "10:30"), "event", ["postgresql", "upgrade", "staging"],
     "和王磊一起把 order-service 的 staging PostgreSQL 从 14 upgrade 到 16，跑了一遍 "
     "regression，没有问题；production 定在下周二（11/24）14:00 做。"),
    ("m44", at("2026-11-18", "14:45"), "session", ["session", "rate-limit", "gateway"],
     "Session: added rate limiting to the public API gateway: token bucket, 100 requests/min "
     "per API key, burst 20, HTTP 429 with a Retry-After header. Files: "
     "gateway/middleware/ratelimit.go, gateway/middleware/ratelimit_test.go."),
    ("m45", at("2026-11-18", "16:00"), "decision", ["frontend", "state-management"],
     "决定：前端状态管理从 Redux 换成 Zustand，Priya 同意了，先在 admin 后台试点。"),
    ("m46", at("2026-11-18", "17:30"), "event", ["1on1", "manager", "mentoring"],
     "1:1 with Helen Zhou (my manager): starting in December I mentor the intern Zhao "
     "Xiaobei on backend code review, and she wants the Q4 load-test report by mid-December."),
    ("m47", at("2026-11-18", "21:00"), "preference", ["personal", "schedule", "family"],
     "今晚陪小雨读绘本读到九点。以后晚上 8 点以后我不看工作消息，那段时间留给她。"),
    ("m48", at("2026-11-24", "15:00"), "event", ["postgresql", "upgrade", "production"],
     "今天 14:00 开始做 order-service 生产 PostgreSQL 16 upgrade，14:30 完成，downtime "
     "4 分钟，之后跑了 ANALYZE。"),
    ("m49", at("2026-11-24", "19:00"), "event", ["talk", "outbox"],
     "今天在公司技术分享会上讲了 outbox 模式，PPT 放在 Confluence 的 Backend 空间。"),
    ("m50", at("2026-11-25", "11:20"), "experience", ["postgresql", "performance", "lesson"],
     "Lesson: after the PG 16 upgrade some order queries got slow because the partitioned "
     "`orders` table had no planner statistics on the parent; autovacuum doesn't analyze "
     "partitioned parents, so run `ANALYZE orders;` by hand after an upgrade."),
    ("m51", at("2026-11-26", "15:40"), "decision", ["notify-service", "retry", "kafka"],
     "决定 notify-service 的 retry 策略：exponential backoff，初始间隔 1s，每次翻倍，"
     "最多重试 5 次，仍失败就进 dead letter queue（Kafka topic `harbor.notify.dlq.v1`）。"),
    ("m52", at("2026-11-28", "10:00"), "event", ["incident", "payment", "postmortem"],
     M52_CALLBACK),
    ("m53", at("2026-11-16", "09:00"), "fact", ["team", "birthday"],
     "Helen Zhou's birthday is December 20."),
    ("m54", at("2026-12-01", "18:20"), "session", ["session", "payment", "signature"],
     "Session: reworked the payment callback handler to verify signatures with both the old "
     "and the new bank algorithm before parsing the body. Files: payment/callback.py, "
     "payment/signature.py, tests/test_callback_signature.py. Still to do: update the API "
     "docs."),
    ("m55", at("2026-12-01", "18:40"), "task", ["todo", "postmortem"],
     "TODO：本周五之前把 11 月 27 日支付回调事故的复盘文档发给 Helen。"),
    ("m56", at("2026-11-30", "10:20"), "observation", ["agent", "docker", "ports"],
     "观察：agent 跑 `docker compose up` 经常失败，因为本机的 Postgres 已经占了 5432 端口；"
     "本地 compose 里的 Postgres 改成映射到 15432。"),
    ("m57", at("2026-10-30", "11:00"), "fact", ["ports", "local-dev"],
     "Local dev ports: order-service 8081, inventory-service 8082, notify-service 8083."),
    ("m58", at("2026-06-25", "09:30"), "fact", ["vpn", "network"],
     "公司 VPN 用 WireGuard，客户端配置文件放在 1Password 的 Infra 保险库里，新电脑要找 Marco "
     "开权限。"),
    ("m59", at("2026-02-27", "17:20"), "decision", ["python", "tooling"],
     "Chose uv over Poetry for Python dependency management in all backend repos: locking "
     "is much faster and uv also installs the Python version we pin."),
    ("m60", at("2026-07-29", "10:10"), "fact", ["sentry", "order-service", "alerts"],
     "order-service reports errors to the Sentry project `harbor-order`; its alerts go to "
     "the #order-alerts Slack channel."),
    ("m61", at("2026-05-28", "19:30"), "experience", ["cache", "redis", "lesson"],
     "教训：热点商品的 Redis key 过期的一瞬间，大量请求直接打到数据库（缓存击穿）。解决办法："
     "回源时加互斥锁（singleflight），TTL 加 ±30 秒的随机抖动。"),
    ("m62", at("2026-03-30", "20:10"), "event", ["home-office", "personal"],
     "Bought a standing desk (Flexispot E7) for the home office; I set a reminder to stand "
     "every 45 minutes."),
    ("m63", at("2026-08-30", "10:00"), "preference", ["pull-requests", "conventions"],
     "PR descriptions: a 'Why' section first, then 'What changed' and 'How tested'; always "
     "link the Jira ticket (HB-xxxx) in the title."),
    ("m64", at("2026-09-30", "21:30"), "fact", ["family", "personal"],
     "小雨今年上小学二年级，每周六上午 9:00–10:00 上钢琴课。"),
    ("m65", at("2026-11-05", "10:15"), "decision", ["database", "naming", "conventions"],
     "Naming convention for database tables: plural snake_case (`order_items`), primary "
     "key `id` as bigint identity, timestamps `created_at` / `updated_at` as timestamptz."),
    ("m66", at("2026-11-12", "14:00"), "fact", ["order-service", "format"],
     "订单号格式：`HB` + yyMMdd + 8 位随机数字，例如 HB26111212345678。"),
    ("m67", at("2026-11-20", "16:30"), "event", ["hiring", "interview"],
     "Interviewed a backend candidate (Go + Postgres background) and recommended hire; "
     "feedback is in Greenhouse."),
    ("m68", at("2026-11-23", "11:00"), "decision", ["code-review", "process"],
     "决定：从这周起每个 PR 至少要有一位 owner 批准才能合并；CODEOWNERS 已更新"
     "（db/ → 王磊，web/ → Priya）。"),
    ("m69", at("2026-10-10", "15:00"), "decision", ["api-design", "versioning"],
     "Decided to keep the public API versioned in the URL path (/v1/...) rather than in a "
     "header; a breaking change means a new /v2 and at least six months of overlap."),
    ("m70", at("2026-04-28", "16:00"), "fact", ["ci", "performance"],
     "The backend CI pipeline caches ~/.cache/uv and the pnpm store, keyed on the lockfile "
     "hashes. A cold run takes about 11 minutes, a warm one about 4."),
    ("m71", at("2026-06-12", "10:45"), "decision", ["auth", "security"],
     "认证方案：access token 有效期 15 分钟，refresh token 有效期 7 天，两者都放在 httpOnly "
     "cookie 里，前端不直接读。"),
    ("m72", at("2026-07-19", "10:00"), "fact", ["family", "personal"],
     "爸妈住在洛阳，我每周日晚上给他们打视频电话。"),
]

# ---------------------------------------------------------------------------------------
# Queries: (id, query, now, relevant, kind, lang)
# Calendar for now = Wed 2026-12-02: this week Mon 11-30..; last week Mon 11-23..Sun 11-29
# (last Tuesday of last week = 11-24); two weeks ago = Wed 11-18; last month = November.
# ---------------------------------------------------------------------------------------

QUERIES = [
    # keyword: the memory uses the query's words
    ("q01", "Redis 默认 TTL 是多少", NOW, ["m01"], "keyword", "mixed"),
    ("q02", "payment-gateway HTTP client timeout", NOW_THU, ["m02"], "keyword", "en"),
    ("q03", "notify-service SMTP send timeout", NOW, ["m03"], "keyword", "en"),
    ("q04", "Unleash feature flag naming", NOW, ["m20"], "keyword", "en"),
    ("q05", "pg_wal 目录磁盘告警阈值", NOW, ["m05"], "keyword", "mixed"),
    ("q06", "login.spec.ts flaky fix", NOW, ["m18"], "keyword", "en"),
    ("q07", "Kafka topic 命名规则", NOW_THU, ["m26"], "keyword", "mixed"),
    ("q08", "CrashLoopBackOff OOMKilled 怎么处理", NOW, ["m28"], "keyword", "mixed"),
    ("q09", "ACME Logistics duplicate notifications", NOW, ["m29"], "keyword", "en"),
    ("q10", "who owns Argo CD?", NOW, ["m32"], "keyword", "en"),
    ("q11", "Alembic autogenerate empty migration", NOW_THU, ["m36"], "keyword", "en"),
    ("q12", "order-service SQLAlchemy pool_size 调到多少了", NOW, ["m41"], "keyword", "mixed"),
    ("q13", "rate limiting on the public API gateway", NOW, ["m44"], "keyword", "en"),
    ("q14", "Zustand 在哪里试点", NOW, ["m45"], "keyword", "mixed"),
    ("q15", "订单号格式", NOW_THU, ["m66"], "keyword", "zh"),
    ("q16", "CODEOWNERS 是怎么更新的", NOW, ["m68"], "keyword", "mixed"),
    ("q17", "uv or Poetry?", NOW, ["m59"], "keyword", "en"),
    ("q18", "Sentry project for order-service", NOW, ["m60"], "keyword", "en"),
    ("q19", "staging 数据库地址", NOW_THU, ["m16"], "keyword", "mixed"),
    ("q20", "本地 compose 里 Postgres 映射到哪个端口", NOW, ["m56"], "keyword", "mixed"),
    # paraphrase: different words, same meaning
    ("q21", "what's the rule for how I write commit messages?", NOW, ["m17"], "paraphrase",
     "en"),
    ("q22", "how long can a request to the bank take before we give up?", NOW, ["m02"],
     "paraphrase", "en"),
    ("q23", "哪几天可以往线上发版", NOW_THU, ["m33"], "paraphrase", "zh"),
    ("q24", "打印日志的时候能不能带上用户手机号", NOW, ["m24"], "paraphrase", "zh"),
    ("q25", "searching the whole repo keeps hanging, what did I find out about that?", NOW,
     ["m40"], "paraphrase", "en"),
    ("q26", "what happens to a notification after it has failed five times?", NOW, ["m51"],
     "paraphrase", "en"),
    ("q27", "我一般几点去锻炼", NOW_THU, ["m21"], "paraphrase", "zh"),
    ("q28", "that customer who got the same shipping message twice, how was it fixed?", NOW,
     ["m29"], "paraphrase", "en"),
    ("q29", "晚上几点以后我就不处理工作了", NOW, ["m47"], "paraphrase", "zh"),
    ("q30", "how do order-service and inventory-service talk to each other internally?", NOW,
     ["m38"], "paraphrase", "en"),
    ("q31", "how long does a CI build take when nothing is cached?", NOW_THU, ["m70"],
     "paraphrase", "en"),
    ("q32", "库存占用多久没付款会被自动放掉", NOW, ["m31"], "paraphrase", "zh"),
    ("q33", "what observability work is planned for Q4?", NOW, ["m34"], "paraphrase", "en"),
    ("q34", "接口大改不兼容的时候版本怎么处理", NOW, ["m69"], "paraphrase", "zh"),
    # concept: a broader or narrower term than the memory's
    ("q35", "数据库选型", NOW, ["m10"], "concept", "zh"),
    ("q36", "which message broker do we use, and how long does it keep messages?", NOW_THU,
     ["m26"], "concept", "en"),
    ("q37", "我的运动习惯", NOW, ["m21"], "concept", "zh"),
    ("q38", "我喝饮品有什么讲究", NOW, ["m07"], "concept", "zh"),
    ("q39", "what office furniture did I buy?", NOW, ["m62"], "concept", "en"),
    ("q40", "details of our search engine cluster in production", NOW_THU, ["m35"], "concept",
     "en"),
    ("q41", "我们换到了哪个持续集成平台", NOW, ["m15"], "concept", "zh"),
    ("q42", "RPC 框架用的哪个", NOW, ["m38"], "concept", "mixed"),
    ("q43", "在家怎么连公司内网", NOW, ["m58"], "concept", "zh"),
    ("q44", "which error tracking tool is order-service hooked up to?", NOW_THU, ["m60"],
     "concept", "en"),
    ("q45", "前端最近换了哪个第三方库", NOW, ["m45"], "concept", "zh"),
    ("q46", "孩子现在上几年级", NOW, ["m64"], "concept", "zh"),
    # crosslingual: Chinese question, English memory, and the reverse
    ("q47", "我平时用什么编辑器", NOW, ["m06"], "crosslingual", "zh"),
    ("q48", "how do we stop a cache stampede when a hot key expires?", NOW_THU, ["m61"],
     "crosslingual", "en"),
    ("q49", "who has to review my schema changes?", NOW, ["m08", "m68"], "crosslingual", "en"),
    ("q50", "为什么 inventory-service 没有用 MongoDB", NOW, ["m10"], "crosslingual", "mixed"),
    ("q51", "本地跑 order-service 的测试，并行数设多少最快", NOW, ["m22"], "crosslingual",
     "mixed"),
    ("q52", "how long is an access token valid?", NOW_THU, ["m71"], "crosslingual", "en"),
    ("q53", "what time of day do I stop drinking coffee?", NOW, ["m07"], "crosslingual", "en"),
    ("q54", "CI 里 pnpm install 报 lockfile 配置不匹配怎么办", NOW, ["m13"], "crosslingual",
     "mixed"),
    ("q55", "what does the error response body of our public API look like?", NOW, ["m14"],
     "crosslingual", "en"),
    ("q56", "王磊的生日是哪天", NOW_THU, ["m11"], "crosslingual", "zh"),
    ("q57", "Python 依赖管理为什么选了 uv", NOW, ["m59"], "crosslingual", "mixed"),
    ("q58", "what's the format of an order number?", NOW, ["m66"], "crosslingual", "en"),
    ("q59", "when are production releases allowed?", NOW, ["m33"], "crosslingual", "en"),
    ("q60", "双十一压测 order-service 的 p99 是多少", NOW_THU, ["m42"], "crosslingual", "mixed"),
    ("q61", "本地 inventory-service 跑在哪个端口", NOW, ["m57"], "crosslingual", "mixed"),
    ("q62", "what did the Q4 planning meeting say about the checkout page?", NOW, ["m34"],
     "crosslingual", "en"),
    # temporal: relative to each query's now
    ("q63", "上周二我做了什么", NOW_THU, ["m48", "m49"], "temporal", "zh"),
    ("q64", "what did I do on November 18?", NOW, ["m43", "m44", "m45", "m46", "m47"],
     "temporal", "en"),
    ("q65", "1月23号那天记了些什么", NOW_THU, ["m04", "m05"], "temporal", "zh"),
    ("q66", "昨天改了哪些文件", NOW, ["m54"], "temporal", "zh"),
    ("q67", "what did I decide in March?", NOW_THU, ["m10", "m14"], "temporal", "en"),
    ("q68", "上个月那次线上事故的根因是什么", NOW, ["m52"], "temporal", "zh"),
    ("q69", "两周前和 Helen 的 1:1 聊了什么", NOW, ["m46"], "temporal", "mixed"),
    ("q70", "what lesson did I write down last week?", NOW, ["m50"], "temporal", "en"),
    ("q71", "上周定的重试策略", NOW, ["m51"], "temporal", "zh"),
    ("q72", "what trip did I take in May?", NOW_THU, ["m19"], "temporal", "en"),
    ("q73", "十月初放假那几天干了什么", NOW, ["m37"], "temporal", "zh"),
    ("q74", "七月份写的那份设计文档", NOW, ["m25"], "temporal", "zh"),
    ("q75", "这周记的 docker 端口问题", NOW, ["m56"], "temporal", "mixed"),
    ("q76", "上周一做了什么决定", NOW, ["m68"], "temporal", "zh"),
    ("q77", "上个月初调过的数据库连接池参数", NOW, ["m41"], "temporal", "zh"),
    ("q78", "who did I interview last month?", NOW_THU, ["m67"], "temporal", "en"),
    ("q79", "上周 deploy 到生产的 PostgreSQL 升级停机了多久", NOW, ["m48"], "temporal",
     "mixed"),
    ("q80", "这个月有谁过生日", NOW_THU, ["m53"], "temporal", "zh"),
    ("q81", "what did I note down yesterday?", NOW, ["m54", "m55"], "temporal", "en"),
    ("q82", "what did I write down on November 12?", NOW, ["m42", "m66"], "temporal", "en"),
    # multi: several memories answer
    ("q83", "我标了 TODO 的事项有哪些", NOW, ["m05", "m27", "m55"], "multi", "mixed"),
    ("q84", "我们给各个服务配的超时时间都有哪些", NOW, ["m02", "m03", "m41"], "multi", "zh"),
    ("q85", "我今年去哪里旅行过", NOW_THU, ["m19", "m37"], "multi", "zh"),
    ("q86", "团队里谁负责哪个系统", NOW, ["m08", "m09", "m32", "m39", "m68"], "multi", "zh"),
    ("q87", "今年写过哪些事故记录", NOW, ["m04", "m52"], "multi", "zh"),
    ("q88", "lessons I learned running PostgreSQL in production", NOW_THU, ["m04", "m50"], "multi", "en"),
    ("q89", "和女儿有关的事", NOW, ["m12", "m37", "m47", "m64"], "multi", "zh"),
    ("q90", "list my coding sessions", NOW, ["m18", "m31", "m44", "m54"], "multi", "en"),
    ("q91", "birthdays I need to remember", NOW_THU, ["m11", "m12", "m53"], "multi", "en"),
    ("q92", "我对你写代码和提 PR 有哪些要求", NOW, ["m17", "m23", "m30", "m63"], "multi", "zh"),
    ("q93", "everything about Kafka", NOW, ["m25", "m26", "m51"], "multi", "en"),
    ("q94", "observations about how the agent uses tools", NOW, ["m23", "m40", "m56"],
     "multi", "en"),
    # unanswerable: never stored, or a near miss (topic stored, attribute not)
    ("q95", "What MySQL version do we run?", NOW, [], "unanswerable", "en"),
    ("q96", "Did I decide anything about GraphQL?", NOW_THU, [], "unanswerable", "en"),
    ("q97", "When is my dentist appointment?", NOW, [], "unanswerable", "en"),
    ("q98", "Where is the Terraform state stored?", NOW, [], "unanswerable", "en"),
    ("q99", "What's the Redis port?", NOW_THU, [], "unanswerable", "en"),
    ("q100", "What is the production API gateway port?", NOW, [], "unanswerable", "en"),
    ("q101", "When is Priya's birthday?", NOW, [], "unanswerable", "en"),
    ("q102", "What's the HTTP client timeout in notify-service?", NOW_THU, [], "unanswerable",
     "en"),
    ("q103", "How many partitions do the inventory topics have?", NOW, [], "unanswerable",
     "en"),
    ("q104", "What was inventory-service's p99 latency in the load test?", NOW, [],
     "unanswerable", "en"),
    ("q105", "What was the name of the candidate I interviewed?", NOW_THU, [], "unanswerable",
     "en"),
    ("q106", "What rate limit applies to internal gRPC calls?", NOW, [], "unanswerable",
     "en"),
    ("q107", "Which Slack channel gets inventory-service alerts?", NOW, [], "unanswerable",
     "en"),
    ("q108", "Who owns the mobile app?", NOW_THU, [], "unanswerable", "en"),
    ("q109", "What did I do last Christmas?", NOW, [], "unanswerable", "en"),
    ("q110", "How do we rotate the gateway's TLS certificates?", NOW, [], "unanswerable",
     "en"),
    ("q111", "Which LLM provider does our support chatbot use?", NOW_THU, [], "unanswerable",
     "en"),
    ("q112", "What's the URL of our Unleash server?", NOW, [], "unanswerable", "en"),
    ("q113", "What time is my daughter's swimming class?", NOW, [], "unanswerable", "en"),
    ("q114", "What's the staging Redis address?", NOW_THU, [], "unanswerable", "en"),
    ("q115", "我们用的是哪家 CDN", NOW, [], "unanswerable", "mixed"),
    ("q116", "我的车牌号是多少", NOW, [], "unanswerable", "zh"),
    ("q117", "生产数据库的端口是多少", NOW_THU, [], "unanswerable", "zh"),
    ("q118", "我儿子今年几岁", NOW, [], "unanswerable", "zh"),
    ("q119", "Elasticsearch 集群的端口是多少", NOW, [], "unanswerable", "mixed"),
    ("q120", "access token 用什么算法签名", NOW_THU, [], "unanswerable", "mixed"),
    ("q121", "Kafka 生产集群有几个 broker", NOW, [], "unanswerable", "mixed"),
    ("q122", "杭州住的酒店叫什么", NOW, [], "unanswerable", "zh"),
    ("q123", "Marco 的生日是哪天", NOW_THU, [], "unanswerable", "mixed"),
    ("q124", "order-service 生产环境跑几个 Pod 副本", NOW, [], "unanswerable", "mixed"),
    ("q125", "outbox relay 是用什么语言写的", NOW, [], "unanswerable", "mixed"),
    ("q126", "明年的年度规划会议定了什么", NOW_THU, [], "unanswerable", "zh"),
    ("q127", "12月25号有什么安排", NOW, [], "unanswerable", "zh"),
    ("q128", "去年双十一压测的 QPS 是多少", NOW, [], "unanswerable", "mixed"),
    ("q129", "iOS App 的发布流程是什么", NOW_THU, [], "unanswerable", "mixed"),
    ("q130", "inventory-service 的 Sentry 项目叫什么", NOW, [], "unanswerable", "mixed"),
    ("q131", "我报名的马拉松是哪天", NOW, [], "unanswerable", "zh"),
    ("q132", "小雨的钢琴老师叫什么", NOW_THU, [], "unanswerable", "zh"),
    ("q133", "8月1号那天我做了什么", NOW, [], "unanswerable", "zh"),
    ("q134", "order-service 生产环境的端口是多少", NOW, [], "unanswerable", "mixed"),
]

# ---------------------------------------------------------------------------------------
# Prompts for injection: (id, prompt, now, relevant, kind, lang)
# ---------------------------------------------------------------------------------------

PROMPTS = [
    # related: the listed memories are what the agent must be reminded of
    ("p01", "给订单服务加个缓存层，帮我写一下", NOW, ["m01"], "related", "zh"),
    ("p02", "Write the Alembic migration that adds a shipping address table to "
     "order-service, with the model class.", NOW_THU, ["m65", "m08"], "related", "en"),
    ("p03", "帮我写 notify-service 里消息发送失败之后的重试逻辑，失败太多次的要有个去处。", NOW,
     ["m51"], "related", "zh"),
    ("p04", "Add a public endpoint GET /v1/customers/{id}/orders that lists a customer's "
     "orders. It needs pagination and proper error responses; put the handler in "
     "api/orders.py and add tests.", NOW, ["m14"], "related", "en"),
    ("p05", "加一个 feature flag 控制新优惠券页面的灰度，代码和 flag 名字都帮我写好", NOW_THU,
     ["m20"], "related", "zh"),
    ("p06", "Write the commit message for the staged changes.", NOW, ["m17"], "related",
     "en"),
    ("p07", "docker compose up 又起不来了，Postgres 容器报 port is already allocated，"
     "帮我看看", NOW, ["m56"], "related", "mixed"),
    ("p08", "The payment-gateway pod keeps getting OOMKilled in production. Bump whatever "
     "needs bumping in k8s/payment-gateway/deployment.yaml.", NOW_THU, ["m28"], "related", "en"),
    ("p09", "GitHub Actions 上 pnpm install 挂了，报 ERR_PNPM_LOCKFILE_CONFIG_MISMATCH，"
     "帮我修一下 workflow", NOW, ["m13"], "related", "mixed"),
    ("p10", "我改了 models/refund.py，但是 alembic revision --autogenerate 生成出来是空的，"
     "帮我查一下", NOW, ["m36"], "related", "mixed"),
    ("p11", "We need to ship the payment-gateway fix tonight at 21:00. Prepare the release "
     "checklist and the announcement.", NOW_THU, ["m33"], "related", "en"),
    ("p12", "给 order-service 的下单接口加日志，把请求参数（包括收货人手机号）都打出来方便排查",
     NOW, ["m24"], "related", "zh"),
    ("p13", "Create a Kafka topic for inventory reservation events and write the producer "
     "in inventory-service.", NOW, ["m26"], "related", "en"),
    ("p14", "写个 Python 脚本调 payment-gateway 用的那个银行对账接口，超时时间设合理一点", NOW_THU,
     ["m02"], "related", "mixed"),
    ("p15", "Bootstrap a new Python repo for the pricing service: dependency management, "
     "a lockfile and a CI workflow.", NOW, ["m59", "m15"], "related", "en"),
    ("p16", "帮我改一下 orders 表，加一个 coupon_code 字段，顺便把迁移脚本写好", NOW, ["m08"],
     "related", "zh"),
    ("p17", "The login e2e test is flaky again on CI, have a look at "
     "tests/e2e/login.spec.ts.", NOW_THU, ["m18"], "related", "en"),
    ("p18", "inventory-service 要查询 order-service 里的订单状态，帮我写这个内部调用的客户端",
     NOW, ["m38"], "related", "zh"),
    ("p19", "升级 PG16 以后 orders 相关的查询变慢了很多，下面是 EXPLAIN ANALYZE 的输出，"
     "帮我看看", NOW, ["m50"], "related", "mixed"),
    ("p20", "Run the order-service test suite in parallel and tell me what fails.", NOW_THU,
     ["m22"], "related", "en"),
    ("p21", "Find every usage of `legacyPricing` across the monorepo.", NOW, ["m40"],
     "related", "en"),
    ("p22", "帮我写一个生成订单号的函数，再写几个单测", NOW, ["m66"], "related", "zh"),
    ("p23", "Draft the postmortem for the Nov 27 payment callback outage.", NOW_THU, ["m52"],
     "related", "en"),
    ("p24", "notify-service 调短信供应商接口的地方要加上防重复发送的处理", NOW, ["m29"],
     "related", "zh"),
    ("p25", "Write the frontend logic that refreshes the access token before it expires.",
     NOW, ["m71"], "related", "en"),
    ("p26", "Add a store for the admin order list page: filters, sort order and pagination "
     "state.", NOW_THU, ["m45"], "related", "en"),
    ("p27", "给热点商品详情接口加缓存，别在缓存过期那一下把数据库打挂", NOW, ["m61"],
     "related", "zh"),
    ("p28", "Configure the database connection pool for the new refund-service; copy "
     "whatever settings order-service uses.", NOW, ["m41"], "related", "en"),
    ("p29", "Replace the `request` calls in notify-service with something maintained.", NOW_THU,
     ["m27"], "related", "en"),
    ("p30", "写一条 Prometheus 告警规则，盯 pg-prod-1 上 pg_wal 目录的磁盘使用率", NOW,
     ["m05"], "related", "mixed"),
    ("p31", "Add a new event type `order.cancelled` that goes through the outbox relay the "
     "same way `order.created` does. Make sure consumers can handle it being delivered "
     "twice, and add it to the relay's tests.", NOW, ["m25"], "related", "en"),
    ("p32", "帮我列一下下次和 Helen 1:1 要聊的内容，包括带实习生的进展", NOW_THU, ["m46"],
     "related", "mixed"),
    ("p33", "Write a small script that adds my gym sessions to my calendar as recurring "
     "events.", NOW, ["m21"], "related", "en"),
    ("p34", "写个提醒脚本，到时候提醒我给王磊订生日蛋糕", NOW, ["m11"], "related", "zh"),
    ("p35", "Hook the new refund-service up to Sentry the same way order-service is.", NOW_THU,
     ["m60"], "related", "en"),
    ("p36", "Write a script that checks how long our log indices in Elasticsearch are "
     "kept.", NOW, ["m35"], "related", "en"),
    ("p37", "支付回调签名校验那个改动还差 API 文档没更新，帮我补上", NOW, ["m54"], "related",
     "zh"),
    ("p38", "The CI pipeline is too slow; make the warm runs faster.", NOW_THU, ["m70"],
     "related", "en"),
    ("p39", "下周要发版了，帮我写条 Slack 消息去要回归测试清单", NOW, ["m39"], "related",
     "mixed"),
    ("p40", "Connect my local checkout to the staging database and run the pending "
     "migrations.", NOW, ["m16"], "related", "en"),
    ("p41", "Rate-limit the new /v1/refunds endpoint the same way as the rest of the public "
     "API.", NOW_THU, ["m44"], "related", "en"),
    ("p42", "orders 接口的返回字段要做一个不兼容的改动，帮我规划一下怎么上线", NOW, ["m69"],
     "related", "zh"),
    # unrelated: nothing stored covers them; several share a generic word with a memory
    ("p43", "Write a quicksort in Rust.", NOW, [], "unrelated", "en"),
    ("p44", "Explain TCP slow start.", NOW_THU, [], "unrelated", "en"),
    ("p45", "帮我写一封请假邮件的模板，事假一天，语气正式一点", NOW, [], "unrelated", "zh"),
    ("p46", r"Fix this regex: ^\d{3}-\d{4 doesn't match 555-1234", NOW, [], "unrelated",
     "en"),
    ("p47", "用 Python 写个脚本，把一个文件夹里的 png 图片批量转成 jpg", NOW_THU, [], "unrelated",
     "mixed"),
    ("p48", "Translate this paragraph into French: 'The weather is lovely today.'", NOW, [],
     "unrelated", "en"),
    ("p49", "写一个 LeetCode 两数之和的解法，用哈希表", NOW, [], "unrelated", "mixed"),
    ("p50", "Explain the difference between a mutex and a semaphore.", NOW_THU, [], "unrelated",
     "en"),
    ("p51", "帮我把这段 SQL 格式化一下：select a,b from t where x=1 and y=2", NOW, [],
     "unrelated", "mixed"),
    ("p52", "Write Jest unit tests for this JavaScript function: "
     "const rev = s => [...s].reverse().join('')", NOW, [], "unrelated", "en"),
    ("p53", "How do I deploy a static site to GitHub Pages?", NOW_THU, [], "unrelated", "en"),
    ("p54", "帮我用 pandas 分析这份销售数据 sales.csv，按月份画个柱状图", NOW, [], "unrelated",
     "mixed"),
    ("p55", "写一个用户注册表单的 HTML 页面，带邮箱格式校验", NOW, [], "unrelated", "zh"),
    ("p56", "给我讲讲什么是 CAP 定理", NOW_THU, [], "unrelated", "zh"),
    ("p57", "Generate a .gitignore for a Unity project.", NOW, [], "unrelated", "en"),
    ("p58", "把这段 JavaScript 改写成 TypeScript，加上类型", NOW, [], "unrelated", "mixed"),
    ("p59", "Suggest a few names for my new kitten.", NOW_THU, [], "unrelated", "en"),
    ("p60", "帮我写一首关于秋天的诗", NOW, [], "unrelated", "zh"),
    ("p61", "Convert this JSON to YAML: {\"a\": 1, \"b\": [2, 3]}", NOW, [], "unrelated",
     "en"),
    ("p62", "Write a bash one-liner that counts the lines in all .md files under docs/.",
     NOW_THU, [], "unrelated", "en"),
    ("p63", "帮我算一下 2 的 64 次方是多少", NOW_THU, [], "unrelated", "zh"),
    ("p64", "Explain how B-trees work and why databases use them.", NOW, [], "unrelated",
     "en"),
    ("p65", "写一个 Go 的 HTTP hello world 服务", NOW_THU, [], "unrelated", "mixed"),
    ("p66", "Write a Dockerfile for a simple Node.js Express app.", NOW, [], "unrelated",
     "en"),
    ("p67", "帮我测试一下这个正则能不能匹配邮箱地址：^[\\w.]+@\\w+\\.\\w+$", NOW, [],
     "unrelated", "zh"),
    ("p68", "Summarize the plot of Hamlet in five sentences.", NOW_THU, [], "unrelated", "en"),
    ("p69", "用 Rust 实现一个 LRU cache，带单元测试", NOW, [], "unrelated", "mixed"),
    ("p70", "解释一下 Python 的 GIL 是什么", NOW, [], "unrelated", "zh"),
    ("p71", "Write a haiku about the ocean.", NOW_THU, [], "unrelated", "en"),
    ("p72", "给我推荐几本学习分布式系统的书", NOW, [], "unrelated", "zh"),
    ("p73", "How do I center a div in CSS?", NOW, [], "unrelated", "en"),
    ("p74", "这个 Excel 的 VLOOKUP 公式一直返回 #N/A，帮我看看哪里写错了", NOW_THU, [],
     "unrelated", "zh"),
    ("p75", "What's the time complexity of heapsort, and is it stable?", NOW, [],
     "unrelated", "en"),
    ("p76", "写一个 React 计数器组件的示例，我想学一下 hooks", NOW, [], "unrelated", "mixed"),
    ("p77", "Explain what a Kubernetes liveness probe is, with an example.", NOW_THU, [],
     "unrelated", "en"),
    ("p78", "帮我列一份周末家庭聚餐的购物清单，六个人", NOW, [], "unrelated", "zh"),
    ("p79", "user 表里有重复的邮箱，怎么用 SQL 找出来", NOW, [], "unrelated", "mixed"),
    ("p80", "帮我写个脚本把手机里的照片备份到移动硬盘，按年月建文件夹", NOW_THU, [], "unrelated",
     "zh"),
    ("p81", "Explain the difference between HTTP/2 and HTTP/3.", NOW, [], "unrelated", "en"),
    ("p82", "What does `git rebase -i` do?", NOW, [], "unrelated", "en"),
    ("p83", "帮我写一个计算个人所得税的 Python 函数", NOW_THU, [], "unrelated", "mixed"),
    ("p84", "生成 10 条测试用的假用户数据（姓名、邮箱、注册时间），输出成 CSV", NOW, [],
     "unrelated", "zh"),
]


def build() -> dict:
    memories = [
        {"id": mid, "content": content, "created_at": created, "tags": tags,
         "location": "general", "type": mtype}
        for mid, created, mtype, tags, content in MEMORIES
    ]
    queries = [
        {"id": qid, "query": text, "now": now, "relevant": rel, "kind": kind, "lang": lang}
        for qid, text, now, rel, kind, lang in QUERIES
    ]
    prompts = [
        {"id": pid, "prompt": text, "now": now, "relevant": rel, "kind": kind, "lang": lang}
        for pid, text, now, rel, kind, lang in PROMPTS
    ]
    return {"description": DESCRIPTION, "timezone": "Asia/Shanghai", "memories": memories,
            "queries": queries, "prompts": prompts}


def validate(data: dict) -> list[str]:
    errors: list[str] = []
    all_ids = [m["id"] for m in data["memories"]] + [q["id"] for q in data["queries"]] \
        + [p["id"] for p in data["prompts"]]
    for dup in sorted(i for i, n in Counter(all_ids).items() if n > 1):
        errors.append(f"duplicate id {dup}")
    memory_ids = {m["id"] for m in data["memories"]}
    lo, hi = datetime.fromisoformat("2026-01-01T00:00:00+08:00"), \
        datetime.fromisoformat("2026-12-01T23:59:59+08:00")
    for m in data["memories"]:
        if m["type"] not in TYPES:
            errors.append(f"{m['id']}: unknown type {m['type']}")
        if not lo <= datetime.fromisoformat(m["created_at"]) <= hi:
            errors.append(f"{m['id']}: created_at out of range")
    for section, kinds, empty_kinds in (("queries", QUERY_KINDS, {"unanswerable"}),
                                        ("prompts", PROMPT_KINDS, {"unrelated"})):
        for case in data[section]:
            cid, rel = case["id"], case["relevant"]
            if case["kind"] not in kinds:
                errors.append(f"{cid}: unknown kind {case['kind']}")
            if case["lang"] not in LANGS:
                errors.append(f"{cid}: unknown lang {case['lang']}")
            if (case["kind"] in empty_kinds) != (not rel):
                errors.append(f"{cid}: kind {case['kind']} with relevant {rel}")
            errors += [f"{cid}: unknown memory {r}" for r in rel if r not in memory_ids]
            if len(set(rel)) != len(rel):
                errors.append(f"{cid}: repeated relevant id")
            datetime.fromisoformat(case["now"])
            for m in data["memories"]:
                created = datetime.fromisoformat(m["created_at"])
                if m["id"] in rel and created > datetime.fromisoformat(case["now"]):
                    errors.append(f"{cid}: relevant {m['id']} created after now")
    return errors


def report(data: dict) -> None:
    mem = data["memories"]
    lengths = [len(m["content"]) for m in mem]
    by_day = Counter(m["created_at"][:10] for m in mem)
    print(f"memories: {len(mem)}; long (>=600 chars): {sum(n >= 600 for n in lengths)}; "
          f"short (<60 chars): {sum(n < 60 for n in lengths)}; "
          f"busiest day: {by_day.most_common(1)[0]}")
    print("memory types:", dict(sorted(Counter(m["type"] for m in mem).items())))
    for section in ("queries", "prompts"):
        cases = data[section]
        print(f"{section}: {len(cases)}")
        print("  by kind:", dict(sorted(Counter(c["kind"] for c in cases).items())))
        print("  by lang:", dict(sorted(Counter(c["lang"] for c in cases).items())))
        by_kind_lang = Counter((c["kind"], c["lang"]) for c in cases)
        print("  by kind x lang:", {f"{k}/{lang}": n
                                    for (k, lang), n in sorted(by_kind_lang.items())})


def main() -> int:
    data = build()
    errors = validate(data)
    if errors:
        print("\n".join(errors), file=sys.stderr)
        return 1
    OUT.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    report(data)
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
