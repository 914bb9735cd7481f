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
from datetime import datetime, timezone
from pathlib import Path

from palace.validation import ID_PATTERN, parse_time

JOURNAL_DIR = ".journal"
ACCESS_FILE = "access.jsonl"


@dataclass(frozen=True)
class AccessEvent:
    at: datetime
    ids: tuple[str, ...]
    kind: str  # "search" | "get" | "context" | "experience" | …


def journal_path(palace_root: Path) -> Path:
    return palace_root / JOURNAL_DIR / ACCESS_FILE


def access_line(ids: list[str] | tuple[str, ...], at: datetime, kind: str) -> str:
    """One journal line (what ``append_access`` appends)."""
    at = parse_time(at, tz=at.tzinfo or timezone.utc, what="access time")
    return json.dumps({"at": at.isoformat(), "ids": list(ids), "kind": kind},
                      ensure_ascii=False, separators=(",", ":")) + "\n"


def append_access(path: Path, ids: list[str] | tuple[str, ...], at: datetime, kind: str) -> None:
    if not ids:
        return
    # A time the next read could not use would poison every later read: refuse it here
    # (callers pass coerced times, so this is a last line of defence).
    line = access_line(ids, at, kind)
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
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
        event = _parse_line(raw)
        if event is None:
            skipped += 1
        else:
            events.append(event)
    return events, offset + end + 1, skipped


def _parse_line(raw: bytes) -> AccessEvent | None:
    """One journal line, or None when it is unusable: not JSON, a time outside the
    calendar range palace accepts (one such line once broke every read), ids that are
    not memory ids. Whatever is on disk, reading never raises."""
    try:
        record = json.loads(raw)
        if not isinstance(record, dict) or not isinstance(record.get("at"), str):
            return None
        at = parse_time(record["at"], tz=timezone.utc, what="access time")
        at.timestamp()  # in range by parse_time's bounds; this proves it
        ids = record.get("ids")
        if not isinstance(ids, list) or not all(isinstance(i, str) and ID_PATTERN.match(i) for i in ids):
            return None
        kind = record.get("kind", "access")
        return AccessEvent(at=at, ids=tuple(ids), kind=kind if isinstance(kind, str) else "access")
    except (ValueError, TypeError, OverflowError, OSError, RecursionError):
        return None
