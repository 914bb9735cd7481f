"""Why does palace rank a LongMemEval answer session where it does? (issue 11)

For the questions of one type and one half, runs palace (hybrid), BM25 alone and
vectors alone like ``bench_longmemeval.py`` and prints, per question: the rank of
the answer session under each, its BM25 score and cosine against the best
candidate's, the query words it matched, what time expression the query held,
and the length of the answer session against the haystack's median. Variants of
palace can be compared with ``--variant`` (a setting=value list).

    python scripts/diagnose_lme.py ../shared/bench/longmemeval_s_dev.json.gz \\
        --type single-session-preference --half tune --embed-cache /tmp/lme_minilm.pkl
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _bench_common import half_of, make_embedder, minilm_path, safe_id, settings_for  # noqa: E402
from bench_longmemeval import load, parse_date, session_text  # noqa: E402
from palace import MemoryPalaceManager  # noqa: E402


def parse_variant(text: str) -> dict:
    out = {}
    for item in filter(None, (text or "").split(",")):
        key, value = item.split("=", 1)
        out[key] = {"true": True, "false": False}.get(value, value)
        try:
            out[key] = float(value)
        except ValueError:
            pass
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("data")
    parser.add_argument("--type", default="single-session-preference")
    parser.add_argument("--half", default="tune", choices=("tune", "check", "all"))
    parser.add_argument("--model", default=minilm_path())
    parser.add_argument("--embed-cache")
    parser.add_argument("--variant", action="append", default=[],
                        help="extra palace configuration, e.g. time_reasoning_enabled=false")
    args = parser.parse_args()
    questions = [q for q in load(args.data) if q["question_type"] == args.type
                 and (args.half == "all" or half_of(q["question_id"]) == args.half)]
    embedder = make_embedder(args.model, args.embed_cache)
    variants = {"palace": {}, **{v: parse_variant(v) for v in args.variant}}
    for q in questions:
        answers = {safe_id(s) for s in q["answer_session_ids"]}
        now = parse_date(q["question_date"])
        docs, seen = [], set()
        for sid, turns, date in zip(q["haystack_session_ids"], q["haystack_sessions"], q["haystack_dates"]):
            if safe_id(sid) not in seen:
                seen.add(safe_id(sid))
                docs.append((safe_id(sid), session_text(turns) or "(empty session)", parse_date(date)))
        lengths = {d[0]: len(d[1]) for d in docs}
        print(f"\n{q['question_id']}: {q['question']!r}\n  answer {sorted(answers)}; answer length "
              f"{[lengths.get(a) for a in answers]} chars, haystack median {statistics.median(lengths.values()):.0f}")
        with tempfile.TemporaryDirectory(prefix="palace-diag-") as tmp:
            workspace = Path(tmp)
            with MemoryPalaceManager(workspace, settings=settings_for("bm25", workspace, args.model),
                                     embedder=None) as pm:
                for doc_id, content, created in docs:
                    pm.store(content, created_at=created, id=doc_id, location="sessions", source="benchmark")
            runs = [("bm25", settings_for("bm25", workspace, args.model), None),
                    ("vector", settings_for("vector", workspace, args.model), embedder)]
            runs += [(name, settings_for("palace", workspace, args.model, **tuning), embedder)
                     for name, tuning in variants.items()]
            for name, settings, emb in runs:
                with MemoryPalaceManager(workspace, settings=settings, embedder=emb) as pm:
                    if emb is not None:
                        pm.embed_pending()
                    results = pm.search(q["question"], top_k=50, now=now, record_access=False)
                ids = [r.memory.id for r in results]
                rank = min((ids.index(a) + 1 for a in answers if a in ids), default=None)
                best = results[0].explanation if results else None
                line = f"  {name:<28} answer rank {rank}"
                if rank:
                    ex = results[rank - 1].explanation
                    kw, vec = ex.retrievers.get("bm25", {}), ex.retrievers.get("vector", {})
                    bkw, bvec = best.retrievers.get("bm25", {}), best.retrievers.get("vector", {})
                    line += (f"; bm25 {kw.get('score')} (#{kw.get('rank')}, best {bkw.get('score')}) "
                             f"cos {vec.get('cosine')} (#{vec.get('rank')}, best {bvec.get('cosine')}) "
                             f"rel {ex.relevance} vs top {best.relevance}")
                    if name != "bm25" and name != "vector":
                        line += f"\n{'':<30}matched {list(ex.matched_terms)[:12]}"
                        if ex.time_range:
                            line += f"\n{'':<30}time {ex.time_range}"
                print(line)
                if name == "palace" and best is not None:
                    print(f"{'':<30}top {ids[:5]}; top matched {list(best.matched_terms)[:12]}")
    embedder.save()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
