#!/usr/bin/env python3
"""What the graph and per-agent roles cost on Postgres (embedded PostgreSQL 18).

    python scripts/bench_scopes.py

Prints store throughput with and without graph extraction (the graph tables are written
either way: wiki links), and keyword-search latency under the shared role and under an
agent's own role (its restrictive policies bind postings through their memory).
"""

import random
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import psycopg  # noqa: E402
from palace.backends.postgres.agents import add_agent  # noqa: E402
from palace.backends.postgres.embedded import EmbeddedPostgres  # noqa: E402
from palace.manager import MemoryPalaceManager  # noqa: E402
from palace.settings import Settings  # noqa: E402

N = 2000
words = "deploy release login database vector memory graph team agent search index cache 数据库 向量 记忆 团队".split()
server = EmbeddedPostgres().start()
try:
    name = "m_" + uuid.uuid4().hex[:8]
    url = server.create_database(name)
    with psycopg.connect(server.url, autocommit=True) as admin:
        admin.execute(f'ALTER ROLE "{name}" CREATEROLE')

    def open_pm(u, **kw):
        return MemoryPalaceManager(settings=Settings.from_env({}, backend="postgres", database_url=u,
                                   vector_enabled=False, workspace_dir=tempfile.mkdtemp(), **kw))
    for extract in (False, True):
        pm = open_pm(url, agent_id="alice", graph_extract=extract)
        t = time.perf_counter()
        for i in range(N // 2):
            text = " ".join(random.choice(words) for _ in range(12)) + f" [[Project{i % 50}]] item {i} {extract}"
            pm.store(text, extra={"scope": "agent:alice"} if i % 3 == 0 else None)
        print(f"store, graph_extract={extract}: {(N // 2) / (time.perf_counter() - t):.0f} memories/s")
        pm.close()
    agent, _ = add_agent(url, "alice")
    role_url = f"postgresql://{agent.role}:{agent.password}@127.0.0.1:{server.port}/{name}"
    for label, u in (("shared role", url), ("alice's own role", role_url)):
        pm = open_pm(u, agent_id="alice")
        times = []
        for _ in range(60):
            t = time.perf_counter()
            pm.search(" ".join(random.sample(words, 2)), record_access=False)
            times.append((time.perf_counter() - t) * 1000)
        times.sort()
        print(f"keyword search, {label}, {pm.count()} memories: p50 {statistics.median(times):.1f} ms, p95 {times[int(len(times) * .95)]:.1f} ms")
        pm.close()
finally:
    server.stop()
