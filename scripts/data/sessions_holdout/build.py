"""Writes the held-out session transcripts and questions.json from src/.

    python scripts/data/sessions_holdout/build.py

The transcripts go to projects/<slug of cwd>/<session id>.jsonl, the layout of
~/.claude/projects/. Questions name sessions by key (P1, D3, ...) in src/questions.py;
questions.json names them by session id. Rebuilding writes the same bytes.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "src"))

import dashboard  # noqa: E402
import etl  # noqa: E402
import logslice  # noqa: E402
import paygate  # noqa: E402
import questions  # noqa: E402
import wiki  # noqa: E402
from dsl import render, slug  # noqa: E402

SESSIONS = paygate.SESSIONS + dashboard.SESSIONS + etl.SESSIONS + logslice.SESSIONS + wiki.SESSIONS


def main() -> None:
    out = HERE / "projects"
    if out.exists():
        shutil.rmtree(out)
    ids: dict[str, str] = {}
    index = []
    for session in SESSIONS:
        sid, text = render(session)
        if session.key in ids:
            raise SystemExit(f"duplicate key {session.key}")
        ids[session.key] = sid
        path = out / slug(session.cwd) / f"{sid}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        first = json.loads(text.split("\n", 2)[1])["timestamp"]
        index.append({"session": sid, "key": session.key, "project": session.project,
                      "cwd": session.cwd, "lang": session.lang,
                      "started_local": session.start.replace(" ", "T") + ":00+08:00",
                      "started_utc": first, "file": str(path.relative_to(HERE))})

    def resolve(items: list[dict]) -> list[dict]:
        resolved = []
        for item in items:
            item = dict(item)
            item["relevant"] = [{"session": ids[r["session"]], "contains": r["contains"]}
                                for r in item["relevant"]]
            resolved.append(item)
        return resolved

    doc = {"description": questions.DESCRIPTION, "timezone": "Asia/Shanghai",
           "transcripts": "projects/ (Claude Code layout: projects/<slug>/<session id>.jsonl)",
           "queries": resolve(questions.QUERIES), "prompts": resolve(questions.PROMPTS),
           "sessions": index}
    (HERE / "questions.json").write_text(json.dumps(doc, ensure_ascii=False, indent=1) + "\n",
                                         encoding="utf-8")
    print(f"{len(SESSIONS)} sessions, {len(doc['queries'])} queries, {len(doc['prompts'])} prompts")


if __name__ == "__main__":
    main()
