#!/usr/bin/env python3
"""Store throughput on a Postgres bench palace in pairs of runs (one client, then 16),
each with the keyword folds that fell in it: how many base parts were written and how
many postings they rewrote. The 16-client ratio on a 2-core machine moves from run to run
with those folds (docs/backends.md, round 5), so one run is not a figure: this takes several.

It measures the palace ``bench_backends.py --scale N --workdir DIR`` made and keeps
(the embedded server under DIR), with the same clients (``_pg_scale.store_throughput``);
every run is audited (none lost or doubled) and its rows removed afterwards.

    python scripts/bench_pg_writers.py --scale 1000000 --workdir /tmp/pg1m --pairs 3
    python scripts/bench_pg_writers.py --scale 1000000 --workdir /tmp/pg1m --pairs 2 --stores 4800
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _pg_scale as ps  # noqa: E402


def newest_version(pm: Any) -> int:
    with pm.index.palace.connection() as conn:
        return int(conn.execute("SELECT last_value AS v FROM posting_delta_seq").fetchone()["v"])


def folds_since(pm: Any, version: int) -> tuple[int, int]:
    """(base parts written, postings in them) since ``version``: a fold gives the part a new one."""
    with pm.index.palace.connection() as conn:
        row = conn.execute("SELECT COUNT(*) AS parts, COALESCE(SUM(n), 0) AS postings FROM term_postings "
                           "WHERE version > %s", (version,)).fetchone()
    return int(row["parts"]), int(row["postings"])


def main() -> int:
    from palace import MemoryPalaceManager, Settings
    from palace.backends.postgres.embedded import EmbeddedPostgres

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=int, required=True, help="the bench palace's size (bench_<N>)")
    parser.add_argument("--workdir", required=True, help="bench_backends.py's --workdir")
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--clients", default="1,16", help="the runs of one pair, in order")
    parser.add_argument("--stores", type=int, default=1600, help="stores per run (split over its clients)")
    args = parser.parse_args()
    workdir = Path(args.workdir)
    server = EmbeddedPostgres(workdir / "pg", options=ps.SERVER_OPTIONS).start()
    try:
        settings = {"backend": "postgres", "database_url": server.database_url(f"bench_{args.scale}"),
                    "vector_enabled": False, "workspace_dir": str(workdir / f"pgws-{args.scale}")}
        for pair in range(args.pairs):
            rates = {}
            for clients in (int(c) for c in args.clients.split(",")):
                with MemoryPalaceManager(settings=Settings.from_env(**settings)) as pm:
                    version = newest_version(pm)
                per_client = args.stores // clients
                run = ps.store_throughput({**settings, "graph_extract": True}, clients, per_client)
                with MemoryPalaceManager(settings=Settings.from_env(**settings)) as pm:
                    parts, postings = folds_since(pm, version)
                    lost, doubled = ps.audit_throughput_rows(pm, clients, per_client)
                    ps.remove_throughput_rows(pm)
                rates[clients] = run.rate
                ps.say(f"pair {pair}, {clients:>2} clients: {run.rate:.0f} stores/s; {parts} folds rewrote "
                       f"{postings:,} postings; {lost} lost, {doubled} doubled; {run.line()} ({ps.load_now()})")
                if lost or doubled:
                    raise SystemExit(f"{clients} clients lost {lost} and doubled {doubled} writes")
            first, *others = rates
            ps.say(f"pair {pair}: " + ", ".join(f"{c} / {first} clients {rates[c] / rates[first]:.2f}x" for c in others))
    finally:
        server.stop(keep=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
