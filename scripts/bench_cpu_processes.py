#!/usr/bin/env python3
"""What the machine gives N processes doing palace's own CPU work, with no I/O at all: the
control for bench_backends.py's store clients (docs/backends.md, "Why 16 clients...").

Each process extracts facts (``palace.graph.extract.with_extracted``) from the same
synthetic memories; all start together, and the run reports the work done per second and
the CPU each item cost (the processes' own clocks). On a machine whose cores scale, 2 or
more processes do about cores× the work of one at the same CPU per item.

    python scripts/bench_cpu_processes.py --processes 1,2,4,16
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))


def work(items: int, ready: Any, start: Any, done: Any) -> None:
    import _synthetic as syn

    from palace.graph.extract import with_extracted

    specs = syn.generate_memories(200, seed=5)
    with_extracted({}, specs[0].content, specs[0].tags)  # imports and caches warm
    ready.put(1)
    start.wait()
    t0, cpu0 = time.perf_counter(), time.process_time()
    for i in range(items):
        spec = specs[i % len(specs)]
        with_extracted({}, spec.content, spec.tags)
    done.put((time.perf_counter() - t0, time.process_time() - cpu0))


def run(processes: int, total: int) -> tuple[float, float]:
    """(items per second, CPU ms per item) for ``processes`` sharing ``total`` items."""
    ctx = multiprocessing.get_context("spawn")
    ready, start, done = ctx.Queue(), ctx.Event(), ctx.Queue()
    procs = [ctx.Process(target=work, args=(total // processes, ready, start, done)) for _ in range(processes)]
    for p in procs:
        p.start()
    for _ in procs:
        ready.get(timeout=300)
    time.sleep(1)
    t0 = time.perf_counter()
    start.set()
    cpu = sum(done.get(timeout=600)[1] for _ in procs)
    wall = time.perf_counter() - t0
    for p in procs:
        p.join()
    items = total // processes * processes
    return items / wall, cpu * 1000 / items


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--processes", default="1,2,4,16")
    parser.add_argument("--items", type=int, default=6400, help="items shared by the processes of one run")
    args = parser.parse_args()
    base = None
    for n in [int(p) for p in args.processes.split(",") if p]:
        rate, cpu = run(n, args.items)
        base = base or rate
        print(f"{n:>3} processes: {rate:7.0f} items/s ({rate / base:.2f}x one), CPU per item {cpu:.3f} ms", flush=True)


if __name__ == "__main__":
    main()
