"""The access journal: an append-only JSON-lines file beside the memories.

State that changes on every read (who was returned by which search, when) must
neither rewrite Markdown files nor live only in the index, which is a derived
cache that ``palace reindex`` throws away. So every access is one line appended
here, and the index folds the lines it has not seen yet.

Each line is written with a single ``write`` on an ``O_APPEND`` descriptor, which
the kernel serialises between processes: two agents appending at once never
interleave their lines.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

JOURNAL_DIR = ".journal"
ACCESS_FILE = "access.jsonl"


@dataclass(frozen=True)
class AccessEvent:
    at: datetime
    ids: tuple[str, ...]
    kind: str  # "search" | "get" | "context" | "experience" | …


def journal_path(palace_root: Path) -> Path:
    return palace_root / JOURNAL_DIR / ACCESS_FILE


def append_access(path: Path, ids: list[str] | tuple[str, ...], at: datetime, kind: str) -> None:
    if not ids:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    line = json.dumps({"at": at.isoformat(), "ids": list(ids), "kind": kind},
                      ensure_ascii=False, separators=(",", ":")) + "\n"
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line.encode("utf-8"))
    finally:
        os.close(fd)


def read_events(path: Path, offset: int) -> tuple[list[AccessEvent], int, int]:
    """Events after byte ``offset``: (events, new offset, lines skipped as unreadable).

    Only complete lines are consumed, so a line being written right now is read
    next time rather than half now. A garbled line (a crash mid-write, a bad hand
    edit) is skipped and counted, never fatal.
    """
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return [], 0, 0
    if size < offset:  # the journal was replaced or truncated: start over
        offset = 0
    if size == offset:
        return [], offset, 0
    with open(path, "rb") as handle:
        handle.seek(offset)
        data = handle.read(size - offset)
    end = data.rfind(b"\n")
    if end < 0:
        return [], offset, 0
    events: list[AccessEvent] = []
    skipped = 0
    for raw in data[: end + 1].splitlines():
        if not raw.strip():
            continue
        try:
            record = json.loads(raw)
            at = datetime.fromisoformat(record["at"])
            ids = tuple(str(i) for i in record["ids"])
            events.append(AccessEvent(at=at, ids=ids, kind=str(record.get("kind", "access"))))
        except (ValueError, KeyError, TypeError):
            skipped += 1
    return events, offset + end + 1, skipped
