"""Derive the relevance floors from measurement, on the tuning halves only.

Reads dumps written by ``scripts/bench_precision.py --dump`` and prints, per set
and configuration, on the *tuning* half (the check half is never looked at here):

- the cosine and keyword-coverage distributions of relevant results (answerable
  questions) and of the best result of unanswerable questions;
- per model (and query language, ``--language``: zh = a question with a Han character),
  the levels of palace.relevance's scale: ``strong`` = median cosine of relevant results,
  and two readings of ``noise``: the median cosine of the unrelated memories in the top
  10 of answerable questions, and the median best cosine of unanswerable questions (on
  near-miss sets, such as LoCoMo's adversarial questions, the second sits as high as an
  answer's);
- a grid of floors (keyword coverage × raw cosine): for each, the share of
  unanswerable questions left empty and the recall kept on answerable ones,
  over the sets given; the chosen floor is the one with the best recall among
  those leaving ≥ ``--target`` of unanswerable questions empty (else the one
  leaving the most empty).

    python scripts/calibrate_relevance.py /tmp/base_zhnew.json [/tmp/base_lme.json …]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_precision import score  # noqa: E402

from palace.text.tokenize import has_han  # noqa: E402


def quantiles(values: list[float]) -> str:
    if not values:
        return "(none)"
    values = sorted(values)
    pick = lambda q: values[min(len(values) - 1, int(q * (len(values) - 1) + 0.5))]  # noqa: E731
    return (f"n={len(values):>4} p10={pick(0.1):.3f} p25={pick(0.25):.3f} p50={pick(0.5):.3f} "
            f"p75={pick(0.75):.3f} p90={pick(0.9):.3f} max={values[-1]:.3f}")


def distributions(rows: list[dict], field: str) -> tuple[list[float], list[float], list[float]]:
    """(relevant results, irrelevant results of answerable questions, best result of
    each unanswerable question) values of ``field``."""
    relevant, irrelevant, unanswerable_best = [], [], []
    for row in rows:
        values = [(r["id"], r.get(field)) for r in row["results"] if r.get(field) is not None]
        if row["relevant"] is None:
            if values:
                unanswerable_best.append(max(v for _, v in values))
            continue
        wanted = set(row["relevant"])
        for doc_id, value in values:
            (relevant if doc_id in wanted else irrelevant).append(value)
    return relevant, irrelevant, unanswerable_best


def unrelated_in_top10(rows: list[dict], field: str) -> list[float]:
    """``field`` of the memories in each answerable question's top 10 (weak ones too)
    that do not answer it: what the model scores an unrelated text."""
    out = []
    for row in rows:
        if row["relevant"] is None:
            continue
        wanted = set(row["relevant"])
        out.extend(r[field] for r in row.get("all", row["results"])[:10]
                   if r.get(field) is not None and r["id"] not in wanted)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dumps", nargs="+", type=Path)
    parser.add_argument("--target", type=float, default=0.9, help="empty share wanted on unanswerable")
    parser.add_argument("--max-recall-loss", type=float,
                        help="instead of --target: the floor leaving the most unanswerable questions empty "
                             "among those losing at most this much recall (mean over sets)")
    parser.add_argument("--sets", help="only these sets (comma-separated) for the floor grid")
    parser.add_argument("--half", default="tune", choices=("tune", "check", "all"))
    parser.add_argument("--language", choices=("zh", "en", "all"), default="all",
                        help="only questions of this language (zh: any Han character, en: none)")
    args = parser.parse_args()
    data: dict[str, dict[str, list[dict]]] = {}
    for path in args.dumps:
        for set_name, by_config in json.loads(path.read_text(encoding="utf-8")).items():
            data.setdefault(set_name, {}).update(by_config)
    if args.sets:  # the held-out set must never reach the tuning
        data = {name: by for name, by in data.items() if name in args.sets.split(",")}
    def pick(rows: list[dict]) -> list[dict]:
        return [r for r in rows if args.half in ("all", r["half"])
                and args.language in ("all", "zh" if has_han(r["query"]) else "en")]

    configs = sorted({c for by in data.values() for c in by})
    for config in configs:
        print(f"\n=== {config} ({args.half} half)")
        pooled: dict[str, list[float]] = {}
        for set_name, by_config in data.items():
            if config not in by_config:
                continue
            rows = pick(by_config[config])
            for field in ("cosine", "coverage"):
                rel, irr, unb = distributions(rows, field)
                if not (rel or unb):
                    continue
                print(f"{set_name:<7}{field:<9} relevant     {quantiles(rel)}")
                print(f"{'':<16} irrelevant   {quantiles(irr)}")
                print(f"{'':<16} unans. best  {quantiles(unb)}")
                pooled.setdefault(f"{field}/rel", []).extend(rel)
                pooled.setdefault(f"{field}/top10", []).extend(unrelated_in_top10(rows, field))
                pooled.setdefault(f"{field}/unb", []).extend(unb)
        if pooled.get("cosine/rel") and pooled.get("cosine/unb"):
            print(f"scale: noise (median cosine, unrelated in a top 10) = "
                  f"{statistics.median(pooled['cosine/top10']):.3f}, strong (median cosine, relevant) = "
                  f"{statistics.median(pooled['cosine/rel']):.3f}; median best cosine, unanswerable = "
                  f"{statistics.median(pooled['cosine/unb']):.3f}")
        grid_sets = [s for s in (args.sets.split(",") if args.sets else data) if config in data.get(s, {})]
        if not grid_sets:
            continue
        print(f"floor grid over {','.join(grid_sets)} (empty share / recall per set; mean)")
        base = [score(pick(data[s][config]), s) for s in grid_sets]
        base_recall = statistics.mean(p["recall"] for p in base)
        best = None
        # cosine floors: every 2.5th percentile of the cosines seen (each model has its own range)
        seen = sorted(r["cosine"] for s in grid_sets for row in pick(data[s][config])
                      for r in row["results"] if r.get("cosine") is not None)
        cos_grid = [None] + sorted({round(seen[int(q / 40 * (len(seen) - 1))], 3) for q in range(41)} if seen else set())
        cov_grid = [round(0.05 * i, 2) for i in range(1, 21)] + [1.01]
        for cov_floor in cov_grid:
            for cos_floor in cos_grid if config != "keyword" else [None]:
                def floor(r, cf=cov_floor, vf=cos_floor):
                    if (r.get("coverage") or 0.0) >= cf:
                        return True
                    return vf is not None and r.get("cosine") is not None and r["cosine"] >= vf
                per_set = [score(pick(data[s][config]), s, floor) for s in grid_sets]
                empty = statistics.mean(p["empty"] for p in per_set if p["unanswerable"])
                recall = statistics.mean(p["recall"] for p in per_set)
                claimed = statistics.mean(p["claimed"] for p in per_set if p["unanswerable"])
                if args.max_recall_loss is not None:
                    ok = recall >= base_recall - args.max_recall_loss
                    key = (ok, empty if ok else recall, recall)
                else:
                    key = (empty >= args.target, recall if empty >= args.target else empty, recall)
                if best is None or key > best[0]:
                    best = (key, cov_floor, cos_floor, empty, claimed, recall, per_set)
        _, cov_floor, cos_floor, empty, claimed, recall, per_set = best
        detail = "; ".join(f"{s} {p['empty']:.2f}/{p['recall']:.3f}" for s, p in zip(grid_sets, per_set))
        print(f"chosen: coverage ≥ {cov_floor} or cosine ≥ {cos_floor}: empty {empty:.3f}, "
              f"claimed {claimed:.2f}, recall {recall:.3f} ({detail})")
        print("no floor: " + "; ".join(f"{s} {p['empty']:.2f}/{p['recall']:.3f}" for s, p in zip(grid_sets, base)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
