"""orders-etl: a Python data pipeline (Airflow, pandas, dbt). The user (魏) writes Chinese
with English terms mixed in."""

from dsl import Commit, A, TH, U, Bash, Edit, Read, Session, Write

CWD = "/home/wei/projects/orders-etl"

E1 = Session("E1", "orders-etl", CWD, "fix/dag-timezone", "mixed", "2026-01-23 21:30", [
    U("orders_daily 这个 DAG 昨天的分区数据少了一大截，看起来像是把前一天的单子算进来了。帮我看下是不是 timezone 的问题"),
    Read(CWD + "/dags/orders_daily.py",
         "from datetime import datetime\nfrom airflow import DAG\n\nwith DAG(\n    dag_id=\"orders_daily\",\n"
         "    start_date=datetime(2025, 12, 1),\n    schedule=\"0 1 * * *\",\n    catchup=False,\n) as dag:\n"
         "    extract = extract_orders(partition=\"{{ ds }}\")\n"),
    Bash("airflow config get-value core default_timezone", "utc", "Airflow's default timezone"),
    A("是时区问题。DAG 的 `start_date` 是 naive datetime，Airflow 按默认时区 UTC 处理：`schedule=\"0 1 * * *\"` 实际是 UTC 01:00，也就是北京时间 09:00，"
      "而 `{{ ds }}` 是 UTC 的日期。订单表的 `created_at` 存的是北京时间，所以每天 00:00–08:00 的订单被算进了前一天的分区。"),
    U("改成北京时间，另外把 20 号到 22 号的数据补一下"),
    Edit(CWD + "/dags/orders_daily.py", "    start_date=datetime(2025, 12, 1),",
         "    start_date=pendulum.datetime(2025, 12, 1, tz=\"Asia/Shanghai\"),"),
    Bash("airflow dags test orders_daily 2026-01-22", "[2026-01-23T21:36:02.114+0800] {dagrun.py:854} INFO - Marking run <DagRun orders_daily @ 2026-01-22> successful",
         seconds=90),
    Bash("airflow dags backfill orders_daily -s 2026-01-20 -e 2026-01-22 --reset-dagruns -y",
         "[2026-01-23T21:52:40.003+0800] {backfill_job_runner.py:446} INFO - [backfill progress] | finished run 3 of 3 | tasks waiting: 0 | succeeded: 12",
         seconds=600),
    Bash("python tools/check_counts.py --from 2026-01-20 --to 2026-01-22",
         "2026-01-20 warehouse=51233 source=51233 ok\n2026-01-21 warehouse=49870 source=49870 ok\n2026-01-22 warehouse=50412 source=50412 ok"),
    A("搞定：\n- 原因：`start_date` 用了 naive datetime，整个 DAG 按 UTC 调度，`ds` 比北京时间晚 8 小时。\n"
      "- 修复：`start_date=pendulum.datetime(2025, 12, 1, tz=\"Asia/Shanghai\")`，schedule 仍是 `0 1 * * *`，现在是北京时间凌晨 1 点。\n"
      "- 补数：`airflow dags backfill orders_daily -s 2026-01-20 -e 2026-01-22 --reset-dagruns -y`，三天的分区行数已经和业务库对上。\n"
      "- TODO：另外两个 DAG（`refunds_daily`、`users_snapshot`）也是 naive start_date，这次还没改。"),
])

E2 = Session("E2", "orders-etl", CWD, "feat/validation", "zh", "2026-02-26 15:40", [
    U("产品小刘说 GMV 报表偶尔出现负数。给 orders 入仓之前加一层数据校验吧，你看用 great_expectations 还是 pandera？"),
    A("我倾向 pandera：我们的转换都是 pandas DataFrame，pandera 的 schema 就是 Python 代码，直接写在 `transform.py` 旁边，单测里也能复用；"
      "great_expectations 要维护 context、checkpoint、data docs 一整套配置，对我们这个规模太重了。"),
    U("好 用 pandera"),
    Bash("pip install 'pandera[pandas]==0.20.4' && echo 'pandera[pandas]==0.20.4' >> requirements.txt", "Successfully installed pandera-0.20.4 typeguard-4.3.0",
         seconds=12),
    Write(CWD + "/etl/schemas.py",
          "import pandera as pa\n\nOrders = pa.DataFrameSchema({\n    \"order_id\": pa.Column(str, unique=True),\n"
          "    \"amount\": pa.Column(float, pa.Check.ge(0)),\n    \"currency\": pa.Column(str, pa.Check.isin([\"CNY\", \"USD\", \"HKD\"])),\n"
          "    \"created_at\": pa.Column(\"datetime64[ns, Asia/Shanghai]\"),\n})\n"),
    Bash("python -m etl.run --date 2026-02-25 --dry-run",
         "pandera.errors.SchemaError: Column 'amount' failed element-wise validator number 0: greater_than_or_equal_to(0) failure cases: "
         "-128.0, -59.9, -12.0, ... (37 failure cases)", error=True, seconds=40),
    A("25 号的数据里有 37 行 amount 是负数。查了一下全是 `order_type='refund'`：上游把退款当成负金额的订单写进了 orders 表，这就是 GMV 出现负数的原因。"),
    U("退款别混在订单里，单独放"),
    A("好：`transform.py` 里按 `order_type` 拆分，退款写到 `dw.refunds`（金额取绝对值，保留 `refund_of` 原订单号），orders 的 schema 保持 `amount >= 0`。"),
    Edit(CWD + "/etl/transform.py", "    orders = Orders.validate(df)",
         "    refunds = df[df.order_type == \"refund\"].assign(amount=lambda d: d.amount.abs())\n"
         "    orders = Orders.validate(df[df.order_type != \"refund\"])\n    write_refunds(refunds)"),
    Bash("python -m etl.run --date 2026-02-25 --dry-run", "validated orders: 48213 rows\nrefunds: 37 rows -> dw.refunds\nOK", seconds=40),
    A("完成：\n- pandera 校验 orders：`amount >= 0`，`currency` 属于 CNY/USD/HKD，`order_id` 唯一。\n"
      "- GMV 负数的原因：退款以负金额混在 orders 里；现在拆到了 `dw.refunds`。\n- 需要通知小刘：GMV 报表口径变了（不再扣减退款）。"),
])

E3 = Session("E3", "orders-etl", CWD, "feat/duckdb-local", "mixed", "2026-04-02 19:20", [
    U("本地跑全量 transform 一直 OOM，16G 的笔记本扛不住 pandas。能不能换个方式？"),
    A("瓶颈在 `aggregate_daily`：它一次把 3 个月的 parquet 全读进 pandas。我建议这一步换成 DuckDB，直接对 MinIO 上的 parquet 跑 SQL，"
      "DuckDB 是流式执行的，不需要把数据全部装进内存。其他步骤先不动。"),
    U("可以 试试"),
    Bash("pip install duckdb==1.1.3", "Successfully installed duckdb-1.1.3", seconds=8),
    Write(CWD + "/etl/aggregate_duckdb.py",
          "import duckdb\n\ndef aggregate_daily(src: str, dst: str) -> None:\n    con = duckdb.connect()\n"
          "    con.execute(\"INSTALL httpfs; LOAD httpfs; SET s3_endpoint='localhost:9000'; SET s3_use_ssl=false\")\n"
          "    con.execute(f\"COPY (SELECT dt, merchant_id, sum(amount) AS gmv, count(*) AS orders FROM read_parquet('{src}/*/*.parquet') \"\n"
          "                f\"GROUP BY ALL) TO '{dst}' (FORMAT parquet)\")\n"),
    Bash("python -m etl.run --step aggregate_daily --engine duckdb --from 2026-01-01 --to 2026-03-31",
         "duckdb.duckdb.OutOfMemoryException: Out of Memory Error: could not allocate block of size 256.0 KiB (12.7 GiB/12.7 GiB used)",
         error=True, seconds=200),
    A("DuckDB 默认最多用 80% 的内存，笔记本上还开着别的东西。设 `SET memory_limit='8GB'`，再给它一个临时目录 `SET temp_directory='/tmp/duckdb_spill'`，"
      "超出的部分会落盘，不会 OOM。"),
    Edit(CWD + "/etl/aggregate_duckdb.py", "    con = duckdb.connect()",
         "    con = duckdb.connect()\n    con.execute(\"SET memory_limit='8GB'; SET temp_directory='/tmp/duckdb_spill'\")"),
    Bash("/usr/bin/time -v python -m etl.run --step aggregate_daily --engine duckdb --from 2026-01-01 --to 2026-03-31 2>&1 | egrep 'Elapsed|Maximum resident'",
         "\tElapsed (wall clock) time (h:mm:ss or m:ss): 4:12.33\n\tMaximum resident set size (kbytes): 8283140", seconds=260),
    U("跟原来 pandas 的结果对得上吗"),
    Bash("python tools/compare.py out/pandas/aggregate_daily out/duckdb/aggregate_daily",
         "rows: 2144019 vs 2144019\nexact mismatches: 312 (max abs diff 3.1e-07, column gmv)"),
    A("行数一致；312 行 GMV 有 1e-6 以内的差异，是浮点求和顺序不同造成的。金额改成 `DECIMAL(18,2)` 计算以后两边完全一致。"),
    Edit(CWD + "/etl/aggregate_duckdb.py", "sum(amount) AS gmv", "sum(amount::DECIMAL(18,2)) AS gmv"),
    A("小结：`aggregate_daily` 本地改用 DuckDB（`memory_limit='8GB'`，spill 到 `/tmp/duckdb_spill`），全量 4 分钟跑完，峰值内存 7.9GB。"
      "金额统一用 DECIMAL(18,2)。生产环境（Airflow worker）暂时还是 pandas，观察一周再决定要不要切。"),
])

E4 = Session("E4", "orders-etl", CWD, "fix/fct-orders-dupes", "zh", "2026-05-13 14:00", [
    U("小刘说 GMV 看板上 5 月 10 号的数字翻倍了。dbt 的 fct_orders 是 incremental 模型，帮我查一下"),
    Read(CWD + "/dbt/models/marts/fct_orders.sql",
         "{{ config(materialized='incremental') }}\n\nselect * from {{ ref('stg_orders') }}\n{% if is_incremental() %}\n"
         "where updated_at > (select max(updated_at) from {{ this }})\n{% endif %}\n"),
    Bash("dbt show --inline \"select order_id, count(*) n from {{ ref('fct_orders') }} group by 1 having count(*) > 1\" --limit 3",
         "| order_id       | n |\n| -------------- | - |\n| O2026051000012 | 2 |\n| O2026051000019 | 2 |\n| O2026051000031 | 2 |", seconds=15),
    A("原因找到了：`fct_orders` 是 incremental，但 config 里没有 `unique_key`，dbt 只会 append。5 月 10 号上游批量更新了一遍 `updated_at`（补发票字段），"
      "这些订单被增量又插入了一次，所以出现了重复，GMV 翻倍。"),
    Edit(CWD + "/dbt/models/marts/fct_orders.sql", "{{ config(materialized='incremental') }}",
         "{{ config(materialized='incremental', unique_key='order_id', incremental_strategy='merge') }}"),
    Bash("dbt run --select fct_orders --full-refresh", "1 of 1 OK created sql incremental model marts.fct_orders ..... [MERGE 9,812,044 in 211.40s]",
         seconds=220),
    Write(CWD + "/dbt/models/marts/fct_orders.yml",
          "version: 2\nmodels:\n  - name: fct_orders\n    columns:\n      - name: order_id\n        tests: [unique, not_null]\n"),
    Bash("dbt test --select fct_orders", "1 of 2 PASS unique_fct_orders_order_id\n2 of 2 PASS not_null_fct_orders_order_id\nDone. PASS=2 WARN=0 ERROR=0", seconds=30),
    U("好 我跟小刘说一下"),
    A("修复：`unique_key='order_id'` + `incremental_strategy='merge'`，并用 `--full-refresh` 重建了 fct_orders，GMV 看板 5 月 10 号恢复正常。"
      "加了 `unique` 和 `not_null` 测试。\n\n教训：下次改增量模型后先跑 `dbt test` 再通知下游。"),
])

E5 = Session("E5", "orders-etl", CWD, "fix/small-files", "mixed", "2026-06-17 10:00", [
    U("帮我看下为什么 pipeline 昨晚跑了 3 个多小时，平时 40 分钟就完了"),
    Bash("airflow tasks states-for-dag-run orders_daily scheduled__2026-06-16T17:00:00+00:00 --output table | sort -k4 | tail -3",
         "transform_orders  | success | 0:06:12\nload_warehouse    | success | 0:04:40\nextract_events    | success | 2:51:10", seconds=6),
    Bash("aws --endpoint-url $S3_ENDPOINT s3 ls s3://dl-raw/events/dt=2026-06-16/ --recursive --summarize | tail -2",
         "Total Objects: 208331\n   Total Size: 6.1 GiB", seconds=40),
    A("慢在 `extract_events`：6 月 16 号的 events 目录有 20.8 万个小文件（平均 30KB）。埋点 SDK 升级以后从每 5 分钟 flush 一次变成了每条事件一个文件。"
      "我们的 extract 是逐个文件 GET，20 多万次请求就要将近 3 个小时。"),
    U("先让 pipeline 恢复正常，埋点那边我去找前端"),
    A("短期方案：在 extract 前面加一个 `compact_events` 任务，用 DuckDB 把小文件按小时合并成 parquet（`COPY ... TO ... (FORMAT parquet)`），"
      "extract 的并发从 8 调到 32；再加一个 `--max-files-per-task 500` 参数，文件数超过就拆成多个 task。"),
    Write(CWD + "/etl/compact_events.py",
          "import duckdb\n\ndef compact(day: str) -> None:\n    con = duckdb.connect()\n    for hour in range(24):\n"
          "        con.execute(f\"COPY (SELECT * FROM read_json_auto('s3://dl-raw/events/dt={day}/hour={hour:02d}/*.json')) \"\n"
          "                    f\"TO 's3://dl-raw/events_compact/dt={day}/hour={hour:02d}.parquet' (FORMAT parquet)\")\n"),
    Bash("python -m etl.compact_events --day 2026-06-16", "compacted 208331 files into 24 parquet files in 6m40s", seconds=400),
    Bash("airflow dags test orders_daily 2026-06-16 2>&1 | grep -E 'Marking run|took'", "INFO - Marking run <DagRun orders_daily @ 2026-06-16> successful (took 0:52:07)",
         seconds=600),
    A("原因：埋点 SDK 改成了一条事件一个文件，6/16 有 208,331 个小文件，extract 逐个 GET 太慢。\n"
      "修复：新增 `compact_events` 任务按小时合并成 parquet，extract 并发 32，`--max-files-per-task 500`。重跑总耗时 52 分钟。\n"
      "TODO：让前端把 SDK 的 flush 间隔改回 5 分钟（魏去沟通）。"),
])

E6 = Session("E6", "orders-etl", CWD, "feat/pii-masking", "zh", "2026-07-15 16:10", [
    U("法务要求数仓里不能有明文的手机号和身份证号。帮我在 ETL 里加脱敏。"),
    TH("Phone: mask but keep it checkable. ID number: keyed hash so joins still work."),
    A("建议分两种处理：\n- 手机号做掩码，保留前 3 位和后 4 位（`138****5678`），客服查询时还能核对；\n"
      "- 身份证号不需要展示，做 HMAC-SHA256（带盐），这样还能 join 和去重，但没法还原。\n"
      "盐放在 Vault，路径 `secret/etl/pii-salt`，不要写进代码，也不要放 Airflow Variable。"),
    U("好，历史数据也要处理"),
    Write(CWD + "/etl/pii.py",
          "import hashlib\nimport hmac\nimport re\n\nPHONE = re.compile(r\"^1\\d{10}$\")\n\ndef mask_phone(p: str) -> str:\n"
          "    return p[:3] + \"****\" + p[-4:] if PHONE.match(p) else p\n\ndef hash_id(value: str, salt: bytes) -> str:\n"
          "    return hmac.new(salt, value.upper().encode(), hashlib.sha256).hexdigest()\n"),
    Bash("pytest tests/test_pii.py -q",
         "F...\nFAILED tests/test_pii.py::test_mask_phone_with_country_code - AssertionError: assert '+86 13800001234' == '138****1234'\n1 failed, 3 passed",
         error=True, seconds=5),
    A("带 `+86` 和空格的手机号没匹配上。先规范化（去掉空格、横线和 +86 前缀）再掩码。"),
    Edit(CWD + "/etl/pii.py", "def mask_phone(p: str) -> str:\n",
         "def mask_phone(p: str) -> str:\n    p = re.sub(r\"[\\s-]\", \"\", p).removeprefix(\"+86\")\n"),
    Bash("pytest tests/test_pii.py -q", "....\n4 passed in 0.09s", seconds=5),
    Bash("python -m etl.backfill_pii --table dw.customers --batch-size 50000", "processed 3204117 rows in 21m08s", seconds=600),
    A("脱敏完成（法务的要求）：\n- 手机号掩码 `138****5678`，先规范化 +86/空格；\n- 身份证号 HMAC-SHA256，盐在 Vault `secret/etl/pii-salt`；\n"
      "- 历史数据 `dw.customers` 3,204,117 行已回刷。"),
])

E7 = Session("E7", "orders-etl", CWD, "test/faster-fixtures", "mixed", "2026-08-26 18:20", [
    U("ETL 的 pytest 现在要跑 14 分钟，太慢了，大家都不想跑。帮我看看"),
    Bash("pytest --durations=5 -q 2>&1 | tail -7",
         "slowest 5 durations\n4.21s setup    tests/test_load.py::test_copy_orders\n4.18s setup    tests/test_upsert.py::test_upsert_orders\n"
         "4.11s setup    tests/test_transform.py::test_refund_split\n...\n180 passed in 838.41s (0:13:58)", seconds=840),
    A("时间主要花在 fixture 上：`pg` fixture 是 function 级别的，每个测试都用 testcontainers 起一个新的 Postgres 容器（约 4 秒），180 个测试就是 12 分钟。"),
    A("改法：容器改成 session 级别只起一个，每个测试在一个事务里跑、结束时 rollback，保证隔离。少数需要真正 commit 的测试（测 `COPY` 的那几个）"
      "单独用一个 `pg_fresh_schema` fixture，给它建临时 schema，用完删掉。"),
    Edit(CWD + "/tests/conftest.py", "@pytest.fixture\ndef pg():\n    with PostgresContainer(\"postgres:16\") as c:",
         "@pytest.fixture(scope=\"session\")\ndef pg_container():\n    with PostgresContainer(\"postgres:16\") as c:"),
    Bash("pytest -q 2>&1 | tail -3",
         "FAILED tests/test_upsert.py::test_upsert_orders - AssertionError: 3 rows, expected 2\n"
         "FAILED tests/test_upsert.py::test_upsert_conflict - AssertionError: 5 rows, expected 4\n2 failed, 178 passed in 201.77s", error=True, seconds=205),
    A("这两个测试内部调用了 `conn.commit()`，rollback 撤不回，数据漏到了别的测试里。改为用 `pg_fresh_schema`。"),
    Edit(CWD + "/tests/test_upsert.py", "def test_upsert_orders(pg):", "def test_upsert_orders(pg_fresh_schema):"),
    Bash("pytest -q -n 4 2>&1 | tail -1", "180 passed in 178.02s (0:02:58)", seconds=180),
    A("ETL 测试从 14 分钟降到 3 分钟：\n- Postgres 容器改为 session 级（testcontainers），每个测试在事务里跑、结束 rollback；\n"
      "- 需要 commit 的测试用 `pg_fresh_schema`；\n- 开了 `pytest -n 4`（pytest-xdist，每个 worker 一个容器）。"),
])

E8 = Session("E8", "orders-etl", CWD, "chore/airflow-3", "zh", "2026-10-14 20:00", [
    U("平台组通知月底 Airflow 集群升级到 3.0，我们的 DAG 要先适配。帮我过一遍"),
    Bash("ruff check dags/ --select AIR3 --output-format concise",
         "dags/orders_daily.py:12:5: AIR301 `schedule_interval` is removed in Airflow 3.0\n"
         "dags/refunds_daily.py:3:1: AIR302 `airflow.operators.python_operator.PythonOperator` is moved into `standard` provider in Airflow 3.0\n"
         "dags/users_snapshot.py:20:21: AIR301 `execution_date` is removed in Airflow 3.0\nFound 14 errors.", seconds=3),
    A("主要三类：`schedule_interval` 参数改为 `schedule`；模板和代码里的 `execution_date` 去掉了，改用 `logical_date`；老的 import 路径 "
      "`airflow.operators.python_operator` 要换成 `airflow.providers.standard.operators.python`。一共 14 处，6 个 DAG。"),
    Edit(CWD + "/dags/refunds_daily.py", "from airflow.operators.python_operator import PythonOperator",
         "from airflow.providers.standard.operators.python import PythonOperator"),
    Bash("ruff check dags/ --select AIR3", "All checks passed!", seconds=3),
    Bash("for d in $(airflow dags list -o plain | awk 'NR>1{print $1}'); do airflow dags test $d 2026-10-13 >/tmp/$d.log 2>&1 || echo FAIL $d; done",
         "FAIL refunds_daily", "Run every DAG once on staging", error=True, seconds=600),
    Bash("grep -m1 -B2 KeyError /tmp/refunds_daily.log",
         "  File \"/opt/airflow/dags/refunds_daily.py\", line 41, in notify_failure\n    day = context[\"execution_date\"]\nKeyError: 'execution_date'"),
    A("`refunds_daily` 的 `on_failure_callback` 里用了 `context[\"execution_date\"]`，ruff 查不到（是动态取 key）。改成 `context[\"logical_date\"]`。"),
    Edit(CWD + "/dags/refunds_daily.py", "    day = context[\"execution_date\"]", "    day = context[\"logical_date\"]"),
    U("顺便把 1 月份那个 TODO 也做了吧，另外两个 DAG 的 start_date 时区"),
    Edit(CWD + "/dags/users_snapshot.py", "    start_date=datetime(2025, 11, 1),", "    start_date=pendulum.datetime(2025, 11, 1, tz=\"Asia/Shanghai\"),"),
    Edit(CWD + "/dags/refunds_daily.py", "    start_date=datetime(2025, 12, 1),", "    start_date=pendulum.datetime(2025, 12, 1, tz=\"Asia/Shanghai\"),"),
    Bash("for d in orders_daily refunds_daily users_snapshot; do airflow dags test $d 2026-10-13 >/dev/null 2>&1 && echo ok $d; done",
         "ok orders_daily\nok refunds_daily\nok users_snapshot", seconds=300),
    A("Airflow 3 适配完成：6 个 DAG，`schedule_interval`→`schedule`，`execution_date`→`logical_date`，import 路径更新到 standard provider。\n"
      "1 月份留下的 TODO 也做了：`refunds_daily` 和 `users_snapshot` 的 start_date 改成了 Asia/Shanghai。\n\n"
      "教训：下次升级前先在 staging 对每个 DAG 跑一遍 `airflow dags test`，静态检查抓不到 callback 里的 context key。"),
])

# the closing commit of the sessions that ended with one
E1.steps += Commit('zh', 'dags: orders_daily in Asia/Shanghai', E1.branch, 1)
E3.steps += Commit('zh', 'aggregate_daily on DuckDB locally', E3.branch, 0)
E5.steps += Commit('zh', 'compact small event files before extract', E5.branch, 1)
E6.steps += Commit('zh', 'pii: mask phone numbers, HMAC id numbers', E6.branch, 2)
E7.steps += Commit('zh', 'tests: one Postgres container per session', E7.branch, 0)
E8.steps += Commit('zh', 'Airflow 3 compatibility', E8.branch, 3)

SESSIONS = [E1, E2, E3, E4, E5, E6, E7, E8]
