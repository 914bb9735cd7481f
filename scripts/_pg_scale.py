"""bench_backends.py at scale: palace on Postgres at 100k–1M synthetic memories, and the
local backend at the same size as the baseline.

Per size, each phase timed on its own (so a size too big for the machine still
shows where the time goes):

1. the Markdown tree (``scripts/_synthetic.py`` memories rendered as the local
   backend writes them, plus its access journal), written once into --workdir;
2. ``palace import`` of that tree into a database on a kept embedded server
   (reused when it is already there), and a second, idempotent import;
3. clustered 384-d vectors for every content hash (made in the server: one of
   size/300 random centres plus noise, since real embeddings have neighbourhoods and
   uniform random vectors have none), the HNSW index build, and its recall@10
   against an exact scan, as a top-10 hybrid search asks it;
4. keyword and hybrid search p50/p95 (``scripts/_synthetic.py`` queries, a quarter
   with tag/room filters; hybrid with an instant embedder of queries near the centres);
5. store throughput with 1, 4 and 16 concurrent clients, each a process with its own
   manager and connection pool (the rows are removed afterwards);
6. ``palace export`` into a new folder, checked byte for byte against the tree.

The local baseline: the same tree copied into a workspace and indexed by ``palace
reindex`` (the local backend's bulk load: its files are the import), the same
searches, the same store throughput (its writers share one file lock), export.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
import json
import multiprocessing
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import _synthetic as syn  # noqa: E402

MODEL = "bench/clustered-384"
DIM = 384
CLUSTER_SIZE = 300   # memories per centre: a topic's worth of near neighbours
NOISE = 2.0          # each dimension moved by uniform(-1, 1) around N(0, 1) centres: cosine ~0.75 to its centre
# maintenance_work_mem: the HNSW build keeps its graph in it; at 1M x 384-d it needs
# ~4 GB, and a graph that no longer fits ("hnsw graph no longer fits into
# maintenance_work_mem") is built on disk, several times slower
# shared_buffers: the HNSW index must stay in it (1.9 GB at 1M x 384-d; with 1 GB every
# vector search read a third of its pages from the OS: hybrid p50 58 -> 45 ms at 1M)
SERVER_OPTIONS = {"shared_buffers": "4GB", "maintenance_work_mem": "6GB", "work_mem": "64MB",
                  "max_wal_size": "8GB", "checkpoint_timeout": "30min",
                  "max_parallel_maintenance_workers": "1"}


def say(text: str = "") -> None:
    print(text, flush=True)


def pct(values: list[float], p: float) -> float:
    data = sorted(values)
    k = (len(data) - 1) * p / 100.0
    lo, hi = int(k), min(int(k) + 1, len(data) - 1)
    return data[lo] + (data[hi] - data[lo]) * (k - lo)


def timed(label: str, fn: Callable[[], Any]) -> tuple[Any, float]:
    t0 = time.perf_counter()
    result = fn()
    seconds = time.perf_counter() - t0
    say(f"    {label}: {seconds:.1f} s")
    return result, seconds


# ---------------------------------------------------------------------- the tree


def memory_of(spec: syn.MemorySpec) -> Any:
    from palace.models import Memory

    return Memory(id=spec.id, content=spec.content, summary=spec.summary, tags=tuple(spec.tags),
                  importance=spec.importance, status="active", location=spec.location, type=spec.type,
                  source=spec.source, created_at=spec.created_at, updated_at=spec.created_at)


def build_tree(folder: Path, size: int, seed: int) -> float:
    """The Markdown tree the local backend would hold for these memories (reused)."""
    from palace.store.journal import access_line, journal_path
    from palace.store.files import render_memory

    marker = folder / ".bench-tree.json"
    if marker.exists() and json.loads(marker.read_text()) == {"size": size, "seed": seed,
                                                              "generator": syn.GENERATOR_VERSION}:
        say(f"    tree: reused {folder}")
        return 0.0
    shutil.rmtree(folder, ignore_errors=True)
    t0 = time.perf_counter()
    specs = syn.generate_memories(size, seed)
    made: set[Path] = set()
    for spec in specs:
        path = folder.joinpath(*spec.location.split("/"), f"{spec.id}.md")
        if path.parent not in made:
            path.parent.mkdir(parents=True, exist_ok=True)
            made.add(path.parent)
        path.write_text(render_memory(memory_of(spec)), encoding="utf-8")
    journal = journal_path(folder)
    journal.parent.mkdir(parents=True, exist_ok=True)
    journal.write_text("".join(access_line(ids, at, kind) for at, ids, kind in
                               syn.generate_access_events(specs, seed)), encoding="utf-8")
    marker.write_text(json.dumps({"size": size, "seed": seed, "generator": syn.GENERATOR_VERSION}))
    seconds = time.perf_counter() - t0
    say(f"    tree: {size:,} Markdown files written in {seconds:.1f} s")
    return seconds


def tree_digest(folder: Path) -> str:
    """One digest of every Markdown file's relative path and bytes, in path order (os
    calls, not pathlib: a million files each way)."""
    digest = hashlib.blake2b(digest_size=16)
    root = str(folder)
    paths = []
    for top, _dirs, files in os.walk(root):
        rel = os.path.relpath(top, root)
        paths += [name if rel == "." else f"{rel}/{name}" for name in files if name.endswith(".md")]
    paths.sort()
    for rel in paths:
        digest.update(rel.encode())
        with open(os.path.join(root, rel), "rb") as handle:
            digest.update(handle.read())
    return digest.hexdigest()


# ---------------------------------------------------------------------- searching


class RandomEmbedder:
    """Instant random unit vectors: search then costs only retrieval (as bench_scale.py)."""

    def __init__(self, seed: int = 1234):
        import numpy as np

        self._np, self._rng = np, np.random.default_rng(seed)
        self.name, self.dimension, self.max_chars = MODEL, DIM, 512
        self.status = "random vectors (benchmark)"

    def _unit(self, n: int) -> Any:
        v = self._rng.standard_normal((n, DIM)).astype(self._np.float32)
        return v / self._np.linalg.norm(v, axis=1, keepdims=True)

    def embed_documents(self, texts: Any) -> Any:
        return self._unit(len(texts))

    def embed_query(self, text: str) -> Any:
        return self._unit(1)[0]

    def available(self) -> bool:
        return True


class ClusteredEmbedder(RandomEmbedder):
    """Queries near the benchmark's centres, as the server makes the documents' vectors
    (``fill_clustered_vectors``): a query has true neighbours for HNSW to find."""

    def __init__(self, size: int, seed: int = 1234):
        import numpy as np

        super().__init__(seed)
        self.centres = np.random.default_rng(seed).standard_normal(
            (max(10, size // CLUSTER_SIZE), DIM)).astype(np.float32)
        self.status = "clustered random vectors (benchmark)"

    def _near(self, n: int) -> Any:
        picked = self.centres[self._rng.integers(0, len(self.centres), n)]
        v = picked + self._rng.uniform(-NOISE / 2, NOISE / 2, (n, DIM)).astype(self._np.float32)
        return v / self._np.linalg.norm(v, axis=1, keepdims=True)

    def embed_documents(self, texts: Any) -> Any:
        return self._near(len(texts))

    def embed_query(self, text: str) -> Any:
        return self._near(1)[0]


def fill_clustered_vectors(conn: Any, centres: Any) -> None:
    """One vector per content hash, in one transaction (a run killed in it leaves
    none): its centre (picked by the hash) plus uniform noise, made in the server."""
    with conn.transaction():
        conn.execute("CREATE TEMP TABLE bench_centres (id int PRIMARY KEY, c vector) ON COMMIT DROP")
        with conn.cursor() as cur:
            cur.executemany("INSERT INTO bench_centres VALUES (%s, %s::vector)",
                            [(i, "[" + ",".join(f"{x:.5f}" for x in c) + "]") for i, c in enumerate(centres)])
        conn.execute(
            "INSERT INTO vectors SELECT %s, h.content_hash, 0, c.c + (SELECT array_agg((random() - 0.5) * %s) "
            "FROM generate_series(1, %s) WHERE h.content_hash IS NOT NULL)::vector "
            "FROM (SELECT DISTINCT content_hash FROM memories) h "
            "JOIN bench_centres c ON c.id = abs(hashtext(h.content_hash)::bigint) %% %s",
            (MODEL, NOISE, DIM, len(centres)))


def hnsw_recall(pm: Any, vectors: Any, embedder: ClusteredEmbedder, queries: int = 30) -> tuple[float, float, float]:
    """Recall@10 of the vector leg as a top-10 hybrid search asks it (the best 50
    memories through the HNSW index) against an exact scan; both scans' p50 ms."""
    from palace.backends.postgres.vectors import _literal

    exact_sql = ("SELECT m.rid, MAX(1 - (v.vec <=> %s::vector)) AS sim FROM vectors v JOIN memories m "
                 "ON m.content_hash = v.content_hash WHERE v.model = %s AND m.status = 'active' "
                 "GROUP BY m.rid ORDER BY sim DESC, m.rid LIMIT 10")
    found, approx_ms, exact_ms = [], [], []
    for _ in range(queries):
        q = embedder.embed_query("")
        t0 = time.perf_counter()
        approx = vectors._approximate(MODEL, q, 50, ("active",))
        approx_ms.append((time.perf_counter() - t0) * 1000)
        top = sorted(approx, key=lambda r: (-approx[r], r))[:10]
        t0 = time.perf_counter()
        with pm.index.palace.connection() as conn, conn.transaction():
            conn.execute("SET LOCAL enable_indexscan = off")
            truth = [r["rid"] for r in conn.execute(exact_sql, (_literal(q), MODEL))]
        exact_ms.append((time.perf_counter() - t0) * 1000)
        found.append(len(set(top) & set(truth)) / max(1, len(truth)))
    return sum(found) / len(found), pct(approx_ms, 50), pct(exact_ms, 50)


def search_latencies(pm: Any, queries: list[syn.QuerySpec],
                     new_client: Callable[[], Any] | None = None) -> dict[str, float]:
    """p50/p95 of the queries: ``start``, the first pass of ``pm``, the process meeting
    each query's keyword lists for the first time and the server as the run found it
    (on Postgres just started: its buffers cold too); ``warm``, again, the lists kept
    (palace.backends.postgres.cache: a sidecar or MCP server after its first searches);
    ``cold``, the first pass of a ``new_client`` (a fresh manager) against the server
    now in use: what a one-shot CLI search meets on a team's running server."""
    def one_pass(client: Any, label: str) -> None:
        times, hits = [], 0
        for q in queries:
            t0 = time.perf_counter()
            found = client.search(q.text, top_k=10, tags=q.tags or None, location=q.location, record_access=False)
            times.append((time.perf_counter() - t0) * 1000)
            hits += bool(found)
        out.update({f"{label}_p50": pct(times, 50), f"{label}_p95": pct(times, 95), "hits": hits})

    for q in queries[:5]:  # warm: jieba, concept map (loaded once a process)
        pm.search(q.text, top_k=10, tags=q.tags or None, location=q.location, record_access=False)
    out: dict[str, float] = {}
    one_pass(pm, "start")
    one_pass(pm, "warm")
    if new_client is not None:
        with new_client() as fresh:
            one_pass(fresh, "cold")
    else:
        out.update(cold_p50=out["start_p50"], cold_p95=out["start_p95"])
    return out


# ---------------------------------------------------------------------- store throughput


def _client(settings: dict[str, Any], client: int, count: int, ready: Any, start: Any, done: Any,
            finish: Any) -> None:
    import random

    from palace import MemoryPalaceManager, Settings

    rng = random.Random(f"client-{client}")
    specs = syn.generate_memories(count, seed=1000 + client)
    if settings["backend"] == "postgres":  # the workspace is only a local cache there: one each
        settings = {**settings, "workspace_dir": f"{settings['workspace_dir']}-c{client}"}
    with MemoryPalaceManager(settings=Settings.from_env(**settings)) as pm:
        # The clock measures a writer that has been running a while: what its first stores
        # load once (jieba's dictionary for Chinese text, numpy for its first fold) is loaded
        # here. Left in the timed run, 16 clients loading them at once on 2 cores cost more
        # CPU than their stores did, and the one-client run paid it only once. Likewise its
        # server backend's: psycopg prepares a statement on its sixth run (prepare_threshold 5),
        # and a backend plans and caches what it first meets; 16 clients of 100 stores each
        # would pay that 16 times over a sixteenth of the stores.
        import numpy  # noqa: F401

        for n, spec in enumerate(syn.generate_memories(8, seed=9000 + client)):
            pm.store(f"{spec.content} [warm {client}.{n} {rng.random()}]", tags=[*spec.tags, "bench-throughput"],
                     location=spec.location, type=spec.type)
        ready.put(client)
        start.wait()
        t0, cpu0 = time.perf_counter(), time.process_time()
        for n, spec in enumerate(specs):
            pm.store(f"{spec.content} [bench {client}.{n}]", tags=[*spec.tags, "bench-throughput"],
                     location=spec.location, importance=spec.importance, type=spec.type,
                     created_at=spec.created_at)
        done.put((time.perf_counter() - t0, time.process_time() - cpu0))
        # closing the manager and exiting cost CPU: a client finished early waits, so its
        # exit never runs beside the stores still timed
        finish.wait()


@dataclass
class Throughput:
    """One throughput run: stores per second, and the CPU a store cost, in ms: in the
    client processes (their own clocks), in the server's processes (/proc, where the
    server runs on this machine; else None) and on the whole machine (/proc/stat). What
    is left is the rest of the machine's: this script, the kernel, other tenants of a
    shared machine (and, before clients waited out the clock, their exits: 7-12 % at 16
    clients). A run the rest took a large share of measured that, not the palace."""

    rate: float
    client_ms: float
    machine_ms: float
    server_ms: float | None = None

    def line(self) -> str:
        if self.server_ms is None:
            return (f"CPU per store: {self.machine_ms:.1f} ms on the machine, {self.client_ms:.1f} ms of it in "
                    f"the client, {self.machine_ms - self.client_ms:.1f} ms the server's and the rest")
        rest = self.machine_ms - self.client_ms - self.server_ms
        return (f"CPU per store: {self.machine_ms:.1f} ms on the machine: client {self.client_ms:.1f}, "
                f"server {self.server_ms:.1f}, the rest {rest:.1f} ({rest / self.machine_ms:.0%})")


def store_throughput(settings: dict[str, Any], clients: int, per_client: int,
                     sampler: "WaitSampler | None" = None) -> Throughput:
    """Memories stored per second by ``clients`` processes at once (each its own manager),
    and what a store cost in CPU; ``sampler`` watches the server's backends while the clock runs."""
    ctx = multiprocessing.get_context("spawn")
    ready, start, done, finish = ctx.Queue(), ctx.Event(), ctx.Queue(), ctx.Event()
    procs = [ctx.Process(target=_client, args=(settings, c, per_client, ready, start, done, finish))
             for c in range(clients)]
    for p in procs:
        p.start()
    for _ in procs:  # every client opened and warm (16 starting on 2 cores take a while)
        ready.get(timeout=300)
    time.sleep(1)  # ... and the machine quiet again before the clock starts
    if sampler is not None:
        sampler.begin()
    server = ServerClock(settings["database_url"]) if settings["backend"] == "postgres" else None
    t0, ticks0, server0 = time.perf_counter(), _cpu_ticks(), server.seconds() if server else None
    start.set()
    client_cpu = 0.0
    try:
        import queue

        waiting = len(procs)
        while waiting:  # a client that died (its traceback is above) fails the run, never hangs it
            try:
                client_cpu += done.get(timeout=5)[1]
                waiting -= 1
            except queue.Empty:
                if any(p.exitcode not in (None, 0) for p in procs):
                    raise RuntimeError("a store client died (its traceback is above)") from None
    finally:
        seconds, ticks1 = time.perf_counter() - t0, _cpu_ticks()
        server1 = server.seconds() if server else None
        if sampler is not None:
            sampler.end()
        finish.set()
    for p in procs:
        p.join()
    stores = clients * per_client
    machine_s = (ticks1[0] - ticks0[0]) / os.sysconf("SC_CLK_TCK")
    server_ms = (server1 - server0) * 1000 / stores if server0 is not None and server1 is not None else None
    return Throughput(stores / seconds, client_cpu * 1000 / stores, machine_s * 1000 / stores, server_ms)


class ServerClock:
    """The CPU seconds a Postgres server on this machine has used: its postmaster's own
    and reaped children's, and its live processes' (/proc). None where the server runs
    elsewhere or there is no /proc."""

    def __init__(self, database_url: str):
        import psycopg

        with psycopg.connect(database_url) as conn:  # read while the backend lives
            row = conn.execute("SELECT pg_backend_pid()").fetchone()
            stat = self._stat(row[0]) if row else None
        self.postmaster = stat[0] if stat else None

    @staticmethod
    def _stat(pid: int) -> tuple[int, int, int] | None:
        """(parent pid, own jiffies, reaped children's jiffies) of ``pid``."""
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            return None
        return int(fields[1]), int(fields[11]) + int(fields[12]), int(fields[13]) + int(fields[14])

    def seconds(self) -> float | None:
        own = self._stat(self.postmaster) if self.postmaster else None
        if own is None:
            return None
        jiffies = own[1] + own[2]
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                child = self._stat(int(entry.name))
                if child is not None and child[0] == self.postmaster:
                    jiffies += child[1]
        return jiffies / os.sysconf("SC_CLK_TCK")


def _cpu_ticks() -> tuple[int, int]:
    """(busy, total) jiffies of all cores since boot (/proc/stat), to tell how busy the
    machine was during a run; (0, 0) where there is no /proc."""
    try:
        fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    except OSError:
        return 0, 0
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    return sum(fields[:8]) - idle, sum(fields[:8])


class WaitSampler:
    """Samples ``pg_stat_activity`` for one database's client backends every ``every`` s
    while a throughput run goes, so the figure says where its time went: a backend that is
    ``active`` with no wait event is on the CPU; one waiting on ``Lock`` queues behind a
    row or transaction lock, ``LWLock`` on a server-internal lock (WAL insertion, buffer
    mapping), ``IO`` on a read or write; ``idle in transaction`` means the server waits
    for the client (its Python) in the middle of a transaction. Idle pooled connections
    are not counted. The machine's CPU use over the same span comes with it (/proc/stat)."""

    def __init__(self, admin_url: str, database: str, every: float = 0.02):
        self.admin_url, self.database, self.every = admin_url, database, every
        self._thread: Any = None
        self._stop: Any = None
        self.kinds: dict[str, int] = {}
        self.events: dict[str, int] = {}
        self.samples = 0
        self._ticks = (0, 0)
        self.cpu_busy = 0.0

    def begin(self) -> None:
        import threading

        self.kinds, self.events, self.samples = {}, {}, 0
        self._stop = threading.Event()
        self._ticks = _cpu_ticks()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        import psycopg

        from palace.backends.postgres.locks import WRITE_LOCK_KEY

        # the lock a backend waits for (pg_locks): an advisory one is the whole write lock
        # (pm.write_lock(), or a store whose text states facts: palace.manager.store) or one
        # memory's key (PgWriteLock.keyed); mode Share = a keyed writer's share of the write lock
        query = ("SELECT a.state, a.wait_event_type, a.wait_event, a.query, l.locktype, l.classid, l.objid, "
                 "l.objsubid, l.mode FROM pg_stat_activity a LEFT JOIN pg_locks l ON l.pid = a.pid "
                 "AND NOT l.granted WHERE a.datname = %s AND a.backend_type = 'client backend' "
                 "AND a.pid <> pg_backend_pid() AND a.state IN ('active', 'idle in transaction')")
        write_lock = (int(WRITE_LOCK_KEY) >> 32, int(WRITE_LOCK_KEY) & 0xFFFFFFFF, 1)
        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            while not self._stop.is_set():
                for state, kind, event, last, locktype, classid, objid, subid, mode in conn.execute(
                        query, (self.database,)).fetchall():
                    if state == "idle in transaction":  # after which statement the client kept it open
                        label = "client (idle in transaction)"
                        what = "idle in transaction after: " + " ".join(last.split())[:60]
                        self.events[what] = self.events.get(what, 0) + 1
                    else:
                        label = kind or "CPU"
                        if kind:
                            what = f"{kind}:{event}"
                            if locktype == "advisory":
                                which = ("the whole write lock" if (classid, objid, subid) == write_lock
                                         else "a memory's key")
                                what += f" ({which}, {mode})"
                            self.events[what] = self.events.get(what, 0) + 1
                    self.kinds[label] = self.kinds.get(label, 0) + 1
                self.samples += 1
                self._stop.wait(self.every)

    def end(self) -> None:
        self._stop.set()
        self._thread.join()
        busy0, total0 = self._ticks
        busy1, total1 = _cpu_ticks()
        self.cpu_busy = (busy1 - busy0) / (total1 - total0) if total1 > total0 else 0.0

    def figures(self) -> dict[str, Any]:
        seen = sum(self.kinds.values())
        return {"samples": self.samples, "busy_backends_mean": seen / self.samples if self.samples else 0.0,
                "share": {k: n / seen for k, n in sorted(self.kinds.items(), key=lambda kv: -kv[1])} if seen else {},
                "top_waits": dict(sorted(self.events.items(), key=lambda kv: -kv[1])[:8]),
                "machine_cpu_busy": self.cpu_busy}

    def line(self) -> str:
        f = self.figures()
        share = ", ".join(f"{k} {v:.0%}" for k, v in f["share"].items()) or "no busy backend seen"
        waits = ", ".join(f"{k} {n}" for k, n in f["top_waits"].items())
        return (f"server backends busy {f['busy_backends_mean']:.2f} on average ({f['samples']} samples): {share}"
                f"{'; top waits: ' + waits if waits else ''}; machine CPU {f['machine_cpu_busy']:.0%} busy")


def audit_throughput_rows(pm: Any, clients: int, per_client: int) -> tuple[int, int]:
    """(lost, duplicated) among what one throughput run's clients stored: every client's
    store n carries the marker ``[bench client.n]``, so each marker must be there once."""
    import re
    from collections import Counter

    from palace.index.database import Filters

    rows = pm.index.list_rows(Filters(statuses=("active", "archived"), tags=("bench-throughput",)))
    found = Counter(m.group(1) for r in rows for m in [re.search(r"\[bench (\d+\.\d+)\]$", r.content)] if m)
    wanted = {f"{c}.{n}" for c in range(clients) for n in range(per_client)}
    return len(wanted - set(found)), sum(k - 1 for k in found.values() if k > 1) + len(set(found) - wanted)


def remove_throughput_rows(pm: Any) -> None:
    """Drop what the throughput clients stored (so a reused palace stays the tree)."""
    from palace.index.database import Filters

    ids = [r.id for r in pm.index.list_rows(Filters(statuses=("active", "archived"), tags=("bench-throughput",)))]
    if getattr(pm, "backend", "local") == "postgres":
        from palace.backends.postgres.postings import delta_keys, fold_due

        with pm.index.palace.connection() as conn:
            conn.execute("DELETE FROM memories WHERE id = ANY(%s)", (ids,))
            # the deletes left a delta row for every term they held: folded here, untimed,
            # so the next run's writers do not pay for this run's cleanup
            fold_due(conn, delta_keys(conn))
    else:
        for memory_id in ids:
            pm.delete(memory_id)
        pm.empty_trash()


# ---------------------------------------------------------------------- one size


class Results:
    """One size's figures, written to ``results-<size>.json`` in the workdir as each phase
    is measured (with the time and the machine's load average then), so a run killed late
    keeps what it measured and a rerun with ``--resume`` skips the phases already there."""

    def __init__(self, workdir: Path, size: int, resume: bool):
        self.path = workdir / f"results-{size}.json"
        self.figures: dict[str, Any] = {"size": size}
        self.log: list[dict[str, Any]] = []
        if self.path.exists():
            kept = json.loads(self.path.read_text())
            self.log = kept.get("log", [])
            if resume:
                self.figures.update(kept.get("figures", {}))

    def has(self, *keys: str) -> bool:
        return all(k in self.figures for k in keys)

    def put(self, **figures: Any) -> None:
        self.figures.update(figures)
        self.log.append({"at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                         "loadavg": [round(v, 2) for v in os.getloadavg()], **figures})
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"figures": self.figures, "log": self.log}, indent=1))
        tmp.replace(self.path)

    def skipped(self, phase: str) -> None:
        say(f"    {phase}: measured by an earlier run (--resume; {self.path.name})")


def load_now() -> str:
    return "load average " + " / ".join(f"{v:.2f}" for v in os.getloadavg())


def fold_every_delta(pm: Any) -> None:
    """Fold every term's delta, untimed: searches are measured on the palace as an import
    or a quiet spell leaves it. The store phases leave every common word's delta just
    under its share (their cleanup folds only what is due), the worst case for a search:
    at 1M keyword p50 32-35 ms so, against 26-27 ms folded."""
    from palace.backends.postgres.postings import delta_keys, fold_term

    with pm.index.palace.connection() as conn:
        for key in delta_keys(conn):
            fold_term(conn, *key)


def latency_phase(results: Any, key: str, label: str, pm: Any, queries: list,
                  new_client: Callable[[], Any]) -> None:
    """Search p50/p95 over ``queries``, saved as ``<key>_p50``/``<key>_p95`` (lists kept),
    ``<key>_cold_*`` (a new client's first pass) and ``<key>_start_*`` (the run's first
    pass); skipped when an earlier run measured them (--resume)."""
    if results.has(f"{key}_p50"):
        results.skipped(label)
        return
    if getattr(pm, "backend", "local") == "postgres":
        fold_every_delta(pm)
    got = search_latencies(pm, queries, new_client)
    say(f"    {label}: p50 {got['warm_p50']:.1f} ms, p95 {got['warm_p95']:.1f} ms; a new client's first pass "
        f"(lists not yet kept) p50 {got['cold_p50']:.1f} ms, p95 {got['cold_p95']:.1f} ms; the run's first "
        f"pass (the server's buffers as the run found them) p50 {got['start_p50']:.1f} ms, p95 "
        f"{got['start_p95']:.1f} ms ({len(queries)} queries, {got['hits']:.0f} with results; {load_now()})")
    results.put(**{f"{key}_{part}": got[part] for part in ("warm_p50", "warm_p95", "cold_p50", "cold_p95",
                                                            "start_p50", "start_p95")},
                **{f"{key}_p50": got["warm_p50"], f"{key}_p95": got["warm_p95"]})


def run_size(size: int, args: Any, server: Any) -> dict[str, Any]:
    """Every phase at this size, cheapest and most wanted first (the HNSW build last):
    import, keyword search, store throughput, export, idempotent re-import, vectors and
    HNSW, hybrid search. Each figure is printed and saved the moment it is measured."""
    from palace import MemoryPalaceManager, Settings
    from palace.backends.postgres.vectors import PgVectors

    workdir = Path(args.workdir)
    results = Results(workdir, size, getattr(args, "resume", False))
    say(f"\n== {size:,} memories == ({load_now()}; figures saved to {results.path})")
    tree = workdir / f"tree-{size}"
    tree_s = build_tree(tree, size, args.seed)
    if tree_s:
        results.put(tree_s=tree_s)
    queries = syn.generate_queries(args.queries)

    name = f"bench_{size}"
    fresh = not server.has_database(name)
    url = server.create_database(name) if fresh else server.database_url(name)
    base = {"backend": "postgres", "database_url": url, "vector_enabled": False,
            "workspace_dir": str(workdir / f"pgws-{size}")}
    with MemoryPalaceManager(settings=Settings.from_env(**base)) as pm:
        if pm.count() < size:  # none, or a run killed mid-import: the import is idempotent
            report, seconds = timed(f"palace import ({size:,} memories, postings packed once)",
                                    lambda: pm.import_tree(tree))
            say(f"      written {len(report.written):,}, accesses {report.accesses:,} ({load_now()})")
            results.put(import_s=seconds, import_written=len(report.written))
        else:
            say("    palace import: database reused (already imported)")
        latency_phase(results, "kw", "keyword search", pm, queries,
                      lambda: MemoryPalaceManager(settings=Settings.from_env(**base)))

    # store throughput before the vectors: a size too big for the HNSW build in the time
    # at hand still gets every other figure (--no-hybrid)
    throughput_phase(results, base, args, server, name)
    with MemoryPalaceManager(settings=Settings.from_env(**base)) as pm:
        remove_throughput_rows(pm)
        if results.has("export_s"):
            results.skipped("palace export")
        else:
            export = workdir / f"export-{size}"
            shutil.rmtree(export, ignore_errors=True)
            _, seconds = timed("palace export", lambda: pm.export_tree(export))
            results.put(export_s=seconds)
            if args.verify:
                t0 = time.perf_counter()
                same = tree_digest(export) == tree_digest(tree)
                say(f"      export byte-identical to the tree: {same} (checked in {time.perf_counter() - t0:.0f} s)")
                results.put(export_identical=same)
            shutil.rmtree(export, ignore_errors=True)
        if args.no_reimport or results.has("reimport_s"):
            pass
        else:
            report, seconds = timed("palace import again (idempotent: nothing to write)",
                                    lambda: pm.import_tree(tree))
            assert not report.written, "a second import wrote memories"
            results.put(reimport_s=seconds)
    if args.no_hybrid:
        return results.figures
    with MemoryPalaceManager(settings=Settings.from_env(**{**base, "vector_enabled": True}),
                             embedder=(embedder := ClusteredEmbedder(size, args.seed))) as pm:
        vectors = PgVectors(pm.index.palace, None)
        with pm.index.palace.connection() as conn:
            have = conn.execute("SELECT COUNT(*) AS n FROM vectors WHERE model = %s", (MODEL,)).fetchone()["n"]
            if not have:  # one statement: a run killed in it leaves none, never some
                _, seconds = timed(f"clustered vectors for every content hash ({len(embedder.centres):,} "
                                   "centres, in the server)", lambda: fill_clustered_vectors(conn, embedder.centres))
                results.put(vectors_s=seconds)
            built = conn.execute("SELECT 1 FROM pg_indexes WHERE tablename = 'vectors' AND indexdef LIKE "
                                 "'%%USING hnsw%%' AND indexdef LIKE %s", (f"%{MODEL}%",)).fetchone()
        if built:
            vectors.ensure_hnsw(MODEL, DIM)
            say("    HNSW index: reused (built by an earlier run)")
        else:  # CREATE INDEX is one transaction: a run killed in it leaves no index
            say(f"    HNSW index build starting ({load_now()})")
            _, seconds = timed("HNSW index build (cosine)", lambda: vectors.ensure_hnsw(MODEL, DIM))
            results.put(hnsw_s=seconds)
        if not results.has("hnsw_recall"):
            recall, approx_p50, exact_p50 = hnsw_recall(pm, vectors, embedder)
            say(f"    HNSW recall@10 against an exact scan: {recall:.3f} (HNSW p50 {approx_p50:.1f} ms, "
                f"exact {exact_p50:.0f} ms: x{approx_p50 / exact_p50:.3f}; {load_now()})")
            results.put(hnsw_recall=recall, hnsw_p50=approx_p50, exact_p50=exact_p50)
        latency_phase(results, "hy", "hybrid search", pm, queries, lambda: MemoryPalaceManager(
            settings=Settings.from_env(**{**base, "vector_enabled": True}), embedder=embedder))
    return results.figures


def throughput_phase(results: Results, base: dict[str, Any], args: Any, server: Any, name: str) -> None:
    """Store throughput in rounds: each round runs one client, then each larger number of
    clients; one client runs once more at the end. This machine is shared, and the same
    run goes faster or slower from one minute to the next (one client stored 123-252/s
    on one palace within an hour), so a ratio to one client is the median rate over the
    rounds against one client's median (a run slowed by something else moves it little);
    beside it, each round's run against the one-client runs either side of it, as the
    spread. Every run is audited: none lost or doubled."""
    from palace import MemoryPalaceManager, Settings

    sampler = WaitSampler(server.url, name) if not getattr(args, "no_wait_sample", False) else None
    # graph extraction on (the default) or off: a store whose text states facts takes the
    # whole write lock (its supersession may retire other memories' facts), so "off" shows
    # what the per-memory locks allow without it
    modes = {"on": [True], "off": [False], "both": [True, False]}[getattr(args, "store_graph_extract", "on")]
    rounds = getattr(args, "store_rounds", 3)
    runs = [(r, c) for r in range(rounds) for c in args.clients] + ([(rounds, 1)] if 1 in args.clients else [])
    for extract in modes:
        suffix = "" if extract else "_noextract"
        for round_, clients in runs:
            key = f"store_{clients}{suffix}_r{round_}"
            label = f"store throughput, round {round_ + 1}, {clients:>2} clients{'' if extract else ', no extract'}"
            if results.has(key):
                results.skipped(label)
                continue
            per_client = max(20, args.stores // clients)
            run = store_throughput({**base, "graph_extract": extract}, clients, per_client, sampler)
            with MemoryPalaceManager(settings=Settings.from_env(**base)) as pm:
                lost, doubled = audit_throughput_rows(pm, clients, per_client)
                remove_throughput_rows(pm)
            say(f"    {label}: {run.rate:.0f} memories/s; {lost} lost, {doubled} duplicated of "
                f"{clients * per_client} ({load_now()})")
            say(f"      {run.line()}")
            if lost or doubled:
                raise SystemExit(f"store throughput with {clients} clients lost {lost} and duplicated {doubled} writes")
            extra = {}
            if sampler is not None:
                say(f"      {sampler.line()}")
                extra[f"{key}_waits"] = sampler.figures()
            results.put(**{key: run.rate}, **extra)
        results.put(**throughput_figures(results.figures, args.clients, rounds, suffix))


def throughput_figures(figures: dict[str, Any], clients: list[int], rounds: int, suffix: str) -> dict[str, Any]:
    """Each number of clients' median rate over its runs, and each larger number's ratio
    to one client (the medians'), with the rounds' own: round r's run against the mean of
    one client's runs in round r and after it."""
    import statistics

    out: dict[str, Any] = {}
    for c in clients:
        runs = rounds + 1 if c == 1 else rounds
        out[f"store_{c}{suffix}"] = statistics.median(figures[f"store_{c}{suffix}_r{r}"] for r in range(runs))
    if 1 in clients:
        ones = [figures[f"store_1{suffix}_r{r}"] for r in range(rounds + 1)]
        for c in (c for c in clients if c != 1):
            out[f"store_{c}{suffix}_ratio"] = out[f"store_{c}{suffix}"] / out[f"store_1{suffix}"]
            out[f"store_{c}{suffix}_ratios"] = [figures[f"store_{c}{suffix}_r{r}"] / ((ones[r] + ones[r + 1]) / 2)
                                                for r in range(rounds)]
    return out


def run_local(size: int, args: Any) -> dict[str, Any]:
    from palace import MemoryPalaceManager, Settings
    from palace.store.files import PALACE_SUBDIR

    workdir = Path(args.workdir)
    figures: dict[str, Any] = {"size": size}
    say(f"\n== local backend, {size:,} memories (baseline) ==")
    tree = workdir / f"tree-{size}"
    build_tree(tree, size, args.seed)
    ws = workdir / f"localws-{size}"
    marker = ws / ".bench-local.json"
    base = {"backend": "local", "vector_enabled": False, "workspace_dir": str(ws)}
    if not marker.exists():
        shutil.rmtree(ws, ignore_errors=True)
        shutil.copytree(tree, ws / PALACE_SUBDIR)
        with MemoryPalaceManager(settings=Settings.from_env(**base)) as pm:
            _, figures["import_s"] = timed("local bulk load: palace reindex of the copied tree",
                                           lambda: pm.reindex())
        marker.write_text("{}")
    queries = syn.generate_queries(args.queries)
    with MemoryPalaceManager(settings=Settings.from_env(**base)) as pm:
        export = workdir / f"localexport-{size}"
        shutil.rmtree(export, ignore_errors=True)
        _, figures["export_s"] = timed("palace export", lambda: pm.export_tree(export))
        shutil.rmtree(export, ignore_errors=True)
        got = search_latencies(pm, queries)
        figures["kw_p50"], figures["kw_p95"] = got["warm_p50"], got["warm_p95"]
        say(f"    keyword search: p50 {figures['kw_p50']:.1f} ms, p95 {figures['kw_p95']:.1f} ms")
    embedder = RandomEmbedder()
    with MemoryPalaceManager(settings=Settings.from_env(**{**base, "vector_enabled": True}),
                             embedder=embedder) as pm:
        import numpy as np

        hashes = [r[0] for r in pm.index.conn.execute("SELECT DISTINCT content_hash FROM memories")]
        have = pm.index.conn.execute("SELECT COUNT(*) FROM vectors WHERE model = ?", (MODEL,)).fetchone()[0]
        if have < len(hashes):
            rng = np.random.default_rng(args.seed)
            for start in range(0, len(hashes), 5000):
                chunk = hashes[start:start + 5000]
                vecs = rng.standard_normal((len(chunk), DIM)).astype(np.float32)
                pm.index.put_vectors(MODEL, [(h, 0, vecs[i]) for i, h in enumerate(chunk)])
        # as `palace reindex --vectors` leaves it: the graph built (or loaded) before searching,
        # not built in the background while the searches are timed
        pm.embed_pending()
        got = search_latencies(pm, queries)
        figures["hy_p50"], figures["hy_p95"] = got["warm_p50"], got["warm_p95"]
        say(f"    hybrid search: p50 {figures['hy_p50']:.1f} ms, p95 {figures['hy_p95']:.1f} ms")
    for clients in args.clients:
        rate = store_throughput(base, clients, max(20, args.stores // clients)).rate
        figures[f"store_{clients}"] = rate
        say(f"    store throughput, {clients:>2} clients: {rate:.0f} memories/s")
    with MemoryPalaceManager(settings=Settings.from_env(**base)) as pm:
        remove_throughput_rows(pm)
    return figures


def summary(results: list[dict[str, Any]], local: dict[str, Any] | None, clients: list[int]) -> None:
    say("\n== summary (Postgres; ratio = Postgres / local at the same size) ==")
    rows = [("keyword p50 ms", "kw_p50"), ("keyword p95 ms", "kw_p95"), ("hybrid p50 ms", "hy_p50"),
            ("hybrid p95 ms", "hy_p95"), *((f"store/s, {c} clients", f"store_{c}") for c in clients),
            *((f"store/s, {c}, no extract", f"store_{c}_noextract") for c in clients),
            ("import s", "import_s"), ("import again s", "reimport_s"), ("export s", "export_s"),
            ("HNSW build s", "hnsw_s")]
    say(f"  {'':<22}" + "".join(f"{r['size']:>14,}" for r in results) + ("   local " + f"{local['size']:,}"
                                                                        if local else ""))
    for label, key in rows:
        line = f"  {label:<22}" + "".join(f"{r[key]:>14.1f}" if key in r else f"{'-':>14}" for r in results)
        if local and key in local:
            same = next((r for r in results if r["size"] == local["size"] and key in r), None)
            ratio = f"  (x{same[key] / local[key]:.2f})" if same and local[key] else ""
            line += f"   {local[key]:>8.1f}{ratio}"
        say(line)
    for r in results:
        for c, suffix in ((c, s) for c in clients for s in ("", "_noextract")):
            waits = r.get(f"store_{c}{suffix}_r0_waits")  # the first round's
            if waits:
                share = ", ".join(f"{k} {v:.0%}" for k, v in waits["share"].items())
                say(f"  {r['size']:,}, {c:>2} clients{suffix and ' (no extract)'}, round 1: busy server backends "
                    f"{waits['busy_backends_mean']:.2f}: {share}; machine CPU {waits['machine_cpu_busy']:.0%}")
    say(f"  (this machine: {os.cpu_count()} CPUs, shared; p50/p95 over {len(results) and 'the query set'} "
        "with linear interpolation)")
    for r in results:
        targets(r)


# issue 29's targets at 1M: (label, measured, bound, at most?)
def targets(r: dict[str, Any]) -> None:
    checks = [("keyword p50 ms", r.get("kw_p50"), 30.0, True), ("keyword p95 ms", r.get("kw_p95"), 150.0, True),
              ("  a new client's first pass: keyword p50 ms", r.get("kw_cold_p50"), 30.0, True),
              ("  a new client's first pass: keyword p95 ms", r.get("kw_cold_p95"), 150.0, True),
              ("hybrid p50 ms", r.get("hy_p50"), 60.0, True), ("hybrid p95 ms", r.get("hy_p95"), 250.0, True),
              ("  a new client's first pass: hybrid p50 ms", r.get("hy_cold_p50"), 60.0, True),
              ("  a new client's first pass: hybrid p95 ms", r.get("hy_cold_p95"), 250.0, True),
              ("HNSW recall@10", r.get("hnsw_recall"), 0.95, False)]
    for c in (4, 16):
        ratios = r.get(f"store_{c}_ratios")
        if ratios:  # the medians' ratio (throughput_phase), the rounds' own range in the label
            checks.append((f"store/s {c} clients / 1 client (rounds {min(ratios):.2f}-{max(ratios):.2f})",
                           r[f"store_{c}_ratio"], 1.5, False))
    say(f"\n== targets at {r['size']:,} (issue 29's are set for 1M) ==")
    for label, value, bound, at_most in checks:
        if value is None:
            say(f"  {label:<46} not measured")
            continue
        ok = value <= bound if at_most else value >= bound
        say(f"  {label:<46} {value:>9.3f}  {'<=' if at_most else '>='} {bound:<6g} {'PASS' if ok else 'FAIL'}")
    for key, label in (("kw", "keyword"), ("hy", "hybrid")):  # no target: a server just started
        if f"{key}_start_p50" in r:
            say(f"  (the run's first {label} pass, the server's buffers as the run found them: p50 "
                f"{r[f'{key}_start_p50']:.1f} ms, p95 {r[f'{key}_start_p95']:.1f} ms)")
