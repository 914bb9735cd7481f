"""paygate: a Go payment service. The user (林浩) writes Chinese, sometimes mixed."""

from dsl import Commit, A, TH, U, Bash, Command, Compact, Edit, Grep, Read, Session, Todo, Write

CWD = "/home/linhao/code/paygate"

P1 = Session("P1", "paygate", CWD, "fix/webhook-signature", "zh", "2026-01-08 10:12", [
    U("渠道那边的支付回调一直报 signature mismatch，本地用 curl 重放也一样。帮我查一下 internal/webhook 下面的签名校验。"),
    TH("Start with the handler and whatever middleware runs before it."),
    Grep("X-Pay-Signature",
         "internal/webhook/handler.go:41:\tsig := r.Header.Get(\"X-Pay-Signature\")\n"
         "internal/middleware/audit.go:27:\t\t// keep X-Pay-Signature in the audit log", path="internal"),
    Read(CWD + "/internal/middleware/audit.go",
         "package middleware\n\nimport (\n\t\"io\"\n\t\"net/http\"\n)\n\nfunc Audit(next http.Handler) http.Handler {\n"
         "\treturn http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {\n"
         "\t\tbody, _ := io.ReadAll(r.Body)\n\t\tauditLog.Record(r, body)\n"
         "\t\t// keep X-Pay-Signature in the audit log\n\t\tnext.ServeHTTP(w, r)\n\t})\n}\n"),
    A("找到原因了：`audit` 中间件用 `io.ReadAll(r.Body)` 把请求体读完之后没有放回去，handler 再读 `r.Body` 拿到的是空字节，"
      "所以算出来的 HMAC 永远对不上。不是密钥的问题，curl 重放也会一样失败。"),
    U("那怎么改比较好？别在每个 handler 里都复制一遍"),
    A("建议在中间件里读完后用 `io.NopCloser(bytes.NewReader(body))` 放回 `r.Body`，同时把原始字节存进 context（key 是 `rawBodyKey`），"
      "签名校验统一从 context 取原始报文。这样 handler 不用改，也保证校验用的是没被解析过的原始 body。"),
    Edit(CWD + "/internal/middleware/audit.go",
         "\t\tbody, _ := io.ReadAll(r.Body)\n\t\tauditLog.Record(r, body)",
         "\t\tbody, err := io.ReadAll(r.Body)\n\t\tif err != nil {\n\t\t\thttp.Error(w, \"bad body\", http.StatusBadRequest)\n\t\t\treturn\n\t\t}\n"
         "\t\tr.Body = io.NopCloser(bytes.NewReader(body))\n\t\tr = r.WithContext(context.WithValue(r.Context(), rawBodyKey, body))\n"
         "\t\tauditLog.Record(r, body)"),
    Edit(CWD + "/internal/webhook/verify.go",
         "\tbody, _ := io.ReadAll(r.Body)",
         "\tbody := middleware.RawBody(r.Context())"),
    Bash("go test ./internal/webhook/... ./internal/middleware/...",
         "ok  \tpaygate/internal/webhook\t0.412s\nok  \tpaygate/internal/middleware\t0.108s",
         "Run the webhook and middleware tests", seconds=9),
    A("改好了：\n- 原因：audit 中间件消费了 request body，签名校验读到的是空 body。\n"
      "- 修复：中间件读完把 body 放回去，并把原始字节放进 context；`VerifySignature` 从 context 取。\n"
      "- 签名算法保持 HMAC-SHA256，header 还是 `X-Pay-Signature`，密钥从环境变量 `PAY_WEBHOOK_SECRET` 读取。\n"
      "- 加了回归测试 `TestWebhookSignatureAfterAudit`。\n\n经验：中间件里不要直接消费 body，真要读就必须放回去。"),
    U("好的 thanks"),
    A("不客气，有问题再叫我。"),
], summary="支付回调签名校验失败：audit 中间件吃掉了 body")

P2 = Session("P2", "paygate", CWD, "feat/rate-cache-ttl", "zh", "2026-01-23 07:40", [
    U("财务王姐反馈汇率更新太慢，客户看到的价格和实时汇率差了好几分钟。把汇率缓存的 TTL 调短一点。"),
    Grep("RATE_CACHE_TTL",
         "config/config.go:58:\tRateCacheTTL time.Duration `env:\"RATE_CACHE_TTL\" envDefault:\"10m\"`\n"
         "deploy/values-prod.yaml:33:    RATE_CACHE_TTL: \"10m\"\ndeploy/values-staging.yaml:31:    RATE_CACHE_TTL: \"10m\""),
    A("现在汇率缓存在 Redis 里，TTL 是 10 分钟（`RATE_CACHE_TTL=10m`）。上游汇率接口每 60 秒更新一次，限流是每分钟 100 次。"
      "我建议改成 90 秒：比上游刷新周期略长，缓存命中率还能保持，价格最多滞后一分半。"
      "如果改到 30 秒以下，6 个副本加起来会接近上游的限流。"),
    U("行，就 90 秒。prod 和 staging 都改"),
    Edit(CWD + "/config/config.go", "envDefault:\"10m\"`", "envDefault:\"90s\"`"),
    Edit(CWD + "/deploy/values-prod.yaml", "    RATE_CACHE_TTL: \"10m\"", "    RATE_CACHE_TTL: \"90s\""),
    Edit(CWD + "/deploy/values-staging.yaml", "    RATE_CACHE_TTL: \"10m\"", "    RATE_CACHE_TTL: \"90s\""),
    Bash("go test ./internal/rates/...",
         "--- FAIL: TestRateCacheExpiry (0.00s)\n    cache_test.go:44: expiry = 1m30s, want 10m0s\nFAIL\nFAIL\tpaygate/internal/rates\t0.231s",
         "Run the rates tests", error=True, seconds=6),
    A("有个测试把 10 分钟写死了，我改成读取配置的默认值。"),
    Edit(CWD + "/internal/rates/cache_test.go", "\twant := 10 * time.Minute", "\twant := config.Default().RateCacheTTL"),
    Bash("go test ./internal/rates/...", "ok  \tpaygate/internal/rates\t0.219s", seconds=6),
    A("完成：汇率缓存 TTL 从 10 分钟改为 90 秒（`RATE_CACHE_TTL=90s`），prod 和 staging 的 values 都已更新，"
      "`TestRateCacheExpiry` 改为读取默认配置。需求是财务王姐提的。\n\n"
      "提醒：上线后看一下 Redis 里 `rates:*` 的命中率，低于 80% 再重新评估。"),
])

P3 = Session("P3", "paygate", CWD, "fix/flaky-refund-test", "mixed", "2026-02-12 16:20", [
    U("帮我看下这个 flaky 的 test：TestRefundConcurrent，CI 上大概十次挂一次，本地跑不出来"),
    Bash("go test -race -count=50 -run TestRefundConcurrent ./internal/refund/...",
         "==================\nWARNING: DATA RACE\nWrite at 0x00c0001a4f08 by goroutine 23:\n  paygate/internal/clock.Set()\n"
         "      internal/clock/clock.go:19 +0x44\nPrevious read at 0x00c0001a4f08 by goroutine 31:\n"
         "  paygate/internal/refund.(*Service).expired()\n      internal/refund/service.go:88 +0x3c\n==================\n"
         "--- FAIL: TestRefundConcurrent/partial (0.01s)\n    testing.go:1398: race detected during execution of test\nFAIL",
         "Run the flaky test 50 times with the race detector", error=True, seconds=40),
    A("`-race -count=50` 一跑就复现了：测试里用了 `t.Parallel()`，而退款服务读的是包级别的全局变量 `clock.Now`，"
      "几个并行的子测试分别用 `clock.Set(...)` 改时间，互相覆盖，于是退款是否过期的判断就乱了。CI 机器核多、并行度高，所以更容易撞上。"),
    U("那把 t.Parallel 去掉？"),
    A("去掉能止血，但根子在全局时钟。我建议把 clock 作为依赖注入：`refund.NewService(db, clock)`，测试里每个 case 用自己的 "
      "`clocktest.NewFake(t0)`。改动只在 refund 包和它的构造函数调用处（3 处）。"),
    U("ok 按你说的来"),
    Edit(CWD + "/internal/refund/service.go",
         "func NewService(db *sql.DB) *Service {\n\treturn &Service{db: db}\n}",
         "func NewService(db *sql.DB, clk clock.Clock) *Service {\n\treturn &Service{db: db, clock: clk}\n}"),
    Edit(CWD + "/internal/refund/service_test.go",
         "\tclock.Set(t0)\n\tsvc := NewService(db)",
         "\tsvc := NewService(db, clocktest.NewFake(t0))"),
    Edit(CWD + "/cmd/paygate/main.go", "refund.NewService(db)", "refund.NewService(db, clock.System())"),
    Bash("go vet ./... && go test -race -count=200 -run TestRefundConcurrent ./internal/refund/...",
         "ok  \tpaygate/internal/refund\t41.207s", seconds=50),
    A("修好了。\n- 原因：并行测试共享全局 `clock`，数据竞争导致退款过期判断错乱。\n"
      "- 修复：clock 注入到 `refund.Service`，每个测试用自己的 fake clock。\n"
      "- 验证：`go test -race -count=200 -run TestRefundConcurrent ./internal/refund/...` 全部通过。\n\n"
      "TODO：`internal/payout` 也在用全局 clock，这次没动。"),
])

P4 = Session("P4", "paygate", CWD, "chore/k8s-metrics-port", "zh", "2026-03-18 10:05", [
    U("部署到新集群以后 pod 一直 CrashLoopBackOff，日志里是 listen tcp :9090: bind: address already in use"),
    Bash("kubectl -n payments logs deploy/paygate --previous | tail -3",
         "{\"level\":\"info\",\"msg\":\"starting api\",\"addr\":\":8080\"}\n"
         "{\"level\":\"fatal\",\"msg\":\"metrics server\",\"error\":\"listen tcp :9090: bind: address already in use\"}",
         "Logs of the crashed container"),
    Bash("kubectl -n payments get pod -l app=paygate -o jsonpath='{.items[0].spec.containers[*].name}'",
         "paygate otel-agent", "Containers in the pod"),
    Bash("kubectl -n payments exec deploy/paygate -c otel-agent -- netstat -tlnp",
         "Proto Local Address   State   PID/Program name\ntcp   0.0.0.0:4317    LISTEN  1/otelcol\n"
         "tcp   0.0.0.0:9090    LISTEN  1/otelcol", "Ports the sidecar listens on"),
    A("新集群会自动往 pod 里注入一个 `otel-agent` sidecar，它在 9090 上监听（Prometheus receiver）。"
      "同一个 pod 里的容器共享网络命名空间，所以 paygate 自己的 metrics server 在 9090 上 bind 失败，进程退出。"),
    U("那我们换端口吧，别和平台组抢"),
    A("好，把 paygate 的 metrics 端口改成 9102（平台组文档里 9100-9199 是留给业务 exporter 的）。要改三处："
      "`METRICS_ADDR` 默认值、Deployment 的 containerPort、ServiceMonitor 的 targetPort。"),
    Edit(CWD + "/config/config.go", "env:\"METRICS_ADDR\" envDefault:\":9090\"", "env:\"METRICS_ADDR\" envDefault:\":9102\""),
    Edit(CWD + "/deploy/chart/templates/deployment.yaml", "            - name: metrics\n              containerPort: 9090",
         "            - name: metrics\n              containerPort: 9102"),
    Edit(CWD + "/deploy/chart/templates/servicemonitor.yaml", "      targetPort: 9090", "      targetPort: 9102"),
    Bash("helm upgrade paygate deploy/chart -n payments -f deploy/values-prod.yaml && kubectl -n payments rollout status deploy/paygate",
         "Release \"paygate\" has been upgraded. Happy Helming!\nREVISION: 31\ndeployment \"paygate\" successfully rolled out",
         "Deploy", seconds=70),
    A("已修复：metrics server 从 9090 挪到了 9102（`METRICS_ADDR=:9102`），原因是新集群注入的 otel-agent sidecar 占了 9090。"
      "Deployment 和 ServiceMonitor 已同步，Prometheus 里的 target 已经是 UP。\n\n经验：上新集群之前先看一下平台会注入哪些 sidecar、占哪些端口。"),
])

P5 = Session("P5", "paygate", CWD, "feat/reconciliation", "zh", "2026-04-16 09:50", [
    U("老周要一个每日对账 job：拉支付宝和微信的对账单，跟我们库里的 payments 对，差异落表。"),
    A("对账流程我这样设计：\n1. 每天北京时间 02:30 跑（CronJob 设 `timeZone: Asia/Shanghai`），下载 T-1 的对账单；微信账单有时上午才出，09:30 再补跑一次。\n"
      "2. 按 `channel_trade_no` 和 `payments` 比对，分三类差异：我方有渠道无（missing_channel）、渠道有我方无（missing_local）、金额不一致（amount_mismatch）。\n"
      "3. 差异写入新表 `recon_diffs`，带渠道、日期和两边的原始金额。"),
    Todo(("Download and parse Alipay and WeChat bills", "in_progress"), ("Compare with payments and write recon_diffs", "pending"),
         ("CronJob at 02:30 and 09:30", "pending")),
    Write(CWD + "/internal/recon/wechat.go",
          "package recon\n\n// ParseWechatBill reads the WeChat Pay CSV bill.\nfunc ParseWechatBill(r io.Reader) ([]Entry, error) {\n"
          "\tcr := csv.NewReader(r)\n\t// ...\n}\n"),
    Bash("go run ./cmd/recon --date 2026-04-15 --dry-run",
         "recon: parse wechat bill line 2: strconv.ParseFloat: parsing \"`0.01\": invalid syntax\nexit status 1",
         "Dry run for yesterday", error=True, seconds=12),
    A("微信对账单的每个字段前面都带了一个反引号（`` ` ``），是为了防止 Excel 把长数字变成科学计数法。解析时统一 `strings.TrimPrefix(field, \"`\")`。"),
    Edit(CWD + "/internal/recon/wechat.go", "\t\tfields = rec", "\t\tfor i := range rec {\n\t\t\trec[i] = strings.TrimPrefix(rec[i], \"`\")\n\t\t}\n\t\tfields = rec"),
    Bash("go run ./cmd/recon --date 2026-04-15 --dry-run",
         "alipay: 18402 rows\nwechat: 9977 rows\ndiffs: 3 (missing_local=2, amount_mismatch=1)", seconds=14),
    U("3 条差异是什么"),
    Bash("psql \"$RECON_DSN\" -c \"select kind, channel_trade_no, local_amount, channel_amount, channel_time from recon_diffs_dryrun\"",
         "      kind       | channel_trade_no | local_amount | channel_amount |     channel_time\n"
         "-----------------+------------------+--------------+----------------+---------------------\n"
         " missing_local   | 4200001987...    |              |          88.00 | 2026-04-15 23:59:58\n"
         " missing_local   | 2026041522001... |              |          12.50 | 2026-04-15 23:59:59\n"
         " amount_mismatch | 4200001990...    |        60.00 |          45.00 | 2026-04-15 18:20:11"),
    A("2 条 missing_local 都是 23:59:58 左右下的单，我们这边记录的时间是 00:00:01 之后（回调晚到），跨天落到了 16 号；"
      "1 条金额不一致是一笔部分退款，渠道账单记的是退款后的净额。跨天的问题我把比对窗口前后各放宽 5 分钟，部分退款按净额比对。"),
    Edit(CWD + "/internal/recon/compare.go", "const window = 0", "const window = 5 * time.Minute"),
    A("对账 job 完成：\n- CronJob `30 2 * * *` 和 `30 9 * * *`（Asia/Shanghai），差异写入 `recon_diffs`。\n"
      "- 微信账单字段的反引号已处理；比对窗口前后放宽 5 分钟；部分退款按净额比对。\n- TODO：差异告警发到飞书群还没接。"),
])

P6 = Session("P6", "paygate", CWD, "feat/idempotency", "mixed", "2026-05-27 15:10", [
    U("下单接口 POST /v1/orders 要支持 Idempotency-Key。客户端超时重试会重复下单，上周就有两起。key 存 Redis 还是 Postgres？"),
    TH("Trade-off: Redis is fast but evicts; Postgres can share the order's transaction."),
    A("我建议用 Postgres：新表 `idempotency_keys(merchant_id, key, request_hash, response, created_at)`，`(merchant_id, key)` 唯一约束，"
      "在下单的同一个事务里插入。理由：\n- Redis 有淘汰策略（我们配的是 `allkeys-lru`），内存紧张时 key 可能被淘汰，幂等就失效了；\n"
      "- 和订单在同一事务里，不会出现订单写成功但 key 没写上的情况。\n代价是每次下单多一次写，下单峰值 QPS 才 300 左右，可以接受。"),
    U("行，key 保留多久？"),
    A("24 小时，和 Stripe 的做法一致；每天凌晨一个清理 job 删掉过期 key。同一个 key 但请求体 hash 不同，返回 422 `idempotency_key_reused`；"
      "同一个 key 的请求还在处理中时，返回 409。"),
    Write(CWD + "/migrations/0042_idempotency_keys.sql",
          "CREATE TABLE idempotency_keys (\n  merchant_id  bigint NOT NULL,\n  key          text   NOT NULL,\n  request_hash bytea  NOT NULL,\n"
          "  response     jsonb,\n  created_at   timestamptz NOT NULL DEFAULT now(),\n  PRIMARY KEY (merchant_id, key)\n);\n"),
    Edit(CWD + "/internal/orders/handler.go", "\ttx, err := h.db.BeginTx(ctx, nil)",
         "\ttx, err := h.db.BeginTx(ctx, nil)\n\tif key := r.Header.Get(\"Idempotency-Key\"); key != \"\" {\n\t\tif resp, done, err := h.idem.Claim(ctx, tx, merchantID, key, hash); done || err != nil {\n\t\t\treturn writeIdem(w, resp, err)\n\t\t}\n\t}"),
    Bash("go test ./internal/orders/...",
         "--- FAIL: TestCreateOrderIdempotent (0.03s)\n    handler_test.go:57: pq: relation \"idempotency_keys\" does not exist\nFAIL",
         error=True, seconds=8),
    A("测试库还没跑新的 migration，先 `make migrate-test`。"),
    Bash("make migrate-test && go test ./internal/orders/...",
         "applied 0042_idempotency_keys.sql\nok  \tpaygate/internal/orders\t1.844s", seconds=15),
    A("完成：\n- `Idempotency-Key` 存 Postgres（`idempotency_keys` 表，`(merchant_id, key)` 唯一，和订单同一事务写入），保留 24 小时。\n"
      "- 同 key 不同请求体返回 422，处理中返回 409。\n- 没选 Redis 是因为 `allkeys-lru` 淘汰可能丢 key，幂等就不可靠了。"),
], summary="POST /v1/orders 支持 Idempotency-Key（Postgres）")

P7 = Session("P7", "paygate", CWD, "chore/db-pool", "zh", "2026-06-24 17:30", [
    U("DBA 说 Postgres 连接数经常打满（max_connections=200），paygate 一个 pod 就能开 100 个连接。调一下连接池"),
    Grep("MaxOpenConns|MaxIdleConns|ConnMaxLifetime",
         "internal/db/db.go:22:\tdb.SetMaxOpenConns(cfg.MaxOpenConns)\ninternal/db/db.go:23:\tdb.SetMaxIdleConns(cfg.MaxIdleConns)\n"
         "config/config.go:71:\tMaxOpenConns int `env:\"DB_MAX_OPEN_CONNS\" envDefault:\"100\"`\n"
         "config/config.go:72:\tMaxIdleConns int `env:\"DB_MAX_IDLE_CONNS\" envDefault:\"50\"`"),
    Bash("kubectl -n payments get deploy paygate -o jsonpath='{.spec.replicas}'", "5", "Replica count"),
    A("5 个副本 × 100 = 500，远超 200，再加上对账 job 和 DBA 的管理连接。建议每个 pod `DB_MAX_OPEN_CONNS=30`、`DB_MAX_IDLE_CONNS=10`、"
      "`DB_CONN_MAX_LIFETIME=30m`：5×30=150，给对账和运维留 50。之前压测时单个 pod 峰值同时在用的连接不到 20，30 够用。"),
    U("要不要直接上 pgbouncer？"),
    A("长期看应该上 pgbouncer（transaction 模式），但 transaction 模式下不能用 session 级的 prepared statement，我们用的 pgx 默认会缓存 prepared statement，"
      "需要改 `default_query_exec_mode`，改动面比较大。建议先调连接池参数，pgbouncer 单独排期。"),
    U("ok 先调参数，pgbouncer 记个 TODO"),
    Edit(CWD + "/deploy/values-prod.yaml", "    DB_MAX_OPEN_CONNS: \"100\"",
         "    DB_MAX_OPEN_CONNS: \"30\"\n    DB_MAX_IDLE_CONNS: \"10\"\n    DB_CONN_MAX_LIFETIME: \"30m\""),
    Todo(("Tune paygate DB pool (30/10/30m)", "completed"), ("Evaluate pgbouncer in transaction mode (pgx prepared statements)", "pending")),
    Bash("helm upgrade paygate deploy/chart -n payments -f deploy/values-prod.yaml >/dev/null && sleep 120 && "
         "psql \"$PG_ADMIN\" -Atc \"select count(*) from pg_stat_activity where application_name='paygate'\"",
         "92", "Deploy and count connections", seconds=135),
    A("连接池已调整：`DB_MAX_OPEN_CONNS=30`、`DB_MAX_IDLE_CONNS=10`、`DB_CONN_MAX_LIFETIME=30m`，上线后 paygate 总连接数 92。\n"
      "TODO：pgbouncer（transaction 模式，需要先处理 pgx 的 prepared statement），还没排期。"),
])

P8 = Session("P8", "paygate", CWD, "hotfix/double-charge", "zh", "2026-07-22 13:05", [
    U("线上出事故了：有用户反馈被扣了两次款。先帮我查 payments 表里同一个 order 有两条 succeeded 的记录"),
    Bash("psql \"$PG_RO\" -c \"select order_id, count(*) from payments where status='succeeded' and created_at > now() - interval '24 hours' "
         "group by order_id having count(*) > 1\" | tail -3",
         " O2026072211873 |     2\n O2026072212040 |     2\n(17 rows)", "Orders with two succeeded payments"),
    A("过去 24 小时有 17 个订单各有两条 succeeded 的支付记录。我拿其中一笔看回调日志。"),
    Bash("kubectl -n payments logs -l app=paygate --since=24h | grep O2026072211873",
         "11:42:07.118 callback received channel=wechat order=O2026072211873\n"
         "11:42:10.120 callback timeout after 3s order=O2026072211873 -> 500\n"
         "11:42:10.311 callback received channel=wechat order=O2026072211873\n"
         "11:42:10.902 payment succeeded order=O2026072211873 id=pay_8812\n"
         "11:42:11.034 payment succeeded order=O2026072211873 id=pay_8813", "Callback log of one order"),
    A("时间线（订单 O2026072211873）：渠道第一次回调进来，我们的处理超过 3 秒（当时有 DB 慢查询），超时返回了 500，渠道就重发了回调；"
      "第二次回调进来时第一次的事务还没提交，两次都查到状态是 pending，于是各自插入了一条 succeeded 支付，并各自触发了扣款确认。"),
    Compact("1. 用户报告重复扣款。2. 查到 24 小时内 17 个订单有两条 succeeded 支付。3. 日志显示渠道回调超时重发，两个回调并发处理。"),
    U("幂等 key 不是 5 月就加过了吗？"),
    A("5 月加的 `Idempotency-Key` 只覆盖客户端调用的下单接口 `POST /v1/orders`。渠道回调 `/callbacks/*` 没有走那套逻辑，"
      "回调是先查状态再写，典型的 check-then-act 竞态。"),
    U("怎么修"),
    A("两层：\n1. 回调处理里先 `SELECT ... FROM payments WHERE order_id = $1 FOR UPDATE` 锁住订单的行，在同一事务里判断状态再写入；"
      "第二个回调会等第一个提交，看到 succeeded 后直接返回成功。\n2. 在 `payments(order_id) WHERE status = 'succeeded'` 上加部分唯一索引兜底。\n"
      "另外回调处理的超时从 3s 调到 10s（`CALLBACK_TIMEOUT`）：渠道那边等 15s，我们先超时返回 500，渠道才会重发。"),
    Edit(CWD + "/internal/callback/handle.go", "\tp, err := s.payments.ByOrder(ctx, tx, orderID)",
         "\tp, err := s.payments.ByOrderForUpdate(ctx, tx, orderID) // SELECT ... FOR UPDATE"),
    Write(CWD + "/migrations/0051_uniq_payments_order_succeeded.sql",
          "CREATE UNIQUE INDEX CONCURRENTLY uniq_payments_order_succeeded\n  ON payments (order_id) WHERE status = 'succeeded';\n"),
    Bash("go test -race ./internal/callback/...", "ok  \tpaygate/internal/callback\t3.912s", seconds=20),
    Bash("make migrate-prod",
         "applying 0051_uniq_payments_order_succeeded.sql\nERROR:  could not create unique index \"uniq_payments_order_succeeded\"\n"
         "DETAIL:  Key (order_id)=(O2026072211873) is duplicated.", error=True, seconds=10),
    A("唯一索引建不上，因为那 17 笔重复数据还在。先把每组里后一条标成 `status='duplicate'` 并发起原路退款，再重建索引"
      "（失败的 CONCURRENTLY 会留下一个 invalid 索引，要先 drop）。"),
    Bash("psql \"$PG_ADMIN\" -f ops/2026-07-22-mark-duplicates.sql && psql \"$PG_ADMIN\" -c 'DROP INDEX IF EXISTS uniq_payments_order_succeeded' && make migrate-prod",
         "UPDATE 17\nDROP INDEX\napplying 0051_uniq_payments_order_succeeded.sql\nok", seconds=25),
    A("事故处理总结：\n- 原因：渠道回调重试 + 我们回调处理超过 3s 超时，两个回调并发 check-then-act，写了两条 succeeded。\n"
      "- 修复：回调里 `SELECT ... FOR UPDATE`；部分唯一索引 `uniq_payments_order_succeeded`；`CALLBACK_TIMEOUT` 从 3s 调到 10s。\n"
      "- 17 笔重复扣款已标记 duplicate 并原路退款（财务王姐确认过）。\n- TODO：复盘文档周五前写完。"),
])

P9 = Session("P9", "paygate", CWD, "feat/stripe", "mixed", "2026-09-09 11:00", [
    U("海外商户要接 Stripe。先做 PaymentIntent 创建和 webhook，用官方的 stripe-go。"),
    Bash("go get github.com/stripe/stripe-go/v82", "go: added github.com/stripe/stripe-go/v82 v82.1.0", seconds=6),
    Write(CWD + "/internal/channel/stripe/client.go",
          "package stripe\n\n// CreateIntent creates a PaymentIntent for an order.\nfunc (c *Client) CreateIntent(ctx context.Context, o Order) (string, error) {\n"
          "\tparams := &stripe.PaymentIntentParams{Amount: stripe.Int64(toMinor(o.Amount, o.Currency)), Currency: stripe.String(o.Currency)}\n"
          "\t// ...\n}\n"),
    Write(CWD + "/internal/channel/stripe/webhook.go",
          "package stripe\n\nfunc (h *Webhook) ServeHTTP(w http.ResponseWriter, r *http.Request) {\n"
          "\tevent, err := webhook.ConstructEvent(middleware.RawBody(r.Context()), r.Header.Get(\"Stripe-Signature\"), h.secret)\n\t// ...\n}\n"),
    A("Stripe 的 webhook 用 `Stripe-Signature` header 校验，secret 放环境变量 `STRIPE_WEBHOOK_SECRET`，从 k8s secret `paygate-stripe` 注入。"
      "注意：和 1 月那次签名问题一样，校验必须用原始 body，所以这里取的是中间件放进 context 的 raw body。"),
    Bash("go test ./internal/channel/stripe/...",
         "--- FAIL: TestCreateIntentJPY (0.00s)\n    client_test.go:38: amount = 150000, want 1500\nFAIL", error=True, seconds=7),
    A("金额换算的 bug：我们内部统一用最小货币单位，代码里把所有币种都乘了 100。但 JPY、KRW 这些是 zero-decimal currency，"
      "Stripe 要的金额就是 1500 日元本身。我加了一个 zero-decimal 币种表（JPY、KRW、VND、CLP 等），这些币种不乘 100。"),
    Edit(CWD + "/internal/channel/stripe/amount.go", "\treturn amount.Mul(100).IntPart()",
         "\tif zeroDecimal[currency] {\n\t\treturn amount.IntPart()\n\t}\n\treturn amount.Mul(100).IntPart()"),
    Bash("go test ./internal/channel/stripe/...", "ok  \tpaygate/internal/channel/stripe\t0.377s", seconds=7),
    U("ok, 退款先不做"),
    A("Stripe 接入第一步完成：PaymentIntent 创建 + webhook（`STRIPE_WEBHOOK_SECRET`，用原始 body 校验签名）。"
      "修了 zero-decimal 币种（JPY/KRW/VND…）金额被乘 100 的 bug。TODO：退款和争议（dispute）的 webhook 还没做。"),
])

P10 = Session("P10", "paygate", CWD, "release/v2.8.0", "zh", "2026-12-01 19:30", [
    U("今天发了 v2.8.0，发完以后退款接口全是 500，日志里是 column \"refund_reason\" does not exist"),
    Bash("kubectl -n payments logs deploy/paygate --since=30m | grep -m2 refund_reason",
         "ERROR: column \"refund_reason\" of relation \"refunds\" does not exist (SQLSTATE 42703)\n"
         "ERROR: column \"refund_reason\" of relation \"refunds\" does not exist (SQLSTATE 42703)", "Find the error"),
    Bash("grep -B2 -A3 'helm.sh/hook' deploy/chart/templates/migrate-job.yaml",
         "  annotations:\n    \"helm.sh/hook\": post-upgrade\n    \"helm.sh/hook-delete-policy\": before-hook-creation", "How migrations run"),
    A("原因：migration job 在 helm chart 里是 `post-upgrade` hook，新版本的 pod 先起来接了流量，migration（`0057_add_refund_reason`）还没跑，"
      "新代码就去写 `refund_reason` 列了。而且这次 migrate job 因为镜像拉取慢还卡在 Pending。"),
    U("先止血"),
    A("这个 migration 只是加一个可空列，对旧代码也兼容，可以直接手动跑。"),
    Bash("kubectl -n payments exec deploy/paygate -- /app/paygate migrate up",
         "applied 0057_add_refund_reason (12ms)", "Run the migration by hand", seconds=8),
    Bash("curl -s -o /dev/null -w '%{http_code}' -X POST https://api.internal/paygate/v1/refunds/healthcheck", "200"),
    A("已恢复。退款接口 500 从 19:12 持续到 19:41，大约 29 分钟。"),
    U("以后怎么避免"),
    A("把 migration job 改成 `pre-upgrade` hook（`helm.sh/hook: pre-upgrade`，`hook-weight: \"-5\"`）：migration 失败时 helm 直接中止升级，"
      "不会把新 pod 放出去。前提是 migration 必须向后兼容（先加列、后删列），让旧代码在 migration 之后也能跑。"),
    Edit(CWD + "/deploy/chart/templates/migrate-job.yaml", "    \"helm.sh/hook\": post-upgrade",
         "    \"helm.sh/hook\": pre-upgrade\n    \"helm.sh/hook-weight\": \"-5\""),
    Bash("helm template deploy/chart | grep -A1 'helm.sh/hook\"'", "    \"helm.sh/hook\": pre-upgrade\n    \"helm.sh/hook-weight\": \"-5\""),
    A("v2.8.0 事故总结：\n- 原因：migration 是 post-upgrade hook，新代码先于 `0057_add_refund_reason` 上线。\n"
      "- 影响：退款接口 500 约 29 分钟（19:12–19:41）。\n- 修复：手动执行 migration；chart 里 migration 改为 `pre-upgrade` hook。\n"
      "- 教训：下次发版先跑 migration 再发新代码，migration 必须向后兼容。\n- TODO：把这一条加进发版 checklist，周三跟老周过一下。"),
    Command("/cost", "Total cost: $1.84\nTotal duration (API): 6m 12s"),
])

# the closing commit of the sessions that ended with one
P2.steps += Commit('zh', 'rates: exchange-rate cache TTL 10m -> 90s', P2.branch, 0)
P4.steps += Commit('zh', 'metrics: move the metrics server to :9102', P4.branch, 2)
P6.steps += Commit('zh', 'orders: Idempotency-Key stored in Postgres', P6.branch, 2)
P7.steps += Commit('zh', 'db: pool 30/10/30m per pod', P7.branch, 0)
P9.steps += Commit('zh', 'stripe: PaymentIntent + webhook, zero-decimal currencies', P9.branch, 1)
P10.steps += Commit('zh', 'chart: run migrations as a pre-upgrade hook', P10.branch, 3)

SESSIONS = [P1, P2, P3, P4, P5, P6, P7, P8, P9, P10]
