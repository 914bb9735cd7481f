"""Checks the held-out session set and prints its counts.

    python scripts/data/sessions_holdout/check.py

* every line of every transcript under projects/ parses as JSON, and each transcript hangs
  together the way Claude Code writes one (sessionId = file name, unique uuids, parentUuid
  pointing back, every tool_use answered by a tool_result, time never going backwards);
* every `relevant` entry of questions.json names a session that exists, started before the
  question's `now`, and has a user or assistant turn (a typed prompt or an assistant text
  block: not a tool result, not thinking) containing the `contains` string exactly;
* unanswerable queries and unrelated prompts name nothing;
* then counts per kind and language, for queries, prompts and sessions.

Exits 1 on any error. Written without palace: it reads the files as a stranger would.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from datetime import datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
META_PREFIXES = ("<command-name>", "<command-message>", "<local-command-stdout>",
                 "<local-command-stderr>", "Caveat: The messages below", "[Request interrupted")
QUERY_KINDS = {"keyword", "paraphrase", "concept", "crosslingual", "temporal", "multi", "unanswerable"}
PROMPT_KINDS = {"related", "unrelated"}
LANGS = {"zh", "en", "mixed"}


def parse_ts(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


class Transcript:
    def __init__(self, path: Path, errors: list[str]):
        self.path = path
        self.id = path.stem
        self.turns: list[str] = []          # typed prompts and assistant text blocks
        self.other_text: list[str] = []     # tool results, thinking: not turns
        self.start: datetime | None = None
        self.read(errors)

    def read(self, errors: list[str]) -> None:
        seen: set[str] = set()
        open_tools: set[str] = set()
        last: datetime | None = None
        where = str(self.path.relative_to(HERE))
        for number, raw in enumerate(self.path.read_text(encoding="utf-8").splitlines(), 1):
            try:
                line = json.loads(raw)
            except ValueError as exc:
                errors.append(f"{where}:{number}: not JSON ({exc})")
                continue
            kind = line.get("type")
            if "sessionId" in line and line["sessionId"] != self.id:
                errors.append(f"{where}:{number}: sessionId {line['sessionId']} is not the file name")
            if "uuid" in line:
                if line["uuid"] in seen:
                    errors.append(f"{where}:{number}: duplicate uuid")
                for key in ("parentUuid", "logicalParentUuid"):
                    if line.get(key) is not None and line[key] not in seen:
                        errors.append(f"{where}:{number}: {key} points to no earlier line")
                seen.add(line["uuid"])
            if "timestamp" in line and kind in ("user", "assistant", "system"):
                ts = parse_ts(line["timestamp"])
                if last is not None and ts < last:
                    errors.append(f"{where}:{number}: time goes backwards")
                last = ts
                self.start = self.start or ts
            if kind in ("user", "assistant"):
                message = line.get("message") or {}
                if message.get("role") != kind:
                    errors.append(f"{where}:{number}: message.role is not {kind}")
                self.read_message(kind, line, message.get("content"), open_tools)
        if open_tools:
            errors.append(f"{where}: tool_use without a tool_result: {sorted(open_tools)}")
        if not self.turns:
            errors.append(f"{where}: no turns")

    def read_message(self, kind: str, line: dict, content: object, open_tools: set[str]) -> None:
        meta = line.get("isMeta") or line.get("isCompactSummary")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        for block in content if isinstance(content, list) else []:
            btype = block.get("type")
            if btype == "text":
                text = block.get("text") or ""
                if meta or text.lstrip().startswith(META_PREFIXES):
                    self.other_text.append(text)
                else:
                    self.turns.append(text)
            elif btype == "tool_use":
                open_tools.add(block["id"])
            elif btype == "tool_result":
                open_tools.discard(block.get("tool_use_id"))
                self.other_text.append(json.dumps(block.get("content"), ensure_ascii=False))
            elif btype == "thinking":
                self.other_text.append(block.get("thinking") or "")


def check_items(items: list[dict], section: str, kinds: set[str], empty_kind: str,
                transcripts: dict[str, Transcript], errors: list[str], warnings: list[str]) -> None:
    ids: set[str] = set()
    for item in items:
        name = f"{section} {item.get('id')}"
        if item.get("id") in ids:
            errors.append(f"{name}: duplicate id")
        ids.add(item.get("id"))
        text = item.get("query") if section == "query" else item.get("prompt")
        if not text:
            errors.append(f"{name}: no text")
        if item.get("kind") not in kinds:
            errors.append(f"{name}: kind {item.get('kind')!r}")
        if item.get("lang") not in LANGS:
            errors.append(f"{name}: lang {item.get('lang')!r}")
        try:
            now = datetime.fromisoformat(item["now"])
            if now.tzinfo is None:
                errors.append(f"{name}: now has no offset")
        except (KeyError, ValueError):
            errors.append(f"{name}: bad now")
            continue
        relevant = item.get("relevant")
        if not isinstance(relevant, list):
            errors.append(f"{name}: relevant is not a list")
            continue
        if (item.get("kind") == empty_kind) != (not relevant):
            errors.append(f"{name}: a {item.get('kind')} item with {len(relevant)} relevant")
        for entry in relevant:
            transcript = transcripts.get(entry.get("session", ""))
            contains = entry.get("contains") or ""
            if transcript is None:
                errors.append(f"{name}: no session {entry.get('session')}")
                continue
            if transcript.start is None or transcript.start >= now:
                errors.append(f"{name}: session {transcript.id} starts after now")
            hits = [turn for turn in transcript.turns if contains in turn]
            if not contains or not hits:
                where = " (only outside the turns)" if any(contains in t for t in transcript.other_text) else ""
                errors.append(f"{name}: {contains!r} is in no turn of {transcript.id}{where}")
            elif len(hits) > 1:
                warnings.append(f"{name}: {contains!r} is in {len(hits)} turns of one session")
            others = [t.id for t in transcripts.values()
                      if t is not transcript and any(contains in turn for turn in t.turns)]
            if others:
                warnings.append(f"{name}: {contains!r} also in {len(others)} other session(s)")


def table(title: str, items: list[dict]) -> None:
    counts = Counter((item["kind"], item["lang"]) for item in items)
    kinds = sorted({kind for kind, _ in counts})
    print(f"\n{title} ({len(items)})")
    print(f"  {'kind':<14}{'zh':>5}{'en':>5}{'mixed':>7}{'all':>6}")
    for kind in kinds:
        row = [counts[(kind, lang)] for lang in ("zh", "en", "mixed")]
        print(f"  {kind:<14}{row[0]:>5}{row[1]:>5}{row[2]:>7}{sum(row):>6}")
    langs = Counter(item["lang"] for item in items)
    print(f"  {'all':<14}{langs['zh']:>5}{langs['en']:>5}{langs['mixed']:>7}{len(items):>6}")


def main() -> int:
    errors: list[str] = []
    warnings: list[str] = []
    files = sorted((HERE / "projects").rglob("*.jsonl"))
    transcripts = {path.stem: Transcript(path, errors) for path in files}
    doc = json.loads((HERE / "questions.json").read_text(encoding="utf-8"))
    if doc.get("timezone") != "Asia/Shanghai":
        errors.append("timezone is not Asia/Shanghai")
    check_items(doc["queries"], "query", QUERY_KINDS, "unanswerable", transcripts, errors, warnings)
    check_items(doc["prompts"], "prompt", PROMPT_KINDS, "unrelated", transcripts, errors, warnings)
    index = {entry["session"]: entry for entry in doc.get("sessions", [])}
    if set(index) != set(transcripts):
        errors.append("the sessions index of questions.json does not match the files")

    lines = sum(len(path.read_text(encoding="utf-8").splitlines()) for path in files)
    turns = [len(t.turns) for t in transcripts.values()]
    print(f"{len(files)} transcripts, {lines} lines, {min(turns)}-{max(turns)} turns a session "
          f"({sum(turns)} in all)")
    by_project = Counter(entry["project"] for entry in index.values())
    by_lang = Counter(entry["lang"] for entry in index.values())
    print("sessions by project: " + ", ".join(f"{k} {v}" for k, v in sorted(by_project.items())))
    print("sessions by language: " + ", ".join(f"{k} {v}" for k, v in sorted(by_lang.items())))
    days = Counter(entry["started_local"][:10] for entry in index.values())
    shared = sorted(day for day, n in days.items() if n > 1)
    print(f"local days with several sessions: {', '.join(shared)}")
    table("queries", doc["queries"])
    table("prompts", doc["prompts"])
    answerable = [q for q in doc["queries"] if q["relevant"]]
    print(f"\nanswerable queries {len(answerable)}, unanswerable {len(doc['queries']) - len(answerable)}; "
          f"relevant entries {sum(len(q['relevant']) for q in answerable)}")
    for warning in warnings:
        print("warning:", warning)
    for error in errors:
        print("ERROR:", error)
    print("OK" if not errors else f"{len(errors)} error(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
