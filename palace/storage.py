"""FileStorage: memories as Markdown files with YAML frontmatter — the source of truth.

Layout: ``{workspace}/memory/palace/<location>/<id>.md``; soft-deleted memories in
``.trash/<id>.md``. Folders starting with '.' belong to palace (trash, index,
journal) and are never scanned as rooms.

Parsing and rendering are pure functions so they can be tested on strings; the
class only adds paths and atomic file operations.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import unicodedata
from dataclasses import replace
from datetime import date, datetime, timedelta, tzinfo
from pathlib import Path
from typing import Any, BinaryIO, Callable, Iterator

import yaml

from .errors import InvalidInputError, MemoryFileError
from .models import MEMORY_STATUSES, Memory
from .validation import ID_PATTERN, normalize_location, parse_time

try:  # the C loader is ~10x faster; fall back to pure Python where libyaml is missing
    _YamlLoader: Any = yaml.CSafeLoader
except AttributeError:  # pragma: no cover
    _YamlLoader = yaml.SafeLoader

PALACE_SUBDIR = Path("memory") / "palace"
TRASH_DIR = ".trash"
SUMMARY_HEADING = "## Summary"
MAX_FILE_BYTES = 8 * 1024 * 1024

# Frontmatter keys palace owns, in the order they are written.
KNOWN_KEYS = ("id", "tags", "importance", "status", "pinned", "createdAt", "updatedAt",
              "source", "location", "type", "deletedAt", "noSummary")


# --------------------------------------------------------------------------- parsing

def split_frontmatter(text: str) -> tuple[dict[str, Any] | None, str]:
    """Return (frontmatter mapping or None when there is none, body)."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if not text.startswith("---"):
        return None, text
    match = re.match(r"^---[ \t]*\r?\n(.*?)(?:\r?\n)?^---[ \t]*(?:\r?\n|$)", text, re.S | re.M)
    if not match:
        raise ValueError("frontmatter starts with '---' but has no closing '---' line")
    raw = match.group(1)
    fast = _json_lines_frontmatter(raw)
    if fast is not None:
        return fast, text[match.end():]
    try:
        data = yaml.load(raw, Loader=_YamlLoader) if raw.strip() else {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 2}" if mark is not None else ""
        raise ValueError(f"frontmatter is not valid YAML{where}: {getattr(exc, 'problem', exc)}") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ValueError("frontmatter must be a mapping of keys to values")
    return data, text[match.end():]


_KEY_LINE = re.compile(r"^([A-Za-z_][A-Za-z0-9_-]*): (.+)$")


def _json_lines_frontmatter(raw: str) -> dict[str, Any] | None:
    """Palace writes every frontmatter value as JSON (valid YAML flow syntax), so its
    own files parse ~4x faster this way; anything else (hand-written YAML) → None."""
    data: dict[str, Any] = {}
    for line in raw.split("\n"):
        line = line.rstrip("\r")
        if not line.strip():
            continue
        match = _KEY_LINE.match(line)
        if not match:
            return None
        try:
            value = json.loads(match.group(2))
        except ValueError:
            return None
        if isinstance(value, dict):
            return None  # a YAML mapping may differ from JSON in corner cases
        data[match.group(1)] = value
    return data


def split_summary(body: str) -> tuple[str, str | None]:
    """The last ``## Summary`` section, when it is the final heading, is the summary."""
    lines = body.split("\n")
    for index in range(len(lines) - 1, -1, -1):
        line = lines[index].rstrip()
        if line.startswith("## ") or line.startswith("# "):
            if line == SUMMARY_HEADING:
                content = "\n".join(lines[:index]).strip("\n")
                summary = "\n".join(lines[index + 1:]).strip("\n")
                return content, (summary or None)
            break
    return body.strip("\n"), None


def _as_datetime(value: Any, key: str, tz: tzinfo) -> datetime | None:
    if value is None or value == "":
        return None
    return parse_time(value, tz=tz, what=key)


def _as_tags(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        items = re.split(r"[,，]", value)
    elif isinstance(value, (list, tuple)):
        items = list(value)
    else:
        raise ValueError(f"tags must be a list, got {type(value).__name__}")
    tags: dict[str, None] = {}
    for item in items:
        if item is None or isinstance(item, (dict, list)):
            raise ValueError(f"tag {item!r} is not a string")
        text = unicodedata.normalize("NFC", str(item)).strip()
        if text:
            tags.setdefault(text, None)
    return tuple(tags)


def _as_importance(value: Any) -> float:
    if value is None:
        return 0.5
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"importance {value!r} is not a number") from None
    if number != number:
        raise ValueError("importance is NaN")
    return min(1.0, max(0.0, number))


def _as_bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if value is None:
        return False
    if isinstance(value, str):
        return value.strip().lower() in {"1", "true", "yes", "on"}
    return bool(value)


def parse_memory(text: str, *, path: Path, location: str, fallback_time: datetime,
                 tz: tzinfo) -> Memory:
    """Turn a file's text into a ``Memory``. Raises ``ValueError`` with the reason.

    ``location`` comes from the folder the file lies in: a file moved by hand to
    another room belongs to that room. Frontmatter is optional, so a note written
    by hand with no frontmatter at all is still a memory (id = file name).
    """
    meta, body = split_frontmatter(text)
    meta = dict(meta or {})
    memory_id = meta.pop("id", None)
    memory_id = path.stem if memory_id in (None, "") else str(memory_id)
    if not ID_PATTERN.match(memory_id) or ".." in memory_id:
        raise ValueError(f"id {memory_id!r} is not a valid memory id")
    status = str(meta.pop("status", "active") or "active").strip().lower()
    if status not in MEMORY_STATUSES:
        raise ValueError(f"status {status!r} is not one of {', '.join(MEMORY_STATUSES)}")
    created = _as_datetime(meta.pop("createdAt", None), "createdAt", tz) or fallback_time
    updated = _as_datetime(meta.pop("updatedAt", None), "updatedAt", tz) or created
    deleted = meta.pop("deletedAt", None)
    if deleted is not None:
        meta["deletedAt"] = deleted  # only meaningful in the trash; keep verbatim
    if _as_bool(meta.pop("noSummary", False)):
        content, summary = body.strip("\n"), None
    else:
        content, summary = split_summary(body)
    meta.pop("location", None)  # the folder is the truth
    memory_type = str(meta.pop("type", "fact") or "fact").strip()
    source = str(meta.pop("source", "manual") or "manual").strip()
    return Memory(
        id=memory_id,
        content=content,
        summary=summary,
        tags=_as_tags(meta.pop("tags", None)),
        importance=_as_importance(meta.pop("importance", None)),
        status=status,
        location=location,
        type=memory_type,
        source=source,
        created_at=created,
        updated_at=updated,
        pinned=_as_bool(meta.pop("pinned", False)),
        extra=meta,
        path=path,
    )


def _yaml_scalar(value: Any) -> str:
    # JSON is valid YAML flow syntax, and keeps every string quoted: no 'yes'→True
    # or '010'→8 surprises when a person or another tool reads the file.
    return json.dumps(value, ensure_ascii=False)


def _extra_value(value: Any) -> str:
    if isinstance(value, (datetime, date)):
        return _yaml_scalar(value.isoformat())
    try:
        return _yaml_scalar(value)
    except TypeError:
        dumped = yaml.safe_dump(value, allow_unicode=True, default_flow_style=True, width=10**9)
        return dumped.strip().removesuffix("...").strip()


def render_memory(memory: Memory) -> str:
    """The Markdown text of a memory; ``parse_memory`` reads it back unchanged."""
    assert memory.created_at is not None and memory.updated_at is not None  # set by parse and store
    lines = ["---", f"id: {_yaml_scalar(memory.id)}", f"tags: {_yaml_scalar(list(memory.tags))}",
             f"importance: {_yaml_scalar(round(memory.importance, 4))}",
             f"status: {_yaml_scalar(memory.status)}"]
    if memory.pinned:
        lines.append("pinned: true")
    lines.append(f"createdAt: {_yaml_scalar(memory.created_at.isoformat())}")
    lines.append(f"updatedAt: {_yaml_scalar(memory.updated_at.isoformat())}")
    lines.append(f"source: {_yaml_scalar(memory.source)}")
    lines.append(f"location: {_yaml_scalar(memory.location)}")
    lines.append(f"type: {_yaml_scalar(memory.type)}")
    if not memory.summary and split_summary(memory.content)[1] is not None:
        # the content itself ends in a "## Summary" section: say it is content
        lines.append("noSummary: true")
    for key, value in memory.extra.items():
        if key in KNOWN_KEYS and key != "deletedAt":
            continue
        safe_key = key if re.match(r"^[A-Za-z_][A-Za-z0-9_-]*$", str(key)) else _yaml_scalar(str(key))
        lines.append(f"{safe_key}: {_extra_value(value)}")
    lines.append("---")
    lines.append("")
    lines.append(memory.content.strip("\n"))
    if memory.summary:
        lines.extend(["", SUMMARY_HEADING, "", memory.summary.strip("\n")])
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- files

def atomic_write(path: Path, data: str | bytes | Callable[[BinaryIO], object]) -> None:
    """Write via a temp file in the same folder, fsync, rename: never a half file.

    The one way palace writes a file it must not leave half-written: memories,
    the trash, the concept cache and the vector snapshots. ``data`` is text
    (written as UTF-8, ``\n`` line ends kept), bytes, or a function that writes
    into the open binary file (a large array, without a copy in memory)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.parent / f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
    try:
        with open(tmp, "wb") as handle:
            if callable(data):
                data(handle)
            else:
                handle.write(data.encode("utf-8") if isinstance(data, str) else data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


class WriteLock:
    """Serialises writers across processes (an agent and a person's CLI) with a lock
    file; re-entrant within a thread, so a write may call another write. ``filelock``
    uses ``fcntl`` on POSIX and ``msvcrt`` on Windows."""

    def __init__(self, path: Path):
        from filelock import FileLock

        path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = FileLock(str(path))

    def __enter__(self) -> "WriteLock":
        self._lock.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self._lock.release()


class FileStorage:
    """Paths and atomic file operations over one palace folder."""

    def __init__(self, workspace: Path, tz: tzinfo):
        self.workspace = Path(workspace)
        self.root = self.workspace / PALACE_SUBDIR
        self.trash = self.root / TRASH_DIR
        self.tz = tz

    def ensure(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)

    def path_for(self, location: str, memory_id: str) -> Path:
        return self.root.joinpath(*location.split("/"), f"{memory_id}.md")

    def relpath(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

    def location_of(self, relpath: str) -> str:
        parent = relpath.rsplit("/", 1)[0] if "/" in relpath else ""
        return parent or "general"

    def read(self, path: Path, *, location: str | None = None) -> Memory:
        """Parse one file. Raises ``MemoryFileError`` (path + reason) when it cannot."""
        return self.read_with_raw(path, location=location)[0]

    def read_with_raw(self, path: Path, *, location: str | None = None
                      ) -> tuple[Memory, bytes, os.stat_result]:
        """``read``, also handing back the bytes and stat it read (one read per file)."""
        try:
            stat = path.stat()
            if stat.st_size > MAX_FILE_BYTES:
                raise MemoryFileError(path, f"file is {stat.st_size} bytes, over the {MAX_FILE_BYTES}-byte limit")
            raw = path.read_bytes()
        except FileNotFoundError:
            raise MemoryFileError(path, "file does not exist") from None
        except OSError as exc:
            raise MemoryFileError(path, f"cannot read: {exc.strerror or exc}") from None
        if b"\x00" in raw:
            raise MemoryFileError(path, "file is binary (contains NUL bytes), not Markdown")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise MemoryFileError(path, f"not UTF-8 text (byte {exc.start})") from None
        if location is None:
            location = self.location_of(self.relpath(path))
        try:
            memory = parse_memory(text, path=path, location=location,
                                  fallback_time=datetime.fromtimestamp(stat.st_mtime, self.tz), tz=self.tz)
        except ValueError as exc:
            raise MemoryFileError(path, str(exc)) from None
        return memory, raw, stat

    def write(self, memory: Memory) -> Path:
        path = self.path_for(memory.location, memory.id)
        atomic_write(path, render_memory(memory))
        return path

    def remove_file(self, path: Path) -> None:
        try:
            path.unlink()
        except FileNotFoundError:
            pass
        self._prune_empty_dirs(path.parent)

    def _prune_empty_dirs(self, folder: Path) -> None:
        while folder != self.root and self.root in folder.parents:
            try:
                folder.rmdir()
            except OSError:
                return
            folder = folder.parent

    def scan(self) -> Iterator[tuple[str, int, int]]:
        """Every memory file as (relative path, mtime_ns, size); palace folders skipped."""
        if not self.root.exists():
            return
        prefix = len(str(self.root)) + 1
        stack = [str(self.root)]
        while stack:
            folder = stack.pop()
            try:
                entries = list(os.scandir(folder))
            except OSError:
                continue
            for entry in entries:
                if entry.name.startswith("."):
                    continue
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
                elif entry.name.endswith(".md") and entry.is_file(follow_symlinks=False):
                    try:
                        stat = entry.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    # string slicing, not pathlib: this runs once per file on every scan
                    yield entry.path[prefix:].replace(os.sep, "/"), stat.st_mtime_ns, stat.st_size

    def room_dirs(self) -> Iterator[tuple[str, int]]:
        """Every room folder (relative, '' for the root) with its mtime_ns."""
        if not self.root.exists():
            return
        stack = [self.root]
        while stack:
            folder = stack.pop()
            try:
                stat = folder.stat()
                entries = list(os.scandir(folder))
            except OSError:
                continue
            rel = "" if folder == self.root else folder.relative_to(self.root).as_posix()
            yield rel, stat.st_mtime_ns
            for entry in entries:
                if not entry.name.startswith(".") and entry.is_dir(follow_symlinks=False):
                    stack.append(Path(entry.path))

    def scan_folder(self, rel: str) -> Iterator[tuple[str, int, int]]:
        """Memory files directly inside one room folder."""
        folder = self.root / rel if rel else self.root
        try:
            entries = list(os.scandir(folder))
        except OSError:
            return
        for entry in entries:
            if entry.name.startswith(".") or not entry.name.endswith(".md"):
                continue
            if entry.is_file(follow_symlinks=False):
                try:
                    stat = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                yield (f"{rel}/{entry.name}" if rel else entry.name), stat.st_mtime_ns, stat.st_size

    # ------------------------------------------------------------------ trash

    def trash_path(self, memory_id: str) -> Path:
        return self.trash / f"{memory_id}.md"

    def move_to_trash(self, memory: Memory, deleted_at: datetime) -> Path:
        """Write the trashed copy first, then remove the original: a crash in between
        leaves two copies, never none."""
        extra = dict(memory.extra)
        extra["deletedAt"] = deleted_at.isoformat()
        trashed = replace(memory, status="deleted", extra=extra)
        target = self.trash_path(memory.id)
        atomic_write(target, render_memory(trashed))
        if memory.path is not None and memory.path != target:
            self.remove_file(memory.path)
        return target

    def read_trash(self, memory_id: str) -> Memory | None:
        path = self.trash_path(memory_id)
        if not path.exists():
            return None
        # location recorded in the frontmatter says where to restore it
        memory = self.read(path, location="general")
        meta, _ = split_frontmatter(path.read_text(encoding="utf-8"))
        location = (meta or {}).get("location") or "general"
        try:
            location = normalize_location(str(location))
        except InvalidInputError:
            location = "general"
        return replace(memory, location=location)

    def list_trash(self) -> tuple[list[Memory], list[MemoryFileError]]:
        memories: list[Memory] = []
        errors: list[MemoryFileError] = []
        if not self.trash.exists():
            return memories, errors
        for path in sorted(self.trash.glob("*.md")):
            try:
                memory = self.read_trash(path.stem)
            except MemoryFileError as exc:
                errors.append(exc)
                continue
            if memory is not None:
                memories.append(memory)
        return memories, errors

    def deleted_at(self, memory: Memory) -> datetime | None:
        try:
            return _as_datetime(memory.extra.get("deletedAt"), "deletedAt", self.tz)
        except ValueError:
            return None

    def empty_trash(self, *, older_than_days: float | None, now: datetime) -> list[str]:
        removed = []
        memories, errors = self.list_trash()
        for memory in memories:
            if older_than_days is not None:
                when = self.deleted_at(memory) or memory.updated_at
                if when is None or now - when < timedelta(days=older_than_days):
                    continue
            self.trash_path(memory.id).unlink(missing_ok=True)
            removed.append(memory.id)
        return removed
