#!/usr/bin/env python3
"""Crash test: SIGKILL a palace writer at random moments, many times, and check what it left.

    python scripts/crash_test.py --trials 200
    python scripts/crash_test.py --trials 50 --ops store,update,reindex

Each trial starts a writer process on one shared workspace that runs write operations
back to back (store, update, update moving rooms, delete, restore, empty_trash,
record_access, run_decay, reindex), printing a line before each operation and one
after it returns (the acknowledgement). The parent kills it with SIGKILL at a random
moment, then opens the palace again (the "next open") and checks:

* no corrupt or partial file: every memory file parses (pm.problems() is empty);
* no lost acknowledged write: each id is as its last acknowledged operation left it
  (the operation in flight at the kill may have happened or not, nothing else);
* no leftovers: no temp file, no memory both live and in the trash;
* the index agrees with the files.

Prints trials, kills inside an operation per kind, and failures; exits 1 on any.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "scripts")]

from stress import WORDS, _disk_state  # noqa: E402

OPS = ["store", "update", "move", "delete", "restore", "empty_trash", "access", "decay", "reindex"]
WEIGHTS = {"store": 5, "update": 4, "move": 2, "delete": 2, "restore": 2, "empty_trash": 0.3,
           "access": 1, "decay": 0.5, "reindex": 0.7}


def writer(workspace: str, seed: int, ops: list[str]) -> None:
    """The child: announce, do, acknowledge; forever (until killed)."""
    from palace.errors import PalaceError
    from palace.manager import MemoryPalaceManager

    rng = random.Random(seed)
    pm = MemoryPalaceManager(workspace)
    print(json.dumps({"ready": True}), flush=True)
    n = 0
    weights = [WEIGHTS[o] for o in ops]
    while True:
        n += 1
        live = [m.id for m in pm.list(status="all")]
        trash = [m.id for m in pm.list_trash()]
        op = rng.choices(ops, weights)[0]
        text = f"crash {seed}-{n} " + " ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 40)))
        if op in ("update", "move", "delete", "access") and not live or op == "restore" and not trash:
            op = "store"
        if op == "store":
            memory_id = f"c{seed}-{n}"
            intent = {memory_id: ["live", text]}
            call = lambda: pm.store(text, id=memory_id, location=rng.choice(["general", "a", "b/c"]))  # noqa: E731
        elif op in ("update", "move"):
            memory_id = rng.choice(live)
            intent = {memory_id: ["live", text]}
            fields = {"content": text}
            if op == "move":
                fields["location"] = rng.choice(["general", "a", "b/c", "d"])
            call = lambda: pm.update(memory_id, **fields)  # noqa: E731
        elif op == "delete":
            memory_id = rng.choice(live)
            intent = {memory_id: ["trash", None]}
            call = lambda: pm.delete(memory_id)  # noqa: E731
        elif op == "restore":
            memory_id = rng.choice(trash)
            intent = {memory_id: ["live", None]}
            call = lambda: pm.restore(memory_id)  # noqa: E731
        elif op == "empty_trash":
            intent = {memory_id: ["gone", None] for memory_id in trash}
            call = pm.empty_trash
        elif op == "access":
            intent = {}
            chosen = rng.sample(live, min(3, len(live)))
            call = lambda: pm.record_access(chosen)  # noqa: E731
        elif op == "decay":
            intent, call = {}, pm.run_decay
        else:
            intent, call = {}, pm.reindex
        print(json.dumps({"begin": op, "intent": intent}), flush=True)
        try:
            call()
        except PalaceError as exc:  # refused: reported, and then it must not have happened
            print(json.dumps({"failed": op, "error": str(exc)[:300]}), flush=True)
            continue
        print(json.dumps({"ack": op}), flush=True)


def run_trial(workspace: Path, seed: int, ops: list[str], max_delay: float,
              expected: dict[str, list], kills: Counter, refusals: list[str]) -> list[str]:
    proc = subprocess.Popen([sys.executable, __file__, "--child", str(workspace), "--seed", str(seed),
                             "--ops", ",".join(ops)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=dict(os.environ))
    first = proc.stdout.readline()
    if not first.startswith('{"ready"'):
        proc.kill()
        return [f"writer did not start: {first!r} {proc.stderr.read()[-2000:]}"]
    time.sleep(random.Random(seed).uniform(0, max_delay))
    proc.send_signal(signal.SIGKILL)
    # read through the same buffered stream as readline() above: communicate() would
    # read the raw pipe and miss lines that readline() had already buffered
    out = proc.stdout.read()
    err = proc.stderr.read()
    proc.wait(60)
    in_flight: dict[str, list] = {}
    in_flight_op = None
    for line in out.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue  # the last line may be cut by the kill
        if "begin" in event:
            in_flight, in_flight_op = event["intent"], event["begin"]
        elif "ack" in event:
            for memory_id, (where, text) in in_flight.items():
                _apply(expected, memory_id, where, text)
            in_flight, in_flight_op = {}, None
        elif "failed" in event:
            refusals.append(f"{event['failed']}: {event['error']}")
            in_flight, in_flight_op = {}, None
    if err.strip() and "Traceback" in err:
        return [f"writer crashed before the kill: {err[-1500:]}"]
    kills[in_flight_op or "between"] += 1
    problems = check(workspace, expected, in_flight)
    if problems and os.environ.get("CRASH_TEST_VERBOSE"):
        print("writer said:\n" + out[-3000:] + "\n" + err[-2000:])
    return problems


def _apply(expected: dict[str, list], memory_id: str, where: str, text: str | None) -> None:
    if where == "gone":
        expected.pop(memory_id, None)
        return
    previous = expected.get(memory_id)
    expected[memory_id] = [where, text if text is not None else (previous[1] if previous else None)]


def check(workspace: Path, expected: dict[str, list], in_flight: dict[str, list]) -> list[str]:
    from palace.manager import MemoryPalaceManager

    problems: list[str] = []
    pm = MemoryPalaceManager(workspace)  # the next open
    for rel, reason in pm.problems():
        problems.append(f"unreadable file after the kill: {rel}: {reason}")
    root = pm.root
    leftovers = [p for p in root.rglob("*") if p.is_file() and ".tmp" in p.name]
    problems += [f"leftover temp file: {p.relative_to(root)}" for p in leftovers]
    for memory_id, (where, text) in list(expected.items()):
        actual = _disk_state(root, memory_id)
        ok = [(where, text)]
        if memory_id in in_flight:
            alt_where, alt_text = in_flight[memory_id]
            ok.append((alt_where, alt_text if alt_text is not None else text) if alt_where != "gone" else None)
        got = None if actual is None else (actual[0], actual[1])
        if got not in ok:
            problems.append(f"{memory_id}: expected one of {[o if o is None else (o[0], (o[1] or '')[:30]) for o in ok]}, "
                            f"found {got if got is None else (got[0], got[1][:30])}")
        elif memory_id in in_flight and got != (where, text):  # the in-flight op happened: it is the truth now
            if got is None:
                expected.pop(memory_id)
            else:
                expected[memory_id] = list(got)
    for memory_id in in_flight:  # a store in flight that did happen
        if memory_id not in expected:
            actual = _disk_state(root, memory_id)
            if actual is not None:
                if actual[0] in ("both", "duplicate"):
                    problems.append(f"{memory_id}: {actual[0]} after the kill")
                expected[memory_id] = [actual[0], actual[1]]
    indexed = sorted(m.id for m in pm.list(status="all"))
    live_files = sorted(i for i, (where, _t) in expected.items() if where == "live")
    if indexed != live_files:
        problems.append(f"index disagrees with the files: only indexed {sorted(set(indexed) - set(live_files))[:5]}, "
                        f"only on disk {sorted(set(live_files) - set(indexed))[:5]}")
    pm.close()
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--ops", default=",".join(OPS))
    parser.add_argument("--max-delay", type=float, default=0.6, help="kill within this many seconds of ready")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workspace")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    os.environ.setdefault("MEMORY_VECTOR_ENABLED", "false")
    ops = [o.strip() for o in args.ops.split(",") if o.strip()]
    if args.child:
        writer(args.child, args.seed, ops)
        return 0
    workspace = Path(args.workspace or tempfile.mkdtemp(prefix="palace-crash-")) / "ws"
    expected: dict[str, list] = {}
    kills: Counter = Counter()
    failures: list[str] = []
    refusals: list[str] = []
    started = time.monotonic()
    for trial in range(args.trials):
        problems = run_trial(workspace, args.seed * 100_000 + trial, ops, args.max_delay, expected, kills, refusals)
        if problems:
            failures.append(f"trial {trial}: " + "; ".join(problems[:5]))
            print(failures[-1][:1000], flush=True)
    elapsed = time.monotonic() - started
    print(f"trials {args.trials} in {elapsed:.0f} s; memories at the end {len(expected)}; "
          f"killed inside: {dict(sorted(kills.items()))}")
    print(f"operations refused (a PalaceError; each must have changed nothing): {len(refusals)}")
    for line in refusals[:5]:
        print("  " + line)
    print(f"failed trials {len(failures)}")
    if failures:
        print(f"workspace kept for inspection: {workspace}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
