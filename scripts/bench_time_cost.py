"""What one time parse costs on the search path: ``parse_time`` over every query of the case tables.

Search parses each query once (palace.time_reasoning.parse_time), so a rule added to the
lexicon costs every search, with or without a time in it.  This times the queries of all
the case tables (tests/data/time_cases*.yaml: with and without time expressions) after a
warm-up pass, ``--rounds`` times, keeps each query's fastest time (the least disturbed by
other load on a shared machine) and prints their mean, p50 and p95 in microseconds, per
table and for all queries.

    python scripts/bench_time_cost.py [--rounds 7]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from datetime import datetime
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def load_queries() -> dict[str, list[tuple[str, datetime]]]:
    tables = {}
    for path in sorted((ROOT / "tests" / "data").glob("time_cases*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        nows = {k: datetime.fromisoformat(v) for k, v in data["nows"].items()}
        tables[path.stem] = [(c["q"], nows[c.get("now", "A")]) for c in data["cases"]]
    return tables


def time_round(parse, queries: list[tuple[str, datetime]]) -> list[float]:
    seconds = []
    for query, now in queries:
        started = time.perf_counter()
        parse(query, now)
        seconds.append(time.perf_counter() - started)
    return seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args(argv)
    from palace.time_reasoning import parse_time

    tables = load_queries()
    tables["all"] = [q for name in list(tables) for q in tables[name]]
    print(f"{'table':<18} {'queries':>7} {'mean us':>8} {'p50 us':>8} {'p95 us':>8}")
    for name, queries in tables.items():
        time_round(parse_time, queries)  # warm-up: compiled rules, caches
        rounds = [time_round(parse_time, queries) for _ in range(args.rounds)]
        micros = sorted(min(times) * 1e6 for times in zip(*rounds))
        print(f"{name:<18} {len(queries):>7} {statistics.mean(micros):8.1f} "
              f"{statistics.median(micros):8.1f} {micros[int(0.95 * (len(micros) - 1))]:8.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
