"""The questions of the held-out session set. Sessions are named by key (P1 = paygate's
first session, D = ops-dashboard, E = orders-etl, R = logslice, W = wiki-migration);
build.py writes questions.json with the session ids."""

DESCRIPTION = (
    "Held-out evaluation of search over captured coding-agent sessions, written 2026-12-03 by a helper "
    "session, blind: its author read none of palace's ranking code or rules (only "
    "palace/capture/transcripts.py, to learn which transcript fields `palace ingest` reads), not "
    "docs/search-quality.md, not the other sets under scripts/data, and never ran palace search on this "
    "data. 43 invented Claude Code sessions (Claude Code's JSONL transcript format, projects/<slug>/<session "
    "id>.jsonl) over five projects: paygate (a Go payment service; Chinese, some mixed), ops-dashboard "
    "(React; English), orders-etl (a Python data pipeline; Chinese mixed with English terms), logslice (a "
    "Rust CLI; English), wiki-migration (Confluence to MkDocs; mostly Chinese, three English sessions), "
    "2026-01-08 .. 2026-12-01, several on the same local day (2026-01-23 has three; the first starts at "
    "07:40 in Shanghai, still 2026-01-22 in UTC). `queries`: a user asking the agent about past work; "
    "`relevant` names the answering turn by session id and a substring that occurs exactly in a user "
    "prompt or an assistant text block of that session (never only in a tool result or thinking); a "
    "query may have several relevant turns (temporal and multi kinds): every one counts. Unanswerable "
    "queries have relevant []: their topic was never discussed, or it was but not the detail asked "
    "(near misses). `prompts`: the way a user starts a new task; `related` ones have an earlier session "
    "the agent should be reminded of, `unrelated` ones have nothing stored that helps, several sharing a "
    "generic word (test, deploy, cache, 数据, Go, Rust) with stored sessions. Every `now` is "
    "2026-12-02 local time, after every session; relative dates (上周, last month, 昨天) are meant in "
    "Asia/Shanghai. check.py validates the files and prints the counts."
)

NOW = "2026-12-02T{}+08:00"


def q(id, query, kind, lang, *relevant, at="10:00:00"):
    return {"id": id, "query": query, "now": NOW.format(at), "kind": kind, "lang": lang,
            "relevant": [{"session": s, "contains": c} for s, c in relevant]}


def p(id, prompt, kind, lang, *relevant, at="09:30:00"):
    return {"id": id, "prompt": prompt, "now": NOW.format(at), "kind": kind, "lang": lang,
            "relevant": [{"session": s, "contains": c} for s, c in relevant]}


QUERIES = [
    # keyword: the query shares the rare words of the answer
    q("s01", "webhook 签名校验失败是什么原因？", "keyword", "zh", ("P1", "拿到的是空字节")),
    q("s02", "RATE_CACHE_TTL 现在设的是多少？", "keyword", "zh", ("P2", "汇率缓存 TTL 从 10 分钟改为 90 秒")),
    q("s03", "openssl-sys error in the musl release build", "keyword", "en", ("R3", "removes the OpenSSL dependency entirely")),
    q("s04", "what did we set map_hash_bucket_size to?", "keyword", "en", ("W6", "map_hash_bucket_size 256")),
    q("s05", "pandera 校验发现了多少行负数？", "keyword", "zh", ("E2", "37 行 amount 是负数")),
    q("s06", "which localStorage key stores the theme?", "keyword", "en", ("D3", "The choice is saved in localStorage under")),
    q("s07", "DuckDB 的 memory_limit 设的多少？", "keyword", "zh", ("E3", "SET memory_limit='8GB'")),
    q("s08", "new-incident-view rollout percentage in Unleash", "keyword", "en", ("D7", "with a gradual rollout at 10%, sticky on userId")),
    q("s09", "STRIPE_WEBHOOK_SECRET 是从哪里注入的？", "keyword", "zh", ("P9", "从 k8s secret")),
    q("s10", "what is the crates.io package name of logslice?", "keyword", "en", ("R8", "installs a binary called")),
    q("s11", "CDN_PURGE_TOKEN 多久过期？", "keyword", "zh", ("W8", "这个 token 有效期 90 天")),
    # paraphrase: the same language as the session, other words
    q("s12", "退款那个偶尔失败的并发测试最后是怎么解决的？", "paraphrase", "zh", ("P3", "每个测试用自己的 fake clock")),
    q("s13", "why did the browser tab freeze with tons of token requests?", "paraphrase", "en", ("D4", "which calls refresh again: an infinite loop")),
    q("s14", "how did we make scrolling the huge incident list smooth?", "paraphrase", "en", ("D5", "Incident table virtualized with @tanstack/react-virtual")),
    q("s15", "为什么 GMV 看板 5 月份有一天的数字是平时的两倍？", "paraphrase", "zh", ("E4", "dbt 只会 append")),
    q("s16", "what made the log tool fast on multi-gigabyte files?", "paraphrase", "en", ("R2", "That parses about 30 timestamps instead of 31 million")),
    q("s17", "客户被扣两次钱那次事故的根因是什么？", "paraphrase", "zh", ("P8", "两次都查到状态是 pending")),
    q("s18", "how did we shrink the dashboard's download size?", "paraphrase", "en", ("D8", "Initial bundle 2.1 MB → 780 kB")),
    q("s19", "数据库连接老是被占满那次，连接池最后怎么配的？", "paraphrase", "zh", ("P7", "DB_MAX_OPEN_CONNS=30")),
    q("s20", "what broke follow mode after the nightly log rotation?", "paraphrase", "en", ("R7", "We were watching the file itself")),
    q("s21", "ETL 单测太慢的问题后来怎么提速的？", "paraphrase", "zh", ("E7", "ETL 测试从 14 分钟降到 3 分钟")),
    q("s22", "how do the old Confluence links keep working after the shutdown?", "paraphrase", "en", ("W6", "3,684 map entries generated from id_map.csv")),
    q("s23", "有一晚 pipeline 跑了三个多小时，是什么原因？", "paraphrase", "mixed", ("E5", "埋点 SDK 升级以后从每 5 分钟 flush 一次变成了每条事件一个文件")),
    # concept: the question names the idea, not the words
    q("s24", "幂等 key 为什么不放 Redis？", "concept", "zh", ("P6", "Redis 有淘汰策略")),
    q("s25", "what's our stance on retries for flaky tests in CI?", "concept", "en", ("D2", "The retries are what hid this for weeks")),
    q("s26", "wiki 文档过期怎么治理？", "concept", "zh", ("W7", "CI 缺字段失败，过期只告警")),
    q("s27", "which decisions did we take to avoid paying for a SaaS plan or a storage quota?", "concept", "en",
      ("D7", "LaunchDarkly prices per seat"), ("W3", "Git LFS：公司 GitLab 的 LFS 配额每个项目 2GB")),
    q("s28", "what did we decide about handling CRLF line endings?", "concept", "en", ("R6", "I'm deliberately not normalising line endings inside logslice")),
    # crosslingual: the question's language is not the session's
    q("s29", "which port did we move the metrics server to?", "crosslingual", "en", ("P4", "把 paygate 的 metrics 端口改成 9102")),
    q("s30", "上次 flaky 的登录测试是怎么修的？", "crosslingual", "mixed", ("D2", "the test fills the form and clicks before React has hydrated")),
    q("s31", "why were the payment callback signatures not matching?", "crosslingual", "en", ("P1", "所以算出来的 HMAC 永远对不上")),
    q("s32", "logslice 的 --since 支持哪些时间格式？", "crosslingual", "zh", ("R1", "or a relative duration parsed by")),
    q("s33", "where do we store the wiki's attachments?", "crosslingual", "en", ("W3", "决定：S3 + CDN，不用 Git LFS")),
    q("s34", "图表库为什么选了 Recharts？", "crosslingual", "zh", ("D1", "the team already used it on the billing app")),
    q("s35", "wiki 中文搜索搜不到是怎么解决的？", "crosslingual", "zh", ("W4", "Material segments Chinese with jieba")),
    q("s36", "how do we mask phone numbers and ID numbers in the warehouse?", "crosslingual", "en", ("E6", "手机号做掩码，保留前 3 位和后 4 位")),
    q("s37", "React 19 升级的时候拖拽库换成了什么？", "crosslingual", "zh", ("D6", "which is maintained and supports keyboard dragging")),
    q("s38", "why did the wiki login keep redirecting in a loop?", "crosslingual", "en", ("W5", "secure cookie 在 http 下不会被回传")),
    q("s39", "why did the GMV report show negative numbers?", "crosslingual", "en", ("E2", "上游把退款当成负金额的订单写进了 orders 表")),
    # temporal: the date is the main clue (local dates, Asia/Shanghai)
    q("s40", "1月23号那天都改了哪些东西？", "temporal", "zh",
      ("P2", "汇率缓存 TTL 从 10 分钟改为 90 秒"), ("D2", "Summary: the flaky login e2e test is fixed."),
      ("E1", "用了 naive datetime，整个 DAG 按 UTC 调度")),
    q("s41", "what did I decide about the cache last week?", "temporal", "en", ("W8", "缓存策略定了：HTML 5 分钟")),
    q("s42", "昨天发版出了什么问题？", "temporal", "zh", ("P10", "新版本的 pod 先起来接了流量")),
    q("s43", "What did we work on in the dashboard last month?", "temporal", "en", ("D9", "i18n scaffolding done: react-i18next")),
    q("s44", "4月16号做了什么？", "temporal", "zh", ("P5", "对账 job 完成"), ("W3", "决定：S3 + CDN，不用 Git LFS")),
    q("s45", "what did I do on logslice in early March?", "temporal", "en", ("R2", "4 GB file: 38.2 s → 1.19 s")),
    q("s46", "7月中旬数据仓库那边做了什么改动？", "temporal", "zh", ("E6", "脱敏完成（法务的要求）")),
    q("s47", "what happened on July 22?", "temporal", "en", ("P8", "事故处理总结")),
    # multi: the answer is spread over several sessions
    q("s48", "every change we made to the wiki's nginx config", "multi", "en",
      ("W5", "SSO 接好了"), ("W6", "301 to the new wiki"),
      ("W8", "HTML 5 分钟，并在发布时按改动页面刷新 CDN")),
    q("s49", "哪些地方用到了 DuckDB？", "multi", "zh", ("E3", "本地改用 DuckDB"), ("E5", "用 DuckDB 把小文件按小时合并成 parquet")),
    q("s50", "汇率缓存和 wiki 的 CDN 缓存分别是怎么配置的？", "multi", "zh",
      ("P2", "汇率缓存 TTL 从 10 分钟改为 90 秒"), ("W8", "缓存策略定了：HTML 5 分钟")),
    q("s51", "what problems did logslice's CI pipelines have?", "multi", "en",
      ("R3", "The musl builds fail in"), ("R6", "git on the Windows runner checks the fixtures out with CRLF")),
    q("s52", "1 月份 DAG 时区问题留下的 TODO 后来做了吗？", "multi", "zh",
      ("E1", "也是 naive start_date，这次还没改"), ("E8", "1 月份留下的 TODO 也做了")),
    q("s53", "what lessons did we write down about deploys, upgrades and migrations?", "multi", "en",
      ("P10", "下次发版先跑 migration 再发新代码"), ("E8", "下次升级前先在 staging 对每个 DAG 跑一遍"),
      ("P4", "上新集群之前先看一下平台会注入哪些 sidecar")),
    q("s54", "跟 Priya 有关的事情有哪些？", "multi", "zh",
      ("W2", "ask Priya whether the HR space will be migrated"), ("W6", "Priya hasn't confirmed HR yet")),
    q("s55", "which bugs came from timezones or timestamp formats?", "multi", "en",
      ("E1", "是时区问题"), ("R4", "requires a colon in the offset")),
    # unanswerable: never discussed, or discussed without the detail asked
    q("u01", "Stripe webhook 的重试次数设置的是多少？", "unanswerable", "zh"),
    q("u02", "Which port does the Unleash server listen on?", "unanswerable", "en"),
    q("u03", "DuckDB 的 threads 参数设成了多少？", "unanswerable", "zh"),
    q("u04", "Did we add shell completions to logslice?", "unanswerable", "en"),
    q("u05", "wiki 迁移一共花了多少钱？", "unanswerable", "zh"),
    q("u06", "Did we ever set up Sentry error tracking for the dashboard?", "unanswerable", "en"),
    q("u07", "What's the Kafka topic for order events?", "unanswerable", "en"),
    q("u08", "pgbouncer 部署在哪个 namespace？", "unanswerable", "zh"),
    q("u09", "Did we publish a Homebrew formula for logslice?", "unanswerable", "en"),
    q("u10", "哪天把 Go 版本升级到 1.24 的？", "unanswerable", "zh"),
    q("u11", "How many images were broken after the wiki migration?", "unanswerable", "en"),
    q("u12", "Redis 集群用了几个分片？", "unanswerable", "zh"),
    q("u13", "What did we set client_max_body_size to in the wiki's nginx?", "unanswerable", "en"),
    q("u14", "How long is the session cookie valid on the dashboard?", "unanswerable", "en"),
    q("u15", "wiki 的主题配色用的是什么颜色？", "unanswerable", "zh"),
    q("u16", "What's the p99 latency alert threshold for the payment service?", "unanswerable", "en"),
    q("u17", "微信支付退款接口的超时时间是多少？", "unanswerable", "zh"),
    q("u18", "Did we use Terraform to create the MinIO bucket?", "unanswerable", "en"),
    q("u19", "数据脱敏用的盐多久轮换一次？", "unanswerable", "zh"),
    q("u20", "上周 ETL pipeline 有什么改动？", "unanswerable", "mixed"),
    q("u21", "What did I change in logslice in November?", "unanswerable", "en"),
    q("u22", "Who asked for the feature flag on the incident view?", "unanswerable", "en"),
    q("u23", "dbt snapshot 是怎么配置的？", "unanswerable", "zh"),
    q("u24", "Which MSVC toolchain version does the Windows CI use?", "unanswerable", "en"),
    q("u25", "对账差异告警在飞书里是发给谁的？", "unanswerable", "zh"),
    q("u26", "What was the root cause of the outage on November 10?", "unanswerable", "en"),
]

PROMPTS = [
    # related: an earlier session holds what the agent should be reminded of
    p("r01", "帮我给退款接口也加上幂等校验，客户端超时会重试", "related", "zh", ("P6", "没选 Redis 是因为")),
    p("r02", "Add an error-rate chart per service to the service detail page", "related", "en", ("D1", "Decision: Recharts over ECharts")),
    p("r03", "The login e2e test is failing again in CI, can you take a look?", "related", "en",
      ("D2", "the test fills the form and clicks before React has hydrated")),
    p("r04", "新写一个 Airflow DAG，每天凌晨把退款数据同步到数仓", "related", "zh",
      ("E1", "用了 naive datetime，整个 DAG 按 UTC 调度"), ("E8", "Airflow 3 适配完成")),
    p("r05", "Let's cut a new logslice release, 1.1.0", "related", "en",
      ("R8", "1.0.0 on crates.io; the command is still"), ("R3", "The release workflow works")),
    p("r06", "准备发 paygate v2.9.0，帮我过一遍发版步骤", "related", "zh", ("P10", "下次发版先跑 migration 再发新代码")),
    p("r07", "The charts still look wrong in dark mode, let's finally fix that", "related", "en", ("D3", "Open TODO: chart colours in dark mode")),
    p("r08", "帮我把 Stripe 的退款 webhook 接上", "related", "zh", ("P9", "TODO：退款和争议（dispute）的 webhook 还没做")),
    p("r09", "Add a page describing the on-call process to the wiki", "related", "en", ("W7", "CI 缺字段失败，过期只告警")),
    p("r10", "ETL 里加一个按商户汇总三个月 GMV 的 pandas 步骤", "related", "zh", ("E3", "一次把 3 个月的 parquet 全读进 pandas")),
    p("r11", "logslice should support reading gzip-compressed logs", "related", "en",
      ("R2", "stdin can't be memory-mapped, so it falls back to the streaming path")),
    p("r12", "paygate 要加一个连 Postgres 只读副本的连接池", "related", "zh", ("P7", "5 个副本 × 100 = 500，远超 200")),
    p("r13", "Rewrite the kanban drag and drop tests", "related", "en", ("D6", "rewrite the 3 kanban drag-and-drop tests for dnd-kit")),
    p("r14", "有人说 wiki 改了以后看到的还是旧内容", "related", "zh", ("W8", "缓存策略定了：HTML 5 分钟")),
    p("r15", "Add the customer's phone number column to the orders export", "related", "en", ("E6", "手机号做掩码，保留前 3 位和后 4 位")),
    p("r16", "HR 空间的文档也要迁过来了，帮我跑一下转换", "related", "zh",
      ("W2", "140 point into the HR space"), ("W6", "HR and FIN aren't migrated")),
    p("r17", "Add a --format csv option to logslice", "related", "en", ("R5", "instead of leaving the key out, so every object has the same keys")),
    p("r18", "新接一个银联的支付回调", "related", "zh",
      ("P1", "中间件里不要直接消费 body"), ("P8", "锁住订单的行，在同一事务里判断状态再写入")),
    p("r19", "Set up a k8s deployment for the new paygate-admin service in the new cluster", "related", "en",
      ("P4", "新集群会自动往 pod 里注入一个")),
    p("r20", "dashboard 的日期要按中文格式显示", "related", "zh", ("D9", "date and number formats still use en-US")),
    p("r21", "Add an incremental dbt model for refunds", "related", "en", ("E4", "下次改增量模型后先跑")),
    p("r22", "帮我写个脚本把 FIN 空间的附件也传到 S3", "related", "zh", ("W3", "prod bucket 需要平台组加一条策略")),
    p("r23", "The ETL test suite is getting slow again, 10 minutes now", "related", "en", ("E7", "Postgres 容器改为 session 级")),
    p("r24", "Make logslice --follow work with several files at once", "related", "en", ("R7", "watch the parent directory instead")),
    p("r25", "orders_daily 又少数据了，帮我看下", "related", "mixed", ("E1", "所以每天 00:00–08:00 的订单被算进了前一天的分区")),
    p("r26", "Add KRW as a currency to the Stripe checkout", "related", "en", ("P9", "JPY、KRW 这些是 zero-decimal currency")),
    # unrelated: nothing stored helps; several share a generic word with stored sessions
    p("n01", "Write a Python script that converts a folder of PDFs to PNG images", "unrelated", "en"),
    p("n02", "帮我写一个 Kotlin 的 Android 登录页面", "unrelated", "zh"),
    p("n03", "Explain the difference between TCP and UDP", "unrelated", "en"),
    p("n04", "部署一个 WordPress 博客到我的 VPS 上", "unrelated", "zh"),
    p("n05", "Write unit tests for a JavaScript function that validates email addresses", "unrelated", "en"),
    p("n06", "帮我分析一下这份销售数据 Excel 里的季度趋势", "unrelated", "zh"),
    p("n07", "Set up a Django project with Celery and RabbitMQ", "unrelated", "en"),
    p("n08", "写一个 Shell 脚本每天备份 MySQL 数据库", "unrelated", "zh"),
    p("n09", "How do I center a div in CSS?", "unrelated", "en"),
    p("n10", "用 Go 写一个简单的 TCP 聊天室", "unrelated", "zh"),
    p("n11", "Deploy a static Next.js site to Vercel", "unrelated", "en"),
    p("n12", "帮我把这段 Java 代码改写成 Python", "unrelated", "zh"),
    p("n13", "Create a GitHub Actions workflow that lints a Terraform repo", "unrelated", "en"),
    p("n14", "测试一下这个正则表达式能不能匹配邮箱地址", "unrelated", "zh"),
    p("n15", "Write a cache decorator in Python with LRU eviction", "unrelated", "en"),
    p("n16", "给我推荐几本机器学习入门的书", "unrelated", "zh"),
    p("n17", "Build a Swift iOS widget that shows the weather", "unrelated", "en"),
    p("n18", "数据结构里红黑树和 AVL 树有什么区别？", "unrelated", "zh"),
    p("n19", "Write a random password generator in Rust", "unrelated", "en"),
    p("n20", "帮我写一封请假邮件，下周三请一天假", "unrelated", "zh"),
    p("n21", "Set up ESLint and Prettier in a new Vue 3 project", "unrelated", "en"),
    p("n22", "用 pandas 读一个 CSV 然后画柱状图", "unrelated", "zh"),
    p("n23", "Write a Dockerfile for a Node.js Express app", "unrelated", "en"),
    p("n24", "Unity 游戏里角色跳跃的代码怎么写？", "unrelated", "zh"),
    p("n25", "帮我 review 一下这个 Python PR，主要看 exception handling 写得对不对", "unrelated", "mixed"),
]
